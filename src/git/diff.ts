// Tree diffs: which paths differ between two trees, and which paths a commit touches.
//
// The compare is recursive and never descends into two subtrees with the same oid, so a
// one-file change deep in a large tree reads only the trees along its path. Entries are paired
// by their raw name bytes, never by decoded names.

import type { ObjectStore } from './store';
import { isUnsafeName } from './tree';
import type { ChangeKind, EntryKind, PathChange, TreeEntry } from './types';

type Side = { mode: string; kind: EntryKind; oid: string };

const side = (e: TreeEntry): Side => ({ mode: e.mode, kind: e.kind, oid: e.oid });
const isFileKind = (k: EntryKind) => k === 'file' || k === 'exec';

/** The tree an oid stands for: a tree as is, a commit's (or a tag's commit's) tree. */
async function treeOf(store: ObjectStore, oid: string | null): Promise<string | null> {
  if (oid === null) return null;
  if (store.isKnownTree(oid)) return oid;
  const found = await store.treeOrType(oid);
  if (typeof found === 'string') return (await store.readCommit(await store.peelToCommit(oid))).tree;
  return oid; // a tree, or absent: readTree reports the missing tree by name
}

/**
 * Every path that differs between tree `a` and tree `b` (null: the empty tree; a commit oid
 * stands for its tree), sorted by path:
 * - `add` / `delete`: the path exists on one side only (a whole directory is reported as
 *   each path beneath it);
 * - `modify`: same kind, different content (or a gitlink moved to another commit);
 * - `mode`: a regular file became executable or back (content may also differ);
 * - `type`: the kind changed between file/exec, symlink, gitlink and directory. When one side
 *   is a directory, the path itself is reported as `type` (with the tree on that side) and the
 *   paths beneath the directory are reported as added or deleted, each on its own.
 * Modes 100644 and 100664 are the same kind, as in git: only a content change shows.
 */
export async function diffTrees(store: ObjectStore, a: string | null, b: string | null): Promise<PathChange[]> {
  const out: PathChange[] = [];
  const ta = await treeOf(store, a);
  const tb = await treeOf(store, b);
  if (ta !== tb) await compareTrees(store, ta, tb, '', false, out);
  return out.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

async function compareTrees(
  store: ObjectStore,
  a: string | null,
  b: string | null,
  prefix: string,
  prefixUnsafe: boolean,
  out: PathChange[],
): Promise<void> {
  const ra = a !== null ? await store.readRawTree(a) : null;
  const rb = b !== null ? await store.readRawTree(b) : null;
  const before = new Map<string, TreeEntry>();
  const after = new Map<string, TreeEntry>();
  if (ra && rb && ra.ordered && rb.ordered) {
    // Both trees are in git's order with unique names: walk them side by side and skip every
    // entry whose bytes are identical on both sides (same name, mode and oid: unchanged);
    // only the rest is decoded and paired by name below.
    let i = 0;
    let j = 0;
    while (i < ra.length && j < rb.length) {
      if (ra.sameEntry(i, rb, j)) {
        i++;
        j++;
        continue;
      }
      const order = ra.compareOrder(i, rb, j);
      if (order <= 0) before.set(ra.nameKey(i), ra.entry(i++));
      if (order >= 0) after.set(rb.nameKey(j), rb.entry(j++));
    }
    for (; i < ra.length; i++) before.set(ra.nameKey(i), ra.entry(i));
    for (; j < rb.length; j++) after.set(rb.nameKey(j), rb.entry(j));
  } else {
    if (ra) for (let i = 0; i < ra.length; i++) before.set(ra.nameKey(i), ra.entry(i));
    if (rb) for (let j = 0; j < rb.length; j++) after.set(rb.nameKey(j), rb.entry(j));
  }
  const keys = new Set([...before.keys(), ...after.keys()]);
  for (const key of keys) {
    const ea = before.get(key);
    const eb = after.get(key);
    const entry = (ea ?? eb)!;
    if (ea && eb && ea.oid === eb.oid && ea.kind === eb.kind) continue;
    const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
    const unsafe = prefixUnsafe || isUnsafeName(entry.rawName);
    if (ea && eb && ea.kind === 'tree' && eb.kind === 'tree') {
      await compareTrees(store, ea.oid, eb.oid, path, unsafe, out);
      continue;
    }
    if (!eb) {
      if (ea!.kind === 'tree') await compareTrees(store, ea!.oid, null, path, unsafe, out);
      else out.push({ path, change: 'delete', before: side(ea!), unsafe });
      continue;
    }
    if (!ea) {
      if (eb.kind === 'tree') await compareTrees(store, null, eb.oid, path, unsafe, out);
      else out.push({ path, change: 'add', after: side(eb), unsafe });
      continue;
    }
    let change: ChangeKind;
    if (ea.kind === eb.kind) change = 'modify';
    else if (isFileKind(ea.kind) && isFileKind(eb.kind)) change = 'mode';
    else change = 'type';
    out.push({ path, change, before: side(ea), after: side(eb), unsafe });
    if (ea.kind === 'tree') await compareTrees(store, ea.oid, null, path, unsafe, out);
    if (eb.kind === 'tree') await compareTrees(store, null, eb.oid, path, unsafe, out);
  }
}

/**
 * The paths commit `commitOid` touches: against its parent; for a root commit (or a shallow
 * boundary) against the empty tree; for a merge, the paths that differ from every parent (as
 * `git diff-tree -c`), each reported with its change against the first parent. A rename is a
 * delete and an add. Sorted by path.
 */
export async function touchedPaths(store: ObjectStore, commitOid: string): Promise<PathChange[]> {
  const commit = await store.readCommitRecord(commitOid);
  const shallow = (await store.shallowCommits()).has(commit.oid);
  const parents = shallow ? [] : commit.parents;
  if (parents.length === 0) return diffTrees(store, null, commit.tree);
  const parentTrees: string[] = [];
  for (const p of parents) {
    if (!(await store.hasObject(p))) return diffTrees(store, null, commit.tree); // missing parent: a boundary
    parentTrees.push((await store.readCommitRecord(p)).tree);
  }
  const first = await diffTrees(store, parentTrees[0]!, commit.tree);
  if (parentTrees.length === 1) return first;
  let keep = new Set(first.map((c) => c.path));
  for (const tree of parentTrees.slice(1)) {
    if (keep.size === 0) break;
    const other = new Set((await diffTrees(store, tree, commit.tree)).map((c) => c.path));
    keep = new Set([...keep].filter((p) => other.has(p)));
  }
  return first.filter((c) => keep.has(c.path));
}
