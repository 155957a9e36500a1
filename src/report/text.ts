// The terminal form: one line per finding and a verdict line. Every path is quoted as git
// quotes it and messages are made printable, so nothing taken from a repository can start a
// line or move the cursor.

import type { Finding, Severity } from '../findings';
import { printable, printableMention, quotePath, quoteRefName } from '../quote';
import type { Verdict } from '../verdict';
import { sortFindings } from './order';
import type { Outcome } from './outcome';

const MARK: Record<Severity, string> = { closed: 'closed', hold: 'hold  ', info: 'info  ' };

/** An oid as the tool prints it: its first 7 characters ("no commit" when there is none). */
export function short(oid: string | null | undefined): string {
  return oid ? oid.slice(0, 7) : 'no commit';
}

/** A ref name without refs/heads/ or refs/tags/, made printable. */
export function shortRef(ref: string): string {
  // A ref name is bytes: quoted as git quotes it (core.quotePath), so no byte of it can start
  // a line or steer the terminal.
  return quoteRefName(ref.replace(/^refs\/(heads|tags)\//, ''));
}

/** Where a finding is: short ref, short commit and quoted path, each only when there is one. */
export function findingPlace(f: Finding): string {
  return [f.context !== undefined ? `[${f.context}]` : null, f.ref ? shortRef(f.ref) : null, f.commit ? short(f.commit) : null, f.path !== undefined ? quotePath(f.path) : null]
    .filter((x): x is string => x !== null)
    .join(' ');
}

/** A finding's message for a person: its path quoted, nothing that could forge a line. */
export function humanMessage(f: Finding): string {
  return oneLine(printableMention(f.message, [f.path]));
}

/** A finding's fix for a person, as humanMessage. */
export function humanFix(f: Finding): string {
  return oneLine(printableMention(f.fix, [f.path]));
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

/** Whitespace runs that span lines become one space (after printable(), no raw line breaks are
 * left; this folds the ones a message's own author put in). */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

const MEANING: Record<Verdict, string> = {
  closed: 'the patch may not merge',
  hold: 'a witnessed flake is frozen: protected refs wait for an owner',
  eligible: 'evidence and protected paths are intact; human review still decides',
};

export function verdictLine(verdict: Verdict, findings: readonly Finding[]): string {
  const count = (s: Severity) => findings.filter((f) => f.severity === s).length;
  const parts = [`${count('closed')} closing`, `${count('hold')} hold`, `${count('info')} info`];
  return `verdict: ${verdict} (${parts.join(', ')}): ${MEANING[verdict]}`;
}

/** The findings, indented, one per line. */
export function findingLines(findings: readonly Finding[], indent = '  '): string[] {
  return sortFindings(findings).map((f) => `${indent}${findingLine(f)}`);
}

/** The terminal form of an outcome: the header, one line per finding, the verdict line. */
export function renderText(outcome: Pick<Outcome, 'verdict' | 'findings' | 'header' | 'contexts'>): string {
  const lines: string[] = [];
  if (outcome.header) lines.push(printable(outcome.header));
  lines.push(...findingLines(outcome.findings));
  for (const c of outcome.contexts ?? []) {
    lines.push(`context ${c.name} (${quotePath(c.root)}): ${c.verdict}${c.touched ? '' : ', not touched: its expired or held freezes are reported, not enforced'}`);
  }
  lines.push(verdictLine(outcome.verdict, outcome.findings));
  return `${lines.join('\n')}\n`;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
