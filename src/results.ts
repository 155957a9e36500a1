// What a run produces, per ref update and for the whole run: plain data that the report layer
// renders and the entries turn into exit codes.

import type { ContextResult, EvidenceResults, Policy } from './evidence/types';
import { emptyIdentities, type Finding, type Identities } from './findings';
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

/** What a ref's result says besides its update and findings (defaults: not protected, no new
 * commits, no identities, no evidence, no bounded contexts). */
export interface RefResultParts {
  isProtectedRef?: boolean;
  newCommits?: string[];
  identities?: Identities;
  evidence?: EvidenceResults | null;
  /** With bounded contexts: each context and whether the update touches it. */
  contexts?: ContextResult[];
}

export function refResult(update: RefUpdate, findings: Finding[], parts: RefResultParts = {}): RefResult {
  return {
    update,
    isProtectedRef: parts.isProtectedRef ?? false,
    verdict: verdictOf(findings),
    findings,
    identities: parts.identities ?? emptyIdentities(),
    newCommits: parts.newCommits ?? [],
    evidence: parts.evidence ?? null,
    ...(parts.contexts ? { contexts: parts.contexts.map((c) => ({ ...c, verdict: verdictOf(findings.filter((f) => f.context === c.name)) })) } : {}),
  };
}

/** The run's policy and identity; `unguarded` when the base holds no policy at all. */
export interface GateResultParts {
  unguarded?: boolean;
  policy?: Policy | null;
  identity?: string | null;
  baseName?: string | null;
}

export function gateResult(refs: RefResult[], parts: GateResultParts = {}): GateResult {
  const findings = refs.flatMap((r) => r.findings);
  return {
    unguarded: parts.unguarded ?? false,
    policy: parts.policy ?? null,
    identity: parts.identity ?? null,
    refs,
    findings,
    verdict: verdictOf(findings),
    ...(parts.baseName !== undefined ? { baseName: parts.baseName } : {}),
  };
}
