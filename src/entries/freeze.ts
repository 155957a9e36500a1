// `receipt-gate freeze add|list|prune|review|lift` — the freeze file (policy.freeze.path, e.g.
// freeze.json) and the keyed freezes (policy.observations.freezes).
//
//   freeze add --id TEST --reason R --expires YYYY-MM-DD [--owner NAME]   adds a row, added today
//   freeze add --observation ID --expires-on YYYY-MM-DD --reason TEXT [--name NAME]
//                                                                         writes the keyed freeze
//                                                                         freezes/<NAME or ID>.json
//   freeze list                                                           rows by expiry, expired first, with days left
//   freeze prune                                                          drops expired rows
//   freeze review [--expiring 7d] [--run CMD] [--format text|json]        the scheduled job's report:
//                                                                         every freeze (rows and keyed)
//                                                                         expiring within the window, and
//                                                                         with --run each frozen test run
//                                                                         by its id, up to the policy's
//                                                                         liftAfterPasses times; never edits
//                                                                         a file
//   freeze lift OBSERVATION_ID [--by NAME]                                removes the keyed freeze citing the
//                                                                         observation and archives the
//                                                                         observation (witness kept)
//
// Dates are UTC calendar dates; today comes from --now, RECEIPT_GATE_NOW or the clock. A
// refusal (what the gate would reject, a reason outside the policy's, a test already frozen,
// an absent observation) is exit 1 with nothing written; a malformed command line is exit 2.
// add and prune check the file they would write with the gate's freeze rule and refuse to write one
// it would reject (a keyed freeze whose observation is absent, did not re-run green, lacks
// its witness or names another epoch; an expired or too long window). A file written with CRLF
// line ends is written back with CRLF.

import { spawnSync } from 'node:child_process';
import { unlinkSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCommandArgs } from '../args';
import { checkPlanned, commitHint, openAuthoring, printRefusal, scopeName, writePlanned, type Authoring } from '../client/authoring';
import { gitConfig } from '../client/git-cli';
import { OverlaySource } from '../client/overlay-source';
import { checkEvidence } from '../evidence/index';
import type { ArchivedMark } from '../evidence/observations';
import { jsonText, STARTER_FREEZE } from '../client/templates';
import { today } from '../clock';
import { DEFAULT_LIFT_AFTER_PASSES } from '../evidence/policy';
import { dayNumber, isCalendarDate } from '../evidence/dates';
import { plural } from '../wording';
import { parsePyJson, PyJsonError, toPlain } from '../evidence/pyjson';
import type { FreezeRow as CheckedFreezeRow } from '../evidence/types';
import { validateAgainst } from '../evidence/schema';
import type { DirectorySource } from '../evidence/sources';
import type { Policy } from '../evidence/types';
import { UsageError, type CliIO } from '../io';
import { printable, quotePath } from '../quote';
import { EXIT } from '../verdict';

const USAGE = [
  'receipt-gate freeze add --id TEST --reason REASON --expires YYYY-MM-DD [--owner NAME] [--context NAME] [--now YYYY-MM-DD]',
  '       receipt-gate freeze add --observation ID --expires-on YYYY-MM-DD --reason TEXT [--name NAME] [--context NAME] [--now YYYY-MM-DD]',
  '       receipt-gate freeze list [--context NAME] [--now YYYY-MM-DD]',
  '       receipt-gate freeze prune [--context NAME] [--now YYYY-MM-DD]',
  '       receipt-gate freeze review [--expiring 7d] [--run CMD] [--format text|json] [--out FILE.json] [--context NAME] [--now YYYY-MM-DD]',
  '       receipt-gate freeze lift OBSERVATION_ID [--by NAME] [--context NAME] [--now YYYY-MM-DD]',
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
      id: { type: 'string', description: "add: the frozen test's id as its runner names it (e.g. a pytest node id)" },
      reason: { type: 'string', description: "add: why it is frozen (a row: one of the policy's freeze reasons; a keyed freeze: free text)" },
      expires: { type: 'string', description: "add: the date the row expires (within the policy's maxDays)" },
      owner: { type: 'string', description: 'add: who answers for the row (default: git config user.email)' },
      observation: { type: 'string', description: 'add: the flake observation a keyed freeze cites' },
      'expires-on': { type: 'string', description: 'add: the date the keyed freeze expires' },
      name: { type: 'string', description: "add: the keyed freeze's file name in the freezes folder (default: the observation id)" },
      expiring: { type: 'string', description: 'review: the window that marks a freeze as expiring soon (default 7d)' },
      run: { type: 'string', description: 'review: run each frozen test by its id with this command, up to liftAfterPasses times in a row' },
      out: { type: 'string', description: 'review: also write the JSON report to this file' },
      format: { type: 'string', description: 'review: how the report is printed: text (default) or json' },
      json: { type: 'boolean', description: 'review: the same as --format json' },
      by: { type: 'string', description: 'lift: who lifts the freeze (default: git config user.email)' },
      context: { type: 'string', description: 'the bounded context whose freezes are managed (review: default every context)' },
      now: { type: 'string', description: "today's date for the expiry checks (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const sub = positionals[0];
  if (sub === 'lift') {
    if (positionals.length !== 2 || positionals[1] === '') throw new UsageError(`freeze lift takes one observation id\nusage: ${USAGE}`);
    for (const flag of ['id', 'reason', 'expires', 'owner', 'observation', 'expires-on', 'name', 'expiring', 'run', 'out', 'format', 'json'] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} does not belong to 'freeze lift'\nusage: ${USAGE}`);
    }
    return await lift(io, { observation: positionals[1]!, by: values.by, context: values.context, date: today(io, values.now) });
  }
  if (values.by !== undefined) throw new UsageError(`--by belongs to 'freeze lift'\nusage: ${USAGE}`);
  if (positionals.length !== 1 || (sub !== 'add' && sub !== 'list' && sub !== 'prune' && sub !== 'review')) {
    throw new UsageError(`name one subcommand: add, list, prune, review or lift\nusage: ${USAGE}`);
  }
  if (sub !== 'review' && (values.expiring !== undefined || values.run !== undefined || values.out !== undefined || values.format !== undefined || values.json !== undefined)) {
    throw new UsageError(`--expiring, --run, --out and --format belong to 'freeze review'\nusage: ${USAGE}`);
  }
  const date = today(io, values.now);
  const keyed = values.observation !== undefined || values['expires-on'] !== undefined || values.name !== undefined;
  if (keyed && sub !== 'add') throw new UsageError(`--observation, --expires-on and --name belong to 'freeze add'\nusage: ${USAGE}`);
  if (keyed && (values.id !== undefined || values.expires !== undefined || values.owner !== undefined)) {
    throw new UsageError(`a keyed freeze takes --observation, --expires-on and --reason; --id, --expires and --owner are for freeze.json rows\nusage: ${USAGE}`);
  }
  // review without --context reads the repository's freezes and every context's.
  const everyContext = sub === 'review' && values.context === undefined;
  const a = await openAuthoring(
    io,
    `freeze ${sub}`,
    everyContext
      ? undefined
      : {
          context: values.context,
          needs: keyed ? (p) => p.observations !== undefined : sub === 'review' ? (p) => p.freeze !== undefined || p.observations !== undefined : (p) => p.freeze !== undefined,
          what: keyed ? '"observations" section (keyed freezes)' : sub === 'review' ? '"freeze" or "observations" section' : '"freeze" section',
          // A keyed freeze belongs to the context whose observations hold the one it cites.
          found: keyed && values.observation !== undefined ? citedObservation(values.observation) : undefined,
        },
  );
  try {
    if (sub === 'review') {
      return await review(a, io, { window: windowDays(values.expiring ?? '7d'), run: values.run ?? null, json: values.json === true || values.format === 'json', format: values.format, out: values.out ?? null, date });
    }
    if (keyed) {
      for (const [flag, value] of [['--observation', values.observation], ['--expires-on', values['expires-on']], ['--reason', values.reason]] as const) {
        if (value === undefined || value === '') throw new UsageError(`${flag} is required for a keyed freeze\nusage: ${USAGE}`);
      }
      return await addKeyed(a, io, {
        observation: values.observation!,
        expiresOn: values['expires-on']!,
        reason: values.reason!,
        name: values.name ?? values.observation!,
        date,
      });
    }
    if (!a.policy.freeze) {
      throw new UsageError(`${scopeName(a)} has no "freeze" section; an owner adds "freeze": {"path": "freeze.json"} to .receipt-gate.json first`);
    }
    const { file, crlf } = await readFreezeFile(a, a.policy.freeze.path);
    if (sub === 'list') return list(io, a.policy.freeze.path, file, date);
    if (sub === 'prune') return prune(a, io, file, date, crlf);
    for (const [flag, value] of [['--id', values.id], ['--reason', values.reason], ['--expires', values.expires]] as const) {
      if (value === undefined || value === '') throw new UsageError(`${flag} is required\nusage: ${USAGE}`);
    }
    return add(a, io, file, {
      id: values.id!,
      reason: values.reason!,
      expires: values.expires!,
      owner: values.owner ?? gitConfig('user.email', a.worktree.top, io.env) ?? undefined,
      date,
    }, crlf);
  } finally {
    a.close();
  }
}

/** The observation records named `id` in the contexts' observations folders (the working tree). */
function citedObservation(id: string): (policy: Policy, tree: DirectorySource) => Promise<string[]> {
  return async (policy, tree) => {
    const found: string[] = [];
    for (const c of policy.contexts ?? []) {
      const dir = c.policy.observations?.dir;
      if (dir !== undefined && (await tree.stat(`${dir}/${id}.json`)).kind === 'file') found.push(`${dir}/${id}.json`);
    }
    return found;
  };
}

/** A request the gate's rules refuse (not a malformed command line): exit 1, nothing written,
 * as every authoring refusal (docs/client.md). */
function refuse(io: CliIO, command: string, why: string): number {
  io.stderr(`receipt-gate ${command}: nothing written: ${why}\n`);
  return EXIT.closed;
}

/** JSON text with the line ends of the file it replaces. */
function textBytes(value: unknown, crlf: boolean): Buffer {
  const text = jsonText(value);
  return Buffer.from(crlf ? text.replace(/\r?\n/g, '\r\n') : text);
}

function usesCrlf(bytes: Uint8Array): boolean {
  return Buffer.from(bytes).includes('\r\n');
}

/** The freeze file of the working tree; a file that does not exist yet reads as empty. */
async function readFreezeFile(a: Authoring, path: string): Promise<{ file: FreezeFile; crlf: boolean }> {
  const entry = await a.tree.stat(path);
  if (entry.kind === 'missing') return { file: { version: 1, frozen: [...STARTER_FREEZE.frozen] as FreezeRow[] }, crlf: false };
  if (entry.kind !== 'file') throw new UsageError(`${path} is a ${entry.what}, not a file`);
  let plain: unknown;
  const bytes = await entry.read();
  try {
    plain = toPlain(parsePyJson(bytes));
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
  return { file: plain as FreezeFile, crlf: usesCrlf(bytes) };
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
  crlf: boolean,
): Promise<number> {
  const path = a.policy.freeze!.path;
  const reasons = a.policy.freeze!.reasons;
  if (!reasons.includes(row.reason)) {
    return refuse(io, 'freeze add', `--reason must be one of the policy's freeze reasons (${reasons.join(', ')}); got '${printable(row.reason)}'`);
  }
  if (!isCalendarDate(row.expires)) throw new UsageError(`--expires must be a UTC calendar date YYYY-MM-DD, got '${row.expires}'`);
  if (file.frozen.some((r) => r.id === row.id)) {
    return refuse(io, 'freeze add', `${row.id} is already frozen in ${path}; a freeze is not extended in place (prune it once expired, then add it again with a fresh reason)`);
  }
  const added: FreezeRow = { id: row.id, reason: row.reason, expires: row.expires };
  if (row.owner !== undefined) added.owner = row.owner;
  added.added = row.date;
  const next: FreezeFile = { ...file, frozen: [...file.frozen, added] };
  const bytes = textBytes(next, crlf);
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

async function prune(a: Authoring, io: CliIO, file: FreezeFile, date: string, crlf: boolean): Promise<number> {
  const path = a.policy.freeze!.path;
  const expired = file.frozen.filter((r) => daysLeft(r.expires, date) < 0);
  if (expired.length === 0) {
    io.stdout(`${path}: no expired freezes on ${date}\n`);
    return EXIT.eligible;
  }
  const next: FreezeFile = { ...file, frozen: file.frozen.filter((r) => daysLeft(r.expires, date) >= 0) };
  const bytes = textBytes(next, crlf);
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

/** Keyed freeze names become file names: no folders, no dot files, nothing a checkout rewrites. */
const FREEZE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

/**
 * Writes freezes/<name>.json, the keyed freeze FLAKE_UNFROZEN asks an owner for:
 * {observation_id, epoch_id (the pin's), expires_on, reason}. It is judged with every evidence
 * rule before it is written, together with the observation and witness it cites; nothing is
 * written when the gate would reject it.
 */
async function addKeyed(
  a: Authoring,
  io: CliIO,
  opts: { observation: string; expiresOn: string; reason: string; name: string; date: string },
): Promise<number> {
  const section = a.policy.observations;
  if (!section) {
    throw new UsageError(`${scopeName(a)} has no "observations" section; an owner adds "observations": {"dir": "observations", "freezes": "freezes"} to .receipt-gate.json first`);
  }
  if (!FREEZE_NAME.test(opts.name)) {
    throw new UsageError(`the freeze name '${printable(opts.name)}' must be letters, digits, '.', '_' or '-' (pass --name NAME when the observation id is not one)`);
  }
  if (!isCalendarDate(opts.expiresOn)) throw new UsageError(`--expires-on must be a UTC calendar date YYYY-MM-DD, got '${printable(opts.expiresOn)}'`);
  if (opts.reason.trim() === '') throw new UsageError('--reason must say why the flake is frozen (free text, not empty)');
  const observationPath = `${section.dir}/${opts.observation}.json`;
  const observation = await a.tree.stat(observationPath);
  if (observation.kind !== 'file') {
    return refuse(
      io,
      'freeze add',
      `there is no observation ${quotePath(observationPath)} to freeze; record it first with 'receipt-gate observe --id ${printable(opts.observation)} --status flake --witness FILE --rerun-passed'`,
    );
  }
  const epochId = await pinnedEpochId(a);
  const path = `${section.freezes}/${opts.name}.json`;
  if ((await a.tree.stat(path)).kind !== 'missing') {
    return refuse(io, 'freeze add', `${quotePath(path)} exists; a keyed freeze is not extended in place (delete it once expired, then freeze again)`);
  }
  const record = { observation_id: opts.observation, epoch_id: epochId, expires_on: opts.expiresOn, reason: opts.reason };
  const bytes = textBytes(record, usesCrlf(await observation.read()));
  const { refused } = await checkPlanned(a, a.tree, [{ path, bytes }], opts.date, {
    alsoJudged: [observationPath, `${section.dir}/${opts.observation}.bin`],
  });
  if (refused.length > 0) {
    printRefusal(io, 'freeze add', refused);
    return EXIT.closed;
  }
  writePlanned(a, [{ path, bytes }]);
  io.stdout(
    `froze observation ${printable(opts.observation)} in ${quotePath(path)} until ${opts.expiresOn} (${plural(daysLeft(opts.expiresOn, opts.date), 'day')} left, epoch ${printable(epochId)})\n`,
  );
  io.stdout(commitHint(a.policy, [path]));
  return EXIT.eligible;
}

/**
 * `freeze lift ID`: an owner's decision that the flake is gone (or no longer tolerated). The
 * keyed freezes citing observation ID are removed; the observation and its witness stay, the
 * record marked `"archived": {"lifted_by", "lifted_on", "freeze", "expires_on", "reason"}` (the
 * gate then lists it as OBSERVATION_ARCHIVED, hashes its witness and never closes on it as an
 * unfrozen flake). A later flake of the same test is a new observation with a new id. The result
 * is judged with every evidence rule before anything is written.
 */
async function lift(io: CliIO, opts: { observation: string; by: string | undefined; context: string | undefined; date: string }): Promise<number> {
  const a = await openAuthoring(io, 'freeze lift', {
    context: opts.context,
    needs: (p) => p.observations !== undefined,
    what: '"observations" section (keyed freezes)',
    found: citedObservation(opts.observation),
  });
  try {
    const section = a.policy.observations;
    if (!section) {
      throw new UsageError(`${scopeName(a)} has no "observations" section, so it has no keyed freezes to lift`);
    }
    const id = opts.observation;
    const observationPath = `${section.dir}/${id}.json`;
    const binPath = `${section.dir}/${id}.bin`;
    const entry = await a.tree.stat(observationPath);
    if (entry.kind !== 'file') {
      return refuse(io, 'freeze lift', `there is no observation ${quotePath(observationPath)}; name the observation the keyed freeze cites ('receipt-gate freeze review' lists them)`);
    }
    const original = await entry.read();
    let record: Record<string, unknown>;
    try {
      record = toPlain(parsePyJson(original)) as Record<string, unknown>;
    } catch (err) {
      if (err instanceof PyJsonError) return refuse(io, 'freeze lift', `${quotePath(observationPath)} is not valid JSON (line ${err.line}, column ${err.column}: ${err.reason}); fix it first`);
      throw err;
    }
    const problems = validateAgainst('observation.schema.json', record);
    if (problems.length > 0) {
      return refuse(io, 'freeze lift', `${quotePath(observationPath)} is not a valid observation (${problems.map((p) => `at ${p.pointer || '/'}: ${p.message}`).join('; ')}); fix it first`);
    }
    if (record.archived !== undefined) {
      const mark = record.archived as ArchivedMark;
      return refuse(io, 'freeze lift', `observation ${printable(id)} is already archived (its freeze ${quotePath(mark.freeze)} was lifted by ${printable(mark.lifted_by)} on ${mark.lifted_on})`);
    }
    const citing = await keyedFreezesCiting(a, section.freezes, id);
    if (citing.length === 0) {
      return refuse(io, 'freeze lift', `no keyed freeze in ${quotePath(section.freezes)}/ cites observation ${printable(id)}; there is nothing to lift`);
    }
    const by = opts.by ?? gitConfig('user.email', a.worktree.top, io.env) ?? gitConfig('user.name', a.worktree.top, io.env);
    if (by === null || by.trim() === '') {
      throw new UsageError(`freeze lift records who lifted the freeze: set git's user.email, or pass --by NAME`);
    }
    const first = citing[0]!;
    const mark: ArchivedMark = {
      lifted_by: by,
      lifted_on: opts.date,
      freeze: first.path,
      ...(first.expires_on !== undefined ? { expires_on: first.expires_on } : {}),
      ...(first.reason !== undefined ? { reason: first.reason } : {}),
    };
    const bytes = textBytes({ ...record, archived: mark }, usesCrlf(original));
    // The tree as it will be: the observation archived, every freeze citing it gone.
    const view = new OverlaySource(a.tree).set(observationPath, bytes);
    for (const f of citing) view.set(f.path, null);
    const report = await checkEvidence({ policy: a.policy, atNew: view, atBase: a.base, today: opts.date });
    const judged = new Set([observationPath, binPath]);
    const refused = report.findings.filter((f) => f.severity === 'closed' && f.path !== undefined && judged.has(f.path));
    if (refused.length > 0) {
      printRefusal(io, 'freeze lift', refused);
      return EXIT.closed;
    }
    writePlanned(a, [{ path: observationPath, bytes }]);
    for (const f of citing) unlinkSync(join(a.worktree.top, ...f.path.split('/')));
    const witness = typeof record.witness_sha256 === 'string' ? record.witness_sha256 : '';
    io.stdout(`lifted the keyed freeze ${citing.map((f) => quotePath(f.path)).join(', ')} (removed) of observation ${printable(id)}, lifted by ${printable(by)} on ${opts.date}\n`);
    io.stdout(`kept ${quotePath(observationPath)} (archived) and its witness ${quotePath(binPath)} (sha256 ${witness}); the gate lists it as OBSERVATION_ARCHIVED and never closes on it as an unfrozen flake\n`);
    io.stdout(`treat the next review as a fresh run: if the test flakes again, record a new observation ('receipt-gate observe --status flake --witness FILE' picks a new id)\n`);
    io.stdout(commitHint(a.policy, [observationPath, ...citing.map((f) => f.path)]));
    return EXIT.eligible;
  } finally {
    a.close();
  }
}

/** A keyed freeze of the working tree as read, its members not yet checked. */
interface KeyedFreezeFile {
  path: string;
  plain: { observation_id?: unknown; expires_on?: unknown; reason?: unknown };
}

/** The keyed freezes in `dir` of the working tree, by path; a file that is not JSON is left
 * out (the gate itself reports a malformed keyed freeze: check, pre-commit, the server). */
async function keyedFreezes(a: Authoring, dir: string): Promise<KeyedFreezeFile[]> {
  const found: KeyedFreezeFile[] = [];
  for (const path of (await a.tree.list(dir)).filter((n) => n.endsWith('.json')).sort()) {
    const entry = await a.tree.stat(path);
    if (entry.kind !== 'file') continue;
    try {
      found.push({ path, plain: toPlain(parsePyJson(await entry.read())) as KeyedFreezeFile['plain'] });
    } catch {
      continue;
    }
  }
  return found;
}

/** The keyed freezes of the working tree whose observation_id is `id`, by path. */
async function keyedFreezesCiting(a: Authoring, dir: string, id: string): Promise<{ path: string; expires_on?: string; reason?: string }[]> {
  const found: { path: string; expires_on?: string; reason?: string }[] = [];
  for (const { path, plain } of await keyedFreezes(a, dir)) {
    if (plain.observation_id !== id) continue;
    found.push({
      path,
      ...(typeof plain.expires_on === 'string' ? { expires_on: plain.expires_on } : {}),
      ...(typeof plain.reason === 'string' ? { reason: plain.reason } : {}),
    });
  }
  return found;
}

/** The epoch_id of the working tree's pin: a keyed freeze must name the pinned epoch. */
async function pinnedEpochId(a: Authoring): Promise<string> {
  const pin = a.policy.epoch?.pin;
  if (!pin) throw new UsageError(`${scopeName(a)} has no "epoch" section, so no keyed freeze can be valid (it must name the pinned epoch)`);
  const entry = await a.tree.stat(pin);
  if (entry.kind !== 'file') throw new UsageError(`the epoch pin ${quotePath(pin)} is missing; an owner pins the epoch first ('receipt-gate epoch pin')`);
  try {
    const plain = toPlain(parsePyJson(await entry.read())) as { epoch_id?: unknown };
    if (typeof plain.epoch_id === 'string' && plain.epoch_id !== '') return plain.epoch_id;
  } catch (err) {
    if (!(err instanceof PyJsonError)) throw err;
  }
  throw new UsageError(`the epoch pin ${quotePath(pin)} has no valid epoch_id; fix it first ('receipt-gate check ${pin}')`);
}

/** `--expiring 7d` (or `7`): the window in days. */
function windowDays(given: string): number {
  const m = /^(\d{1,4})d?$/.exec(given.trim());
  if (!m) throw new UsageError(`--expiring takes a number of days such as 7d, got '${printable(given)}'`);
  return Number(m[1]);
}

/** The freezes one policy (the repository's or a context's) names: its freeze file's rows and
 * its keyed freezes. */
async function freezesOf(a: Authoring, policy: Policy, date: string, status: (left: number) => ReviewedFreeze['status']): Promise<ReviewedFreeze[]> {
  const found: ReviewedFreeze[] = [];
  if (policy.freeze) {
    const { file } = await readFreezeFile(a, policy.freeze.path);
    for (const r of file.frozen) {
      const left = daysLeft(r.expires, date);
      found.push({ kind: 'row', id: r.id, file: policy.freeze.path, expires: r.expires, days_left: left, status: status(left), reason: r.reason, owner: typeof r.owner === 'string' ? r.owner : null, run: null });
    }
  }
  const section = policy.observations;
  if (!section) return found;
  for (const { path, plain } of await keyedFreezes(a, section.freezes)) {
    const name = path.slice(path.lastIndexOf('/') + 1);
    if (typeof plain.expires_on !== 'string' || !isCalendarDate(plain.expires_on)) continue;
    const left = daysLeft(plain.expires_on, date);
    found.push({
      kind: 'keyed',
      id: typeof plain.observation_id === 'string' ? plain.observation_id : name.slice(0, -'.json'.length),
      file: path,
      expires: plain.expires_on,
      days_left: left,
      status: status(left),
      reason: typeof plain.reason === 'string' ? plain.reason : '',
      owner: null,
      run: null,
    });
  }
  return found;
}

/** What every review says about lifting. */
const LIFTING =
  'lifting a freeze is a human decision: this review never edits or removes one (an owner removes a row, or runs \'receipt-gate freeze lift OBSERVATION_ID\' for a keyed freeze)';

interface ReviewedFreeze {
  kind: 'row' | 'keyed';
  /** The test id (freeze.json) or observation id (keyed freeze). */
  id: string;
  file: string;
  expires: string;
  days_left: number;
  status: 'expired' | 'expiring' | 'active';
  reason: string;
  owner: string | null;
  /** The bounded context whose freeze it is (a policy with contexts, no --context). */
  context?: string;
  /** With --run: the frozen test run by its id, up to `required` times in a row, stopping at
   * the first failure. `result` is `pass` only when all `required` runs passed. */
  run: { command: string; exit_code: number; result: 'pass' | 'fail'; runs: number; passes: number; required: number } | null;
}

/**
 * The scheduled job's report (docs/ci.md, the scheduled job: frozen tests still run on a schedule; the freeze applies
 * only to the patch pipeline): every freeze, with the ones expiring within the window (or
 * expired) called out so someone owns expiry review before FREEZE_EXPIRED closes every push,
 * and with --run each frozen test run by its id (`sh -c 'CMD "$1"' sh ID`), recording which
 * still fail and which pass. It never edits or removes a freeze.
 *
 * Exit: 0 nothing expires within the window; 3 (hold) something does, review it; 1 a freeze
 * has expired (the gate closes every push until an owner prunes or renews it).
 */
async function review(
  a: Authoring,
  io: CliIO,
  opts: { window: number; run: string | null; json: boolean; format: string | undefined; out: string | null; date: string },
): Promise<number> {
  if (opts.format !== undefined && opts.format !== 'text' && opts.format !== 'json') {
    throw new UsageError(`freeze review prints text or json, not ${printable(opts.format)}\nusage: ${USAGE}`);
  }
  const status = (left: number): ReviewedFreeze['status'] => (left < 0 ? 'expired' : left <= opts.window ? 'expiring' : 'active');
  // With bounded contexts and no --context: the repository's freezes and every context's.
  const scopes: { policy: Policy; context: string | null }[] =
    a.context === null && a.repository.contexts
      ? [{ policy: a.repository, context: null }, ...a.repository.contexts.map((c) => ({ policy: c.policy, context: c.name }))]
      : [{ policy: a.policy, context: a.context?.name ?? null }];
  const found: ReviewedFreeze[] = [];
  for (const scope of scopes) {
    for (const f of await freezesOf(a, scope.policy, opts.date, status)) found.push(scope.context === null ? f : { ...f, context: scope.context });
  }
  found.sort((x, y) => x.days_left - y.days_left || (x.id < y.id ? -1 : x.id > y.id ? 1 : 0) || (x.file < y.file ? -1 : x.file > y.file ? 1 : 0));

  // A noisy pass is not evidence that a flake is gone: a frozen test counts as passing only
  // after the policy's liftAfterPasses consecutive passes, and even then lifting stays a human's
  // decision (the review never edits a freeze).
  const required = (context: string | undefined): number => {
    const policy = context === undefined ? (a.context === null ? a.repository : a.policy) : (a.repository.contexts?.find((c) => c.name === context)?.policy ?? a.policy);
    return policy.observations?.liftAfterPasses ?? a.repository.observations?.liftAfterPasses ?? DEFAULT_LIFT_AFTER_PASSES;
  };
  if (opts.run !== null) {
    for (const f of found.filter((x) => x.kind === 'row')) {
      const need = required(f.context);
      let passes = 0;
      let code = 0;
      while (passes < need) {
        const ran = spawnSync('sh', ['-c', `${opts.run} "$1"`, 'sh', f.id], { cwd: a.worktree.top, env: io.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
        code = ran.status ?? 1;
        if (code !== 0) break;
        passes++;
      }
      f.run = { command: `${opts.run} ${f.id}`, exit_code: code, result: passes === need ? 'pass' : 'fail', runs: code === 0 ? passes : passes + 1, passes, required: need };
    }
  }

  const expired = found.filter((f) => f.status === 'expired');
  const expiring = found.filter((f) => f.status === 'expiring');
  const exit = expired.length > 0 ? EXIT.closed : expiring.length > 0 ? EXIT.hold : EXIT.eligible;
  const doc = () =>
    `${JSON.stringify(
      {
        date: opts.date,
        window_days: opts.window,
        lift_after_passes: required(undefined),
        lifting: LIFTING,
        freezes: found,
        expired: expired.map((f) => f.id),
        expiring: expiring.map((f) => f.id),
        still_failing: found.filter((f) => f.run?.result === 'fail').map((f) => f.id),
        now_passing: found.filter((f) => f.run?.result === 'pass').map((f) => f.id),
      },
      null,
      2,
    )}\n`;
  // --out: the JSON report to a file (the job's artifact) and the text to the log.
  if (opts.out !== null) writeFileSync(resolve(io.cwd, opts.out), doc());
  if (opts.json) {
    io.stdout(doc());
    return exit;
  }
  const lines = [`receipt-gate freeze review on ${opts.date}: ${plural(found.length, 'freeze')}, ${expired.length} expired, ${expiring.length} expiring within ${plural(opts.window, 'day')}`];
  for (const f of found) {
    const when = f.days_left < 0 ? `EXPIRED ${plural(-f.days_left, 'day')} ago` : f.days_left === 0 ? 'last day today' : `${plural(f.days_left, 'day')} left`;
    const ran =
      f.run === null
        ? ''
        : f.run.result === 'pass'
          ? `; passed ${plural(f.run.passes, 'consecutive run')} (the policy's liftAfterPasses): an owner may decide to lift the freeze`
          : `; still fails (exit ${f.run.exit_code} on run ${f.run.runs} of ${f.run.required}, after ${f.run.passes} ${f.run.passes === 1 ? 'pass' : 'passes'})`;
    lines.push(`  ${f.expires}  ${when.padEnd(20)} ${f.context === undefined ? '' : `[${f.context}] `}${printable(f.id)}  (${f.kind === 'row' ? f.file : quotePath(f.file)}, ${printable(f.reason)}${f.owner ? `, ${printable(f.owner)}` : ''})${ran}`);
  }
  if (expired.length > 0) lines.push(`expired freezes close the gate for every push: an owner runs 'receipt-gate freeze prune' (or removes the keyed freeze) and fixes or re-freezes the test`);
  else if (expiring.length > 0) lines.push(`review these before they expire: fix the test, or an owner freezes it again with a fresh reason once it has expired`);
  if (found.length > 0) lines.push(LIFTING);
  io.stdout(`${lines.join('\n')}\n`);
  return exit;
}
