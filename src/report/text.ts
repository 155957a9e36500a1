// The terminal form: one line per finding and a verdict line. Every path is quoted as git
// quotes it and messages are made printable, so nothing taken from a repository can start a
// line or move the cursor.

import type { Finding, Severity } from '../findings';
import { printable, quotePath } from '../quote';
import { short, shortRef } from '../wording';
import { humanFix, humanMessage } from './human';
import { allIdentityLines } from './identities';
import type { Verdict } from '../verdict';
import { sortFindings } from './order';
import type { Outcome } from './outcome';

const MARK: Record<Severity, string> = { closed: 'closed', hold: 'hold  ', info: 'info  ' };



/** Where a finding is: short ref, short commit and quoted path, each only when there is one. */
export function findingPlace(f: Finding): string {
  return [f.context !== undefined ? `[${f.context}]` : null, f.ref ? shortRef(f.ref) : null, f.commit ? short(f.commit) : null, f.path !== undefined ? quotePath(f.path) : null]
    .filter((x): x is string => x !== null)
    .join(' ');
}



/** One line per finding: severity, rule, ref, commit, path, what is wrong, and the fix. */
export function findingLine(f: Finding): string {
  const where = findingPlace(f);
  return `${MARK[f.severity]} ${f.code}${where ? ` ${where}` : ''}: ${sentence(humanMessage(f))} Fix: ${sentence(humanFix(f))}`;
}

/** Text ending in exactly one full stop (messages may or may not bring their own). */
export function sentence(text: string): string {
  const trimmed = text.trim();
  return /[.!?]$/.test(trimmed) ? trimmed : `${trimmed}.`;
}


const MEANING: Record<Verdict, string> = {
  closed: 'the patch may not merge',
  hold: 'a witnessed flake is frozen: protected refs wait for an owner',
  eligible: 'evidence and protected paths are intact; human review still decides',
};

/** The meaning of a verdict for a command that judges refs' histories, not a patch. */
const COMMAND_MEANING: Record<string, Record<Verdict, string>> = {
  'verify-log': {
    closed: 'the push log does not account for every move: the ref may not be trusted',
    hold: 'the push log holds a move an owner must decide on',
    eligible: 'every move of each checked ref is a signed entry of the push log that the gate allowed or an owner acknowledged',
  },
};

export function verdictLine(verdict: Verdict, findings: readonly Finding[], command?: string): string {
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  const parts = [`${count('closed')} closing`, `${count('hold')} hold`, `${count('info')} info`];
  return `verdict: ${verdict} (${parts.join(', ')}): ${(command !== undefined ? COMMAND_MEANING[command] : undefined)?.[verdict] ?? MEANING[verdict]}`;
}

/** The findings, indented, one per line. */
export function findingLines(findings: readonly Finding[], indent = '  '): string[] {
  return sortFindings(findings).map((f) => `${indent}${findingLine(f)}`);
}

/** The terminal form of an outcome: the header, one line per finding, the evidence identities
 * (the repository's and each context's: epoch id, manifest digest, witness digests), the
 * contexts' verdicts, the verdict line. */
export function renderText(outcome: Pick<Outcome, 'verdict' | 'findings' | 'header' | 'contexts'> & Partial<Pick<Outcome, 'identities'>> & { command?: string }): string {
  const lines: string[] = [];
  if (outcome.header) lines.push(printable(outcome.header));
  lines.push(...findingLines(outcome.findings));
  lines.push(...allIdentityLines(outcome.identities, outcome.contexts));
  for (const c of outcome.contexts ?? []) {
    lines.push(`context ${c.name} (${quotePath(c.root)}): ${c.verdict}${c.touched ? '' : ', not touched: its expired or held freezes are reported, not enforced'}`);
  }
  lines.push(verdictLine(outcome.verdict, outcome.findings, outcome.command));
  return `${lines.join('\n')}\n`;
}
