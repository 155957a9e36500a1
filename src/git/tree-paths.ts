// Paths below a tree: the entry at a path, the files below a directory, a tree's decoded
// entries. Trees are read (and kept) by the object database as raw trees (raw-tree.ts).

import type { ObjectDatabase } from './objects';
import type { TreeEntry } from './types';

export class TreePaths {
  constructor(private readonly objects: ObjectDatabase) {}

  /** The tree's entries, decoded (cached by oid as a raw tree). */
  async read(oid: string): Promise<TreeEntry[]> {
    return (await this.objects.readRawTree(oid)).entries();
  }

  /** The entry at an exact '/'-separated path below a tree, or null when absent. Paths are
   * compared with decoded names, exactly (case-sensitive, as git). */
  async entryAt(treeOid: string, path: string): Promise<TreeEntry | null> {
    const parts = path.split('/').filter((p) => p !== '');
    if (parts.length === 0) return null;
    let tree = treeOid;
    for (let i = 0; i < parts.length; i++) {
      const entry = (await this.objects.readRawTree(tree)).find(parts[i]!);
      if (!entry) return null;
      if (i === parts.length - 1) return entry;
      if (entry.kind !== 'tree') return null;
      tree = entry.oid;
    }
    return null;
  }

  /** Every non-tree entry below `dir` (recursively), with its full path, sorted by path.
   * [] when `dir` is absent or not a directory; `dir` '' means the whole tree. Gitlinks are
   * listed but never read. */
  async listFiles(treeOid: string, dir: string): Promise<{ path: string; entry: TreeEntry }[]> {
    const prefix = dir.split('/').filter((p) => p !== '').join('/');
    let start = treeOid;
    if (prefix !== '') {
      const at = await this.entryAt(treeOid, prefix);
      if (!at || at.kind !== 'tree') return [];
      start = at.oid;
    }
    const out: { path: string; entry: TreeEntry }[] = [];
    const visit = async (tree: string, base: string) => {
      for (const entry of await this.read(tree)) {
        const path = base === '' ? entry.name : `${base}/${entry.name}`;
        if (entry.kind === 'tree') await visit(entry.oid, path);
        else out.push({ path, entry });
      }
    };
    await visit(start, prefix);
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }
}
