// The one place findings become text: terminal lines, the --json object and the machine line
// that ends a rejection. Entries never format findings themselves, so the forms never drift.

import type { GateResult } from './results';
import { emptyIdentities, type Finding, type Identities, type Severity } from './findings';
import type { Verdict } from './verdict';

const MARK: Record<Severity, string> = { closed: 'closed', hold: 'hold  ', info: 'info  ' };

export function short(oid: string | undefined): string {
  return oid ? oid.slice(0, 7) : '-------';
}

/** One line per finding: severity, rule, ref, commit, path, what is wrong, and the fix. */
export function findingLine(f: Finding): string {
  const where = [f.ref ? shortRef(f.ref) : null, short(f.commit), f.path ?? null].filter((x) => x !== null).join(' ');
  return `${MARK[f.severity]} ${f.code} ${where}: ${sentence(f.message)} Fix: ${sentence(f.fix)}`;
}

/** Text ending in exactly one full stop (messages may or may not bring their own). */
function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}

export function shortRef(ref: string): string {
  return ref.replace(/^refs\/(heads|tags)\//, '');
}

const ORDER: Record<Severity, number> = { closed: 0, hold: 1, info: 2 };

/** Findings in a stable order: closing first, then hold, then info; within, by path. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      ORDER[a.severity] - ORDER[b.severity] ||
      (a.ref ?? '').localeCompare(b.ref ?? '') ||
      a.code.localeCompare(b.code) ||
      (a.path ?? '').localeCompare(b.path ?? ''),
  );
}

export function verdictLine(verdict: Verdict, findings: readonly Finding[]): string {
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  const parts = [`${count('closed')} closing`, `${count('hold')} hold`, `${count('info')} info`];
  const meaning: Record<Verdict, string> = {
    closed: 'the patch may not merge',
    hold: 'a witnessed flake is frozen: protected refs wait for an owner',
    eligible: 'evidence and protected paths are intact; human review still decides',
  };
  return `verdict: ${verdict} (${parts.join(', ')}): ${meaning[verdict]}`;
}

export function renderHuman(result: GateResult, header?: string): string {
  const lines: string[] = [];
  if (header) lines.push(header);
  for (const f of sortFindings(result.findings)) lines.push(`  ${findingLine(f)}`);
  lines.push(verdictLine(result.verdict, result.findings));
  return `${lines.join('\n')}\n`;
}

export interface JsonFinding {
  code: string;
  severity: Severity;
  ref: string | null;
  commit: string | null;
  path: string | null;
  message: string;
  fix: string;
}

export function jsonFinding(f: Finding): JsonFinding {
  return {
    code: f.code,
    severity: f.severity,
    ref: f.ref ?? null,
    commit: f.commit ?? null,
    path: f.path ?? null,
    message: f.message,
    fix: f.fix,
  };
}

/** Identities of the run: those of the last ref update that had a tree to check. */
export function identitiesOf(result: GateResult): Identities {
  const withTree = result.refs.filter((r) => r.identities.epoch_id !== null || r.identities.freeze_file_sha256 !== null || r.identities.manifest_sha256 !== null || Object.keys(r.identities.witnesses).length > 0);
  return withTree.length ? withTree[withTree.length - 1]!.identities : emptyIdentities();
}

/** The --json object of SPEC section 3. */
export function toJsonOutput(result: GateResult, base: string | null, head: string | null): object {
  return {
    verdict: result.verdict,
    findings: sortFindings(result.findings).map(jsonFinding),
    identities: identitiesOf(result),
    base,
    head,
  };
}

export function blockedPaths(findings: readonly Finding[]): string[] {
  const paths = findings
    .filter((f) => (f.code === 'PATH_PROTECTED' || f.code === 'PATH_UNSAFE') && f.path !== undefined)
    .map((f) => f.path!);
  return [...new Set(paths)].sort();
}

export function recommendedAction(result: GateResult): string {
  const closing = sortFindings(result.findings).filter((f) => f.severity === 'closed');
  const owners = result.policy?.owners.length ? result.policy.owners.join(', ') : 'an owner';
  if (result.verdict === 'eligible') return 'none';
  if (result.verdict === 'hold') {
    return `a witnessed flake is frozen: protected refs need an owner (${owners}); other refs are accepted`;
  }
  if (closing.some((f) => f.code === 'PATH_PROTECTED' || f.code === 'PATH_UNSAFE')) {
    return `drop the changes to blocked_paths from every new commit (rewrite the branch, do not revert on top) and push again; only ${owners} may change them`;
  }
  return closing[0]?.fix ?? 'none';
}

/** The last line of a rejection: one machine-readable line for the agent that pushed. */
export function machineLine(result: GateResult): string {
  const payload = {
    verdict: result.verdict,
    blocked_paths: blockedPaths(result.findings),
    findings: sortFindings(result.findings).map((f) => ({
      code: f.code,
      severity: f.severity,
      ref: f.ref ?? null,
      commit: f.commit ?? null,
      path: f.path ?? null,
    })),
    recommended_action: recommendedAction(result),
  };
  return `receipt-gate: ${JSON.stringify(payload)}`;
}
