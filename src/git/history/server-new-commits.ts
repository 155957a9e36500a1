// Which commits are new on the server: `git rev-list tip --not --all` as the repository stood
// before the push, answered mostly from what the push's quarantine holds.
//
// Shallow clones (shallow.ts): never an error here. A pushed commit whose parent is absent (a
// push from a shallow clone) is new and its parents simply absent (the engine then closes the
// update, naming the commit and the parent); a boundary among the existing refs' history can
// only make more commits count as new.

import type { Deadline } from '../../deadline';
import type { ObjectStore } from '../store';
import type { CommitIndex } from './commit-index';
import type { History } from './history';
import { Heap, Links, Marks } from './marks';
import { byNewest, commitOrNull, newestFirst } from './new-commits';
import { isOid } from '../../types';

/**
 * For the server (docs/contract.md §2 New commits): the commits reachable from `tip` and from none of `existingTips`
 * (every ref's commit before the push, peeled), i.e. `git rev-list tip --not --all` as the
 * repository stood; newest first (ties by oid). A commit whose object only the push's
 * quarantine holds is new without asking: the repository's refs cannot reach an object the
 * repository did not have. A commit the repository already held (pushed earlier without a ref,
 * or in an alternate) is new unless an existing tip reaches it, decided exactly; the usual one
 * is a tip itself or just below one, so the cost stays near the size of the push.
 */
export async function newCommitsOnServer(history: History, tip: string, existingTips: string[], deadline: Deadline): Promise<string[]> {
  deadline.check();
  const { store } = history;
  const start = await store.commits.peelToCommit(tip);
  // A commit that is itself a ref's tip is old without reading anything (packed-refs records
  // what annotated tags peel to); the other tips are peeled only if some commit the push did
  // not bring needs the exact reachability walk.
  const literal = new Set(existingTips.map((t) => store.commits.peelHint(t) ?? t));
  const quick = await pushedOntoTips(history, start, literal, deadline);
  if (quick !== null) return quick;
  await history.useCommitCache();
  const idx = await history.commitIndex(deadline, [start]);
  const existing = new ExistingTips(store, idx, existingTips, literal, deadline);
  // What was read is kept even when the deadline ends the walk: the next push goes further.
  try {
    const found = await collectNew(store, idx, start, existing, deadline);
    noteWhatTheWalkShowed(history, idx, start, found.old, existing);
    return newestFirst(idx, found.fresh);
  } finally {
    history.saveCommitCache();
  }
}

/**
 * Records, for the merge-base and ancestry questions that follow on the same push, what the
 * walk proved: the commits the new ones were built on (`old`: each reached from an existing
 * ref), the existing tips, and for each of those commits the tips a chain of parent links the
 * walk followed leads down from (ReachableFrom.sourcesAbove). Nothing is recorded that the walk
 * did not prove, and nothing when it met a boundary.
 */
function noteWhatTheWalkShowed(history: History, idx: CommitIndex, start: string, old: number[], existing: ExistingTips): void {
  // Below a boundary (a parent absent, a shallow list) there is history the walk did not see.
  if (idx.sawBoundary || idx.shallow.size > 0) return;
  const bases = old.map((c) => idx.oid(c));
  const tips = existing.tipCommitsWhenAsked();
  history.notePushedOnto(start, bases, (commit) => tips().has(commit));
  for (const c of old) {
    for (const tip of existing.tipsAbove(c)) history.noteAncestors(idx.oid(tip), [idx.oid(c)]);
  }
}

/** The commits reachable from `start` that the push brought or no existing tip reaches
 * (`fresh`), and the commits they have as parents that an existing tip reaches (`old`). */
async function collectNew(store: ObjectStore, idx: CommitIndex, start: string, existing: ExistingTips, deadline: Deadline): Promise<{ fresh: number[]; old: number[] }> {
  const seen = new Marks(idx.size);
  const result: number[] = [];
  const old: number[] = [];
  const stack = [idx.idOf(start)];
  seen.set(stack[0]!, 1);
  while (stack.length > 0) {
    deadline.tick();
    const c = stack.pop()!;
    const isNew = (await store.objects.isQuarantined(idx.oid(c))) || !(await existing.reach(c));
    if (!isNew) {
      old.push(c);
      continue;
    }
    await idx.prepare(c, deadline);
    result.push(c);
    for (const p of idx.parents(c)) {
      if (!seen.get(p)) {
        seen.set(p, 1);
        stack.push(p);
      }
    }
  }
  return { fresh: result, old };
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
async function pushedOntoTips(history: History, start: string, tips: ReadonlySet<string>, deadline: Deadline): Promise<string[] | null> {
  const { store } = history;
  if (store.commits.shallowNow().size > 0) return null;
  // Each commit is read synchronously: one await for the object database, not one per commit.
  await store.objects.ready();
  const found: { oid: string; time: number; parents: readonly string[] }[] = [];
  const below = new Set<string>([start]);
  const stack = [start];
  while (stack.length > 0) {
    deadline.tick();
    const c = stack.pop()!;
    // A commit of the quarantine is walked through (a tip is asked as before: the repository
    // holds it, and the walk stops there). Whether the repository held it too is asked below,
    // for the lowest walked commits only.
    if (tips.has(c) || !store.objects.isInQuarantineNow(c)) {
      if (!store.objects.isQuarantinedNow(c)) {
        // A parent the repository lacks (a tip of a damaged repository included) is for the
        // exact walk to meet; a commit the push brought is there without asking.
        if (tips.has(c) && (c === start || store.objects.hasObject(c))) continue;
        return null;
      }
    }
    const commit = store.commits.recordNow(c);
    found.push({ oid: c, time: commit.committerTime, parents: commit.parents });
    for (const p of commit.parents) {
      if (below.has(p)) continue;
      below.add(p);
      stack.push(p);
    }
  }
  // Every walked commit has an ancestor among the walked commits none of whose parents was
  // walked (the lowest ones: following walked parents down must end). An existing ref that
  // reached a walked commit would reach that ancestor, and the repository would hold it (an
  // existing ref's history is in the repository's own directories). So when the push brought
  // each of the lowest walked commits (the quarantine holds it, the repository did not), no
  // existing ref reaches any walked commit, and each is new: one look-up in the repository's
  // index for each lowest commit (most often one), not one for every pushed commit. A commit
  // the repository also held elsewhere in the walk (a client resent it) is new all the same,
  // as the exact walk finds it; a lowest one the repository held is for the exact walk.
  const walked = new Set<string>();
  for (const f of found) walked.add(f.oid);
  for (const f of found) {
    deadline.tick();
    if (f.parents.some((p) => walked.has(p))) continue;
    if (!store.objects.isQuarantinedNow(f.oid)) return null;
  }
  history.noteAncestors(start, below);
  return byNewest(found);
}

/** Whether the repository's refs before the push reach a commit: a ref's tip is known without
 * reading anything; for any other commit the tips are peeled (once) and walked from, as far as
 * the question needs. */
class ExistingTips {
  private walk: { tipIds: Set<number>; from: ReachableFrom } | null = null;

  constructor(
    private readonly store: ObjectStore,
    private readonly idx: CommitIndex,
    private readonly tips: string[],
    private readonly literal: ReadonlySet<string>,
    private readonly deadline: Deadline,
  ) {}

  /** The existing tips' commits as far as known: the literal tips, and the peeled ones once
   * the walk started. */
  tipCommits(): Set<string> {
    return this.tipCommitsWhenAsked()();
  }

  /** tipCommits() made when first asked, by a function that holds the tips only (not the
   * walk's marks and links, sized to the whole commit index): what a History keeps for the
   * rest of the run. */
  tipCommitsWhenAsked(): () => Set<string> {
    const { literal, idx } = this;
    const tipIds = this.walk?.tipIds;
    let tips: Set<string> | null = null;
    return () => {
      if (tips === null) {
        tips = new Set(literal);
        for (const t of tipIds ?? []) tips.add(idx.oid(t));
      }
      return tips;
    };
  }

  /** Tips (ids) from which the walk's parent links lead down to `c` (a tip itself is one). */
  tipsAbove(c: number): number[] {
    if (this.literal.has(this.idx.oid(c)) && !this.walk) return [c];
    return this.walk ? this.walk.from.sourcesAbove(c, this.walk.tipIds) : [];
  }

  async reach(c: number): Promise<boolean> {
    if (this.literal.has(this.idx.oid(c))) return true;
    this.walk ??= await this.startWalk();
    return this.walk.tipIds.has(c) || (await this.walk.from.reaches(c));
  }

  private async startWalk(): Promise<{ tipIds: Set<number>; from: ReachableFrom }> {
    const { store } = this;
    const tipIds = new Set<number>();
    for (const t of new Set(this.tips)) {
      this.deadline.tick();
      const peeled = store.commits.peelHint(t) ?? t;
      // A commit the graph or the commit cache lists was read as a commit before (by git, or by
      // an earlier walk): it need not be read again.
      const pos = this.idx.graph !== null && isOid(peeled) ? this.idx.graph.position(peeled) : -1;
      const cached = isOid(peeled) && (pos >= 0 || this.idx.listed(peeled)) && this.idx.holds(peeled);
      if (cached && pos >= 0) {
        tipIds.add(pos); // a graph commit's id is its position
        continue;
      }
      const oid = cached ? peeled : peeled !== t && store.objects.hasObject(peeled) ? await commitOrNull(store, peeled) : await commitOrNull(store, t);
      if (oid) tipIds.add(this.idx.idOf(oid));
    }
    return { tipIds, from: new ReachableFrom(this.idx, [...tipIds], this.deadline) };
  }
}

/**
 * Reachability from a fixed set of commits (the refs a repository had before a push), walked
 * only as far as the questions asked need: highest generation first, down to the generation of
 * the commit asked about; without a graph, newest first until the commit is found or nothing
 * is left.
 */
class ReachableFrom {
  private readonly seen: Marks;
  /** For each commit seen, the commit whose parents the walk found it among (-1 for a source
   * never found so): a chain of parent links up to a source. */
  private readonly foundFrom: Links;
  private readonly queue = new Heap();
  private started = false;

  constructor(
    private readonly idx: CommitIndex,
    private readonly sources: number[],
    private readonly deadline: Deadline,
  ) {
    this.seen = new Marks(idx.size);
    this.foundFrom = new Links(idx.size);
  }

  /** The sources whose chain of links leads down to `c` (each reaches `c`: every link is a
   * parent edge); [] when the walk did not see `c`. */
  sourcesAbove(c: number, sources: ReadonlySet<number>): number[] {
    if (!this.seen.get(c)) return [];
    const out: number[] = [];
    for (let at = c, n = 0; at >= 0 && n <= this.idx.size; at = this.foundFrom.get(at), n++) if (sources.has(at)) out.push(at);
    return out;
  }

  private sourceSet: Set<number> | null = null;

  private isSource(id: number): boolean {
    return (this.sourceSet ??= new Set(this.sources)).has(id);
  }

  /** `source`: a tip, asked about in the order the refs come (not read from the packs in
   * order, pack-commits.ts: the tips lie all over a pack). */
  private async visit(id: number, source = false): Promise<void> {
    if (this.seen.get(id)) return;
    if (!this.idx.prepareKnown(id, true, !source)) await this.idx.prepare(id, this.deadline, true, !source);
    this.seen.set(id, 1);
    this.queue.push(id, this.idx.gen(id), this.idx.time(id));
  }

  async reaches(target: number): Promise<boolean> {
    if (!this.started) {
      this.started = true;
      for (const s of this.sources) await this.visit(s, true);
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
        if (this.seen.get(p)) {
          // A source found below another commit: the chain goes on through it.
          if (this.foundFrom.get(p) < 0 && this.isSource(p)) this.foundFrom.set(p, c);
          continue;
        }
        this.foundFrom.set(p, c);
        if (this.idx.prepareKnown(p, true)) {
          this.seen.set(p, 1);
          this.queue.push(p, this.idx.gen(p), this.idx.time(p));
        } else await this.visit(p);
      }
      if (this.seen.get(target)) return true;
    }
    return this.seen.get(target) !== 0;
  }
}
