// The last line of a rejection: one machine-readable line for the agent that pushed
// (docs/contract.md §2 On the server), `receipt-gate: {"verdict", "blocked_paths", "findings", "recommended_action"}`.

import { refNameJson } from '../quote';
import type { Finding } from '../findings';
import type { Verdict } from '../verdict';
import { sortFindings, sortedUnique } from './order';

export interface MachineInput {
  verdict: Verdict;
  findings: readonly Finding[];
  policy: { owners: readonly string[]; contexts?: readonly { name: string; policy: { owners: readonly string[] } }[] } | null;
  /** With bounded contexts: each ref's contexts and their verdicts. */
  refs?: readonly { update: { ref: string }; contexts?: readonly { name: string; touched: boolean; verdict: Verdict }[] }[];
}

export function blockedPaths(findings: readonly Finding[]): string[] {
  return sortedUnique(
    findings.filter((f) => (f.code === 'PATH_PROTECTED' || f.code === 'PATH_UNSAFE') && f.path !== undefined).map((f) => f.path!),
  );
}

export function recommendedAction(result: MachineInput): string {
  if (result.verdict === 'eligible') return 'none';
  const owners = result.policy?.owners.length ? result.policy.owners.join(', ') : 'an owner';
  if (result.verdict === 'hold') {
    return `a witnessed flake is frozen: protected refs need an owner (${owners}); other refs are accepted`;
  }
  const closing = sortFindings(result.findings).filter((f) => f.severity === 'closed');
  if (closing.some((f) => f.code === 'PATH_PROTECTED' || f.code === 'PATH_UNSAFE')) {
    return `drop the changes to blocked_paths from every new commit (rewrite the branch, do not revert on top) and push again; only ${pathOwners(result, closing) ?? owners} may change them`;
  }
  return closing[0]?.fix ?? 'none';
}

/** JSON with every character outside printable ASCII written as \uXXXX (as Python's
 * ensure_ascii): the line stays one line on any terminal and parses to the same values. */
/** With bounded contexts: the owners of the contexts whose paths are blocked (and the
 * repository's, for blocked paths outside every root); undefined without contexts. */
function pathOwners(result: MachineInput, closing: readonly Finding[]): string | undefined {
  const contexts = result.policy?.contexts;
  if (!contexts) return undefined;
  const names = new Set<string>();
  for (const f of closing) {
    if (f.code !== 'PATH_PROTECTED' && f.code !== 'PATH_UNSAFE') continue;
    const owners = f.context === undefined ? result.policy!.owners : (contexts.find((c) => c.name === f.context)?.policy.owners ?? []);
    for (const o of owners) names.add(o);
  }
  return names.size > 0 ? [...names].join(', ') : 'an owner';
}

export function asciiJson(value: unknown): string {
  return JSON.stringify(value).replace(/[^\x20-\x7e]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** `recommendedAction`: the server's decision's own (a hold on a protected ref names who may
 * make the update); the result's otherwise. */
export function machineLine(result: MachineInput, decided: { recommendedAction?: string } = {}): string {
  const payload = {
    verdict: result.verdict,
    blocked_paths: blockedPaths(result.findings),
    findings: sortFindings(result.findings).map((f) => ({
      code: f.code,
      severity: f.severity,
      ref: f.ref === undefined ? null : refNameJson(f.ref),
      commit: f.commit ?? null,
      path: f.path ?? null,
      ...(f.context !== undefined ? { context: f.context } : {}),
    })),
    recommended_action: decided.recommendedAction ?? recommendedAction(result),
  };
  const contexts = (result.refs ?? []).flatMap((r) => (r.contexts ?? []).map((c) => ({ ref: r.update.ref, context: c.name, touched: c.touched, verdict: c.verdict })));
  if (contexts.length > 0) Object.assign(payload, { contexts });
  return `receipt-gate: ${asciiJson(payload)}`;
}
