// Commit walks: which commits a push brings, merge bases, ancestry.
//
// Walks go newest-first by committer time (a max-heap), like git's own revision walk without
// a commit-graph. A shallow clone's boundary (a commit listed in `shallow`, or a parent that
// is not in the repository) ends the walk there, as it does for git.

import type { CommitRecord, ObjectStore } from './store';

/**
 * Committer clocks are not trusted to be monotone: walks keep going until the queue is this
 * many seconds older than the oldest commit that matters. Every answer is exact whenever no
 * commit is dated more than this before one of its ancestors (git's own walk tolerates only
 * five commits of skew). Past that bound the error is on the safe side: a commit may count as
 * new although an excluded tip reaches it (more is checked, never less), and a fast-forward may
 * look like a rewrite.
 */
export const CLOCK_SKEW_SECONDS = 3_600;

class CommitQueue {
  private heap: CommitRecord[] = [];

  get size(): number {
    return this.heap.length;
  }

  peek(): CommitRecord | undefined {
    return this.heap[0];
  }

  push(c: CommitRecord): void {
    const h = this.heap;
    h.push(c);
    let i = h.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (h[p]!.committerTime >= c.committerTime) break;
      h[i] = h[p]!;
      i = p;
    }
    h[i] = c;
  }

  pop(): CommitRecord | undefined {
    const h = this.heap;
    const top = h[0];
    const last = h.pop();
    if (h.length > 0 && last) {
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        const mt = () => (m === i ? last.committerTime : h[m]!.committerTime);
        if (l < h.length && h[l]!.committerTime > mt()) m = l;
        if (r < h.length && h[r]!.committerTime > mt()) m = r;
        if (m === i) break;
        h[i] = h[m]!;
        i = m;
      }
      h[i] = last;
    }
    return top;
  }

  entries(): readonly CommitRecord[] {
    return this.heap;
  }
}

/** Parents the walk follows: none for a shallow boundary, and only those present. */
async function walkParents(store: ObjectStore, c: CommitRecord): Promise<string[]> {
  if ((await store.shallowCommits()).has(c.oid)) return [];
  const out: string[] = [];
  for (const p of c.parents) if (await store.hasObject(p)) out.push(p);
  return out;
}

/** Peels an oid that may name an annotated tag; null for a missing or zero oid. */
async function commitOrNull(store: ObjectStore, oid: string): Promise<string | null> {
  if (!/^[0-9a-f]{40}$/.test(oid) || /^0{40}$/.test(oid) || !(await store.hasObject(oid))) return null;
  return store.peelToCommit(oid);
}

const INTERESTING = 1;
const UNINTERESTING = 2;

/**
 * Commits reachable from `tip` and from none of `exclude` (`git rev-list tip --not exclude…`),
 * newest first. Walks both sides by committer time and stops once every commit still queued is
 * reachable from `exclude` and older, by more than CLOCK_SKEW_SECONDS, than every new commit
 * found, so a short range on a long history reads only the commits near the range. Exclude entries that are absent (or the zero
 * oid) are ignored: they can only make more commits count as new.
 */
export async function newCommits(store: ObjectStore, tip: string, exclude: string[]): Promise<string[]> {
  const start = await store.peelToCommit(tip);
  const flags = new Map<string, number>();
  const expanded = new Map<string, string[]>(); // commit -> parents, once popped
  const queued = new Set<string>();
  const queue = new CommitQueue();
  let interestingQueued = 0;

  const enqueue = async (oid: string, flag: number) => {
    const c = await store.readCommitRecord(oid);
    flags.set(oid, flag);
    queued.add(oid);
    if (flag === INTERESTING) interestingQueued++;
    queue.push(c);
  };

  /** Marks `oid` and everything already known below it as reachable from `exclude`. */
  const markUninteresting = async (oid: string) => {
    const stack = [oid];
    while (stack.length > 0) {
      const cur = stack.pop()!;
      const f = flags.get(cur);
      if (f === UNINTERESTING) continue;
      if (f === undefined) {
        await enqueue(cur, UNINTERESTING);
        continue;
      }
      flags.set(cur, UNINTERESTING);
      if (queued.has(cur)) interestingQueued--;
      const parents = expanded.get(cur);
      if (parents) stack.push(...parents);
    }
  };

  for (const ex of exclude) {
    const oid = await commitOrNull(store, ex);
    if (oid) await markUninteresting(oid);
  }
  if (!flags.has(start)) await enqueue(start, INTERESTING);

  const found: CommitRecord[] = [];
  let oldestFound = Infinity;
  while (queue.size > 0) {
    // Stop once nothing new is queued and every queued commit is older (beyond the skew
    // allowance) than every new commit found: none of them can reach a found commit.
    if (interestingQueued === 0 && (found.length === 0 || queue.peek()!.committerTime < oldestFound - CLOCK_SKEW_SECONDS)) break;
    const c = queue.pop()!;
    queued.delete(c.oid);
    const flag = flags.get(c.oid)!;
    if (flag === INTERESTING) interestingQueued--;
    const parents = await walkParents(store, c);
    expanded.set(c.oid, parents);
    if (flag === UNINTERESTING) {
      for (const p of parents) await markUninteresting(p);
    } else {
      found.push(c);
      oldestFound = Math.min(oldestFound, c.committerTime);
      for (const p of parents) if (!flags.has(p)) await enqueue(p, INTERESTING);
    }
  }
  return found.filter((c) => flags.get(c.oid) === INTERESTING).map((c) => c.oid);
}

/**
 * For the server: commits reachable from `tip` whose objects are in the push's quarantine,
 * i.e. the commits this push brought, newest first. The walk never leaves the quarantine, so
 * its cost is the size of the push, whatever the size of the repository.
 */
export async function newCommitsInQuarantine(store: ObjectStore, tip: string): Promise<string[]> {
  const out: CommitRecord[] = [];
  const seen = new Set<string>();
  const stack: string[] = [];
  // A pushed annotated tag is peeled: the commit it names counts if the push brought it too.
  const start = await commitOrNull(store, tip);
  if (start) stack.push(start);
  while (stack.length > 0) {
    const oid = stack.pop()!;
    if (seen.has(oid)) continue;
    seen.add(oid);
    if (!(await store.isQuarantined(oid))) continue;
    const c = await store.readCommitRecord(oid);
    out.push(c);
    for (const p of await walkParents(store, c)) if (!seen.has(p)) stack.push(p);
  }
  return out.sort((a, b) => b.committerTime - a.committerTime).map((c) => c.oid);
}

const PARENT1 = 1;
const PARENT2 = 2;
const STALE = 4;
const RESULT = 8;

/** All merge-base candidates of a and b before redundancy is removed (git's
 * paint_down_to_common), newest first. */
async function paintDownToCommon(store: ObjectStore, a: string, b: string): Promise<CommitRecord[]> {
  const flags = new Map<string, number>();
  const queue = new CommitQueue();
  const results: CommitRecord[] = [];
  flags.set(a, PARENT1);
  queue.push(await store.readCommitRecord(a));
  flags.set(b, (flags.get(b) ?? 0) | PARENT2);
  if (a !== b) queue.push(await store.readCommitRecord(b));
  let oldestResult = Infinity;
  const hasNonStale = () => queue.entries().some((c) => ((flags.get(c.oid) ?? 0) & STALE) === 0);
  // git stops when every queued commit is stale; with skewed clocks a better base may still be
  // below a queued commit dated after an older-looking result, so keep painting down to the
  // skew allowance below the oldest result.
  while (queue.size > 0 && (hasNonStale() || queue.peek()!.committerTime >= oldestResult - CLOCK_SKEW_SECONDS)) {
    const c = queue.pop()!;
    let f = flags.get(c.oid)! & (PARENT1 | PARENT2 | STALE);
    // As git's paint_down_to_common: a stale commit reached from both sides is not a base.
    if (f === (PARENT1 | PARENT2)) {
      if ((flags.get(c.oid)! & RESULT) === 0) {
        flags.set(c.oid, flags.get(c.oid)! | RESULT);
        results.push(c);
        oldestResult = Math.min(oldestResult, c.committerTime);
      }
      f |= STALE;
    }
    for (const p of await walkParents(store, c)) {
      const pf = flags.get(p) ?? 0;
      if ((pf & f) === f) continue;
      flags.set(p, pf | f);
      queue.push(await store.readCommitRecord(p));
    }
  }
  // A result reached later from another result is an ancestor of it: not a best base.
  return results.filter((c) => (flags.get(c.oid)! & STALE) === 0).sort((x, y) => y.committerTime - x.committerTime);
}

/** Every best common ancestor of a and b (`git merge-base --all`), newest first. */
export async function mergeBases(store: ObjectStore, a: string, b: string): Promise<string[]> {
  const ca = await store.peelToCommit(a);
  const cb = await store.peelToCommit(b);
  if (ca === cb) return [ca];
  const candidates = await paintDownToCommon(store, ca, cb);
  // Drop a candidate that is an ancestor of another (git's remove_redundant).
  const best: CommitRecord[] = [];
  for (const c of candidates) {
    let redundant = false;
    for (const other of candidates) {
      if (other.oid !== c.oid && (await reaches(store, other.oid, c.oid))) {
        redundant = true;
        break;
      }
    }
    if (!redundant) best.push(c);
  }
  return best.map((c) => c.oid);
}

/** One best common ancestor of a and b, as `git merge-base a b` prints; null when the
 * histories are unrelated. */
export async function mergeBase(store: ObjectStore, a: string, b: string): Promise<string | null> {
  return (await mergeBases(store, a, b))[0] ?? null;
}

/** True when commit `a` is an ancestor of `b` or equal to it (`git merge-base --is-ancestor`). */
export async function isAncestor(store: ObjectStore, a: string, b: string): Promise<boolean> {
  const ca = await store.peelToCommit(a);
  const cb = await store.peelToCommit(b);
  return ca === cb || reaches(store, cb, ca);
}

/** True when `target` is reachable from `from` (strictly below it or equal). Walks newest
 * first and stops below target's committer time minus the skew allowance. */
async function reaches(store: ObjectStore, from: string, target: string): Promise<boolean> {
  if (from === target) return true;
  const t = await store.readCommitRecord(target);
  const queue = new CommitQueue();
  const seen = new Set<string>([from]);
  queue.push(await store.readCommitRecord(from));
  while (queue.size > 0) {
    const c = queue.pop()!;
    if (c.oid === target) return true;
    if (c.committerTime < t.committerTime - CLOCK_SKEW_SECONDS) return false;
    for (const p of await walkParents(store, c)) {
      if (seen.has(p)) continue;
      seen.add(p);
      queue.push(await store.readCommitRecord(p));
    }
  }
  return false;
}
