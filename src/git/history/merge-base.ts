// Ancestry and merge bases: `git merge-base --is-ancestor`, `git merge-base --all` and
// `git merge-base`, exact whatever the commit dates say (commit-index.ts says how a walk proves
// it may stop).
//
// Shallow clones (shallow.ts):
//   - isAncestor: a "no" that was reached after stopping at a boundary throws.
//   - mergeBases: throws when the paint stopped at boundaries reached from each side alone (a
//     common ancestor may be hidden below them), or when two or more bases remain and a
//     boundary lies below them (hidden history could make one an ancestor of another).

import type { Deadline } from '../../deadline';
import type { CommitIndex } from './commit-index';
import type { History } from './history';
import { Heap, Marks } from './marks';
import { SHALLOW_FIX, ShallowBoundaryError } from './shallow';

/** True when commit `a` is an ancestor of `b` or equal to it (`git merge-base --is-ancestor`). */
export async function isAncestor(history: History, a: string, b: string, deadline: Deadline): Promise<boolean> {
  deadline.check();
  const { store } = history;
  const ca = await store.commits.peelToCommit(a);
  const cb = await store.commits.peelToCommit(b);
  if (ca === cb || history.knownAncestor(ca, cb)) return true;
  const idx = await history.commitIndex(deadline, [ca, cb]);
  const target = idx.idOf(ca);
  const from = idx.idOf(cb);
  let search: Search;
  // What the walk read joins the server's commit cache even when the deadline ends it, and
  // the packs it read are let go either way.
  try {
    await idx.prepare(target, deadline);
    await idx.prepare(from, deadline);
    search = idx.hasGenerations ? await searchByGeneration(idx, from, target, deadline) : await searchByDate(idx, from, target, deadline);
  } finally {
    history.saveCommitCache();
  }
  if (search.found) return true;
  if (search.boundary) {
    throw new ShallowBoundaryError(`Whether ${ca} is an ancestor of ${cb} depends on history beyond a shallow clone's boundary: ${search.boundary}. ${SHALLOW_FIX}.`, ca);
  }
  return false;
}

/** Whether a search from `from` reached `target`; if not, the first shallow boundary it
 * stopped at (null for none). */
interface Search {
  found: boolean;
  boundary: string | null;
}

/**
 * With generation numbers: depth first, first parents first (as git's can_all_from_reach), so
 * a commit on the main line is found without visiting the side branches; nothing at or below
 * the target's generation is expanded.
 */
async function searchByGeneration(idx: CommitIndex, from: number, target: number, deadline: Deadline): Promise<Search> {
  const seen = new Marks(idx.size);
  seen.set(from, 1);
  let boundary: string | null = null;
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
      if (p === target) return { found: true, boundary };
      if (seen.get(p)) continue;
      seen.set(p, 1);
      if (!idx.prepareKnown(p)) await idx.prepare(p, deadline);
      stack.push(p);
    }
  }
  return { found: false, boundary };
}

/** Without generation numbers: newest first until the target is found or nothing is left. */
async function searchByDate(idx: CommitIndex, from: number, target: number, deadline: Deadline): Promise<Search> {
  const seen = new Marks(idx.size);
  seen.set(from, 1);
  let boundary: string | null = null;
  const queue = new Heap();
  queue.push(from, 0, idx.time(from));
  while (queue.size > 0) {
    deadline.tick();
    const c = queue.pop();
    boundary ??= idx.boundary(c);
    for (const p of idx.parents(c)) {
      if (p === target) return { found: true, boundary };
      if (seen.get(p)) continue;
      seen.set(p, 1);
      if (!idx.prepareKnown(p)) await idx.prepare(p, deadline);
      queue.push(p, 0, idx.time(p));
    }
  }
  return { found: false, boundary };
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
 * ancestor already found. `fromRefs`: the sides (PARENT1, PARENT2) that start at an existing
 * ref's commit, whose commits' parents are taken as present, as on the walk from the tips.
 */
async function paintDownToCommon(idx: CommitIndex, one: number, twos: number[], deadline: Deadline, fromRefs = 0): Promise<Paint> {
  const flags = new Marks(idx.size);
  // Entries per commit, to count the non-stale ones (a commit is queued at most once per flag
  // it gains, so a byte holds the count).
  const inQueue = new Marks(idx.size);
  const queue = new Heap();
  const byGen = idx.graph?.correctedDates === true;
  let nonStale = 0;
  const results: number[] = [];
  const boundaries: number[] = [];
  const put = (id: number) => {
    queue.push(id, byGen ? idx.gitOrderGen(id) : 0, idx.time(id));
    inQueue.set(id, inQueue.get(id) + 1);
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
    inQueue.set(c, inQueue.get(c) - 1);
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
      if (f & STALE && !(pf & STALE)) nonStale -= inQueue.get(p);
      flags.set(p, pf | f);
      // Reached from a side an existing ref's commit starts: the refs reach it (commit-index.ts).
      const trusted = (f & fromRefs) !== 0;
      if (!idx.prepareKnown(p, trusted)) await idx.prepare(p, deadline, trusted);
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
export async function mergeBases(history: History, a: string, b: string, deadline: Deadline): Promise<string[]> {
  deadline.check();
  const { store } = history;
  const ca = await store.commits.peelToCommit(a);
  const cb = await store.commits.peelToCommit(b);
  if (ca === cb) return [ca];
  // An ancestor of the other is the one merge base (git merge-base prints it, --all alone).
  if (history.knownAncestor(ca, cb)) return [ca];
  if (history.knownAncestor(cb, ca)) return [cb];
  const onto = pushedOntoAncestor(history, ca, cb) ?? pushedOntoAncestor(history, cb, ca);
  if (onto !== null) return [onto];
  const idx = await history.commitIndex(deadline, [ca, cb]);
  const one = idx.idOf(ca);
  const two = idx.idOf(cb);
  // A side that starts at an existing ref's commit (on the server, after the new-commits walk).
  const fromRefs = (history.isExistingTip(ca) ? PARENT1 : 0) | (history.isExistingTip(cb) ? PARENT2 : 0);
  // What the walks read joins the server's commit cache (when one is in use), even when the
  // deadline ends them; the packs they read are let go either way.
  try {
    return await basesOf(idx, ca, cb, one, two, fromRefs, deadline);
  } finally {
    history.saveCommitCache();
  }
}

/** mergeBases' walks: the paint, then the redundant bases dropped. */
async function basesOf(idx: CommitIndex, ca: string, cb: string, one: number, two: number, fromRefs: number, deadline: Deadline): Promise<string[]> {
  const paint = await paintDownToCommon(idx, one, [two], deadline, fromRefs);
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
      `The merge base of ${ca} and ${cb} may lie beyond a shallow clone's boundary: ${idx.boundary(open1)}, and ${idx.boundary(open2)}. ${SHALLOW_FIX}.`,
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
      throw new ShallowBoundaryError(`${a} and ${b} have ${bases.length} merge bases in this shallow clone, and which are best depends on history beyond its boundary: ${why}. ${SHALLOW_FIX}.`, idx.oid(c));
    }
    for (const p of idx.parents(c)) {
      if (!seen.get(p)) {
        seen.set(p, 1);
        stack.push(p);
      }
    }
  }
}

/**
 * The merge base of an existing ref's commit `tip` and a pushed commit `pushed` when the
 * server's new-commits walk settled it: the pushed commit's new commits were built on one
 * commit B alone, and the walk showed B below `tip`. The commits below `pushed` are its new
 * commits and B's ancestors; no existing ref, `tip` included, reaches a new commit; so the
 * common ancestors are B's, and B is the one best (`git merge-base --all` prints B alone).
 * Null when that was not shown.
 */
function pushedOntoAncestor(history: History, tip: string, pushed: string): string | null {
  const onto = history.pushedOnto(pushed);
  if (!onto || onto.bases.length !== 1 || !onto.isExistingTip(tip)) return null;
  const base = onto.bases[0]!;
  return history.knownAncestor(base, tip) ? base : null;
}

/** The best common ancestor `git merge-base a b` prints (the first of mergeBases); null when
 * the histories are unrelated. */
export async function mergeBase(history: History, a: string, b: string, deadline: Deadline): Promise<string | null> {
  return (await mergeBases(history, a, b, deadline))[0] ?? null;
}
