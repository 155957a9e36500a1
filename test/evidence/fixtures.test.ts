import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkFixtures } from '../../src/evidence/fixtures';
import type { MemoryEntry } from './memory-source';
import { assertWellFormed, codes, context, json, sha256, specPolicy } from './evidence-helpers';

const policy = specPolicy();
const DIGEST = sha256('weights');

async function check(files: Record<string, MemoryEntry>, p = policy) {
  const r = await checkFixtures(context(p, files));
  assertWellFormed(r.findings);
  return r;
}

test('a record with a real digest passes; the pin and non-matching files are not records', async () => {
  const r = await check({
    'fixtures/weights.json': json({ id: 'weights_v3', input: { layers: [1, 2] }, sha256: DIGEST }),
    'fixtures/EPOCH': 'not json, not a record',
    'fixtures/orders/base.json': 'not a direct child',
    'fixtures/README.md': 'text',
  });
  assert.equal(r.findings, []);
  assert.equal(r.records, [
    { path: 'fixtures/weights.json', id: 'weights_v3', sha256: DIGEST, stdin: '{"layers":[1,2]}', problem: null },
  ]);
});

test('input may be any JSON value', async () => {
  for (const input of [null, 1, 'x', [1, { a: [] }], { deep: { er: true } }]) {
    const r = await check({ 'fixtures/a.json': json({ id: 'a', input, sha256: DIGEST }) });
    assert.equal(r.findings, [], json(input));
  }
});

test('FIXTURE_PLACEHOLDER: digests that are not 64 lowercase hex', async () => {
  for (const bad of ['TODO', '', DIGEST.toUpperCase(), DIGEST.slice(1), DIGEST + '0', '<64 hex>', ' '.repeat(64)]) {
    const r = await check({ 'fixtures/a.json': json({ id: 'a', input: {}, sha256: bad }) });
    assert.equal(codes(r.findings), ['FIXTURE_PLACEHOLDER'], bad);
    assert.match(r.findings[0]!.message, 'a placeholder');
    // The receipt still gets the record, with the reason it cannot be re-run.
    assert.equal(r.records.map((x) => [x.id, x.sha256, x.problem]), [['a', null, r.findings[0]!.message.replace(/\.$/, '')]]);
  }
});

test('FIXTURE_INVALID (not FIXTURE_PLACEHOLDER): malformed records are "not a fixture record", and the fix names an owner', async () => {
  const cases: [string, string][] = [
    ['{"id": "a", "input": {}', 'JSON syntax error at line 1, column 24'],
    [json({ id: 'a', sha256: DIGEST }), 'missing required member "input"'],
    [json({ id: 7, input: {}, sha256: DIGEST }), 'at /id: expected a fixture id (string), found 7'],
    [json({ id: 'a', input: {}, sha256: 5 }), 'at /sha256'],
    [json({ id: 'a', input: {}, sha256: DIGEST, more: 1 }), 'unexpected member "more"'],
    ['[]', 'expected an object'],
  ];
  for (const [text, expected] of cases) {
    const r = await check({ 'fixtures/a.json': text });
    assert.equal(codes(r.findings), ['FIXTURE_INVALID'], text);
    assert.match(r.findings[0]!.message, 'fixtures/a.json is not a fixture record: ');
    assert.match(r.findings[0]!.fix, /^an owner \(.+\) rewrites fixtures\/a\.json as/);
    assert.match(r.findings[0]!.message, expected);
  }
});

test('duplicate keys: the last sha256 wins', async () => {
  let r = await check({ 'fixtures/a.json': `{"id": "a", "input": 1, "sha256": "TODO", "sha256": "${DIGEST}"}` });
  assert.equal(r.findings, []);
  r = await check({ 'fixtures/a.json': `{"id": "a", "input": 1, "sha256": "${DIGEST}", "sha256": "TODO"}` });
  assert.equal(codes(r.findings), ['FIXTURE_PLACEHOLDER']);
});

test('a symlink, a submodule or an oversized file matching the glob', async () => {
  let r = await check({ 'fixtures/a.json': { symlink: '../secret.json' } });
  assert.equal(codes(r.findings), ['FIXTURE_INVALID']);
  assert.match(r.findings[0]!.message, 'found a symlink');
  r = await check({ 'fixtures/a.json': { submodule: 'd'.repeat(40) } });
  assert.match(r.findings[0]!.message, 'found a submodule');
  r = await check({ 'fixtures/a.json': { size: 5_000_000 } });
  assert.equal(codes(r.findings), ['LIMIT_EXCEEDED']);
});

test('the glob matches dot files and is case-insensitive; a recursive glob reaches subfolders', async () => {
  const bad = json({ id: 'x', input: 1, sha256: 'TODO' });
  let r = await check({ 'fixtures/.hidden.json': bad, 'fixtures/UPPER.JSON': bad });
  assert.equal(codes(r.findings), ['FIXTURE_PLACEHOLDER', 'FIXTURE_PLACEHOLDER']);
  assert.equal(r.findings.map((f) => f.path), ['fixtures/.hidden.json', 'fixtures/UPPER.JSON']);
  const deep = specPolicy({ fixtures: { records: 'fixtures/**/*.json' } });
  r = await check({ 'fixtures/a/b/c.json': bad, 'other/d.json': bad }, deep);
  assert.equal(r.findings.map((f) => f.path), ['fixtures/a/b/c.json']);
});

test('the pin is never a record, even when the glob matches it', async () => {
  const p = specPolicy({ epoch: { pin: 'fixtures/EPOCH.json' } });
  const r = await check({ 'fixtures/EPOCH.json': json({ epoch_id: 'e' }) }, p);
  assert.equal(r.findings, []);
});

test.run();
