// Which commits are new: `git rev-list tip --not exclude…`, exact whatever the commit dates
// say (commit-index.ts says how a walk proves it may stop).
//
// Shallow clones (shallow.ts): a boundary commit that ends in the answer (reached from `tip`,
// not known to be excluded) throws, because its hidden parents could be new too. A boundary on
// the excluded side only stops that side: hidden history could only make fewer commits new, so
// the answer errs towards checking more, never less.

import type { Deadline } from '../../deadline';
import type { ObjectStore } from '../store';
import { GitReadError } from '../types';
import { isOid, ZERO_OID } from '../../types';
import type { CommitIndex } from './commit-index';
import type { History } from './history';
import { Heap, Marks } from './marks';
import { SHALLOW_FIX, ShallowBoundaryError } from './shallow';

/** Queued (or, for an excluded commit that must be read first, about to be). */
const SEEN = 1;
/** Reachable from an excluded commit. */
const UNINTERESTING = 2;
/** Taken from the queue and expanded. */
const DONE = 4;

/**
 * Commits reachable from `tip` and from none of `exclude` (`git rev-list tip --not exclude…`),
 * newest first (ties by oid). Both sides are walked together, highest generation (then newest)
 * first; the walk ends when every commit reached from `tip` has been expanded and no queued
 * excluded commit can still reach one of them: its generation is not above theirs, or, without
 * a graph, nothing is left to visit. Exclude entries that are absent (or the zero oid) are
 * ignored: they can only make more commits count as new.
 */
export async function newCommits(history: History, tip: string, exclude: string[], deadline: Deadline): Promise<string[]> {
  deadline.check();
  const { store } = history;
  const start = await store.commits.peelToCommit(tip);
  const excluded: string[] = [];
  for (const ex of exclude) {
    const oid = await commitOrNull(store, ex);
    if (oid) excluded.push(oid);
  }
  const idx = await history.commitIndex(deadline, [start, ...excluded]);
  const result = await new NewCommitsWalk(idx, excluded, deadline).run(start);
  refuseBoundaries(idx, start, result);
  noteAncestry(history, idx, start, excluded, result);
  return newestFirst(idx, result);
}

/** One newCommits walk: the excluded side and the tip's side, queued together. */
class NewCommitsWalk {
  private readonly marks: Marks;
  private readonly queue = new Heap();
  /** Commits reached from the tip and not (yet) known to be excluded: queued, and expanded. */
  private interestingQueued = 0;
  private interestingDone = 0;
  /** Commits expanded as new, in the order expanded (some may turn out excluded later). */
  private readonly found: number[] = [];
  /** The lowest generation of a commit in `found` (a commit that became excluded is not taken
   * out: a smaller bound only makes the walk go on longer, never stop early). */
  private lowestFoundGen = Number.POSITIVE_INFINITY;
  /** Excluded commits marked before they could be queued: they are read first (flushLater). */
  private readonly later: number[] = [];
  private readonly tipIds: number[];
  private triedTips = false;

  constructor(
    private readonly idx: CommitIndex,
    private readonly excluded: string[],
    private readonly deadline: Deadline,
  ) {
    this.marks = new Marks(idx.size);
    this.tipIds = [...new Set(excluded.map((oid) => idx.idOf(oid)))];
  }

  /** The new commits found, in the order the walk expanded them. */
  async run(start: string): Promise<number[]> {
    const { idx, marks, queue } = this;
    for (const oid of this.excluded) {
      this.markUninteresting(idx.idOf(oid));
      await this.flushLater();
    }
    const startId = idx.idOf(start);
    if (!(marks.get(startId) & SEEN)) await this.enqueue(startId, 0);

    while (queue.size > 0) {
      this.deadline.tick();
      if (this.interestingQueued === 0 && this.nothingNewLeft()) break;
      const c = queue.pop();
      const f = marks.get(c);
      marks.set(c, f | DONE);
      if (f & UNINTERESTING) {
        for (const p of idx.parents(c)) this.markUninteresting(p);
        if (this.later.length > 0) await this.flushLater();
        continue;
      }
      this.interestingQueued--;
      this.interestingDone++;
      this.found.push(c);
      this.lowestFoundGen = Math.min(this.lowestFoundGen, idx.gen(c));
      for (const p of idx.parents(c)) {
        if (marks.get(p) & SEEN) continue;
        if (idx.ready(p)) this.enqueueReady(p, 0);
        else await this.enqueue(p, 0);
      }
    }
    return this.found.filter((c) => !(marks.get(c) & UNINTERESTING));
  }

  /**
   * With only excluded commits queued: true when none of them can reach a new commit. With
   * generations, one can only from a higher generation. Without, running out of commits proves
   * it, or (checked once) every new commit reaching every excluded tip: a tip that reached one
   * back would make a cycle.
   */
  private nothingNewLeft(): boolean {
    if (this.interestingDone === 0) return true;
    if (this.idx.hasGenerations) return this.queue.topK1() <= this.lowestFoundGen;
    if (this.triedTips) return false;
    this.triedTips = true;
    return this.everyFoundReachesEveryTip();
  }

  /** Queues a commit whose data is at hand: the hot path stays synchronous (a commit the graph
   * lists is ready without reading anything). */
  private enqueueReady(id: number, flag: number): void {
    this.marks.set(id, SEEN | flag);
    if (flag === 0) this.interestingQueued++;
    this.queue.push(id, this.idx.gen(id), this.idx.time(id));
  }

  private async enqueue(id: number, flag: number): Promise<void> {
    if (!this.idx.ready(id)) await this.idx.prepare(id, this.deadline);
    this.enqueueReady(id, flag);
  }

  /** Marks `id` and everything already expanded below it as reachable from `exclude`. Commits
   * that must be read first are marked now and queued by flushLater. */
  private markUninteresting(id: number): void {
    const { idx, marks } = this;
    const stack = [id];
    while (stack.length > 0) {
      this.deadline.tick();
      const c = stack.pop()!;
      const f = marks.get(c);
      if (f & UNINTERESTING) continue;
      if (!(f & SEEN)) {
        if (idx.ready(c)) this.enqueueReady(c, UNINTERESTING);
        else {
          marks.set(c, SEEN | UNINTERESTING);
          this.later.push(c);
        }
        continue;
      }
      marks.set(c, f | UNINTERESTING);
      if (!(f & DONE)) {
        this.interestingQueued--;
        continue;
      }
      this.interestingDone--;
      for (const p of idx.parents(c)) stack.push(p);
    }
  }

  private async flushLater(): Promise<void> {
    while (this.later.length > 0) {
      const c = this.later.pop()!;
      await this.idx.prepare(c, this.deadline);
      this.queue.push(c, this.idx.gen(c), this.idx.time(c));
    }
  }

  /** True when every commit found so far (still new) reaches every excluded tip through found
   * commits: then no excluded commit can reach any of them. */
  private everyFoundReachesEveryTip(): boolean {
    const { idx, marks, tipIds, found } = this;
    if (tipIds.length === 0 || tipIds.length > 30) return tipIds.length === 0;
    const all = 2 ** tipIds.length - 1;
    const bit = new Map(tipIds.map((t, i) => [t, 2 ** i]));
    const memo = new Map<number, number>();
    // Found commits in an order where parents come first: reverse DFS post-order.
    for (const x of found) {
      if (memo.has(x)) continue;
      const stack: [number, number][] = [[x, 0]];
      while (stack.length > 0) {
        this.deadline.tick();
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
  }
}

/** A new commit on a shallow clone's boundary: its hidden parents could be new too. */
function refuseBoundaries(idx: CommitIndex, start: string, result: number[]): void {
  for (const c of result) {
    const why = idx.boundary(c);
    if (why) {
      throw new ShallowBoundaryError(`Which commits ${start} brings cannot be decided: ${why}, and the commits below it may be new too. ${SHALLOW_FIX}.`, idx.oid(c));
    }
  }
}

/** What the walk showed about ancestry, for the merge base and fast-forward checks that follow:
 * the new commits and their parents are below the tip, and a tip with no new commits is below
 * the one commit excluded. */
function noteAncestry(history: History, idx: CommitIndex, start: string, excluded: string[], result: number[]): void {
  const below = new Set<string>([start]);
  for (const c of result) {
    below.add(idx.oid(c));
    for (const p of idx.parents(c)) below.add(idx.oid(p));
  }
  history.noteAncestors(start, below);
  const distinct = new Set(excluded);
  if (result.length === 0 && distinct.size === 1 && !distinct.has(start)) history.noteAncestors(excluded[0]!, [start]);
}

/** The commit an exclude or existing tip names (annotated tags peeled); null for a malformed,
 * zero or absent oid, and for one that names no commit (a tag on a blob or tree, as git/git's
 * `junio-gpg-pub`) or cannot be read: an exclude ignored can only make more commits new. */
export async function commitOrNull(store: ObjectStore, oid: string): Promise<string | null> {
  if (!isOid(oid) || oid === ZERO_OID || !store.objects.hasObject(oid)) return null;
  try {
    return await store.commits.peelToCommit(oid);
  } catch (err) {
    if (err instanceof GitReadError) return null;
    throw err;
  }
}

/** Newest first, ties by oid: the same order whatever the walk visited first. */
export function newestFirst(idx: CommitIndex, ids: number[]): string[] {
  return byNewest(ids.map((id) => ({ oid: idx.oid(id), time: idx.time(id) })));
}

export function byNewest(commits: { oid: string; time: number }[]): string[] {
  return commits.sort((a, b) => b.time - a.time || (a.oid < b.oid ? -1 : a.oid > b.oid ? 1 : 0)).map((c) => c.oid);
}
