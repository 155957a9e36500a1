// Paths below a tree: the entry at a path, the files below a directory, a tree's decoded
// entries. Trees are read (and kept) by the object database as raw trees (raw-tree.ts).

import type { ObjectDatabase } from './objects';
import type { TreeEntry } from './types';

/** Lookups kept per store before the memo starts over (each is a short key and one entry). */
const MAX_KEPT_LOOKUPS = 8192;

export class TreePaths {
  /** entryAt's answers by tree and path: a run asks for the same paths of the same trees
   * again and again (a context's root at the base and at new, once for the policy and once for
   * its evidence; a file under a folder it has just found), and a tree's bytes never change. */
  private readonly found = new Map<string, Promise<TreeEntry | null>>();

  constructor(private readonly objects: ObjectDatabase) {}

  /** The tree's entries, decoded (cached by oid as a raw tree). */
  async read(oid: string): Promise<TreeEntry[]> {
    return (await this.objects.readRawTree(oid)).entries();
  }

  /** The entry at an exact '/'-separated path below a tree, or null when absent. Paths are
   * compared with decoded names, exactly (case-sensitive, as git). Each answer is kept for the
   * store's life (a failed read is not: it is read, and fails, again); the entry is shared by
   * every caller that asks, so no caller changes it. */
  entryAt(treeOid: string, path: string): Promise<TreeEntry | null> {
    const parts = path.split('/').filter((p) => p !== '');
    if (parts.length === 0) return Promise.resolve(null);
    return this.lookup(treeOid, parts, parts.length);
  }

  /** The entry at the first `depth` parts below the tree, through the memo: a path's folder is
   * looked up (and kept) first, then the last name in it. */
  private lookup(treeOid: string, parts: string[], depth: number): Promise<TreeEntry | null> {
    const key = `${treeOid}\0${depth === parts.length ? parts.join('/') : parts.slice(0, depth).join('/')}`;
    let answer = this.found.get(key);
    if (answer === undefined) {
      answer = this.lookupUncached(treeOid, parts, depth);
      if (this.found.size >= MAX_KEPT_LOOKUPS) this.found.clear();
      this.found.set(key, answer);
      const kept = answer;
      kept.catch(() => {
        if (this.found.get(key) === kept) this.found.delete(key);
      });
    }
    return answer;
  }

  private async lookupUncached(treeOid: string, parts: string[], depth: number): Promise<TreeEntry | null> {
    let tree = treeOid;
    if (depth > 1) {
      const folder = await this.lookup(treeOid, parts, depth - 1);
      if (!folder || folder.kind !== 'tree') return null;
      tree = folder.oid;
    }
    return (await this.objects.readRawTree(tree)).find(parts[depth - 1]!);
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
