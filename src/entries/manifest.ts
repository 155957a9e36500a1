// `receipt-gate manifest sample --seed N [--k K]` — draws the property manifest from the
// catalog exactly as CPython's random.Random(N).sample(catalog.properties, k) does, and writes
// it (policy.manifest.path) with manifest_sha256, the SHA-256 of Python's canonical JSON of
// {"seed", "properties"}. The seed is an integer of any size; k defaults to the catalog's.

import { parseCommandArgs } from '../args';
import { checkPlanned, commitHint, openAuthoring, printRefusal, scopeName, writePlanned, type Authoring } from '../client/authoring';
import { dumpsIndented } from '../client/pretty-json';
import { today } from '../clock';
import { manifestDigest } from '../evidence/manifest';
import { parsePyJson, PyJsonError, toPlain, type PyValue } from '../evidence/pyjson';
import { PyRandom, PySampleError } from '../evidence/pyrandom';
import { validateAgainst } from '../evidence/schema';
import { UsageError, type CliIO } from '../io';
import { EXIT } from '../verdict';

const USAGE = 'receipt-gate manifest sample --seed N [--k K] [--context NAME] [--now YYYY-MM-DD]';

const INTEGER = /^-?\d+$/;

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      seed: { type: 'string', description: 'the integer seed the manifest is drawn with (any size)' },
      k: { type: 'string', description: 'how many properties to draw from the catalog (default: all of them)' },
      context: { type: 'string', description: 'the bounded context whose manifest is written' },
      now: { type: 'string', description: "today's date for checking the manifest with the gate's rules (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1 || positionals[0] !== 'sample') throw new UsageError(`the subcommand is 'sample'\nusage: ${USAGE}`);
  if (values.seed === undefined || !INTEGER.test(values.seed)) {
    throw new UsageError(`${values.seed === undefined ? '--seed N is required' : `--seed must be an integer of any size, got '${values.seed}'`}\nusage: ${USAGE}`);
  }
  if (values.k !== undefined && !/^\d+$/.test(values.k)) throw new UsageError(`--k must be a whole number, got '${values.k}'`);
  const date = today(io, values.now);
  const a = await openAuthoring(io, 'manifest sample', { context: values.context, needs: (p) => p.manifest !== undefined, what: '"manifest" section' });
  try {
    return await sample(a, io, BigInt(values.seed), values.k === undefined ? undefined : Number(values.k), date);
  } finally {
    a.close();
  }
}

async function sample(a: Authoring, io: CliIO, seed: bigint, kGiven: number | undefined, date: string): Promise<number> {
  const section = a.policy.manifest;
  if (!section) {
    throw new UsageError(`${scopeName(a)} has no "manifest" section; an owner adds "manifest": {"path": "checks/manifest.json", "catalog": "checks/properties.json"} to .receipt-gate.json first`);
  }
  if (section.catalog === undefined) {
    throw new UsageError(`the policy's manifest section names no catalog to draw from; an owner adds "catalog": "checks/properties.json" to it`);
  }
  const catalog = await readCatalog(a, section.catalog);
  const population = catalog.v.get('properties');
  const kValue = catalog.v.get('k');
  if (population?.t !== 'list' || kValue?.t !== 'int') throw new UsageError(`${section.catalog} has no properties list or integer k`);
  const k = kGiven ?? Number(kValue.v);
  if (BigInt(k) !== kValue.v) {
    io.stderr(
      `receipt-gate manifest sample: nothing written; ${section.catalog} draws k=${kValue.v}, and a manifest of ${k} properties would be rejected (MANIFEST_SAMPLE). An owner changes k in the catalog.\n`,
    );
    return EXIT.closed;
  }
  let drawn: PyValue[];
  try {
    drawn = new PyRandom(seed).sample(population.v, k);
  } catch (err) {
    if (err instanceof PySampleError) throw new UsageError(`cannot draw ${k} of the ${population.v.length} properties of ${section.catalog}: ${err.message}`);
    throw err;
  }
  const seedValue: PyValue = { t: 'int', v: seed };
  const properties: PyValue = { t: 'list', v: drawn };
  const digest = manifestDigest(seedValue, properties);
  const manifest: PyValue = {
    t: 'dict',
    v: new Map<string, PyValue>([
      ['seed', seedValue],
      ['properties', properties],
      ['manifest_sha256', { t: 'str', v: digest }],
    ]),
  };
  const bytes = Buffer.from(`${dumpsIndented(manifest)}\n`);
  const { refused } = await checkPlanned(a, a.tree, [{ path: section.path, bytes }], date, { alsoJudged: [section.catalog] });
  if (refused.length > 0) {
    printRefusal(io, 'manifest sample', refused);
    return EXIT.closed;
  }
  writePlanned(a, [{ path: section.path, bytes }]);
  const names = drawn.map((p) => (p.t === 'dict' && p.v.get('name')?.t === 'str' ? (p.v.get('name') as { v: string }).v : '?'));
  io.stdout(`wrote ${section.path}: seed ${seed}, ${k} of ${population.v.length} properties (${names.join(', ')}), manifest_sha256 ${digest}\n`);
  io.stdout(commitHint(a.policy, [section.path]));
  return EXIT.eligible;
}

async function readCatalog(a: Authoring, path: string): Promise<{ t: 'dict'; v: Map<string, PyValue> }> {
  const entry = await a.tree.stat(path);
  if (entry.kind === 'missing') throw new UsageError(`the catalog ${path} does not exist; an owner writes it first ({"properties": [...], "k": K})`);
  if (entry.kind !== 'file') throw new UsageError(`the catalog ${path} is a ${entry.what}, not a file`);
  if (entry.size > a.policy.limits.maxEvidenceBytes) {
    throw new UsageError(`the catalog ${path} is ${entry.size} bytes, over limits.maxEvidenceBytes (${a.policy.limits.maxEvidenceBytes})`);
  }
  let value: PyValue;
  try {
    value = parsePyJson(await entry.read());
  } catch (err) {
    if (err instanceof PyJsonError) throw new UsageError(`the catalog ${path} is not valid JSON (line ${err.line}, column ${err.column}: ${err.reason})`);
    throw err;
  }
  const problems = validateAgainst('catalog.schema.json', toPlain(value));
  if (problems.length > 0 || value.t !== 'dict') {
    throw new UsageError(
      `the catalog ${path} does not match schemas/catalog.schema.json:\n${problems.map((p) => `  at ${p.pointer || '/'}: ${p.message}`).join('\n')}`,
    );
  }
  return value;
}
