// Tree diffs: which paths differ between two trees, and which paths a commit touches.
//
// The compare is recursive and never descends into two subtrees with the same oid, so a
// one-file change deep in a large tree reads only the trees along its path. Entries are paired
// by their raw name bytes, never by decoded names, one entry per name (the first copy, see
// src/git/raw-tree.ts), each with the mode a checkout gives it.
//
// Every tree read on the changed side (b) is also judged as git fsck judges it: an entry of a
// tree fsck objects to (a name listed twice, entries out of order, a bad mode, `.git`, ...) is
// reported as an unsafe change at that entry's path, with the fsck message id in
// `unsafeReason`, even when the entry itself did not change. A zero-padded mode (`040000`, as
// git 1.x wrote it) is only a warning to git, which reads the entry as the directory it is: it
// is read so here too (RawTree.unsafeProblems), and the paths below are judged as any others. Trees only on the old side are
// not judged: deleting a bad tree is how it gets fixed.

import type { Deadline } from '../deadline';
import type { RawTree, TreeProblem } from './raw-tree';
import type { ObjectStore } from './store';
import { isUnsafeName } from './tree';
import type { ChangeKind, CommitRecord, EntryKind, FsckId, PathChange, TreeEntry } from './types';

type Side = { mode: string; kind: EntryKind; oid: string };

const side = (e: TreeEntry): Side => ({ mode: e.mode, kind: e.kind, oid: e.oid });
const treeSide = (oid: string): Side => ({ mode: '40000', kind: 'tree', oid });
const isFileKind = (k: EntryKind) => k === 'file' || k === 'exec';

/** fsck messages about an entry's name: every path below such a directory is unsafe too. */
const NAME_PROBLEMS: ReadonlySet<FsckId> = new Set<FsckId>(['fullPathname', 'emptyName', 'hasDot', 'hasDotdot', 'hasDotgit']);

/** The tree an oid stands for: a tree as is, a commit's (or a tag's commit's) tree. Only after
 * the object database's `ready()`. */
function treeOf(store: ObjectStore, oid: string | null): string | null {
  if (oid === null) return null;
  if (store.objects.isKnownTree(oid)) return oid;
  // Read, not split: compareTrees splits it from the other side's tree.
  const type = store.objects.typeOrNullNow(oid);
  if (type !== null && type !== 'tree') return store.commits.recordNow(store.commits.peelToCommitNow(oid)).tree;
  if (type === 'tree') store.objects.noteTree(oid);
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
 * Modes are compared as a checkout reads them (100644, 100664 and 100600 are the same), as in
 * git: only a content change shows. Unsafe entries of `b` (see the top of this file) are
 * reported with `unsafe: true` even when unchanged; such a record may repeat a path.
 * `deadline.tick()` is called for every entry compared.
 */
export async function diffTrees(store: ObjectStore, a: string | null, b: string | null, deadline?: Deadline): Promise<PathChange[]> {
  return diffTreesWithin(store, a, b, null, deadline);
}

/**
 * diffTrees restricted to `only` (when not null): the records whose path is in it, with
 * every path that is not in it neither reported nor descended into. `only` must hold each
 * directory above a path it holds, so the compare can reach that path.
 */
async function diffTreesWithin(store: ObjectStore, a: string | null, b: string | null, only: ReadonlySet<string> | null, deadline?: Deadline): Promise<PathChange[]> {
  // The compare itself reads synchronously (one promise per diff, not one per tree).
  await store.objects.ready();
  return diffTreesWithinNow(store, a, b, only, deadline);
}

/** diffTreesWithin, synchronously: only after the object database's `ready()`. */
function diffTreesWithinNow(store: ObjectStore, a: string | null, b: string | null, only: ReadonlySet<string> | null, deadline?: Deadline): PathChange[] {
  const out: PathChange[] = [];
  const ta = treeOf(store, a);
  const tb = treeOf(store, b);
  if (ta !== tb) compareTrees({ store, out, deadline, only, onlyNames: only === null ? null : namesByDirectory(only) }, ta, tb, '', null, null);
  return out.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

interface Walk {
  store: ObjectStore;
  out: PathChange[];
  deadline: Deadline | undefined;
  /** The only paths (and the directories above them) to report; null: every path. */
  only: ReadonlySet<string> | null;
  /** `only` by directory: the names each directory's entries must have to be looked at. */
  onlyNames: ReadonlyMap<string, ReadonlySet<string>> | null;
}

const NO_NAMES: ReadonlySet<string> = new Set();

/** The names below each directory among `paths` ('' for the root). */
function namesByDirectory(paths: ReadonlySet<string>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const p of paths) {
    const at = p.lastIndexOf('/');
    const dir = at < 0 ? '' : p.slice(0, at);
    let names = out.get(dir);
    if (!names) out.set(dir, (names = new Set()));
    names.add(at < 0 ? p : p.slice(at + 1));
  }
  return out;
}

/** One entry of a tree being compared: its decoded form and its index in the RawTree. */
type Slot = { e: TreeEntry; i: number };

/** What git fsck says of one entry of b: each message id with the sentence saying why. */
type Flags = { id: FsckId; reason: string }[];

/** One level of the compare: the two trees at `prefix` and the entries to pair up. */
interface Level {
  ra: RawTree | null;
  rb: RawTree | null;
  prefix: string;
  /** The reason every path below is unsafe (a directory above has an unsafe name), or null. */
  inherited: string | null;
  /** The entries of a and of b that may differ, by raw name (first copy of a name). */
  before: Map<string, Slot>;
  after: Map<string, Slot>;
  /** The entries of b git fsck names, by index (null: none). */
  problems: Map<number, Flags> | null;
  /** a's entry of a name, looked up beyond `before` when needed (see oldEntry). */
  namesOfA: Map<string, number> | null;
}

/**
 * Compares tree `a` with tree `b` at `prefix`. `inherited` is the reason every path below is
 * unsafe (a directory above has an unsafe name), or null; `own` is how the path `prefix`
 * itself was reported by the caller (the side of `a` there), for a marker on this tree.
 */
function compareTrees(
  w: Walk,
  a: string | null,
  b: string | null,
  prefix: string,
  inherited: string | null,
  own: { before: Side | undefined } | null,
): void {
  // The two sides are usually one folder with a few entries changed: the side not split yet is
  // split from the other (the new side from the old, unless only the new one was read before,
  // as when a push's commits are diffed newest first).
  const objects = w.store.objects;
  let ra = a !== null ? objects.cachedRawTree(a) : null;
  let rb = b !== null ? objects.cachedRawTree(b) : null;
  if (a !== null && ra === null) ra = objects.readRawTreeNow(a, rb);
  if (b !== null && rb === null) rb = objects.readRawTreeNow(b, ra);
  if (ra === null || rb === null) {
    // A whole directory added or deleted, and nothing git fsck says of it to report: every
    // entry is a change, so none is paired or looked up by name.
    const t = (ra ?? rb)!;
    if (ra !== null || t.unsafeProblems.length === 0) {
      addedOrDeleted(w, t, ra === null, prefix, inherited);
      return;
    }
  }
  if (ra !== null && rb !== null && rb.unsafeProblems.length === 0) {
    const differing = rb.differingFrom(ra);
    if (differing !== null) {
      compareDiffering(w, { ra, rb, prefix, inherited, before: NO_SLOTS, after: NO_SLOTS, problems: null, namesOfA: null }, differing);
      return;
    }
  }
  const level: Level = { ra, rb, prefix, inherited, before: new Map(), after: new Map(), problems: null, namesOfA: null };
  collectDiffering(w, level);
  if (rb && rb.unsafeProblems.length > 0) {
    // What git fsck says about b, by entry; the entries it names are reported even unchanged.
    level.problems = problemsByEntry(rb, prefix);
    reportNotSorted(w, level, rb, own);
    addFlaggedEntries(level, rb);
  }
  const keys = [...level.before.keys()];
  for (const key of level.after.keys()) if (!level.before.has(key)) keys.push(key);
  for (const key of keys) {
    w.deadline?.tick();
    compareEntry(w, level, level.before.get(key), level.after.get(key));
  }
  if (level.problems) reportLaterCopies(w, level, rb!);
}

const NO_SLOTS: Map<string, Slot> = new Map();

/** The level's trees share their names and modes, entry by entry (RawTree.differingFrom, which
 * only trees fsck has nothing to say of share), and fsck has nothing to say of b: the entries at
 * `differing` are the ones whose oids differ, the same name at the same index on both sides, so
 * they are paired by index (what collectDiffering's ordered walk and the pairing by name would
 * do, without building either map). */
function compareDiffering(w: Walk, level: Level, differing: readonly number[]): void {
  const { ra, rb } = level;
  const wanted = w.onlyNames === null ? null : (w.onlyNames.get(level.prefix) ?? NO_NAMES);
  for (const k of differing) {
    w.deadline?.tick();
    if (!ra!.isFirstOfName(k)) continue;
    if (wanted !== null) {
      const name = ra!.name(k);
      if (!wanted.has(name) && !name.includes('/')) continue;
    }
    compareEntry(w, level, { e: ra!.entry(k), i: k }, { e: rb!.entry(k), i: k });
  }
}

/** Fills `before` and `after` with the entries of a and b that may differ (every entry, but
 * those an ordered walk finds byte-identical on both sides). */
function collectDiffering(w: Walk, level: Level): void {
  const { ra, rb, before, after } = level;
  const tick = () => w.deadline?.tick();
  // First copy of a name wins (see raw-tree.ts): a later copy never replaces it.
  const take = (map: Map<string, Slot>, t: RawTree, i: number) => {
    if (!t.isFirstOfName(i)) return;
    const key = t.nameKey(i);
    if (!map.has(key)) map.set(key, { e: t.entry(i), i });
  };
  // Restricted to `only`: an entry whose name is not wanted here is not decoded (a name holding
  // '/', which only a crafted tree has, is always looked at: its path splits differently).
  const wanted = w.onlyNames === null ? null : (w.onlyNames.get(level.prefix) ?? NO_NAMES);
  const admit = (t: RawTree, i: number) => {
    if (wanted === null) return true;
    const name = t.name(i);
    return wanted.has(name) || name.includes('/');
  };
  if (ra && rb && ra.ordered && rb.ordered) {
    // Both trees are in git's order with unique names: walk them side by side and skip every
    // entry whose bytes are identical on both sides (same name, mode and oid: unchanged);
    // only the rest is decoded and paired by name.
    let i = 0;
    let j = 0;
    while (i < ra.length && j < rb.length) {
      tick();
      const same = ra.sameRun(i, rb, j, Math.min(ra.length - i, rb.length - j));
      if (same > 0) {
        i += same;
        j += same;
        continue;
      }
      const order = ra.compareOrder(i, rb, j);
      if (order <= 0) {
        if (admit(ra, i)) take(before, ra, i);
        i++;
      }
      if (order >= 0) {
        if (admit(rb, j)) take(after, rb, j);
        j++;
      }
    }
    for (; i < ra.length; i++, tick()) if (admit(ra, i)) take(before, ra, i);
    for (; j < rb.length; j++, tick()) if (admit(rb, j)) take(after, rb, j);
  } else {
    if (ra) for (let i = 0; i < ra.length; i++, tick()) if (admit(ra, i)) take(before, ra, i);
    if (rb) for (let j = 0; j < rb.length; j++, tick()) if (admit(rb, j)) take(after, rb, j);
  }
}

/** treeNotSorted is about the whole tree: reported at the tree's own path; the root tree has
 * none, so there it is a flag on the entry out of order. */
function reportNotSorted(w: Walk, level: Level, rb: RawTree, own: { before: Side | undefined } | null): void {
  const notSorted = rb.unsafeProblems.find((p) => p.id === 'treeNotSorted');
  if (!notSorted) return;
  const { prefix, problems } = level;
  const reason = problemReason(rb, notSorted, prefix);
  if (prefix !== '') {
    const was = own?.before;
    w.out.push({ path: prefix, change: was ? (was.kind === 'tree' ? 'modify' : 'type') : 'add', ...(was ? { before: was } : {}), after: treeSide(rb.oid), unsafe: true, unsafeReason: reason });
  } else {
    problems!.set(notSorted.entry, [...(problems!.get(notSorted.entry) ?? []), { id: notSorted.id, reason }]);
  }
}

/** Entries fsck names are compared even when the walk skipped them as identical, so they
 * join `after`, with the old side's entry of that name in `before`. */
function addFlaggedEntries(level: Level, rb: RawTree): void {
  for (const j of level.problems!.keys()) {
    const key = rb.nameKey(j);
    if (!rb.isFirstOfName(j) || level.after.has(key)) continue;
    level.after.set(key, { e: rb.entry(j), i: j });
    const was = oldEntry(level, key);
    if (was) level.before.set(key, was);
  }
}

/** a's entry named `key` (raw name bytes), from `before` or else from one index of a's names,
 * built only when first needed. */
function oldEntry(level: Level, key: string): Slot | undefined {
  const { ra, before } = level;
  const hit = before.get(key);
  if (hit || !ra) return hit;
  if (!level.namesOfA) {
    const names = new Map<string, number>();
    for (let i = 0; i < ra.length; i++) if (ra.isFirstOfName(i) && !names.has(ra.nameKey(i))) names.set(ra.nameKey(i), i);
    level.namesOfA = names;
  }
  const i = level.namesOfA.get(key);
  return i === undefined ? undefined : { e: ra.entry(i), i };
}

/** One record: `reason` null for a safe path. Its keys in one order (path, change, before,
 * after, unsafe, unsafeReason), each side only when present. */
function pathChange(path: string, change: ChangeKind, before: Side | undefined, after: Side | undefined, reason: string | null): PathChange {
  const unsafe = reason !== null;
  const c: PathChange = before
    ? after
      ? { path, change, before, after, unsafe }
      : { path, change, before, unsafe }
    : after
      ? { path, change, after, unsafe }
      : { path, change, unsafe };
  if (reason !== null) c.unsafeReason = reason;
  return c;
}

/** Reports the entry of one name, a's (`sa`) against b's (`sb`), descending into directories. */
function compareEntry(w: Walk, level: Level, sa: Slot | undefined, sb: Slot | undefined): void {
  const { prefix, inherited, problems } = level;
  const ea = sa?.e;
  const eb = sb?.e;
  const entry = (ea ?? eb)!;
  const path = prefix === '' ? entry.name : `${prefix}/${entry.name}`;
  if (w.only !== null && !w.only.has(path)) return;
  const flagged = sb && problems ? problems.get(sb.i) : undefined;
  const fsckReason = flagged ? flagged.map((f) => f.reason).join('; ') : null;
  const fsckNameReason = flagged?.find((f) => NAME_PROBLEMS.has(f.id))?.reason ?? null;
  // The path is unsafe for its name (or a name above it) or for what fsck says of the entry;
  // the paths below a directory only for a name, not for the directory's mode.
  const nameReason = inherited ?? fsckNameReason ?? (isUnsafeName(entry.rawName) ? unsafeNameReason(entry.name) : null);
  const reason = inherited ?? fsckReason ?? nameReason;
  const out = w.out;
  const below = nameReason;
  if (ea && eb && ea.oid === eb.oid && ea.kind === eb.kind && ea.mode === eb.mode) {
    if (flagged) out.push(pathChange(path, 'modify', side(ea), side(eb), reason));
    return;
  }
  if (ea && eb && ea.kind === 'tree' && eb.kind === 'tree') {
    compareTrees(w, ea.oid, eb.oid, path, below, { before: side(ea) });
    if (flagged) out.push(pathChange(path, 'modify', side(ea), side(eb), reason));
    return;
  }
  if (!eb) {
    if (ea!.kind === 'tree') compareTrees(w, ea!.oid, null, path, nameReason, null);
    else out.push(pathChange(path, 'delete', side(ea!), undefined, reason));
    return;
  }
  if (!ea) {
    if (eb.kind === 'tree') {
      compareTrees(w, null, eb.oid, path, below, { before: undefined });
      if (flagged) out.push(pathChange(path, 'add', undefined, side(eb), reason));
    } else {
      out.push(pathChange(path, 'add', undefined, side(eb), reason));
    }
    return;
  }
  out.push(pathChange(path, changeKind(ea, eb), side(ea), side(eb), reason));
  if (ea.kind === 'tree') compareTrees(w, ea.oid, null, path, nameReason, null);
  if (eb.kind === 'tree') compareTrees(w, null, eb.oid, path, below, { before: side(ea) });
}

/** Later copies of a name in b (a duplicateEntries tree, or any other problem on a copy):
 * reported against the entry the old side has at that name. */
function reportLaterCopies(w: Walk, level: Level, rb: RawTree): void {
  const { prefix, inherited } = level;
  for (const [j, reasons] of level.problems!) {
    if (rb.isFirstOfName(j)) continue;
    const eb = rb.entry(j);
    const path = prefix === '' ? eb.name : `${prefix}/${eb.name}`;
    if (w.only !== null && !w.only.has(path)) continue;
    const ea = oldEntry(level, rb.nameKey(j))?.e;
    const unsafeReason = inherited ?? reasons.map((r) => r.reason).join('; ');
    const c: PathChange = ea
      ? { path, change: changeKind(ea, eb), before: side(ea), after: side(eb), unsafe: true, unsafeReason }
      : { path, change: 'add', after: side(eb), unsafe: true, unsafeReason };
    w.out.push(c);
  }
}

/** Every path below tree `t`, added (`added`) or deleted, for a tree git fsck has nothing to
 * say about (or one on the old side, which is not judged). */
function addedOrDeleted(w: Walk, t: RawTree, added: boolean, prefix: string, inherited: string | null): void {
  const out = w.out;
  for (let i = 0; i < t.length; i++) {
    w.deadline?.tick();
    if (!t.isFirstOfName(i)) continue;
    const name = t.name(i);
    const path = prefix === '' ? name : `${prefix}/${name}`;
    if (w.only !== null && !w.only.has(path)) continue;
    const reason = inherited ?? (t.hasUnsafeName(i) ? unsafeNameReason(name) : null);
    const s = t.side(i);
    if (s.kind === 'tree') {
      compareTrees(w, added ? null : s.oid, added ? s.oid : null, path, reason, added ? { before: undefined } : null);
      continue;
    }
    const c: PathChange = added ? { path, change: 'add', after: s, unsafe: reason !== null } : { path, change: 'delete', before: s, unsafe: reason !== null };
    if (reason !== null) c.unsafeReason = reason;
    out.push(c);
  }
}

function changeKind(ea: TreeEntry, eb: TreeEntry): ChangeKind {
  if (ea.kind === eb.kind) return 'modify';
  if (isFileKind(ea.kind) && isFileKind(eb.kind)) return 'mode';
  return 'type';
}

/** The entries of `t` git fsck names (treeNotSorted aside: it is about the whole tree), each
 * with its message ids and the sentences saying why. */
function problemsByEntry(t: RawTree, prefix: string): Map<number, Flags> {
  const out = new Map<number, Flags>();
  for (const p of t.unsafeProblems) {
    if (p.id === 'treeNotSorted') continue;
    const list = out.get(p.entry) ?? [];
    list.push({ id: p.id, reason: problemReason(t, p, prefix) });
    out.set(p.entry, list);
  }
  return out;
}

/** A name as it appears in a sentence: in single quotes, or as a JSON string when it holds a
 * quote, a backslash or a control character (so no byte of a name can start a line). */
function quoted(name: string): string {
  return /['\\\u0000-\u001f\u007f-\u009f]/.test(name) ? JSON.stringify(name) : `'${name}'`;
}

function unsafeNameReason(name: string): string {
  return `the tree has an entry named ${quoted(name)}, which no checkout can write safely (.git in some spelling, '.', '..', empty, or holding '\\' or NUL)`;
}

/** One sentence per fsck message, naming the entry, the tree and git fsck's id. */
function problemReason(t: RawTree, p: TreeProblem, prefix: string): string {
  const e = t.entry(p.entry);
  const name = quoted(e.name);
  const tree = prefix === '' ? 'the root tree' : `the tree ${quoted(prefix)}`;
  const id = `(git fsck: ${p.id})`;
  switch (p.id) {
    case 'duplicateEntries':
      return `${tree} lists ${name} twice ${id}`;
    case 'treeNotSorted':
      return `${tree} lists ${name} after ${quoted(t.entry(p.entry - 1).name)}, out of git's order ${id}`;
    case 'badFilemode':
      return `${name} in ${tree} has mode ${t.rawMode(p.entry)}, which git does not write (a checkout reads it as ${e.mode}) ${id}`;
    case 'zeroPaddedFilemode':
      return `${name} in ${tree} has the zero-padded mode ${t.rawMode(p.entry)} ${id}`;
    case 'nullSha1':
      return `${name} in ${tree} points to the null object id ${id}`;
    case 'fullPathname':
      return `${tree} has an entry named ${name}, which holds '/' ${id}`;
    case 'emptyName':
      return `${tree} has an entry with an empty name ${id}`;
    case 'hasDot':
    case 'hasDotdot':
      return `${tree} has an entry named ${name} ${id}`;
    case 'hasDotgit':
      return `${tree} has an entry named ${name}, which a checkout on some filesystem reads as .git ${id}`;
    case 'gitmodulesSymlink':
    case 'gitattributesSymlink':
    case 'gitignoreSymlink':
    case 'mailmapSymlink':
      return `${name} in ${tree} is a symbolic link, which git refuses to check out ${id}`;
  }
}

/**
 * The paths commit `commitOid` touches: against its parent; for a root commit (or a shallow
 * boundary) against the empty tree; for a merge, the paths that differ from every parent (as
 * `git diff-tree -c`), each reported with its change against the first parent. A rename is a
 * delete and an add. Unsafe entries (see diffTrees) are kept for a merge when the first
 * parent's diff has them. Sorted by path.
 */
export async function touchedPaths(store: ObjectStore, commitOid: string, deadline?: Deadline): Promise<PathChange[]> {
  await store.objects.ready();
  return touchedPathsNow(store, commitOid, deadline);
}

/** touchedPaths, synchronously: only after the object database's `ready()` (a push's many
 * commits are diffed without a promise per commit). */
export function touchedPathsNow(store: ObjectStore, commitOid: string, deadline?: Deadline): PathChange[] {
  const commit = store.commits.recordNow(commitOid);
  const parentTrees = parentTreesNow(store, commit);
  if (parentTrees.length === 0) return diffTreesWithinNow(store, null, commit.tree, null, deadline);
  const first = diffTreesWithinNow(store, parentTrees[0]!, commit.tree, null, deadline);
  if (parentTrees.length === 1) return first;
  // Only a path the first parent's diff names can survive, so each further parent's diff is
  // taken only over those paths (and the directories above them): the same records for
  // them, without walking what the merge took unchanged from the first parent.
  let keep = new Set(first.map((c) => c.path));
  for (const tree of parentTrees.slice(1)) {
    if (keep.size === 0) break;
    const other = new Set<string>();
    for (const c of diffTreesWithinNow(store, tree, commit.tree, withDirectories(keep, deadline), deadline)) {
      deadline?.tick();
      other.add(c.path);
    }
    keep = new Set([...keep].filter((p) => other.has(p)));
  }
  return first.filter((c) => keep.has(c.path));
}

/** The trees of the parents touchedPathsNow diffs a commit against, in order: none for a root
 * commit, a shallow boundary, or a commit one of whose parents the repository lacks (a
 * boundary too: the commit is compared with the empty tree). */
function parentTreesNow(store: ObjectStore, commit: CommitRecord): string[] {
  if (commit.parents.length === 0 || store.commits.shallowNow().has(commit.oid)) return [];
  const trees: string[] = [];
  for (const p of commit.parents) {
    if (!store.commits.isRecorded(p) && !store.objects.hasObject(p)) return []; // missing parent: a boundary
    trees.push(store.commits.recordNow(p).tree);
  }
  return trees;
}

/** The parent P for which touchedPathsNow(commit) is exactly diffTrees(P's tree, the commit's
 * tree): the commit's only parent, when touchedPathsNow diffs against it (parentTreesNow);
 * else null. Only after `ready()`. */
export function soleDiffedParentNow(store: ObjectStore, commitOid: string): string | null {
  const commit = store.commits.recordNow(commitOid);
  return commit.parents.length === 1 && parentTreesNow(store, commit).length === 1 ? commit.parents[0]! : null;
}

/** `paths` and every directory above each of them. */
function withDirectories(paths: ReadonlySet<string>, deadline?: Deadline): Set<string> {
  const out = new Set<string>();
  for (const p of paths) {
    deadline?.tick();
    out.add(p);
    for (let at = p.lastIndexOf('/'); at > 0; at = p.lastIndexOf('/', at - 1)) {
      const dir = p.slice(0, at);
      if (out.has(dir)) break;
      out.add(dir);
    }
  }
  return out;
}
