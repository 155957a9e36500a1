// What a run produces, per ref update and for the whole run: plain data that the report layer
// renders and the entries turn into exit codes.

import type { ContextResult, EvidenceResults, Policy } from './evidence/types';
import type { Finding, Identities } from './findings';
import type { RefUpdate } from './types';
import { verdictOf, type Verdict } from './verdict';

export interface RefResult {
  update: RefUpdate;
  /** True when the update is of baseBranch or of a ref protectedRefs names. */
  isProtectedRef: boolean;
  verdict: Verdict;
  findings: Finding[];
  identities: Identities;
  newCommits: string[];
  /** What the evidence rules parsed at `new` (the receipt records it); null when the update
   * had no tree to check, or the check did not finish. */
  evidence: EvidenceResults | null;
  /** With bounded contexts: each context, whether the update touches it, and its own verdict
   * (its findings'); the ref's verdict is the most severe of them and the repository's. */
  contexts?: ContextVerdict[];
}

export interface ContextVerdict extends ContextResult {
  verdict: Verdict;
}

export interface GateResult {
  unguarded: boolean;
  policy: Policy | null;
  identity: string | null;
  refs: RefResult[];
  findings: Finding[];
  verdict: Verdict;
  /** The branch (or ref) the policy was looked for on, e.g. refs/heads/main, when known. */
  baseName?: string | null;
}

export function refResult(
  update: RefUpdate,
  isProtectedRef: boolean,
  findings: Finding[],
  newCommits: string[],
  identities: Identities,
  evidence: EvidenceResults | null = null,
  contexts?: ContextResult[],
): RefResult {
  const result: RefResult = { update, isProtectedRef, verdict: verdictOf(findings), findings, identities, newCommits, evidence };
  if (contexts) result.contexts = contexts.map((c) => ({ ...c, verdict: verdictOf(findings.filter((f) => f.context === c.name)) }));
  return result;
}

export function gateResult(unguarded: boolean, policy: Policy | null, identity: string | null, refs: RefResult[], baseName?: string | null): GateResult {
  const findings = refs.flatMap((r) => r.findings);
  return { unguarded, policy, identity, refs, findings, verdict: verdictOf(findings), ...(baseName !== undefined ? { baseName } : {}) };
}
