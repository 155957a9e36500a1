// GitHub workflow commands: one `::error file=PATH,title=CODE::message` line per finding
// (warning for hold, notice for info), which the Actions runner turns into annotations on the
// pull request. Values are escaped as the runner's toolkit escapes them (`%`, CR and LF in
// the message; also `:` and `,` in properties), so no name can end the command or start
// another. Lines that are not commands follow, for the log.

import type { Finding, Severity } from '../findings';
import { printable, quoteRefName } from '../quote';
import type { SetupFailure } from './failure';
import { sortFindings } from './order';
import type { Outcome } from './outcome';
import { humanFix, humanMessage } from './human';
import { sentence, verdictLine } from './text';

const COMMAND: Record<Severity, string> = { closed: 'error', hold: 'warning', info: 'notice' };

/** The message part of a workflow command (toolkit's escapeData). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** A property value of a workflow command (toolkit's escapeProperty). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}

function command(name: string, properties: Record<string, string | undefined>, message: string): string {
  const props = Object.entries(properties)
    .filter((e): e is [string, string] => e[1] !== undefined)
    .map(([k, v]) => `${k}=${escapeProperty(v)}`)
    .join(',');
  return `::${name}${props ? ` ${props}` : ''}::${escapeData(message)}`;
}

function annotation(f: Finding): string {
  // The file property is the real path (the runner matches it against the checkout); the
  // message is the printable form a reviewer reads.
  return command(
    COMMAND[f.severity],
    { file: f.path, title: `${f.context !== undefined ? `[${f.context}] ` : ''}${f.ref ? `${f.code} (${quoteRefName(f.ref)})` : f.code}` },
    `${sentence(humanMessage(f))} Fix: ${sentence(humanFix(f))}`,
  );
}

export function toGithub(outcome: Outcome): string {
  const lines = sortFindings(outcome.findings).map(annotation);
  for (const c of outcome.contexts ?? []) lines.push(`receipt-gate ${outcome.command}: context ${c.name}: ${c.verdict}${c.touched ? '' : ' (not touched)'}`);
  lines.push(`receipt-gate ${outcome.command}: ${verdictLine(outcome.verdict, outcome.findings, outcome.command)}`);
  return `${lines.join('\n')}\n`;
}

export function githubFailure(failure: SetupFailure): string {
  return `${command('error', { title: `receipt-gate ${failure.command}` }, printable(failure.message))}\n`;
}
