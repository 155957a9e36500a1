// The commit index: commits as the walks see them. Each commit gets a small integer id (its
// commit-graph position, or a number past the graph for a commit read from its object) with
// its parents, date and generation number.
//
// Dates are only ever a visiting order, never a reason to stop. A walk stops when the answer is
// proven: by generation numbers (a commit can only reach commits of lower generation), which the
// repository's commit-graph supplies (commit-graph.ts; commits it does not list get theirs
// computed from their parents), or, without a graph, by running out of commits to visit. So
// with a graph a walk costs about what lies between its ends; without one a negative answer
// ("no excluded ref reaches this commit") may read the whole history, bounded only by the
// deadline, which every loop checks.
//
// A commit listed in the shallow file, or one whose parent object is absent, is a boundary
// (shallow.ts): its parents are not followed, and `boundary()` says why.

import type { Deadline } from '../../deadline';
import type { ObjectStore } from '../store';
import { type CommitGraph, readCommitGraph } from './commit-graph';
import type { CachedCommit, CommitCache } from './commit-cache';
import type { PackCommits } from './pack-commits';
import { GitReadError, type CommitRecord } from '../types';

export class CommitIndex {
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
  /** The server's commit cache (commit-cache.ts), consulted before a commit's object is read;
   * null when not in use. */
  private cache: CommitCache | null = null;
  /** The repository's packs read in pack order (pack-commits.ts), beside the cache. */
  private packs: PackCommits | null = null;

  constructor(
    readonly store: ObjectStore,
    readonly graph: CommitGraph | null,
    readonly shallow: Set<string>,
    readonly notices: string[],
  ) {
    this.graphCount = graph?.count ?? 0;
  }

  /** Uses the server's commit cache from now on, and `packs` for the commits it does not list
   * (never with a shallow list or replace refs, which change the parents git reads;
   * openCommitIndex leaves the graph out then too). */
  useCache(cache: CommitCache, replacements: boolean, packs: PackCommits | null = null): void {
    if (this.shallow.size === 0 && !replacements) {
      this.cache = cache;
      this.packs = packs;
    }
  }

  /** True when the repository holds `oid`: one of its packs lists it (through the packs read in
   * order, on the server), else the object store finds it. */
  holds(oid: string): boolean {
    return this.packs?.has(oid) === true || this.store.objects.hasObject(oid);
  }

  /** The packs read in order, or null. */
  get packCommits(): PackCommits | null {
    return this.packs;
  }

  /** True when the graph or the commit cache lists `oid` (as a commit, read before). */
  listed(oid: string): boolean {
    return (this.graph !== null && this.graph.position(oid) >= 0) || this.cache?.lookup(oid) !== undefined;
  }

  /** The commit cache in use, or null. */
  get commitCache(): CommitCache | null {
    return this.cache;
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

  /**
   * Reads the commit (and, with a graph, whatever its generation number needs).
   * `reachableFromRefs`: the caller has shown the commit is reachable from the repository's
   * refs (the walk from the existing tips), so its ancestors are all present (a repository
   * whose refs reach a missing object is corrupt, as `git fsck` says) and a parent the commit
   * cache lists is not looked up in the object store again. `fromPacks`: false for a commit
   * asked about out of any order (a ref's tip), which the packs read in order (pack-commits.ts)
   * would have to read far for.
   */
  async prepare(id: number, deadline: Deadline, reachableFromRefs = false, fromPacks = true): Promise<void> {
    if (this.ready(id)) return;
    if (!this.graph) {
      await this.load(id, reachableFromRefs, fromPacks);
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
      const parents = await this.load(c, reachableFromRefs, fromPacks);
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

  /** Reads an extra commit's object once: its parents (absent ones dropped), date, boundary.
   * A commit reachable from the refs keeps every parent without asking the object store (the
   * refs reach them, so the repository holds them); should one be absent all the same (a
   * corrupt repository), it is found when the walk reads it, and is then a boundary with no
   * parents, as an absent parent is here. */
  private async load(id: number, reachableFromRefs: boolean, fromPacks: boolean): Promise<number[]> {
    const i = id - this.graphCount;
    const have = this.extraParents[i];
    if (have) return have;
    const oid = this.extraOid[i]!;
    const cached = this.cached(oid, fromPacks);
    if (cached) return this.fill(i, cached.parents, cached.time, reachableFromRefs);
    const c = await this.readCommit(oid, reachableFromRefs);
    return this.fill(i, c?.parents ?? null, c?.committerTime ?? 0, reachableFromRefs);
  }

  /** A repository commit's facts without reading its object: from the commit cache, else from
   * the packs read in order (then recorded for the cache too). */
  private cached(oid: string, fromPacks = true): CachedCommit | undefined {
    const listed = this.cache?.lookup(oid);
    if (listed || !this.packs || !fromPacks) return listed;
    const read = this.packs.lookup(oid);
    if (read) this.cache!.add(oid, read);
    return read;
  }

  /** Records an extra commit's parents (null: its object is absent) and date; `trusted`: every
   * parent is taken as present (the commit is reachable from the refs, and its facts come from
   * the commit cache or from its object). */
  private fill(i: number, parentOids: readonly string[] | null, time: number, trusted: boolean): number[] {
    const oid = this.extraOid[i]!;
    const parents: number[] = [];
    if (parentOids === null) {
      this.extraBoundary[i] = `commit ${oid} is not in the repository (a ref's history reaches it)`;
      this.sawBoundary = true;
    } else if (this.shallow.has(oid)) {
      this.extraBoundary[i] = `commit ${oid} is a shallow clone's boundary (listed in the shallow file)`;
      this.sawBoundary = true;
    } else {
      for (const p of parentOids) {
        if (trusted || this.extraIds.has(p) || (this.graph && this.graph.position(p) >= 0) || this.store.objects.hasObject(p)) parents.push(this.idOf(p));
        else {
          this.extraBoundary[i] ??= `the parent ${p} of commit ${oid} is not in the repository`;
          this.sawBoundary = true;
        }
      }
    }
    this.extraTime[i] = time;
    this.extraParents[i] = parents;
    return parents;
  }

  /**
   * prepare() without waiting, when nothing has to be read: true once the commit is ready (a
   * graph commit, one read before, or one the commit cache lists, with a graph only when its
   * parents are ready), false when prepare() must read it. The walks' inner loops call this
   * first: a walk over thousands of cached commits then makes no promise per commit.
   */
  prepareKnown(id: number, reachableFromRefs = false, fromPacks = true): boolean {
    if (this.ready(id)) return true;
    const i = id - this.graphCount;
    let parents = this.extraParents[i];
    if (!parents) {
      const cached = this.cached(this.extraOid[i]!, fromPacks);
      if (!cached) return false;
      parents = this.fill(i, cached.parents, cached.time, reachableFromRefs);
    }
    if (!this.graph) {
      this.extraGen[i] = Number.POSITIVE_INFINITY;
      return true;
    }
    let gen = this.graph.correctedDates ? this.extraTime[i]! : 1;
    for (const p of parents) {
      if (!this.ready(p)) return false;
      gen = Math.max(gen, this.gen(p) + 1);
    }
    this.extraGen[i] = gen;
    return true;
  }

  /** A commit read from its object, recorded for the commit cache when one is in use and the
   * repository held the commit before the push (known without asking for one the refs reach);
   * null for a commit the refs reach whose object is absent. */
  private async readCommit(oid: string, reachableFromRefs: boolean): Promise<{ parents: readonly string[]; committerTime: number } | null> {
    let c: CommitRecord;
    try {
      c = await this.store.commits.record(oid);
    } catch (err) {
      if (reachableFromRefs && err instanceof GitReadError && !this.store.objects.hasObject(oid)) return null;
      throw err;
    }
    if (this.cache && (reachableFromRefs || !(await this.store.objects.isQuarantined(oid)))) this.cache.add(oid, { parents: c.parents, time: c.committerTime });
    return c;
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

/** A store's commit index: its shallow list and, unless that or replace refs rule it out, its
 * commit-graph, read once (`verifiedGraphs`: the server's record of graph files already checked,
 * commit-graph.ts). */
export async function openCommitIndex(store: ObjectStore, deadline: Deadline, verifiedGraphs?: string): Promise<CommitIndex> {
  const shallow = await store.commits.shallow();
  // As git: a shallow repository's commit-graph is not used (its parents would cross the
  // boundary).
  // Nor with replace refs in force (commit_graph_compatible): the graph lists the commits as
  // stored, git reads their replacements.
  const read = shallow.size > 0 || (await store.objects.hasReplacements()) ? { graph: null, notices: [] } : readCommitGraph(store.objects.ownDirectory, deadline, verifiedGraphs);
  return new CommitIndex(store, read.graph, shallow, read.notices);
}

/** `idx`, or, when its graph disagrees with the object of one of `starts` (a walk's starting
 * commits), an index without the graph that says why in its notices. */
export async function checkedAgainst(idx: CommitIndex, starts: string[]): Promise<CommitIndex> {
  if (!idx.graph) return idx;
  for (const oid of starts) {
    if (!(await idx.agreesWithObject(idx.idOf(oid)))) {
      const notice = `commit-graph ${idx.graph.files.join(', ')} is not used (its data for commit ${oid} differs from the commit object); commits are read one by one, exactly but more slowly. Rewrite it with \`git commit-graph write --reachable\`.`;
      const without = new CommitIndex(idx.store, null, idx.shallow, [...idx.notices, notice]);
      if (idx.commitCache) without.useCache(idx.commitCache, false, idx.packCommits);
      return without;
    }
  }
  return idx;
}
