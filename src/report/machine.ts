// The last line of a rejection: one machine-readable line for the agent that pushed
// (docs/contract.md §2 On the server), `receipt-gate: {"verdict", "blocked_paths", "findings", "recommended_action"}`.

import { refNameJson } from '../quote';
import type { Finding } from '../findings';
import type { Verdict } from '../verdict';
import { sortFindings, sortedUnique } from './order';
import { clipped } from '../wording';

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

/** The machine line's bounds (docs/contract.md §2 On the server, §6 Time): at most `lineMax`
 * characters whatever the input. A ref name or path longer than `nameMax` characters is cut to
 * its first `nameMax`, and the finding says so with `ref_length` / `path_length` (the whole
 * length); the recommended action is cut to `textMax` (src/wording.ts `clipped`). The blocked
 * paths, then the findings (closing first), then the contexts fill the line in order; what does
 * not fit is counted in `omitted` ({"blocked_paths": N, "findings": N, "contexts": N,
 * "shortened_paths": N for blocked paths that were cut}), a member present only then. */
export const MACHINE_LIMITS = { lineMax: 64 * 1024, nameMax: 512, textMax: 1024 } as const;

const PREFIX = 'receipt-gate: ';

/** `recommendedAction`: the server's decision's own (a hold on a protected ref names who may
 * make the update); the result's otherwise. */
export function machineLine(result: MachineInput, decided: { recommendedAction?: string } = {}): string {
  const { lineMax, nameMax, textMax } = MACHINE_LIMITS;
  const action = clipped(decided.recommendedAction ?? recommendedAction(result), textMax);
  const omitted: Record<string, number> = {};
  // What the fixed members take (the verdict, the action, the keys, a full `omitted`).
  let budget = lineMax - PREFIX.length - asciiJson(action).length - 400;
  const take = <T>(items: readonly T[], share: number, key: string): T[] => {
    const out: T[] = [];
    let used = 0;
    for (const item of items) {
      const size = asciiJson(item).length + 1;
      if (used + size > share) break;
      out.push(item);
      used += size;
    }
    if (out.length < items.length) omitted[key] = items.length - out.length;
    budget -= used;
    return out;
  };
  const paths = blockedPaths(result.findings);
  const shortenedPaths = paths.filter((p) => p.length > nameMax).length;
  const blocked = take(paths.map((p) => p.slice(0, nameMax)), Math.floor(budget / 2), 'blocked_paths');
  if (shortenedPaths > 0) omitted.shortened_paths = shortenedPaths;
  const findings = take(
    sortFindings(result.findings).map((f) => ({
      code: f.code,
      severity: f.severity,
      ref: f.ref === undefined ? null : refNameJson(f.ref.slice(0, nameMax)),
      ...(f.ref !== undefined && f.ref.length > nameMax ? { ref_length: f.ref.length } : {}),
      commit: f.commit ?? null,
      path: f.path === undefined ? null : f.path.slice(0, nameMax),
      ...(f.path !== undefined && f.path.length > nameMax ? { path_length: f.path.length } : {}),
      ...(f.context !== undefined ? { context: f.context } : {}),
    })),
    budget,
    'findings',
  );
  const payload: Record<string, unknown> = { verdict: result.verdict, blocked_paths: blocked, findings, recommended_action: action };
  const allContexts = (result.refs ?? []).flatMap((r) =>
    (r.contexts ?? []).map((c) => ({
      ref: r.update.ref.slice(0, nameMax),
      ...(r.update.ref.length > nameMax ? { ref_length: r.update.ref.length } : {}),
      context: c.name,
      touched: c.touched,
      verdict: c.verdict,
    })),
  );
  if (allContexts.length > 0) {
    const contexts = take(allContexts, budget, 'contexts');
    if (contexts.length > 0) payload.contexts = contexts;
  }
  if (Object.keys(omitted).length > 0) payload.omitted = omitted;
  return `${PREFIX}${asciiJson(payload)}`;
}
