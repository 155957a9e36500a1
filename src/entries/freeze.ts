// `receipt-gate freeze add|list|prune` — the freeze file (policy.freeze.path, e.g. freeze.json).
//
//   freeze add --id TEST --reason R --expires YYYY-MM-DD [--owner NAME]   adds a row, added today
//   freeze list                                                           rows by expiry, expired first, with days left
//   freeze prune                                                          drops expired rows
//
// Dates are UTC calendar dates; today comes from --now, RECEIPT_GATE_NOW or the clock. add and
// prune check the file they would write with the gate's freeze rule and refuse to write one
// it would reject.

import { parseCommandArgs } from '../args';
import { checkPlanned, commitHint, openAuthoring, printRefusal, writePlanned, type Authoring } from '../client/authoring';
import { gitConfig } from '../client/git-cli';
import { jsonText, STARTER_FREEZE } from '../client/templates';
import { today } from '../clock';
import { dayNumber, isCalendarDate, plural } from '../evidence/dates';
import { parsePyJson, PyJsonError, toPlain } from '../evidence/pyjson';
import type { FreezeRow as CheckedFreezeRow } from '../evidence/freeze';
import { validateAgainst } from '../evidence/schema';
import { UsageError, type CliIO } from '../io';
import { EXIT } from '../verdict';

const USAGE = [
  'receipt-gate freeze add --id TEST --reason REASON --expires YYYY-MM-DD [--owner NAME] [--now YYYY-MM-DD]',
  '       receipt-gate freeze list [--now YYYY-MM-DD]',
  '       receipt-gate freeze prune [--now YYYY-MM-DD]',
].join('\n');

/** A row as written back: the rule module's fields and any others the file had. */
export interface FreezeRow extends CheckedFreezeRow {
  [other: string]: unknown;
}

interface FreezeFile {
  version: 1;
  frozen: FreezeRow[];
  [other: string]: unknown;
}

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      id: { type: 'string' },
      reason: { type: 'string' },
      expires: { type: 'string' },
      owner: { type: 'string' },
      now: { type: 'string' },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const sub = positionals[0];
  if (positionals.length !== 1 || (sub !== 'add' && sub !== 'list' && sub !== 'prune')) {
    throw new UsageError(`name one subcommand: add, list or prune\nusage: ${USAGE}`);
  }
  const date = today(io, values.now);
  const a = await openAuthoring(io, `freeze ${sub}`);
  try {
    if (!a.policy.freeze) {
      throw new UsageError(`the policy has no "freeze" section; an owner adds "freeze": {"path": "freeze.json"} to .receipt-gate.json first`);
    }
    const file = await readFreezeFile(a, a.policy.freeze.path);
    if (sub === 'list') return list(io, a.policy.freeze.path, file, date);
    if (sub === 'prune') return prune(a, io, file, date);
    for (const [flag, value] of [['--id', values.id], ['--reason', values.reason], ['--expires', values.expires]] as const) {
      if (value === undefined || value === '') throw new UsageError(`${flag} is required\nusage: ${USAGE}`);
    }
    return add(a, io, file, {
      id: values.id!,
      reason: values.reason!,
      expires: values.expires!,
      owner: values.owner ?? gitConfig('user.email', a.worktree.top, io.env) ?? undefined,
      date,
    });
  } finally {
    a.close();
  }
}

/** The freeze file of the working tree; a file that does not exist yet reads as empty. */
async function readFreezeFile(a: Authoring, path: string): Promise<FreezeFile> {
  const entry = await a.tree.stat(path);
  if (entry.kind === 'missing') return { version: 1, frozen: [...STARTER_FREEZE.frozen] as FreezeRow[] };
  if (entry.kind !== 'file') throw new UsageError(`${path} is a ${entry.what}, not a file`);
  let plain: unknown;
  try {
    plain = toPlain(parsePyJson(await entry.read()));
  } catch (err) {
    if (err instanceof PyJsonError) throw new UsageError(`${path} is not valid JSON (line ${err.line}, column ${err.column}: ${err.reason}); fix it by hand first`);
    throw err;
  }
  const problems = validateAgainst('freeze.schema.json', plain);
  if (problems.length > 0) {
    throw new UsageError(
      `${path} does not match schemas/freeze.schema.json; fix it by hand first:\n${problems.map((p) => `  at ${p.pointer || '/'}: ${p.message}`).join('\n')}`,
    );
  }
  return plain as FreezeFile;
}

/** Days from `today` to `date` (0: today is the last day; negative: expired). */
function daysLeft(date: string, today: string): number {
  return dayNumber(date)! - dayNumber(today)!;
}

function list(io: CliIO, path: string, file: FreezeFile, date: string): number {
  if (file.frozen.length === 0) {
    io.stdout(`${path}: no frozen tests\n`);
    return EXIT.eligible;
  }
  const rows = [...file.frozen].sort((x, y) => (x.expires < y.expires ? -1 : x.expires > y.expires ? 1 : x.id < y.id ? -1 : 1));
  const expiredCount = rows.filter((r) => daysLeft(r.expires, date) < 0).length;
  io.stdout(`${path} on ${date}: ${rows.length} frozen, ${expiredCount} expired\n`);
  for (const r of rows) {
    const left = daysLeft(r.expires, date);
    const status =
      left < 0 ? `EXPIRED ${-left} day${left === -1 ? '' : 's'} ago` : left === 0 ? 'last day today' : `${left} day${left === 1 ? '' : 's'} left`;
    io.stdout(`  ${r.expires}  ${status.padEnd(22)} ${r.id}  (${r.reason}${r.owner ? `, ${r.owner}` : ''})\n`);
  }
  if (expiredCount > 0) io.stdout(`expired freezes close the gate for every push: an owner runs 'receipt-gate freeze prune'\n`);
  return EXIT.eligible;
}

async function add(
  a: Authoring,
  io: CliIO,
  file: FreezeFile,
  row: { id: string; reason: string; expires: string; owner?: string; date: string },
): Promise<number> {
  const path = a.policy.freeze!.path;
  if (!isCalendarDate(row.expires)) throw new UsageError(`--expires must be a UTC calendar date YYYY-MM-DD, got '${row.expires}'`);
  if (file.frozen.some((r) => r.id === row.id)) {
    throw new UsageError(`${row.id} is already frozen in ${path}; a freeze is not extended in place (prune it once expired, then add it again with a fresh reason)`);
  }
  const added: FreezeRow = { id: row.id, reason: row.reason, expires: row.expires };
  if (row.owner !== undefined) added.owner = row.owner;
  added.added = row.date;
  const next: FreezeFile = { ...file, frozen: [...file.frozen, added] };
  const bytes = Buffer.from(jsonText(next));
  const { refused } = await checkPlanned(a, a.tree, [{ path, bytes }], row.date);
  if (refused.length > 0) {
    printRefusal(io, 'freeze add', refused);
    return EXIT.closed;
  }
  writePlanned(a, [{ path, bytes }]);
  io.stdout(`froze ${row.id} in ${path} until ${row.expires} (${plural(daysLeft(row.expires, row.date), 'day')} left, reason ${row.reason})\n`);
  io.stdout(commitHint(a.policy, [path]));
  return EXIT.eligible;
}

async function prune(a: Authoring, io: CliIO, file: FreezeFile, date: string): Promise<number> {
  const path = a.policy.freeze!.path;
  const expired = file.frozen.filter((r) => daysLeft(r.expires, date) < 0);
  if (expired.length === 0) {
    io.stdout(`${path}: no expired freezes on ${date}\n`);
    return EXIT.eligible;
  }
  const next: FreezeFile = { ...file, frozen: file.frozen.filter((r) => daysLeft(r.expires, date) >= 0) };
  const bytes = Buffer.from(jsonText(next));
  const { refused } = await checkPlanned(a, a.tree, [{ path, bytes }], date);
  if (refused.length > 0) {
    printRefusal(io, 'freeze prune', refused);
    return EXIT.closed;
  }
  writePlanned(a, [{ path, bytes }]);
  for (const r of expired) io.stdout(`dropped ${r.id} (expired ${r.expires})\n`);
  io.stdout(commitHint(a.policy, [path]));
  return EXIT.eligible;
}
