// Every evidence rule over the whole tree at `new` (src/evidence/), once per tree pair.

import { checkEvidence } from '../evidence/index';
import { TreeSource } from '../evidence/tree-source';
import type { EvidenceReport, EvidenceSource } from '../evidence/types';
import type { RunContext } from '../run/context';
import { short } from '../wording';

/** The base tree as an evidence source (the "before" side: EPOCH_REWRITTEN), or null. */
export async function baseSource(ctx: RunContext): Promise<EvidenceSource | null> {
  const tip = ctx.base.tip;
  if (tip === null) return null;
  const { tree } = await ctx.store.commits.read(tip);
  return new TreeSource(ctx.store, tree, `base ${short(tip)}`);
}

/** The evidence report for `atNew`; with a `key` (a tree oid) it is computed once per run. */
export function evidenceReport(ctx: RunContext, atNew: EvidenceSource, key: string | null): Promise<EvidenceReport> {
  const run = async () => checkEvidence({ policy: ctx.policy, atNew, atBase: await baseSource(ctx), today: ctx.today, deadline: ctx.deadline });
  if (key === null) return run();
  let report = ctx.evidence.get(key);
  if (!report) {
    report = run();
    ctx.evidence.set(key, report);
  }
  return report;
}

export function treeEvidence(ctx: RunContext, commit: string, tree: string): Promise<EvidenceReport> {
  return evidenceReport(ctx, new TreeSource(ctx.store, tree, `commit ${short(commit)}`), tree);
}
