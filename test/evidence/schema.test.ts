// The schemas themselves: draft 2020-12 with $ids, closed where the format is closed, open where
// the contract allows other members (docs/evidence.md); messages name the pointer and what was expected; the bundle carries
// them (validation works from a bundle run outside the repository).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { build } from 'esbuild';
import { parsePyJson, toPlain } from '../../src/evidence/pyjson';
import type { EpochPin, FreezeRow } from '../../src/evidence/types';
import type { ArchivedMark, KeyedFreeze, Observation } from '../../src/evidence/observations';
import { SCHEMAS, validateAgainst, type SchemaFile } from '../../src/evidence/schema';

const schemaDir = join(__dirname, '..', '..', 'schemas');

test('every evidence schema file is registered, draft 2020-12, with an $id naming its file', () => {
  const files = readdirSync(schemaDir).filter((f) => f.endsWith('.schema.json') && f !== 'receipt.schema.json');
  assert.equal(files.sort(), Object.keys(SCHEMAS).sort());
  for (const file of files) {
    const schema = JSON.parse(readFileSync(join(schemaDir, file), 'utf8')) as Record<string, unknown>;
    assert.is(schema.$schema, 'https://json-schema.org/draft/2020-12/schema', file);
    assert.is(schema.$id, `https://receipt-gate.dev/schemas/${file}`, file);
    assert.equal(SCHEMAS[file as keyof typeof SCHEMAS], schema, `${file} is imported as on disk`);
  }
});

test('closed formats refuse unknown members; open ones (manifest properties, fixture input) accept them', () => {
  const sha = 'a'.repeat(64);
  const closed: [string, Record<string, unknown>][] = [
    ['policy.schema.json', { version: 1 }],
    ['epoch-pin.schema.json', { epoch_id: 'e', generator: 'g', generator_sha256: sha }],
    ['manifest.schema.json', { seed: 1, properties: [], manifest_sha256: sha }],
    ['catalog.schema.json', { properties: [], k: 0 }],
    ['freeze.schema.json', { version: 1, frozen: [] }],
    ['observation.schema.json', { id: 'a', epoch_id: 'e', status: 'pass', rerun_passed: true, witness_sha256: sha }],
    ['keyed-freeze.schema.json', { observation_id: 'a', epoch_id: 'e', expires_on: '2026-09-20', reason: 'r' }],
    ['fixture-record.schema.json', { id: 'a', input: null, sha256: sha }],
  ];
  for (const [file, valid] of closed) {
    assert.equal(validateAgainst(file, valid), [], file);
    const problems = validateAgainst(file, { ...valid, zzz: 1 });
    assert.equal(problems.map((p) => p.pointer), ['/zzz'], file);
    assert.match(problems[0]!.message, 'unexpected member "zzz"');
  }
  const row = { id: 't', reason: 'timing', expires: '2026-09-20' };
  assert.equal(validateAgainst('freeze.schema.json', { version: 1, frozen: [{ ...row, extra: 1 }] }).map((p) => p.pointer), ['/frozen/0/extra']);
  assert.equal(validateAgainst('manifest.schema.json', { seed: 1, properties: [{ name: 'p', bound: [1], x: { y: null } }], manifest_sha256: sha }), []);
  assert.equal(validateAgainst('fixture-record.schema.json', { id: 'a', input: { anything: [1, 'x', null] }, sha256: sha }), []);
});

test('the TypeScript record types and the schemas agree (fully populated objects validate; same keys)', () => {
  const sha = 'b'.repeat(64);
  const pin: EpochPin = { epoch_id: 'e', generator: 'g.py', generator_sha256: sha, inputs: ['in.json'] };
  const row: Required<FreezeRow> = { id: 't', reason: 'timing', expires: '2026-09-20', owner: 'o', added: '2026-09-10' };
  const archived: Required<ArchivedMark> = { lifted_by: 'alice', lifted_on: '2026-09-21', freeze: 'freezes/o.json', expires_on: '2026-09-20', reason: 'r' };
  const obs: Observation = { id: 'o', epoch_id: 'e', status: 'flake', rerun_passed: true, witness_sha256: sha, archived };
  const kf: KeyedFreeze = { observation_id: 'o', epoch_id: 'e', expires_on: '2026-09-20', reason: 'r' };
  const cases: [SchemaFile, object, Record<string, unknown>][] = [
    ['epoch-pin.schema.json', pin, SCHEMAS['epoch-pin.schema.json'].properties],
    ['freeze.schema.json', { version: 1, frozen: [row] }, SCHEMAS['freeze.schema.json'].$defs.row.properties],
    ['observation.schema.json', obs, SCHEMAS['observation.schema.json'].properties],
    ['keyed-freeze.schema.json', kf, SCHEMAS['keyed-freeze.schema.json'].properties],
  ];
  for (const [file, value, properties] of cases) {
    assert.equal(validateAgainst(file, value), [], file);
    const keys = file === 'freeze.schema.json' ? Object.keys(row) : Object.keys(value);
    assert.equal(keys.sort(), Object.keys(properties).sort(), file);
  }
  const archivedSchema = SCHEMAS['observation.schema.json'].properties.archived as { properties: Record<string, unknown> };
  assert.equal(Object.keys(archived).sort(), Object.keys(archivedSchema.properties).sort());
  assert.equal(validateAgainst('observation.schema.json', { ...obs, archived: { ...archived, lifted_on: '2026-02-30' } }).map((p) => p.pointer), ['/archived/lifted_on']);
});

test('big integers: any size is an integer; bounds still apply', () => {
  const sha = 'a'.repeat(64);
  assert.equal(validateAgainst('manifest.schema.json', { seed: 10n ** 400n, properties: [], manifest_sha256: sha }), []);
  assert.equal(validateAgainst('manifest.schema.json', { seed: -(10n ** 400n), properties: [], manifest_sha256: sha }), []);
  const problems = validateAgainst('policy.schema.json', { version: 1, freeze: { maxDays: 10n ** 30n } });
  assert.equal(problems, [{ pointer: '/freeze/maxDays', message: `expected a whole number of days from 0 to 3650, found ${10n ** 30n}` }]);
});

test('a big integer deep in a list, next to a __proto__ member: both judged, the value left as it was', () => {
  const value = toPlain(parsePyJson(Buffer.from(`{"version": 1, "protected": ["a"], "freeze": {"maxDays": ${10n ** 30n}}, "__proto__": {"x": 1}}`)));
  const before = JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v));
  const problems = validateAgainst('policy.schema.json', value);
  assert.equal(problems.map((p) => p.pointer).sort(), ['/__proto__', '/freeze/maxDays']);
  assert.is(JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : v)), before);
  assert.is(Object.getPrototypeOf(value), Object.prototype);
  const list = [10n ** 400n];
  assert.equal(validateAgainst('manifest.schema.json', { seed: list, properties: [], manifest_sha256: 'a'.repeat(64) }), [{ pointer: '/seed', message: 'expected an integer of any size, found an array' }]);
  assert.is(list[0], 10n ** 400n);
});

test('pointers are RFC 6901 escaped', () => {
  const problems = validateAgainst('epoch-pin.schema.json', { epoch_id: 'e', generator: 'g', generator_sha256: 'a'.repeat(64), 'a/b~c': 1 });
  assert.equal(problems.map((p) => p.pointer), ['/a~1b~0c']);
});

test('an unknown schema name is a programming error', () => {
  assert.throws(() => validateAgainst('nope.schema.json', {}), /no schema named nope.schema.json/);
  assert.throws(() => validateAgainst('__proto__', {}), /no schema named/);
});

test('the bundle carries the schemas: validation works from a bundle run outside the repository', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rg-bundle-'));
  try {
    const entry = join(dir, 'entry.ts');
    const out = join(dir, 'out.cjs');
    await build({
      stdin: {
        contents: `import { validateAgainst } from ${JSON.stringify(join(__dirname, '..', '..', 'src', 'evidence', 'schema'))};
console.log(JSON.stringify(validateAgainst('freeze.schema.json', { version: 1, frozen: [{ id: 'x', reason: 'timing', expires: '2026-02-30' }] })));`,
        resolveDir: dir,
        loader: 'ts',
        sourcefile: entry,
      },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: out,
      logLevel: 'silent',
    });
    const printed = execFileSync(process.execPath, [out], { cwd: dir, encoding: 'utf8' });
    assert.equal(JSON.parse(printed), [
      { pointer: '/frozen/0/expires', message: 'expected a real calendar date written YYYY-MM-DD, found "2026-02-30"' },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
