// `receipt-gate observe [--id ID] --status pass|fail|flake --witness FILE [--rerun-passed]` —
// records one observed run on the pinned epoch: the witness bytes as <dir>/<ID>.bin and the
// record <dir>/<ID>.json with their SHA-256 (dir: policy.observations.dir). The epoch is the
// pin's, read from the working tree. Without --id the record gets a new id,
// obs-<today>-<NNN> (the first number no observation of the folder uses). An archived
// observation (its freeze lifted) is never replaced: a new flake of the same test is a new
// observation.
//
// A truthful record is written even when the gate will close on it (a failure, or a flake no
// keyed freeze cites yet) and the command says so; a record the gate would refuse as invalid
// (wrong epoch, digest, size) is never written.

import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandArgs } from '../args';
import { checkPlanned, commitHint, openAuthoring, printRefusal, scopeName, writePlanned, type Authoring } from '../client/authoring';
import { jsonText } from '../client/templates';
import { today } from '../clock';
import { Deadline } from '../deadline';
import { readPin } from '../evidence/epoch';
import type { ArchivedMark, Observation } from '../evidence/observations';
import { parsePyJson, PyJsonError, toPlain } from '../evidence/pyjson';
import { validateAgainst } from '../evidence/schema';
import { MAX_BLOB_BYTES } from '../evidence/types';
import { sha256Hex } from '../hash';
import { UsageError, type CliIO } from '../io';
import { sortFindings } from '../report/order';
import { findingLine } from '../report/text';
import { EXIT } from '../verdict';

const USAGE = 'receipt-gate observe [--id ID] --status pass|fail|flake --witness FILE [--rerun-passed] [--context NAME] [--now YYYY-MM-DD]';

/** An observation id is a file name: letters, digits, '.', '_', '-', not starting with '.'. */
const ID_RE = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      id: { type: 'string', description: "the observation's id, a file name (default: obs-DATE-NNN)" },
      status: { type: 'string', description: 'what the run showed: pass, fail or flake' },
      witness: { type: 'string', description: "the run's output, copied beside the record as evidence" },
      'rerun-passed': { type: 'boolean', description: 'record that the test passed when run again' },
      context: { type: 'string', description: 'the bounded context whose observations folder gets the record' },
      now: { type: 'string', description: "today's date for the record and the checks (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'\nusage: ${USAGE}`);
  const { id, status, witness } = values;
  if (id !== undefined && !ID_RE.test(id)) {
    throw new UsageError(`--id must be a file name (letters, digits, '.', '_', '-'), got ${JSON.stringify(id)}\nusage: ${USAGE}`);
  }
  if (status !== 'pass' && status !== 'fail' && status !== 'flake') {
    throw new UsageError(`${status === undefined ? '--status pass|fail|flake is required' : `--status must be pass, fail or flake, got ${JSON.stringify(status)}`}\nusage: ${USAGE}`);
  }
  if (witness === undefined) throw new UsageError(`--witness FILE is required (the run's output, kept as evidence)\nusage: ${USAGE}`);
  const date = today(io, values.now);
  const witnessPath = resolve(io.cwd, witness);
  let size: number;
  try {
    size = statSync(witnessPath).size;
  } catch (err) {
    throw new UsageError(`cannot read the witness ${witness}: ${(err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : err instanceof Error ? err.message : String(err)}; pass the file the re-run wrote (--witness FILE)`);
  }
  if (size > MAX_BLOB_BYTES) throw new UsageError(`the witness ${witness} is ${size} bytes, over the ${MAX_BLOB_BYTES}-byte limit`);
  const bytes = new Uint8Array(readFileSync(witnessPath));

  const a = await openAuthoring(io, 'observe', { context: values.context, needs: (p) => p.observations !== undefined, what: '"observations" section' });
  try {
    return await observe(a, io, { id, status, rerunPassed: values['rerun-passed'] === true, bytes, date });
  } finally {
    a.close();
  }
}

async function observe(
  a: Authoring,
  io: CliIO,
  o: { id: string | undefined; status: Observation['status']; rerunPassed: boolean; bytes: Uint8Array; date: string },
): Promise<number> {
  const section = a.policy.observations;
  if (!section || !a.policy.epoch) {
    throw new UsageError(`${scopeName(a)} has no "observations" section (it needs "epoch" too); an owner adds "observations": {"dir": "observations", "freezes": "freezes"} to .receipt-gate.json first`);
  }
  const pin = await readPin(a.tree, a.policy.epoch.pin, a.policy, Deadline.never());
  if (!pin.pin) {
    throw new UsageError(`observations are made on the pinned epoch, and ${a.policy.epoch.pin} is ${pin.missing ? 'missing' : 'invalid'}; pin it first with 'receipt-gate epoch pin --id ID'`);
  }
  const id = o.id ?? (await newObservationId(a, section.dir, o.date));
  const record: Observation = {
    id,
    epoch_id: pin.pin.epoch_id,
    status: o.status,
    rerun_passed: o.rerunPassed,
    witness_sha256: sha256Hex(o.bytes),
  };
  const problems = validateAgainst('observation.schema.json', record);
  if (problems.length > 0) throw new UsageError(`the record would not be valid: ${problems.map((p) => `at ${p.pointer || '/'}: ${p.message}`).join('; ')}`);

  const jsonPath = `${section.dir}/${id}.json`;
  const binPath = `${section.dir}/${id}.bin`;
  const archived = await archivedMark(a, jsonPath);
  if (archived !== null) {
    io.stderr(
      `receipt-gate observe: nothing written: ${jsonPath} is archived (its freeze ${archived.freeze} was lifted by ${archived.lifted_by} on ${archived.lifted_on}) and is kept as it is; record a new flake as a new observation (leave out --id, or pass a new one)\n`,
    );
    return EXIT.closed;
  }
  const files = [
    { path: binPath, bytes: o.bytes },
    { path: jsonPath, bytes: Buffer.from(jsonText(record)) },
  ];
  // What the record truthfully says is not a reason to refuse it.
  const truthful = (code: string) =>
    (code === 'OBSERVATION_FAILED' && o.status === 'fail') || (code === 'FLAKE_UNFROZEN' && o.status === 'flake');
  const { report, refused } = await checkPlanned(a, a.tree, files, o.date, {
    tolerated: (f) => truthful(f.code) && f.message.includes(`Observation ${id} `),
  });
  if (refused.length > 0) {
    printRefusal(io, 'observe', refused);
    return EXIT.closed;
  }
  const replaced = (await a.tree.stat(jsonPath)).kind !== 'missing';
  writePlanned(a, files);
  io.stdout(
    `${replaced ? 'replaced' : 'wrote'} ${jsonPath} and ${binPath}: ${id} ${o.status}${o.rerunPassed ? ' (re-run passed)' : ''} on epoch ${record.epoch_id}, witness sha256 ${record.witness_sha256}\n`,
  );
  const closing = report.findings.filter((f) => f.severity === 'closed' && (f.path === jsonPath || f.path === binPath));
  if (closing.length > 0) {
    io.stdout('the gate will close on this record until it is resolved:\n');
    for (const f of sortFindings(closing)) io.stdout(`  ${findingLine(f)}\n`);
  }
  io.stdout(commitHint(a.policy, [jsonPath, binPath]));
  return EXIT.eligible;
}

/** obs-<date>-<NNN>: the first number from 001 that no record or witness in `dir` uses. */
async function newObservationId(a: Authoring, dir: string, date: string): Promise<string> {
  const taken = new Set((await a.tree.list(dir)).map((p) => p.slice(p.lastIndexOf('/') + 1).replace(/\.(json|bin)$/, '')));
  for (let n = 1; ; n++) {
    const id = `obs-${date}-${String(n).padStart(3, '0')}`;
    if (!taken.has(id)) return id;
  }
}

/** The `archived` member of the observation at `path` in the working tree, when it has one. */
async function archivedMark(a: Authoring, path: string): Promise<ArchivedMark | null> {
  const entry = await a.tree.stat(path);
  if (entry.kind !== 'file') return null;
  try {
    const plain = toPlain(parsePyJson(await entry.read())) as { archived?: unknown };
    const mark = plain.archived as Partial<ArchivedMark> | undefined;
    if (typeof mark === 'object' && mark !== null && typeof mark.freeze === 'string' && typeof mark.lifted_by === 'string' && typeof mark.lifted_on === 'string') {
      return mark as ArchivedMark;
    }
  } catch (err) {
    if (!(err instanceof PyJsonError)) throw err;
  }
  return null;
}
