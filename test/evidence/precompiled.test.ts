// The bundle validates evidence with validators compiled ahead of time (scripts/compile-schemas.cjs);
// tests from source compile at run time. Both must give the same answer and the same errors
// for any document: a differential over valid documents and random mutations of them.

import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import fc from 'fast-check';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { isCalendarDate } from '../../src/evidence/dates';
import { AJV_OPTIONS, SCHEMAS } from '../../src/evidence/schema';
import { SEED } from './evidence-helpers';

const root = resolve(__dirname, '../..');
const require_ = createRequire(__filename);

function precompiled(): Record<string, ValidateFunction> {
  const { out } = require_(resolve(root, 'scripts/compile-schemas.cjs')) as { out: string };
  return (require_(out) as { byFile: Record<string, ValidateFunction> }).byFile;
}

function runtime(): Record<string, ValidateFunction> {
  const ajv = new Ajv2020({ ...AJV_OPTIONS });
  ajv.addFormat('date', { type: 'string', validate: isCalendarDate });
  for (const s of Object.values(SCHEMAS)) ajv.addSchema(s);
  return Object.fromEntries(Object.entries(SCHEMAS).map(([file, s]) => [file, ajv.getSchema((s as { $id: string }).$id)!]));
}

const hex = 'a'.repeat(64);
const VALID: Record<string, unknown> = {
  'policy.schema.json': { version: 1, protected: ['fixtures/**'], owners: ['alice'], epoch: { pin: 'fixtures/EPOCH' }, freeze: { path: 'freeze.json', reasons: ['timing'], maxDays: 14 } },
  'epoch-pin.schema.json': { epoch_id: 'e1', generator: 'fixtures/gen.py', generator_sha256: hex, inputs: ['fixtures/a.json'] },
  'manifest.schema.json': { seed: 1, properties: [{ name: 'p', bound: 3 }], manifest_sha256: hex },
  'catalog.schema.json': { properties: [{ name: 'p' }], k: 1 },
  'freeze.schema.json': { version: 1, frozen: [{ id: 't::x', reason: 'timing', expires: '2026-12-01', added: '2026-11-20', owner: 'human' }] },
  'observation.schema.json': { id: 'o1', epoch_id: 'e1', status: 'flake', rerun_passed: true, witness_sha256: hex },
  'keyed-freeze.schema.json': { observation_id: 'o1', epoch_id: 'e1', expires_on: '2026-12-01', reason: 'net' },
  'fixture-record.schema.json': { id: 'w', input: { a: 1 }, sha256: hex },
};

function summary(v: ValidateFunction, doc: unknown) {
  const ok = v(doc);
  return { ok, errors: (v.errors ?? []).map((e) => [e.keyword, e.instancePath, e.schemaPath, JSON.stringify(e.params)]) };
}

test('the build writes validators for every evidence schema', () => {
  execFileSync(process.execPath, [resolve(root, 'scripts/compile-schemas.cjs')]);
  const ahead = precompiled();
  assert.equal(Object.keys(ahead).sort(), Object.keys(SCHEMAS).sort());
});

test('precompiled and run-time validators agree on valid documents and random mutations', () => {
  const ahead = precompiled();
  const live = runtime();
  for (const [file, doc] of Object.entries(VALID)) {
    assert.ok(live[file]!(doc), `${file} example is valid`);
    assert.equal(summary(ahead[file]!, doc), summary(live[file]!, doc), file);
  }
  const jsonValue = fc.jsonValue({ maxDepth: 3 });
  const mutation = fc.record({
    file: fc.constantFrom(...Object.keys(VALID)),
    key: fc.oneof(fc.constantFrom('version', 'frozen', 'seed', 'properties', 'id', 'expires', 'reason', 'sha256', 'status', 'maxDays', '__proto__', 'k'), fc.string()),
    value: fc.oneof(jsonValue, fc.constantFrom('2026-02-30', '2026-02-28', hex, 'TODO', -1, 1.5, 2 ** 60)),
    whole: fc.boolean(),
  });
  fc.assert(
    fc.property(mutation, ({ file, key, value, whole }) => {
      const base = VALID[file] as Record<string, unknown>;
      const doc = whole ? value : Object.defineProperty({ ...base }, key, { value, enumerable: true, writable: true, configurable: true });
      assert.equal(summary(ahead[file]!, doc), summary(live[file]!, doc));
    }),
    { seed: SEED, numRuns: 400 },
  );
});

test.run();
