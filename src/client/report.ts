// Client results are the engine's results, so they print through the report layer
// (src/report/) exactly as the server and verify-ref print theirs.

import type { GateResult } from '../results';
import type { Finding } from '../findings';
import type { CliIO } from '../io';
import { machineLine } from '../report/machine';
import { renderText } from '../report/text';
import type { Verdict } from '../verdict';

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
  io.stderr(renderText({ verdict: result.verdict, findings: result.findings, header }));
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
