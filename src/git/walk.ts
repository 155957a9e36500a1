// Commit walks: which commits a push brings, merge bases, ancestry — exact whatever the commit
// dates say.
//
// Dates are only ever a visiting order, never a reason to stop. A walk stops when the answer is
// proven: by generation numbers (a commit can only reach commits of lower generation), which the
// repository's commit-graph supplies (src/git/commit-graph.ts; commits it does not list get
// theirs computed from their parents), or, without a graph, by running out of commits to
// visit. So with a graph a walk costs about what lies between its ends; without one a negative
// answer ("no excluded ref reaches this commit") may read the whole history, bounded only by
// the deadline, which every loop here checks.
//
// Shallow clones. A commit listed in `<gitdir>/shallow`, or one whose parent object is absent,
// is a boundary: the walk does not go below it, as git does not. An answer is never computed
// on the boundary when hidden history could change it; then a ShallowBoundaryError names the
// fix. The exact rule:
//   - newCommits: a boundary commit that ends in the answer (reached from `tip`, not known to be
//     excluded) throws, because its hidden parents could be new too. A boundary on the excluded
//     side only stops that side: hidden history could only make fewer commits new, so the
//     answer errs towards checking more, never less.
//   - isAncestor: a "no" that was reached after stopping at a boundary throws.
//   - mergeBases: throws when the paint stopped at boundaries reached from each side alone (a
//     common ancestor may be hidden below them), or when two or more bases remain and a
//     boundary lies below them (hidden history could make one an ancestor of another).
//   - newCommitsOnServer never throws for a boundary: a pushed commit whose parent is absent
//     (a push from a shallow clone) is new and its parents simply absent (the engine then
//     closes the update, naming the commit and the parent); a boundary among the existing
//     refs' history can only make more commits count as new.

import type { Deadline } from '../deadline';
import { CommitGraph, readCommitGraph } from './commit-graph';
import type { ObjectStore } from './store';
import { GitReadError } from './types';

/** An answer would depend on history a shallow clone does not have. */
export class ShallowBoundaryError extends GitReadError {
  constructor(message: string, oid?: string) {
    super(message, oid);
    this.name = 'ShallowBoundaryError';
  }
}

const SHALLOW_FIX =
  'fetch the whole history: `fetch-depth: 0` in actions/checkout, or `git fetch --unshallow` (or `git fetch --deepen=<n>` until the base is included)';

// ---------------------------------------------------------------------------------------------
// Commits as the walks see them: small integer ids (a commit-graph position, or a number past
// the graph for a commit read from its object), with parents, date and generation.

class CommitIndex {
  /** Commits the graph lists: ids below this are graph positions. */
  readonly graphCount: number;
  private readonly extraIds = new Map<string, number>();
  private readonly extraOid: string[] = [];
  private readonly extraParents: (number[] | undefined)[] = [];
  private readonly extraTime: number[] = [];
  private readonly extraGen: number[] = [];
  private readonly extraBoundary: (string | null)[] = [];
  /** Graph commits whose data was compared with their object. */
  private checked = 0;
  /** A boundary was met (shallow list or absent parent). */
  sawBoundary = false;

  constructor(
    readonly store: ObjectStore,
    readonly graph: CommitGraph | null,
    readonly shallow: Set<string>,
    readonly notices: string[],
  ) {
    this.graphCount = graph?.count ?? 0;
  }

  /** True when every commit has a finite generation number (there is a trusted graph). */
  get hasGenerations(): boolean {
    return this.graph !== null;
  }

  get size(): number {
    return this.graphCount + this.extraOid.length;
  }

  /** The id of a commit that is (or is assumed to be) in the repository. */
  idOf(oid: string): number {
    const known = this.extraIds.get(oid);
    if (known !== undefined) return known;
    if (this.graph) {
      const pos = this.graph.position(oid);
      if (pos >= 0) return pos;
    }
    const id = this.graphCount + this.extraOid.length;
    this.extraIds.set(oid, id);
    this.extraOid.push(oid);
    this.extraParents.push(undefined);
    this.extraTime.push(0);
    this.extraGen.push(Number.NaN);
    this.extraBoundary.push(null);
    return id;
  }

  oid(id: number): string {
    return id < this.graphCount ? this.graph!.oid(id) : this.extraOid[id - this.graphCount]!;
  }

  /** Parents, date and generation are known (always, for a graph commit). */
  ready(id: number): boolean {
    return id < this.graphCount || !Number.isNaN(this.extraGen[id - this.graphCount]!);
  }

  /** Reads the commit (and, with a graph, whatever its generation number needs). */
  async prepare(id: number, deadline: Deadline): Promise<void> {
    if (this.ready(id)) return;
    if (!this.graph) {
      await this.load(id);
      this.extraGen[id - this.graphCount] = Number.POSITIVE_INFINITY;
      return;
    }
    // Generation from the parents, computed bottom-up without recursion (a long run of commits
    // the graph does not list, e.g. a large push, must not exhaust the stack).
    const stack = [id];
    while (stack.length > 0) {
      deadline.tick();
      const c = stack[stack.length - 1]!;
      if (this.ready(c)) {
        stack.pop();
        continue;
      }
      const parents = await this.load(c);
      let pending = false;
      for (const p of parents) {
        if (!this.ready(p)) {
          stack.push(p);
          pending = true;
        }
      }
      if (pending) continue;
      stack.pop();
      let gen = this.graph.correctedDates ? this.time(c) : 1;
      for (const p of parents) gen = Math.max(gen, this.gen(p) + 1);
      this.extraGen[c - this.graphCount] = gen;
    }
  }

  /** Reads an extra commit's object once: its parents (absent ones dropped), date, boundary. */
  private async load(id: number): Promise<number[]> {
    const i = id - this.graphCount;
    const have = this.extraParents[i];
    if (have) return have;
    const oid = this.extraOid[i]!;
    const c = await this.store.commits.record(oid);
    const parents: number[] = [];
    if (this.shallow.has(oid)) {
      this.extraBoundary[i] = `commit ${oid} is a shallow clone's boundary (listed in the shallow file)`;
      this.sawBoundary = true;
    } else {
      for (const p of c.parents) {
        if (this.extraIds.has(p) || (this.graph && this.graph.position(p) >= 0) || this.store.objects.hasObject(p)) parents.push(this.idOf(p));
        else {
          this.extraBoundary[i] ??= `the parent ${p} of commit ${oid} is not in the repository`;
          this.sawBoundary = true;
        }
      }
    }
    this.extraTime[i] = c.committerTime;
    this.extraParents[i] = parents;
    return parents;
  }

  /** Parents the walks follow (present ones; none for a shallow boundary). Needs prepare(). */
  parents(id: number): readonly number[] {
    return id < this.graphCount ? this.graph!.parents(id) : this.extraParents[id - this.graphCount]!;
  }

  time(id: number): number {
    return id < this.graphCount ? this.graph!.commitTime(id) : this.extraTime[id - this.graphCount]!;
  }

  /** Generation number: strictly above every parent's; +Infinity for all without a graph. */
  gen(id: number): number {
    return id < this.graphCount ? this.graph!.generation(id) : this.extraGen[id - this.graphCount]!;
  }

  /** The generation git's merge-base walk orders by: the corrected commit date of a commit in a
   * graph with generation data, +Infinity for one outside it (commit_graph_generation). */
  gitOrderGen(id: number): number {
    return id < this.graphCount && this.graph!.correctedDates ? this.graph!.generation(id) : Number.POSITIVE_INFINITY;
  }

  /** Why this commit is a boundary, or null. Needs prepare(). */
  boundary(id: number): string | null {
    return id < this.graphCount ? null : this.extraBoundary[id - this.graphCount]!;
  }

  /**
   * Compares what the graph says about a commit with its object, for the first few commits a
   * walk starts from: a graph that belongs to other objects (copied, or left behind by a
   * rewrite) is then not used. Returns false when it disagrees.
   */
  async agreesWithObject(id: number): Promise<boolean> {
    if (id >= this.graphCount || this.checked >= 16) return true;
    this.checked++;
    const g = this.graph!;
    const c = await this.store.commits.record(g.oid(id));
    const parents = g.parents(id).map((p) => g.oid(p));
    return c.tree === g.tree(id) && c.committerTime === g.commitTime(id) && c.parents.length === parents.length && c.parents.every((p, i) => p === parents[i]);
  }
}

const indexes = new WeakMap<ObjectStore, CommitIndex>();

/** The store's commit index, its graph read once; `starts` are checked against the graph. */
async function indexFor(store: ObjectStore, deadline: Deadline, starts: string[]): Promise<CommitIndex> {
  let idx = indexes.get(store);
  if (!idx) {
    const shallow = await store.commits.shallow();
    // As git: a shallow repository's commit-graph is not used (its parents would cross the
    // boundary).
    // Nor with replace refs in force (commit_graph_compatible): the graph lists the commits as
    // stored, git reads their replacements.
    const read = shallow.size > 0 || (await store.objects.hasReplacements()) ? { graph: null, notices: [] } : readCommitGraph(store.objects.ownDirectory, deadline);
    idx = new CommitIndex(store, read.graph, shallow, read.notices);
    indexes.set(store, idx);
  }
  if (idx.graph) {
    for (const oid of starts) {
      if (!(await idx.agreesWithObject(idx.idOf(oid)))) {
        const notice = `commit-graph ${idx.graph.files.join(', ')} is not used (its data for commit ${oid} differs from the commit object); commits are read one by one, exactly but more slowly. Rewrite it with \`git commit-graph write --reachable\`.`;
        idx = new CommitIndex(store, null, idx.shallow, [...idx.notices, notice]);
        indexes.set(store, idx);
        break;
      }
    }
  }
  return idx;
}

/**
 * One-line notices about the repository's commit-graph (found but not trusted: corrupt,
 * truncated, inconsistent with the objects), for the caller to print once. Empty until a walk
 * has run on this store.
 */
export function commitGraphNotices(store: ObjectStore): readonly string[] {
  return indexes.get(store)?.notices ?? [];
}

/** The commit-graph files the walks use for this store ([] when none, or none trusted). */
export function commitGraphFiles(store: ObjectStore): readonly string[] {
  return indexes.get(store)?.graph?.files ?? [];
}

// ---------------------------------------------------------------------------------------------
// Small structures.

/** Per-walk flags by commit id, growing as new commits get ids. */
class Marks {
  private a: Uint8Array;
  constructor(size: number) {
    this.a = new Uint8Array(Math.max(1024, size + 256));
  }
  get(id: number): number {
    return id < this.a.length ? this.a[id]! : 0;
  }
  set(id: number, v: number): void {
    if (id >= this.a.length) {
      const b = new Uint8Array(Math.max(id + 1, this.a.length * 2));
      b.set(this.a);
      this.a = b;
    }
    this.a[id] = v;
  }
}

/** Max-heap of commit ids by (k1, k2) descending, then insertion order (git's prio_queue).
 * Entries are moved into a hole rather than swapped: this is the walks' inner loop. */
class Heap {
  private ids: number[] = [];
  private k1: number[] = [];
  private k2: number[] = [];
  private ctr: number[] = [];
  private next = 0;
  /** Entries in use (the arrays keep their length: shrinking them costs more than the heap). */
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** k1 of the entry pop() returns next. */
  topK1(): number {
    return this.k1[0]!;
  }

  /** True when entry (a1, a2, ac) comes out before the entry at j. */
  private before(a1: number, a2: number, ac: number, j: number): boolean {
    const b1 = this.k1[j]!;
    if (a1 !== b1) return a1 > b1;
    const b2 = this.k2[j]!;
    if (a2 !== b2) return a2 > b2;
    return ac < this.ctr[j]!;
  }

  private move(from: number, to: number): void {
    this.ids[to] = this.ids[from]!;
    this.k1[to] = this.k1[from]!;
    this.k2[to] = this.k2[from]!;
    this.ctr[to] = this.ctr[from]!;
  }

  private place(i: number, id: number, k1: number, k2: number, c: number): void {
    this.ids[i] = id;
    this.k1[i] = k1;
    this.k2[i] = k2;
    this.ctr[i] = c;
  }

  push(id: number, k1: number, k2: number): void {
    const c = this.next++;
    let i = this.count++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(k1, k2, c, p)) break;
      this.move(p, i);
      i = p;
    }
    this.place(i, id, k1, k2, c);
  }

  pop(): number {
    const top = this.ids[0]!;
    const n = --this.count;
    const id = this.ids[n]!;
    const k1 = this.k1[n]!;
    const k2 = this.k2[n]!;
    const c = this.ctr[n]!;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      if (r < n && this.before(this.k1[r]!, this.k2[r]!, this.ctr[r]!, l)) m = r;
      if (this.before(k1, k2, c, m)) break;
      this.move(m, i);
      i = m;
    }
    this.place(i, id, k1, k2, c);
    return top;
  }
}

/** The commit an exclude or existing tip names (annotated tags peeled); null for a malformed,
 * zero or absent oid, and for one that names no commit (a tag on a blob or tree, as git/git's
 * `junio-gpg-pub`) or cannot be read: an exclude ignored can only make more commits new. */
async function commitOrNull(store: ObjectStore, oid: string): Promise<string | null> {
  if (!/^[0-9a-f]{40}$/.test(oid) || /^0{40}$/.test(oid) || !store.objects.hasObject(oid)) return null;
  try {
    return await store.commits.peelToCommit(oid);
  } catch (err) {
    if (err instanceof GitReadError) return null;
    throw err;
  }
}

/** Newest first, ties by oid: the same order whatever the walk visited first. */
function newestFirst(idx: CommitIndex, ids: number[]): string[] {
  return byNewest(ids.map((id) => ({ oid: idx.oid(id), time: idx.time(id) })));
}

function byNewest(commits: { oid: string; time: number }[]): string[] {
  return commits.sort((a, b) => b.time - a.time || (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0)).map((c) => c.oid);
}

// ---------------------------------------------------------------------------------------------
// Which commits are new.

const SEEN = 1;
const UNINTERESTING = 2;
const DONE = 4;

/**
 * Commits reachable from `tip` and from none of `exclude` (`git rev-list tip --not exclude…`),
 * newest first (ties by oid). Both sides are walked together, highest generation (then newest)
 * first; the walk ends when every commit reached from `tip` has been expanded and no queued
 * excluded commit can still reach one of them: its generation is not above theirs, or, without
 * a graph, nothing is left to visit. Exclude entries that are absent (or the zero oid) are
 * ignored: they can only make more commits count as new.
 */
export async function newCommits(store: ObjectStore, tip: string, exclude: string[], deadline: Deadline): Promise<string[]> {
  deadline.check();
  const start = await store.commits.peelToCommit(tip);
  const excluded: string[] = [];
  for (const ex of exclude) {
    const oid = await commitOrNull(store, ex);
    if (oid) excluded.push(oid);
  }
  const idx = await indexFor(store, deadline, [start, ...excluded]);
  const marks = new Marks(idx.size);
  const queue = new Heap();
  let interestingQueued = 0;
  let interestingDone = 0;
  const found: number[] = [];
  // Generations of expanded interesting commits, smallest on top (lazily cleaned).
  const foundGens: number[] = [];

  // The hot path stays synchronous: a commit the graph lists is ready without reading anything.
  const enqueueReady = (id: number, flag: number) => {
    marks.set(id, SEEN | flag);
    if (flag === 0) interestingQueued++;
    queue.push(id, idx.gen(id), idx.time(id));
  };
  const enqueue = async (id: number, flag: number) => {
    if (!idx.ready(id)) await idx.prepare(id, deadline);
    enqueueReady(id, flag);
  };

  /** Marks `id` and everything already expanded below it as reachable from `exclude`. Commits
   * that must be read first are marked now and queued by flushLater. */
  const later: number[] = [];
  const markUninteresting = (id: number) => {
    const stack = [id];
    while (stack.length > 0) {
      deadline.tick();
      const c = stack.pop()!;
      const f = marks.get(c);
      if (f & UNINTERESTING) continue;
      if (!(f & SEEN)) {
        if (idx.ready(c)) enqueueReady(c, UNINTERESTING);
        else {
          marks.set(c, SEEN | UNINTERESTING);
          later.push(c);
        }
        continue;
      }
      marks.set(c, f | UNINTERESTING);
      if (!(f & DONE)) {
        interestingQueued--;
        continue;
      }
      interestingDone--;
      for (const p of idx.parents(c)) stack.push(p);
    }
  };
  const flushLater = async () => {
    while (later.length > 0) {
      const c = later.pop()!;
      await idx.prepare(c, deadline);
      queue.push(c, idx.gen(c), idx.time(c));
    }
  };

  const minFoundGen = () => {
    // foundGens is a min-heap; entries of commits that became uninteresting are not removed
    // (a smaller bound only makes the walk go on longer, never stop early).
    return foundGens.length > 0 ? foundGens[0]! : Number.POSITIVE_INFINITY;
  };
  const pushFoundGen = (g: number) => {
    const h = foundGens;
    h.push(g);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]! <= h[i]!) break;
      [h[p], h[i]] = [h[i]!, h[p]!];
      i = p;
    }
  };

  let triedTips = false;
  const tipIds = [...new Set(excluded.map((oid) => idx.idOf(oid)))];
  /** True when every commit found so far (still new) reaches every excluded tip through found
   * commits: then no excluded commit can reach any of them. */
  const everyFoundReachesEveryTip = (): boolean => {
    if (tipIds.length === 0 || tipIds.length > 30) return tipIds.length === 0;
    const all = 2 ** tipIds.length - 1;
    const bit = new Map(tipIds.map((t, i) => [t, 2 ** i]));
    const memo = new Map<number, number>();
    // Found commits in an order where parents come first: reverse DFS post-order.
    for (const x of found) {
      if (memo.has(x)) continue;
      const stack: [number, number][] = [[x, 0]];
      while (stack.length > 0) {
        deadline.tick();
        const top = stack[stack.length - 1]!;
        const ps = idx.parents(top[0]);
        if (top[1] < ps.length) {
          const p = ps[top[1]++]!;
          if (!memo.has(p) && (marks.get(p) & (DONE | UNINTERESTING)) === DONE) stack.push([p, 0]);
          continue;
        }
        stack.pop();
        let m = 0;
        for (const p of ps) m |= (bit.get(p) ?? 0) | (memo.get(p) ?? 0);
        memo.set(top[0], m);
      }
    }
    return found.every((x) => marks.get(x) & UNINTERESTING || memo.get(x) === all);
  };
  for (const oid of excluded) {
    markUninteresting(idx.idOf(oid));
    await flushLater();
  }
  const startId = idx.idOf(start);
  if (!(marks.get(startId) & SEEN)) await enqueue(startId, 0);

  while (queue.size > 0) {
    deadline.tick();
    if (interestingQueued === 0) {
      if (interestingDone === 0) break;
      // Only excluded commits are queued: one can reach a new commit only from a higher
      // generation. Without generation numbers, running out of commits proves it, or (checked
      // once) every new commit reaching every excluded tip: a tip that reached one back would
      // make a cycle.
      if (idx.hasGenerations && queue.topK1() <= minFoundGen()) break;
      if (!idx.hasGenerations && !triedTips) {
        triedTips = true;
        if (everyFoundReachesEveryTip()) break;
      }
    }
    const c = queue.pop();
    const f = marks.get(c);
    marks.set(c, f | DONE);
    if (f & UNINTERESTING) {
      for (const p of idx.parents(c)) markUninteresting(p);
      if (later.length > 0) await flushLater();
      continue;
    }
    interestingQueued--;
    interestingDone++;
    found.push(c);
    pushFoundGen(idx.gen(c));
    for (const p of idx.parents(c)) {
      if (marks.get(p) & SEEN) continue;
      if (idx.ready(p)) enqueueReady(p, 0);
      else await enqueue(p, 0);
    }
  }
  const result = found.filter((c) => !(marks.get(c) & UNINTERESTING));
  for (const c of result) {
    const why = idx.boundary(c);
    if (why) {
      throw new ShallowBoundaryError(
        `Which commits ${start} brings cannot be decided: ${why}, and the commits below it may be new too. ${capitalize(SHALLOW_FIX)}.`,
        idx.oid(c),
      );
    }
  }
  // What the walk showed about ancestry, for the merge base and fast-forward checks that follow:
  // the new commits and their parents are below the tip, and a tip with no new commits is
  // below the one commit excluded.
  const below = new Set<string>([start]);
  for (const c of result) {
    below.add(idx.oid(c));
    for (const p of idx.parents(c)) below.add(idx.oid(p));
  }
  noteAncestors(store, start, below);
  const distinct = new Set(excluded);
  if (result.length === 0 && distinct.size === 1 && !distinct.has(start)) noteAncestors(store, excluded[0]!, [start]);
  return newestFirst(idx, result);
}

function capitalize(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

/**
 * Reachability from a fixed set of commits (the refs a repository had before a push), walked
 * only as far as the questions asked need: highest generation first, down to the generation of
 * the commit asked about; without a graph, newest first until the commit is found or nothing
 * is left.
 */
class ReachableFrom {
  private readonly seen: Marks;
  private readonly queue = new Heap();
  private started = false;

  constructor(
    private readonly idx: CommitIndex,
    private readonly sources: number[],
    private readonly deadline: Deadline,
  ) {
    this.seen = new Marks(idx.size);
  }

  private async visit(id: number): Promise<void> {
    if (this.seen.get(id)) return;
    if (!this.idx.ready(id)) await this.idx.prepare(id, this.deadline);
    this.seen.set(id, 1);
    this.queue.push(id, this.idx.gen(id), this.idx.time(id));
  }

  async reaches(target: number): Promise<boolean> {
    if (!this.started) {
      this.started = true;
      for (const s of this.sources) await this.visit(s);
    }
    if (this.seen.get(target)) return true;
    await this.idx.prepare(target, this.deadline);
    const bound = this.idx.hasGenerations ? this.idx.gen(target) : Number.NEGATIVE_INFINITY;
    // With generations: every reachable commit above `bound` is seen once the queue's top is at
    // or below it (generations fall along every path). Without: only an empty queue proves "no".
    while (this.queue.size > 0 && (this.idx.hasGenerations ? this.queue.topK1() > bound : true)) {
      this.deadline.tick();
      const c = this.queue.pop();
      for (const p of this.idx.parents(c)) {
        if (this.seen.get(p)) continue;
        if (this.idx.ready(p)) {
          this.seen.set(p, 1);
          this.queue.push(p, this.idx.gen(p), this.idx.time(p));
        } else await this.visit(p);
      }
      if (this.seen.get(target)) return true;
    }
    return this.seen.get(target) !== 0;
  }
}

/**
 * For the server (docs/contract.md §2 New commits): the commits reachable from `tip` and from none of `existingTips`
 * (every ref's commit before the push, peeled), i.e. `git rev-list tip --not --all` as the
 * repository stood; newest first (ties by oid). A commit whose object only the push's
 * quarantine holds is new without asking: the repository's refs cannot reach an object the
 * repository did not have. A commit the repository already held (pushed earlier without a ref,
 * or in an alternate) is new unless an existing tip reaches it, decided exactly; the usual one
 * is a tip itself or just below one, so the cost stays near the size of the push.
 */
export async function newCommitsOnServer(store: ObjectStore, tip: string, existingTips: string[], deadline: Deadline): Promise<string[]> {
  deadline.check();
  const start = await store.commits.peelToCommit(tip);
  // A commit that is itself a ref's tip is old without reading anything (packed-refs records
  // what annotated tags peel to); the other tips are peeled only if some commit the push did
  // not bring needs the exact reachability walk.
  const literal = new Set(existingTips.map((t) => store.commits.peelHint(t) ?? t));
  const quick = await pushedOntoTips(store, start, literal, deadline);
  if (quick !== null) return quick;
  let reach: { tipIds: Set<number>; walk: ReachableFrom } | null = null;
  const idx = await indexFor(store, deadline, [start]);
  const reachable = async (c: number): Promise<boolean> => {
    if (literal.has(idx.oid(c))) return true;
    if (reach === null) {
      const tips: string[] = [];
      for (const t of new Set(existingTips)) {
        deadline.tick();
        const peeled = store.commits.peelHint(t);
        const oid = peeled !== undefined && store.objects.hasObject(peeled) ? await commitOrNull(store, peeled) : await commitOrNull(store, t);
        if (oid) tips.push(oid);
      }
      const tipIds = new Set(tips.map((t) => idx.idOf(t)));
      reach = { tipIds, walk: new ReachableFrom(idx, [...tipIds], deadline) };
    }
    return reach.tipIds.has(c) || (await reach.walk.reaches(c));
  };
  const seen = new Marks(idx.size);
  const result: number[] = [];
  const stack = [idx.idOf(start)];
  seen.set(stack[0]!, 1);
  while (stack.length > 0) {
    deadline.tick();
    const c = stack.pop()!;
    const isNew = (await store.objects.isQuarantined(idx.oid(c))) || !(await reachable(c));
    if (!isNew) continue;
    await idx.prepare(c, deadline);
    result.push(c);
    for (const p of idx.parents(c)) {
      if (!seen.get(p)) {
        seen.set(p, 1);
        stack.push(p);
      }
    }
  }
  return newestFirst(idx, result);
}

/**
 * The common push, decided without the commit index (and so without reading the repository's
 * commit-graph, whose checksum alone costs a large repository tens of milliseconds): the push
 * brought every new commit, and each commit it builds on is itself an existing ref's tip.
 * Walked from `start` through the commits the push brought; null as soon as anything else is
 * met (a commit the repository held but no tip names, a missing parent, a shallow
 * repository), and the exact walk decides instead. The decisions are the exact walk's: a
 * pushed commit is new, a tip is old. What the walk saw is kept, so that isAncestor and
 * mergeBases answer for those commits and `start` without a walk of their own.
 */
async function pushedOntoTips(store: ObjectStore, start: string, tips: ReadonlySet<string>, deadline: Deadline): Promise<string[] | null> {
  if ((await store.commits.shallow()).size > 0) return null;
  const found: { oid: string; time: number }[] = [];
  const below = new Set<string>([start]);
  const stack = [start];
  while (stack.length > 0) {
    deadline.tick();
    const c = stack.pop()!;
    if (!(await store.objects.isQuarantined(c))) {
      if (tips.has(c)) continue;
      return null;
    }
    const commit = await store.commits.record(c);
    found.push({ oid: c, time: commit.committerTime });
    for (const p of commit.parents) {
      if (below.has(p)) continue;
      if (!store.objects.hasObject(p)) return null;
      below.add(p);
      stack.push(p);
    }
  }
  noteAncestors(store, start, below);
  return byNewest(found);
}

/** Per store, per commit: commits a walk has shown to be its ancestors (pushedOntoTips,
 * newCommits). */
const ancestorsSeen = new WeakMap<ObjectStore, Map<string, Set<string>>>();

/** Records that each of `ancestors` is an ancestor of `descendant` (or is it). */
function noteAncestors(store: ObjectStore, descendant: string, ancestors: Iterable<string>): void {
  let known = ancestorsSeen.get(store);
  if (!known) ancestorsSeen.set(store, (known = new Map<string, Set<string>>()));
  let set = known.get(descendant);
  if (!set) known.set(descendant, (set = new Set<string>()));
  for (const a of ancestors) set.add(a);
}

/** True when a walk of this run has already shown `a` to be an ancestor of `b` (or `b`). */
function knownAncestor(store: ObjectStore, a: string, b: string): boolean {
  return ancestorsSeen.get(store)?.get(b)?.has(a) ?? false;
}

// ---------------------------------------------------------------------------------------------
// Ancestry and merge bases.

/** True when commit `a` is an ancestor of `b` or equal to it (`git merge-base --is-ancestor`). */
export async function isAncestor(store: ObjectStore, a: string, b: string, deadline: Deadline): Promise<boolean> {
  deadline.check();
  const ca = await store.commits.peelToCommit(a);
  const cb = await store.commits.peelToCommit(b);
  if (ca === cb || knownAncestor(store, ca, cb)) return true;
  const idx = await indexFor(store, deadline, [ca, cb]);
  const target = idx.idOf(ca);
  const from = idx.idOf(cb);
  await idx.prepare(target, deadline);
  await idx.prepare(from, deadline);
  const seen = new Marks(idx.size);
  seen.set(from, 1);
  let boundary: string | null = null;
  if (idx.hasGenerations) {
    // Depth first, first parents first (as git's can_all_from_reach): a commit on the main line
    // is found without visiting the side branches; nothing at or below the target's generation
    // is expanded.
    const bound = idx.gen(target);
    const stack = [from];
    while (stack.length > 0) {
      deadline.tick();
      const c = stack.pop()!;
      if (idx.gen(c) <= bound) continue;
      boundary ??= idx.boundary(c);
      const parents = idx.parents(c);
      for (let i = parents.length - 1; i >= 0; i--) {
        const p = parents[i]!;
        if (p === target) return true;
        if (seen.get(p)) continue;
        seen.set(p, 1);
        if (!idx.ready(p)) await idx.prepare(p, deadline);
        stack.push(p);
      }
    }
  } else {
    const queue = new Heap();
    queue.push(from, 0, idx.time(from));
    while (queue.size > 0) {
      deadline.tick();
      const c = queue.pop();
      boundary ??= idx.boundary(c);
      for (const p of idx.parents(c)) {
        if (p === target) return true;
        if (seen.get(p)) continue;
        seen.set(p, 1);
        if (!idx.ready(p)) await idx.prepare(p, deadline);
        queue.push(p, 0, idx.time(p));
      }
    }
  }
  if (boundary) {
    throw new ShallowBoundaryError(`Whether ${ca} is an ancestor of ${cb} depends on history beyond a shallow clone's boundary: ${boundary}. ${capitalize(SHALLOW_FIX)}.`, ca);
  }
  return false;
}

const PARENT1 = 1;
const PARENT2 = 2;
const STALE = 4;
const RESULT = 8;

interface Paint {
  /** Commits found common to both sides, in the order git's walk finds them. */
  results: number[];
  flags: Marks;
  /** Boundary commits the paint stopped at. */
  boundaries: number[];
}

/**
 * git's paint_down_to_common (commit-reach.c, git 2.39), step for step so that equal-dated
 * bases come out in git's order: a priority queue by generation then commit date when the
 * graph has corrected commit dates, by commit date otherwise, ties first-in first-out; a commit
 * is queued again each time it gains a flag; the walk ends when every queued commit is STALE.
 * That ending is exact whatever the dates: a commit below a queued STALE one is below a common
 * ancestor already found.
 */
async function paintDownToCommon(idx: CommitIndex, one: number, twos: number[], deadline: Deadline): Promise<Paint> {
  const flags = new Marks(idx.size);
  const inQueue = new Map<number, number>(); // entries per commit, to count the non-stale ones
  const queue = new Heap();
  const byGen = idx.graph?.correctedDates === true;
  let nonStale = 0;
  const results: number[] = [];
  const boundaries: number[] = [];
  const put = (id: number) => {
    queue.push(id, byGen ? idx.gitOrderGen(id) : 0, idx.time(id));
    inQueue.set(id, (inQueue.get(id) ?? 0) + 1);
    if (!(flags.get(id) & STALE)) nonStale++;
  };
  flags.set(one, flags.get(one) | PARENT1);
  await idx.prepare(one, deadline);
  put(one);
  for (const two of twos) {
    flags.set(two, flags.get(two) | PARENT2);
    await idx.prepare(two, deadline);
    put(two);
  }
  while (nonStale > 0) {
    deadline.tick();
    const c = queue.pop();
    const left = inQueue.get(c)! - 1;
    if (left === 0) inQueue.delete(c);
    else inQueue.set(c, left);
    let f = flags.get(c) & (PARENT1 | PARENT2 | STALE);
    if (!(f & STALE)) nonStale--;
    if (idx.boundary(c)) boundaries.push(c);
    if (f === (PARENT1 | PARENT2)) {
      if (!(flags.get(c) & RESULT)) {
        flags.set(c, flags.get(c) | RESULT);
        results.push(c);
      }
      f |= STALE;
    }
    for (const p of idx.parents(c)) {
      const pf = flags.get(p);
      if ((pf & f) === f) continue;
      // Entries of p already queued turn STALE with it.
      if (f & STALE && !(pf & STALE)) nonStale -= inQueue.get(p) ?? 0;
      flags.set(p, pf | f);
      if (!idx.ready(p)) await idx.prepare(p, deadline);
      put(p);
    }
  }
  return { results, flags, boundaries };
}

/** Stable sort by commit date, newest first (git's commit_list_insert_by_date). */
function byDate(idx: CommitIndex, ids: number[]): number[] {
  return ids.map((id, i) => ({ id, i, t: idx.time(id) })).sort((x, y) => y.t - x.t || x.i - y.i).map((e) => e.id);
}

/**
 * Drops every candidate that is an ancestor of another, keeping the order (git's
 * remove_redundant): one paint per candidate against the others, which marks exactly the
 * candidates each side reaches.
 */
async function removeRedundant(idx: CommitIndex, candidates: number[], deadline: Deadline): Promise<number[]> {
  const redundant = candidates.map(() => false);
  for (let i = 0; i < candidates.length; i++) {
    if (redundant[i]) continue;
    const others: number[] = [];
    const at: number[] = [];
    for (let j = 0; j < candidates.length; j++) {
      if (j === i || redundant[j]) continue;
      others.push(candidates[j]!);
      at.push(j);
    }
    if (others.length === 0) break;
    const { flags } = await paintDownToCommon(idx, candidates[i]!, others, deadline);
    if (flags.get(candidates[i]!) & PARENT2) redundant[i] = true;
    for (let k = 0; k < others.length; k++) if (flags.get(others[k]!) & PARENT1) redundant[at[k]!] = true;
  }
  return candidates.filter((_, i) => !redundant[i]);
}

/** Every best common ancestor of a and b (`git merge-base --all`), in git's order: newest
 * first, equal dates in the order git's walk finds them. */
export async function mergeBases(store: ObjectStore, a: string, b: string, deadline: Deadline): Promise<string[]> {
  deadline.check();
  const ca = await store.commits.peelToCommit(a);
  const cb = await store.commits.peelToCommit(b);
  if (ca === cb) return [ca];
  // An ancestor of the other is the one merge base (git merge-base prints it, --all alone).
  if (knownAncestor(store, ca, cb)) return [ca];
  if (knownAncestor(store, cb, ca)) return [cb];
  const idx = await indexFor(store, deadline, [ca, cb]);
  const one = idx.idOf(ca);
  const two = idx.idOf(cb);
  const paint = await paintDownToCommon(idx, one, [two], deadline);
  let bases = byDate(
    idx,
    paint.results.filter((c) => !(paint.flags.get(c) & STALE)),
  );
  // Boundaries reached from one side only, not below a base found: hidden history below them
  // may hold a common ancestor when there are such boundaries on both sides.
  const open = (side: number) => paint.boundaries.find((c) => (paint.flags.get(c) & (PARENT1 | PARENT2 | STALE)) === side);
  const open1 = open(PARENT1);
  const open2 = open(PARENT2);
  if (open1 !== undefined && open2 !== undefined) {
    throw new ShallowBoundaryError(
      `The merge base of ${ca} and ${cb} may lie beyond a shallow clone's boundary: ${idx.boundary(open1)}, and ${idx.boundary(open2)}. ${capitalize(SHALLOW_FIX)}.`,
      idx.oid(open1),
    );
  }
  if (bases.length > 1) {
    bases = await removeRedundant(idx, bases, deadline);
    if (bases.length > 1 && (idx.sawBoundary || idx.shallow.size > 0)) await refuseHiddenBelow(idx, bases, ca, cb, deadline);
  }
  return bases.map((c) => idx.oid(c));
}

/** Several bases in a shallow clone: if any boundary lies below them, hidden history could make
 * one an ancestor of another. The walk is bounded by the clone's depth. */
async function refuseHiddenBelow(idx: CommitIndex, bases: number[], a: string, b: string, deadline: Deadline): Promise<void> {
  const seen = new Marks(idx.size);
  const stack = [...bases];
  for (const c of stack) seen.set(c, 1);
  while (stack.length > 0) {
    deadline.tick();
    const c = stack.pop()!;
    await idx.prepare(c, deadline);
    const why = idx.boundary(c);
    if (why) {
      throw new ShallowBoundaryError(`${a} and ${b} have ${bases.length} merge bases in this shallow clone, and which are best depends on history beyond its boundary: ${why}. ${capitalize(SHALLOW_FIX)}.`, idx.oid(c));
    }
    for (const p of idx.parents(c)) {
      if (!seen.get(p)) {
        seen.set(p, 1);
        stack.push(p);
      }
    }
  }
}

/** The best common ancestor `git merge-base a b` prints (the first of mergeBases); null when
 * the histories are unrelated. */
export async function mergeBase(store: ObjectStore, a: string, b: string, deadline: Deadline): Promise<string | null> {
  return (await mergeBases(store, a, b, deadline))[0] ?? null;
}
