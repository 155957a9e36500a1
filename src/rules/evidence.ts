// Every evidence rule over the whole tree at `new` (src/evidence/), once per tree pair.

import { checkEvidence } from '../evidence/index';
import { TreeSource } from '../evidence/tree-source';
import type { EvidenceReport, EvidenceSource } from '../evidence/types';
import type { RunContext } from '../run/context';
import { recorded, RecordingTreeSource, sameAnswers, type RecordedReport } from './evidence-reuse';
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

/** Per run, the last reports the evidence of a tree was recorded for (evidence-reuse.ts). */
const recordedReports = new WeakMap<RunContext, RecordedReport[]>();
const RECORDED_KEPT = 2;

/** The evidence at a commit's tree, once per tree; a tree that answers every question an
 * earlier tree's evidence asked from the same entries gets that tree's report
 * (src/rules/evidence-reuse.ts: a push of many tags on distinct commits). */
export function treeEvidence(ctx: RunContext, commit: string, tree: string): Promise<EvidenceReport> {
  let report = ctx.evidence.get(tree);
  if (!report) {
    report = reusedOrRecorded(ctx, commit, tree);
    ctx.evidence.set(tree, report);
  }
  return report;
}

async function reusedOrRecorded(ctx: RunContext, commit: string, tree: string): Promise<EvidenceReport> {
  const kept = recordedReports.get(ctx) ?? [];
  for (const r of kept) if (await sameAnswers(ctx.store, tree, r)) return r.report;
  const source = new RecordingTreeSource(ctx.store, tree, `commit ${short(commit)}`);
  const report = await checkEvidence({ policy: ctx.policy, atNew: source, atBase: await baseSource(ctx), today: ctx.today, deadline: ctx.deadline });
  const r = recorded(source, report);
  if (r) recordedReports.set(ctx, [r, ...kept].slice(0, RECORDED_KEPT));
  return report;
}
