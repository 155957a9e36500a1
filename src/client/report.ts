// Client results in the engine's shape, so they print through src/render.ts exactly as the
// server and verify-ref print theirs.

import type { GateResult, RefResult } from '../results';
import { ZERO_OID } from '../types';
import type { Policy } from '../evidence/types';
import { emptyIdentities, type Finding, type Identities } from '../findings';
import type { CliIO } from '../io';
import { machineLine, renderHuman } from '../render';
import { verdictOf, type Verdict } from '../verdict';

/** A one-ref result for a check that has no ref update (the staged index, working files). */
export function singleResult(opts: {
  policy: Policy | null;
  identity: string | null;
  ref: string;
  old: string | null;
  findings: Finding[];
  identities?: Identities;
  isProtectedRef?: boolean;
}): GateResult {
  const ref: RefResult = {
    update: { old: opts.old ?? ZERO_OID, new: ZERO_OID, ref: opts.ref },
    isProtectedRef: opts.isProtectedRef ?? false,
    verdict: verdictOf(opts.findings),
    findings: opts.findings,
    identities: opts.identities ?? emptyIdentities(),
    newCommits: [],
    evidence: null,
  };
  return {
    unguarded: false,
    policy: opts.policy,
    identity: opts.identity,
    refs: [ref],
    findings: opts.findings,
    verdict: ref.verdict,
  };
}

/**
 * Whether the server would reject this result: any closed ref, or a held update of a protected
 * ref (docs/contract.md §2 On the server: hold rejects protected refs and lets other refs through with a notice).
 */
export function rejectedVerdict(result: GateResult): Exclude<Verdict, 'eligible'> | null {
  if (result.refs.some((r) => r.verdict === 'closed') || result.verdict === 'closed') return 'closed';
  if (result.refs.some((r) => r.verdict === 'hold' && r.isProtectedRef)) return 'hold';
  return null;
}

/** Prints the findings (stderr, where git shows hook output) and, last, the machine-readable
 * line, so an agent can adapt to a rejection, a hold or a notice without parsing prose. */
export function printResult(io: CliIO, result: GateResult, header: string): void {
  io.stderr(renderHuman(result, header));
  io.stderr(`${machineLine(result)}\n`);
}

/**
 * Findings of a commit being made (the staged index), with fixes a committer can type: a
 * protected path is taken out of the commit with `git restore --staged PATH`, not "out of this
 * push".
 */
export function forStagedCommit(findings: Finding[]): Finding[] {
  return findings.map((f) => {
    if (f.code !== 'PATH_PROTECTED' || f.path === undefined) return f;
    const path = shellQuote(f.path);
    const owners = /may only be changed by: (.*?);/.exec(f.fix)?.[1];
    const who = owners === undefined ? '' : `; only ${owners} may change it, ask one of them`;
    return { ...f, fix: `unstage it with \`git restore --staged ${path}\` (and \`git restore ${path}\` to drop the edit)${who}` };
  });
}

/** A path as a POSIX shell word: bare when it is plainly safe, else single-quoted. */
export function shellQuote(path: string): string {
  return /^[A-Za-z0-9_./@%+=:,-]+$/.test(path) ? path : `'${path.replace(/'/g, `'\\''`)}'`;
}
