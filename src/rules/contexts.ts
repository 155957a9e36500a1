// Bounded contexts (monorepos, docs/contexts.md): the evidence of each context at `new`. Which
// context holds a path, who may change it and which contexts a ref update touches is
// src/run/contexts.ts (built once per run, and only for a policy that declares contexts: a policy
// without them never reaches here).
//
//   path ─► the context whose root holds it ─► that context's protection and owners
//        └► outside every root ─► the repository-wide protection and owners (and the contexts
//                                 a symlink or an 8.3 short name there could reach into)
//   touched paths ─► the patch's contexts: the roots that hold them, and the contexts whose
//                    epoch pin (at the base) names them as generator or input, wherever they
//                    lie; a path outside every root also touches the contexts whose dependsOn
//                    names it, else every context
//   tree at new ─► the repository-wide evidence, then each context's, each finding naming its
//                  context; an expired (or held) freeze of an untouched context is info

import { TreeSource } from '../evidence/tree-source';
import { dayNumber } from '../evidence/dates';
import { expiredFreezeFindings, type ExpiryRow } from '../evidence/freeze';
import { checkEvidence, printableFinding } from '../evidence/index';
import { parsePyJson, toPlain } from '../evidence/pyjson';
import { anOwner } from '../evidence/read';
import type { ContextResult, EvidenceReport, EvidenceResults, EvidenceSource, RuleContext } from '../evidence/types';
import { emptyIdentities, finding, type Finding } from '../findings';
import type { PathChange } from '../git/types';
import { foldKey } from '../paths';
import { short } from '../wording';
import type { RunContext } from '../run/context';
import { baseSource, evidenceReport } from './evidence';
import type { BoundedContext, Contexts } from '../run/contexts';

/** Codes that an untouched context reports as info: the freezes that rot on the base branch by
 * the calendar alone, and the holds of tests the patch does not reach. */
const UNTOUCHED_INFO = new Set(['FREEZE_EXPIRED', 'FREEZE_HELD']);

/**
 * The evidence over the whole tree at `new`: the repository-wide sections, then every context's
 * (each read through its own policy, so it reads only its own files), once per tree and context.
 */
export function contextsEvidence(
  ctx: RunContext,
  contexts: Contexts,
  commit: string,
  tree: string,
  changes: readonly (readonly PathChange[])[],
): Promise<EvidenceReport> {
  return contextsEvidenceAt(ctx, contexts, new TreeSource(ctx.store, tree, `commit ${short(commit)}`), tree, changes);
}

/** The same over any evidence source (the staged index: `key` null, nothing cached). */
export async function contextsEvidenceAt(
  ctx: RunContext,
  contexts: Contexts,
  atNew: EvidenceSource,
  key: string | null,
  changes: readonly (readonly PathChange[])[],
): Promise<EvidenceReport> {
  const repo = await evidenceReport(ctx, atNew, key);
  await contexts.prepare(ctx.store, ctx.base.tip);
  const touched = new Set(contexts.touchedBy(changes));
  const findings: Finding[] = [...repo.findings];
  const results: ContextResult[] = [];
  // Untouched contexts whose tree is the base's are judged on their freezes alone (see
  // freezesOnly); only when every change lies under some root. Untouched means that no change
  // reaches a path the context's evidence reads: its policy's paths lie under its root (an
  // unchanged subtree), and a change to the generator or an input its pin names, under any
  // root, makes it touched (src/run/contexts.ts), so it is never skipped here.
  const baseTree = key === null || ctx.contextsInFull || ctx.base.tip === null || contexts.touchesOutside(changes) ? null : (await ctx.store.commits.read(ctx.base.tip)).tree;
  // What the untouched contexts' freeze files say, by blob: contexts that share a freeze file's
  // bytes parse them once.
  const seen: SeenFreezes = { rows: new Map(), keyed: new Map() };
  for (const c of contexts.list) {
    ctx.deadline.check();
    const same = baseTree !== null && key !== null && !touched.has(c) && (await sameSubtree(ctx, key, baseTree, c.root)) && (await sameReads(ctx, key, baseTree, c));
    const report = same ? await freezesOnly(ctx, c, atNew, seen) : await contextReport(ctx, c, atNew, key);
    const isTouched = touched.has(c);
    for (const f of report.findings) findings.push(contextFinding(f, c, isTouched));
    results.push({ name: c.name, root: c.root, touched: isTouched, identities: report.identities, evidence: report.results });
  }
  return { findings, identities: repo.identities, results: repo.results, contexts: results };
}

function contextReport(ctx: RunContext, c: BoundedContext, atNew: EvidenceSource, key: string | null): Promise<EvidenceReport> {
  const run = async () => checkEvidence({ policy: c.policy, atNew, atBase: await baseSource(ctx), today: ctx.today, deadline: ctx.deadline });
  if (key === null) return run();
  const cacheKey = `${key}\0${c.name}`;
  let report = ctx.evidence.get(cacheKey);
  if (!report) {
    report = run();
    ctx.evidence.set(cacheKey, report);
  }
  return report;
}

/** True when `root` names the same tree at new and at the base. */
async function sameSubtree(ctx: RunContext, newTree: string, baseTree: string, root: string): Promise<boolean> {
  const [atNew, atBase] = await Promise.all([ctx.store.trees.entryAt(newTree, root), ctx.store.trees.entryAt(baseTree, root)]);
  return atNew !== null && atNew.kind === 'tree' && atBase !== null && atNew.oid === atBase.oid;
}

/** True when every path the context's pin names outside its root is the same entry at new as
 * at the base (a branch that forked before the base branch changed one is judged in full). */
async function sameReads(ctx: RunContext, newTree: string, baseTree: string, c: BoundedContext): Promise<boolean> {
  for (const r of c.reads) {
    if (foldKey(r.path).startsWith(`${c.key}/`)) continue; // under its root: sameSubtree
    const [atNew, atBase] = await Promise.all([ctx.store.trees.entryAt(newTree, r.path), ctx.store.trees.entryAt(baseTree, r.path)]);
    if (atNew?.oid !== atBase?.oid || atNew?.kind !== atBase?.kind) return false;
  }
  return true;
}

/**
 * An untouched context whose tree at new is the base's: the same bytes under the same policy,
 * judged in full when the base branch last changed them (the base branch moves only through the
 * gate, and a change of the policy touches every context). What the calendar alone changes is
 * checked again: expired rows of its freeze file, and expired keyed freezes. Its other evidence
 * is not read again, so its identities and results stay empty (receipts and --context grade in
 * full).
 */
/** What untouched contexts' freeze files said, by blob oid (and size limit): the freeze file's
 * rows with a last day, and each keyed freeze's `expires_on` and `observation_id` (null: not
 * JSON). */
interface SeenFreezes {
  rows: Map<string, readonly ExpiryRow[]>;
  keyed: Map<string, { expiresOn: unknown; observation: unknown } | null>;
}

async function freezesOnly(ctx: RunContext, c: BoundedContext, atNew: EvidenceSource, seen: SeenFreezes): Promise<EvidenceReport> {
  const findings: Finding[] = [];
  const results: EvidenceResults = { pin: null, manifestSeed: null, freeze: { freezeFileSha256: null, active: [], expired: [] }, fixtures: [] };
  const rule: RuleContext = { policy: c.policy, atNew, atBase: null, today: ctx.today, deadline: ctx.deadline };
  findings.push(...(await expiredFreezeFindings(rule, seen.rows)));
  const dir = c.policy.observations?.freezes;
  if (dir !== undefined) {
    const today = dayNumber(ctx.today)!;
    for (const path of await atNew.list(dir)) {
      ctx.deadline.check();
      if (!path.endsWith('.json') || path.slice(dir.length + 1).includes('/')) continue;
      const entry = await atNew.stat(path);
      if (entry.kind !== 'file' || entry.size > c.policy.limits.maxEvidenceBytes) continue;
      const key = entry.oid === undefined ? null : `${entry.oid}\0${c.policy.limits.maxEvidenceBytes}`;
      let members = key === null ? undefined : seen.keyed.get(key);
      if (members === undefined) {
        try {
          const plain = toPlain(parsePyJson(await entry.read(), ctx.deadline), ctx.deadline) as Record<string, unknown> | null;
          members = { expiresOn: plain?.expires_on, observation: plain?.observation_id };
        } catch {
          members = null; // judged (and refused) when the context last changed
        }
        if (key !== null) seen.keyed.set(key, members);
      }
      if (members === null) continue;
      const { expiresOn, observation } = members;
      const expires = typeof expiresOn === 'string' ? dayNumber(expiresOn) : null;
      if (expires === null || expires >= today) continue;
      findings.push(
        finding('FREEZE_EXPIRED', {
          path,
          message: `Keyed freeze ${path} expired: its last day was ${String(expiresOn)} and today is ${ctx.today}.`,
          fix: `${anOwner(c.policy)} deletes ${path} once ${String(observation)} is fixed, or re-observes and freezes it again`,
        }),
      );
    }
  }
  return { findings: findings.map(printableFinding), identities: emptyIdentities(), results };
}

function contextFinding(f: Finding, c: BoundedContext, touched: boolean): Finding {
  if (touched || !UNTOUCHED_INFO.has(f.code) || f.severity === 'info') return { ...f, context: c.name };
  return {
    ...f,
    context: c.name,
    severity: 'info',
    message: `${f.message.replace(/\.$/, '')} (context ${c.name}: this update touches nothing under ${c.root}, so it is reported, not enforced)${f.message.endsWith('.') ? '.' : ''}`,
  };
}
