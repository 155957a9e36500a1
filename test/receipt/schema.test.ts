// schemas/receipt.schema.json and the Receipt type describe the same document.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { receiptSchemaProblems } from '../../src/receipt/schema';
import type { Receipt } from '../../src/receipt/types';
import { ROOT } from './helpers';

const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'receipt.schema.json'), 'utf8'));

// Every key of Receipt, checked by the compiler in both directions (a missing or extra key
// does not type-check).
const KEYS: Record<keyof Receipt, true> = {
  schema: true, git_sha: true, ref: true, base_sha: true, generated_at: true, tool_version: true, node_version: true,
  property_seed: true, manifest_seed: true, property_trials: true, properties_cmd: true, properties_exit_code: true,
  properties_ok: true, fixtures: true, freeze_file_sha256: true, expired_freezes: true, frozen_tests: true,
  frozen_tests_passed: true, failed_tests: true, junit_files: true, evidence_paths_clean: true, epoch_id: true,
  generator_sha256: true, manifest_sha256: true, witnesses: true, verdict: true, findings: true, context: true,
  properties_run: true, not_run_reason: true, min_trials: true, isolation: true,
};
/** Members added after receipts were first written: optional, so older receipts still validate. */
const ADDED = ['properties_run', 'not_run_reason', 'min_trials', 'isolation'];

const full: Receipt = {
  schema: 'agent-patch-receipt/v1',
  git_sha: 'a'.repeat(40),
  ref: 'refs/heads/patch',
  base_sha: 'b'.repeat(40),
  generated_at: '2026-11-29T10:11:12.345Z',
  tool_version: '0.1.0',
  node_version: 'v20.20.0',
  property_seed: '-123456789012345678901234567890',
  manifest_seed: '-123456789012345678901234567890',
  property_trials: 200,
  min_trials: 200,
  properties_cmd: 'npm test',
  properties_exit_code: 0,
  properties_ok: true,
  properties_run: true,
  isolation: 'bwrap',
  not_run_reason: null,
  fixtures: [{ path: 'fixtures/a.json', id: 'a', expected: 'c'.repeat(64), actual: 'c'.repeat(64), ok: true }],
  freeze_file_sha256: 'd'.repeat(64),
  expired_freezes: [{ id: 't::x', expires: '2026-11-01' }],
  frozen_tests: ['t::y'],
  frozen_tests_passed: ['t::y'],
  failed_tests: [],
  junit_files: ['junit.xml'],
  evidence_paths_clean: true,
  epoch_id: 'e1',
  generator_sha256: 'e'.repeat(64),
  manifest_sha256: 'f'.repeat(64),
  witnesses: { obs1: '0'.repeat(64) },
  verdict: 'eligible',
  findings: [{ code: 'FREEZE_ACTIVE', severity: 'info', path: 'freeze.json', message: 'm', fix: 'f' }],
};

test('every docs/contract.md §4 field is required by the schema, and the schema lists exactly the type\'s keys', () => {
  const spec = ['git_sha', 'base_sha', 'generated_at', 'tool_version', 'node_version', 'property_seed', 'property_trials', 'properties_ok',
    'fixtures', 'freeze_file_sha256', 'expired_freezes', 'frozen_tests_passed', 'evidence_paths_clean', 'epoch_id', 'generator_sha256',
    'manifest_sha256', 'witnesses', 'verdict', 'findings'];
  for (const k of spec) assert.ok(schema.required.includes(k), k);
  // `context` is required by v2 receipts only (the schema's allOf), and refused on v1 ones.
  assert.equal([...schema.required].sort(), Object.keys(KEYS).filter((k) => k !== 'context' && !ADDED.includes(k)).sort());
  assert.equal(schema.allOf[0].then.properties.schema.const, 'agent-patch-receipt/v2');
  assert.equal(Object.keys(schema.properties).sort(), Object.keys(KEYS).sort());
  assert.equal(schema.properties.fixtures.items.required, ['path', 'id', 'expected', 'actual', 'ok']);
});

test('a fully populated receipt validates; nulls where the type allows them validate', () => {
  assert.equal(receiptSchemaProblems(full), []);
  const nulls: Receipt = { ...full, property_seed: null, manifest_seed: null, properties_cmd: null, properties_exit_code: null,
    properties_ok: false, freeze_file_sha256: null, epoch_id: null, generator_sha256: null, manifest_sha256: null,
    fixtures: [{ path: 'fixtures/a.json', id: null, expected: null, actual: null, ok: false }], verdict: 'closed' };
  assert.equal(receiptSchemaProblems(nulls), []);
  // A receipt made before the members of ADDED existed still validates.
  const older: Record<string, unknown> = { ...full };
  for (const k of ADDED) delete older[k];
  assert.equal(receiptSchemaProblems(older), []);
  const notRun: Receipt = { ...full, properties_ok: false, properties_run: false, not_run_reason: 'evidence touched: freeze.json', verdict: 'closed' };
  assert.equal(receiptSchemaProblems(notRun), []);
});

test('broken receipts are refused with the pointer named', () => {
  const cases: [unknown, RegExp][] = [
    [{ ...full, git_sha: 'abc' }, /^\/git_sha/],
    [{ ...full, schema: 'agent-patch-receipt/v2' }, /^\/schema/],
    [{ ...full, verdict: 'maybe' }, /^\/verdict/],
    [{ ...full, property_seed: 12 }, /^\/property_seed/],
    [{ ...full, extra: 1 }, /additional properties \('extra'\)/],
    [{ ...full, fixtures: [{ path: 'x', id: null, expected: null, actual: 'nothex', ok: true }] }, /^\/fixtures\/0\/actual/],
    [(({ findings: _f, ...rest }) => rest)(full), /must have required property 'findings'/],
  ];
  for (const [value, re] of cases) {
    const problems = receiptSchemaProblems(value);
    assert.ok(problems.some((p) => re.test(`${p.pointer} ${p.message}`)), `${re}: ${JSON.stringify(problems)}`);
  }
});

test.run();
