// Which of many commits are ancestors of one tip, found by one walk from the tip instead of one
// walk per commit. A push of many tags on old commits asks the engine, per ref, for the merge
// base of the base branch and the tag's commit, and whether the existing refs reach that
// commit; each per-ref walk goes from the tip down to the commit, so a push of n tags spread
// over a history of h commits walked about n × h / 2 commits. Here the walk is made once.
//
// What the walk proves is recorded in History (noteAncestors): the walks that follow
// (merge-base.ts) answer a proven ancestor without a walk. Nothing is decided from what the
// walk did not reach: it may stop early (a date below every candidate's, without generation
// numbers), and a candidate it did not reach is left to the exact per-ref walk, as before.

import type { Deadline } from '../../deadline';
import type { History } from './history';
import { Heap, Marks } from './marks';

/** A commit dated this long (seconds) before the oldest candidate is where the walk gives up
 * without generation numbers. Only a speed choice: what it did not reach is walked exactly
 * later. */
const DATE_SLACK_S = 86_400;

/**
 * Walks from `tip` (a commit the repository's refs reach) and records in `history` every
 * commit of `candidates` it reaches. Returns the candidates reached. With generation numbers
 * the walk stops below the lowest candidate's generation (every ancestor above it has been
 * seen); without, once the commits left are a day older than the oldest candidate, or when
 * every candidate has been reached.
 */
export async function noteAncestorsAmong(history: History, tip: string, candidates: readonly string[], deadline: Deadline): Promise<Set<string>> {
  const found = new Set<string>();
  if (candidates.length === 0) return found;
  // What the walk read joins the server's commit cache (when one is in use), even when the
  // deadline ends it; the packs it read are let go either way.
  try {
    await walkAmong(history, tip, candidates, deadline, found);
  } finally {
    history.saveCommitCache();
  }
  history.noteAncestors(tip, found);
  return found;
}

/** The walk of noteAncestorsAmong: adds to `found` the candidates it reaches from `tip`. */
async function walkAmong(history: History, tip: string, candidates: readonly string[], deadline: Deadline, found: Set<string>): Promise<void> {
  const idx = await history.commitIndex(deadline, [tip]);
  const targets = new Marks(idx.size);
  let left = 0;
  let lowGen = Number.POSITIVE_INFINITY;
  let lowTime = Number.POSITIVE_INFINITY;
  for (const c of new Set(candidates)) {
    deadline.tick();
    const id = idx.idOf(c);
    // Refs' commits lie all over a pack: read one by one, not by the pack's cursors.
    await idx.prepare(id, deadline, false, false);
    if (targets.get(id)) continue;
    targets.set(id, 1);
    left++;
    lowGen = Math.min(lowGen, idx.gen(id));
    lowTime = Math.min(lowTime, idx.time(id));
  }
  const start = idx.idOf(tip);
  await idx.prepare(start, deadline, true);
  const seen = new Marks(idx.size);
  const queue = new Heap();
  seen.set(start, 1);
  queue.push(start, idx.gen(start), idx.time(start));
  const stopTime = lowTime - DATE_SLACK_S;
  while (queue.size > 0 && left > 0) {
    deadline.tick();
    // A max-heap on (generation, date): once its top is below the lowest candidate's
    // generation, no candidate not yet reached is an ancestor (generations fall along every
    // path). Without generations all are +Infinity and the order is by date.
    if (idx.hasGenerations ? queue.topK1() < lowGen : false) break;
    const c = queue.pop();
    if (!idx.hasGenerations && idx.time(c) < stopTime) break;
    if (targets.get(c) === 1) {
      targets.set(c, 2);
      found.add(idx.oid(c));
      left--;
    }
    for (const p of idx.parents(c)) {
      if (seen.get(p)) continue;
      seen.set(p, 1);
      if (!idx.prepareKnown(p, true)) await idx.prepare(p, deadline, true);
      queue.push(p, idx.gen(p), idx.time(p));
    }
  }
}
