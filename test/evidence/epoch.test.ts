import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkEpoch } from '../../src/evidence/epoch';
import { MAX_BLOB_BYTES } from '../../src/evidence/types';
import { assertWellFormed, codes, context, json, sha256, specPolicy } from './evidence-helpers';

const GEN = 'import json\nprint(json.dumps({"orders": 3}))\n';
const policy = specPolicy({ owners: ['alice', 'release-bot'] });

function pin(fields: Record<string, unknown> = {}): string {
  return json({
    epoch_id: 'orders-2026-09-25-a',
    generator: 'fixtures/generate_orders.py',
    generator_sha256: sha256(GEN),
    inputs: ['fixtures/orders/base.json'],
    ...fields,
  });
}

test('a pin whose generator matches passes and identifies the epoch', async () => {
  const r = await checkEpoch(context(policy, { 'fixtures/EPOCH': pin(), 'fixtures/generate_orders.py': GEN }));
  assert.equal(r.findings, []);
  assert.is(r.pin?.epoch_id, 'orders-2026-09-25-a');
  assert.is(r.generatorSha256, sha256(GEN));
});

test('inputs are recorded, not checked for existence; inputs may be left out', async () => {
  const r = await checkEpoch(
    context(policy, {
      'fixtures/EPOCH': json({ epoch_id: 'e', generator: 'g.py', generator_sha256: sha256('x') }),
      'g.py': 'x',
    }),
  );
  assert.equal(r.findings, []);
  assert.equal(r.pin?.inputs, []);
});

test('no epoch section: nothing is checked', async () => {
  const bare = specPolicy();
  delete bare.epoch;
  delete bare.observations; // observations need an epoch
  const r = await checkEpoch(context(bare, {}));
  assert.equal(r.findings, []);
});

test('EPOCH_MISSING when the pin is missing, with an owner re-pin fix', async () => {
  const r = await checkEpoch(context(policy, { 'fixtures/generate_orders.py': GEN }));
  assert.equal(codes(r.findings), ['EPOCH_MISSING']);
  assert.is(r.findings[0]!.path, 'fixtures/EPOCH');
  assert.match(r.findings[0]!.fix, 'an owner (alice, release-bot)');
  assert.match(r.findings[0]!.fix, 'receipt-gate epoch pin --id');
  assertWellFormed(r.findings);
});

test('EPOCH_MISSING when the generator the pin names is missing', async () => {
  const r = await checkEpoch(context(policy, { 'fixtures/EPOCH': pin() }));
  assert.equal(codes(r.findings), ['EPOCH_MISSING']);
  assert.is(r.findings[0]!.path, 'fixtures/generate_orders.py');
  assertWellFormed(r.findings);
});

test('EPOCH_MISMATCH shows the pinned and the actual digest', async () => {
  const edited = GEN + '# tweak\n';
  const r = await checkEpoch(context(policy, { 'fixtures/EPOCH': pin(), 'fixtures/generate_orders.py': edited }));
  assert.equal(codes(r.findings), ['EPOCH_MISMATCH']);
  assert.match(r.findings[0]!.message, sha256(GEN));
  assert.match(r.findings[0]!.message, sha256(edited));
  assert.is(r.generatorSha256, sha256(edited));
  assertWellFormed(r.findings);
});

test('the digest is over the exact bytes (CRLF differs from LF)', async () => {
  const crlf = GEN.replace(/\n/g, '\r\n');
  const r = await checkEpoch(context(policy, { 'fixtures/EPOCH': pin(), 'fixtures/generate_orders.py': crlf }));
  assert.equal(codes(r.findings), ['EPOCH_MISMATCH']);
});

test('EPOCH_INVALID: JSON syntax error with line and column', async () => {
  const r = await checkEpoch(context(policy, { 'fixtures/EPOCH': '{\n  "epoch_id": "e",\n  "generator" "g"\n}' }));
  assert.equal(codes(r.findings), ['EPOCH_INVALID']);
  assert.match(r.findings[0]!.message, 'line 3, column 15');
  assertWellFormed(r.findings);
});

test('EPOCH_INVALID: every schema problem is listed with its pointer', async () => {
  const r = await checkEpoch(
    context(policy, {
      'fixtures/EPOCH': json({ epoch_id: '', generator: '/abs', generator_sha256: 'ABC', extra: 1 }),
    }),
  );
  assert.equal(codes(r.findings), ['EPOCH_INVALID', 'EPOCH_INVALID', 'EPOCH_INVALID', 'EPOCH_INVALID']);
  const text = r.findings.map((f) => f.message).join('\n');
  for (const pointer of ['/epoch_id', '/generator', '/generator_sha256', '/extra']) assert.match(text, `at ${pointer}:`);
  assert.match(text, 'found "ABC"');
  assertWellFormed(r.findings);
});

test('EPOCH_INVALID: a symlink, a directory or a submodule where the pin should be', async () => {
  for (const [files, what] of [
    [{ 'fixtures/EPOCH': { symlink: '../x' } }, 'symlink'],
    [{ 'fixtures/EPOCH/inner': 'x' }, 'directory'],
    [{ 'fixtures/EPOCH': { submodule: 'a'.repeat(40) } }, 'submodule'],
  ] as const) {
    const r = await checkEpoch(context(policy, files));
    assert.equal(codes(r.findings), ['EPOCH_INVALID'], what);
    assert.match(r.findings[0]!.message, `expected a regular file, found a ${what}`);
  }
});

test('EPOCH_INVALID: the generator is a symlink', async () => {
  const r = await checkEpoch(
    context(policy, { 'fixtures/EPOCH': pin(), 'fixtures/generate_orders.py': { symlink: 'elsewhere.py' } }),
  );
  assert.equal(codes(r.findings), ['EPOCH_INVALID']);
  assert.is(r.findings[0]!.path, 'fixtures/generate_orders.py');
});

test('LIMIT_EXCEEDED before reading: an oversized pin, an oversized generator', async () => {
  let r = await checkEpoch(context(policy, { 'fixtures/EPOCH': { size: policy.limits.maxEvidenceBytes + 1 } }));
  assert.equal(codes(r.findings), ['LIMIT_EXCEEDED']);
  r = await checkEpoch(
    context(policy, { 'fixtures/EPOCH': pin(), 'fixtures/generate_orders.py': { size: MAX_BLOB_BYTES + 1 } }),
  );
  assert.equal(codes(r.findings), ['LIMIT_EXCEEDED']);
  assert.is(r.findings[0]!.path, 'fixtures/generate_orders.py');
  assertWellFormed(r.findings);
});

test('duplicate keys resolve last-wins, as json.loads does', async () => {
  const text = `{"epoch_id": "e", "generator": "g.py", "generator_sha256": "${'0'.repeat(64)}", "generator_sha256": "${sha256('x')}"}`;
  const r = await checkEpoch(context(policy, { 'fixtures/EPOCH': text, 'g.py': 'x' }));
  assert.equal(r.findings, []);
});

test('a __proto__ member is an unexpected member, not a prototype', async () => {
  const text = `{"epoch_id": "e", "generator": "g.py", "generator_sha256": "${sha256('x')}", "__proto__": {"x": 1}}`;
  const r = await checkEpoch(context(policy, { 'fixtures/EPOCH': text, 'g.py': 'x' }));
  assert.equal(codes(r.findings), ['EPOCH_INVALID']);
  assert.match(r.findings[0]!.message, 'at /__proto__: unexpected member "__proto__"');
});

test('EPOCH_REWRITTEN: same epoch_id as the base, different digest', async () => {
  const other = 'print("other")\n';
  const r = await checkEpoch(
    context(
      policy,
      { 'fixtures/EPOCH': pin({ generator_sha256: sha256(other) }), 'fixtures/generate_orders.py': other },
      { base: { 'fixtures/EPOCH': pin(), 'fixtures/generate_orders.py': GEN } },
    ),
  );
  assert.equal(codes(r.findings), ['EPOCH_REWRITTEN']);
  assert.match(r.findings[0]!.message, sha256(GEN));
  assert.match(r.findings[0]!.message, sha256(other));
  assert.match(r.findings[0]!.fix, '--id NEW_ID');
  assertWellFormed(r.findings);
});

test('a new epoch_id may change the digest; a base without a pin is fine', async () => {
  const other = 'print("other")\n';
  const files = {
    'fixtures/EPOCH': pin({ epoch_id: 'orders-2026-10-01-a', generator_sha256: sha256(other) }),
    'fixtures/generate_orders.py': other,
  };
  let r = await checkEpoch(context(policy, files, { base: { 'fixtures/EPOCH': pin() } }));
  assert.equal(r.findings, []);
  r = await checkEpoch(context(policy, files, { base: {} }));
  assert.equal(r.findings, []);
  r = await checkEpoch(context(policy, files, { base: { 'fixtures/EPOCH': '{ not json' } }));
  assert.equal(r.findings, []);
});

test('EPOCH_MISMATCH and EPOCH_REWRITTEN are both listed', async () => {
  const r = await checkEpoch(
    context(
      policy,
      { 'fixtures/EPOCH': pin({ generator_sha256: sha256('y') }), 'fixtures/generate_orders.py': GEN },
      { base: { 'fixtures/EPOCH': pin() } },
    ),
  );
  assert.equal(codes(r.findings), ['EPOCH_MISMATCH', 'EPOCH_REWRITTEN']);
});

test.run();
