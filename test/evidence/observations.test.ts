import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkObservations } from '../../src/evidence/observations';
import { MAX_BLOB_BYTES } from '../../src/evidence/types';
import type { MemoryEntry } from './memory-source';
import { assertWellFormed, codes, context, json, sha256, specPolicy } from './evidence-helpers';

const policy = specPolicy();
const EPOCH = 'orders-2026-09-25-a';
const TODAY = '2026-09-18';

function observation(id: string, fields: Record<string, unknown> = {}, witness = `witness of ${id}`): Record<string, MemoryEntry> {
  return {
    [`observations/${id}.json`]: json({
      id,
      epoch_id: EPOCH,
      status: 'flake',
      rerun_passed: true,
      witness_sha256: sha256(witness),
      ...fields,
    }),
    [`observations/${id}.bin`]: witness,
  };
}
function keyedFreeze(name: string, fields: Record<string, unknown> = {}): Record<string, MemoryEntry> {
  return {
    [`freezes/${name}.json`]: json({
      observation_id: 'test_y',
      epoch_id: EPOCH,
      expires_on: '2026-09-25',
      reason: 'times out on the shared runner',
      ...fields,
    }),
  };
}
async function check(files: Record<string, MemoryEntry>, opts: { epoch?: string | null; today?: string } = {}) {
  const r = await checkObservations(context(policy, files, { today: opts.today ?? TODAY }), opts.epoch === undefined ? EPOCH : opts.epoch);
  assertWellFormed(r.findings);
  return r;
}

test('a passing observation with its witness: nothing to report, witness recorded', async () => {
  const r = await check(observation('test_x', { status: 'pass', rerun_passed: false }));
  assert.equal(r.findings, []);
  assert.equal([...r.witnesses], [['test_x', sha256('witness of test_x')]]);
});

test('a witnessed flake with a valid keyed freeze: FREEZE_HELD (hold)', async () => {
  const r = await check({ ...observation('test_y'), ...keyedFreeze('test_y') });
  assert.equal(codes(r.findings), ['FREEZE_HELD']);
  assert.is(r.findings[0]!.severity, 'hold');
  assert.is(r.findings[0]!.path, 'freezes/test_y.json');
});

test('FLAKE_UNFROZEN: a flake no keyed freeze cites', async () => {
  const r = await check(observation('test_y'));
  assert.equal(codes(r.findings), ['FLAKE_UNFROZEN']);
  assert.is(r.findings[0]!.path, 'observations/test_y.json');
});

test('OBSERVATION_FAILED: status fail (a freeze does not help)', async () => {
  const r = await check({ ...observation('test_y', { status: 'fail', rerun_passed: true }), ...keyedFreeze('test_y') });
  assert.equal(codes(r.findings), ['OBSERVATION_FAILED', 'FREEZE_HELD']);
});

test('OBSERVATION_EPOCH: an observation from another epoch; its freeze does not hold', async () => {
  const r = await check({ ...observation('test_y', { epoch_id: 'orders-2026-01-01-a' }), ...keyedFreeze('test_y') });
  assert.equal(codes(r.findings), ['OBSERVATION_EPOCH', 'FLAKE_UNFROZEN']);
  assert.match(r.findings[0]!.message, 'orders-2026-01-01-a');
  assert.match(r.findings[0]!.message, EPOCH);
});

test('OBSERVATION_EPOCH: a keyed freeze naming another epoch', async () => {
  const r = await check({ ...observation('test_y'), ...keyedFreeze('test_y', { epoch_id: 'old' }) });
  assert.equal(codes(r.findings), ['OBSERVATION_EPOCH', 'FLAKE_UNFROZEN']);
  assert.is(r.findings[0]!.path, 'freezes/test_y.json');
});

test('WITNESS_MISSING and WITNESS_MISMATCH; the freeze then does not hold', async () => {
  const missing = observation('test_y');
  delete missing['observations/test_y.bin'];
  let r = await check({ ...missing, ...keyedFreeze('test_y') });
  assert.equal(codes(r.findings), ['WITNESS_MISSING', 'FLAKE_UNFROZEN']);
  assert.is(r.findings[0]!.path, 'observations/test_y.bin');

  const tampered = { ...observation('test_y'), 'observations/test_y.bin': 'other bytes' };
  r = await check({ ...tampered, ...keyedFreeze('test_y') });
  assert.equal(codes(r.findings), ['WITNESS_MISMATCH', 'FLAKE_UNFROZEN']);
  assert.match(r.findings[0]!.message, sha256('other bytes'));
  assert.match(r.findings[0]!.message, sha256('witness of test_y'));
  assert.equal([...r.witnesses], [['test_y', sha256('other bytes')]]);

  r = await check({ ...observation('test_y'), 'observations/test_y.bin': { symlink: 'x' }, ...keyedFreeze('test_y') });
  assert.equal(codes(r.findings), ['WITNESS_MISSING', 'FLAKE_UNFROZEN']);
  assert.match(r.findings[0]!.message, 'found a symlink');

  r = await check({ ...observation('test_y'), 'observations/test_y.bin': { size: MAX_BLOB_BYTES + 1 } });
  assert.equal(codes(r.findings), ['LIMIT_EXCEEDED', 'FLAKE_UNFROZEN']);
});

test('FREEZE_UNWITNESSED: cites no observation, or one whose re-run did not pass', async () => {
  let r = await check(keyedFreeze('test_y'));
  assert.equal(codes(r.findings), ['FREEZE_UNWITNESSED']);
  assert.match(r.findings[0]!.message, '"test_y"');
  r = await check({ ...observation('test_y', { rerun_passed: false }), ...keyedFreeze('test_y') });
  assert.equal(codes(r.findings), ['FREEZE_UNWITNESSED', 'FLAKE_UNFROZEN']);
});

test('keyed freeze expiry: expires_on == today holds, the day before is expired', async () => {
  let r = await check({ ...observation('test_y'), ...keyedFreeze('test_y', { expires_on: TODAY }) });
  assert.equal(codes(r.findings), ['FREEZE_HELD']);
  r = await check({ ...observation('test_y'), ...keyedFreeze('test_y', { expires_on: '2026-09-17' }) });
  assert.equal(codes(r.findings), ['FREEZE_EXPIRED', 'FLAKE_UNFROZEN']);
  assert.match(r.findings[0]!.message, '2026-09-17');
});

test('keyed freeze window: today + maxDays holds, one more day is FREEZE_WINDOW', async () => {
  let r = await check({ ...observation('test_y'), ...keyedFreeze('test_y', { expires_on: '2026-10-02' }) });
  assert.equal(codes(r.findings), ['FREEZE_HELD']);
  r = await check({ ...observation('test_y'), ...keyedFreeze('test_y', { expires_on: '2026-10-03' }) });
  assert.equal(codes(r.findings), ['FREEZE_WINDOW', 'FLAKE_UNFROZEN']);
  assert.match(r.findings[0]!.fix, '2026-10-02');
  // Leap day: 2028-02-15 + 14 days = 2028-02-29.
  r = await check({ ...observation('test_y'), ...keyedFreeze('test_y', { expires_on: '2028-02-29' }) }, { today: '2028-02-15' });
  assert.equal(codes(r.findings), ['FREEZE_HELD']);
  r = await check({ ...observation('test_y'), ...keyedFreeze('test_y', { expires_on: '2028-03-01' }) }, { today: '2028-02-15' });
  assert.equal(codes(r.findings), ['FREEZE_WINDOW', 'FLAKE_UNFROZEN']);
});

test('malformed observation records are OBSERVATION_INVALID "not a valid observation record" (not OBSERVATION_FAILED)', async () => {
  const cases: [Record<string, MemoryEntry>, string][] = [
    [{ 'observations/a.json': '{"id": "a",' }, 'JSON syntax error at line 1, column 12'],
    [{ 'observations/a.json': json({ id: 'a' }) }, 'missing required member "epoch_id"'],
    [observation('a', { status: 'flaky' }), 'at /status: expected one of "pass", "fail", "flake", found "flaky"'],
    [observation('a', { rerun_passed: 'yes' }), 'at /rerun_passed: expected true or false, found "yes"'],
    [observation('a', { witness_sha256: 'TODO' }), 'at /witness_sha256'],
    [observation('a', { id: 'b' }), 'its id "b" does not match the file name ("a")'],
    [observation('a', { extra: 1 }), 'unexpected member "extra"'],
    [{ 'observations/a.json': { symlink: 'b.json' } }, 'expected a regular file, found a symlink'],
    [{ 'observations/a.json/x': 'x' }, ''], // a folder named a.json is not a direct *.json child file
  ];
  for (const [files, text] of cases) {
    const r = await check(files);
    if (text === '') {
      assert.equal(r.findings, []);
      continue;
    }
    assert.ok(r.findings.length >= 1, text);
    assert.is(r.findings[0]!.code, 'OBSERVATION_INVALID', text);
    assert.ok(!r.findings.some((f) => f.code === 'OBSERVATION_FAILED'), text);
    assert.match(r.findings[0]!.message, 'is not a valid observation record: ');
    assert.match(r.findings[0]!.message, text);
  }
});

test('an oversized observation record is refused before reading', async () => {
  const r = await check({ 'observations/a.json': { size: 2 * 1024 * 1024 } });
  assert.equal(codes(r.findings), ['LIMIT_EXCEEDED']);
});

test('only direct children ending in .json are observations', async () => {
  const r = await check({
    'observations/nested/a.json': 'garbage',
    'observations/README.md': 'notes',
    'observations/a.bin': 'orphan witness',
  });
  assert.equal(r.findings, []);
});

test('malformed keyed freezes are FREEZE_INVALID', async () => {
  const cases: [Record<string, MemoryEntry>, string][] = [
    [keyedFreeze('k', { reason: '' }), 'at /reason: expected a non-empty reason'],
    [keyedFreeze('k', { expires_on: '2026-02-29' }), 'at /expires_on: expected a real calendar date'],
    [keyedFreeze('k', { observation_id: 5 }), 'at /observation_id'],
    [{ 'freezes/k.json': '[' }, 'JSON syntax error'],
    [{ 'freezes/k.json': { submodule: 'c'.repeat(40) } }, 'found a submodule'],
  ];
  for (const [files, text] of cases) {
    const r = await check({ ...observation('test_y', { status: 'pass' }), ...files });
    assert.equal(codes(r.findings), ['FREEZE_INVALID'], text);
    assert.match(r.findings[0]!.message, 'is not a valid keyed freeze: ');
    assert.match(r.findings[0]!.message, text);
  }
});

test('duplicate keys are last-wins: a later "status": "fail" counts', async () => {
  const w = sha256('w');
  const text = `{"id": "a", "epoch_id": "${EPOCH}", "status": "pass", "rerun_passed": true, "witness_sha256": "${w}", "status": "fail"}`;
  const r = await check({ 'observations/a.json': text, 'observations/a.bin': 'w' });
  assert.equal(codes(r.findings), ['OBSERVATION_FAILED']);
});

test('an observation named __proto__ is an ordinary id', async () => {
  const r = await check({ ...observation('__proto__'), ...keyedFreeze('k', { observation_id: '__proto__' }) });
  assert.equal(codes(r.findings), ['FREEZE_HELD']);
  assert.equal([...r.witnesses].map(([id]) => id), ['__proto__']);
});

test('without a valid pin (already a closing finding) epochs are not compared and nothing holds', async () => {
  const r = await check({ ...observation('test_y'), ...keyedFreeze('test_y') }, { epoch: null });
  assert.equal(codes(r.findings), ['FLAKE_UNFROZEN']);
});

test('an observations or keyed-freeze folder replaced by a symlink, a submodule or a file', async () => {
  let r = await check({ observations: { symlink: '/tmp/elsewhere' } });
  assert.equal(codes(r.findings), ['OBSERVATION_INVALID']);
  assert.match(r.findings[0]!.message, 'observations, the folder of observations, is a symlink');
  r = await check({ freezes: { submodule: 'f'.repeat(40) }, ...observation('test_x', { status: 'pass' }) });
  assert.equal(codes(r.findings), ['FREEZE_INVALID']);
  r = await check({ observations: 'a file' });
  assert.equal(codes(r.findings), ['OBSERVATION_INVALID']);
  assert.match(r.findings[0]!.message, 'is a file');
});

test('several problems are all listed', async () => {
  const r = await check({
    ...observation('a', { status: 'fail' }),
    ...observation('b', { epoch_id: 'old' }),
    ...keyedFreeze('c', { observation_id: 'nope' }),
    ...keyedFreeze('d', { observation_id: 'b', expires_on: '2026-01-01' }),
  });
  assert.equal(codes(r.findings), [
    'OBSERVATION_FAILED',
    'OBSERVATION_EPOCH',
    'FREEZE_UNWITNESSED',
    'FREEZE_EXPIRED',
    'FLAKE_UNFROZEN',
  ]);
});

const LIFTED = { lifted_by: 'alice', lifted_on: '2026-09-17', freeze: 'freezes/test_y.json', expires_on: '2026-09-25', reason: 'times out on the shared runner' };

test('an archived flake (its freeze lifted) is listed as OBSERVATION_ARCHIVED (info), its witness hashed, never FLAKE_UNFROZEN', async () => {
  const r = await check(observation('test_y', { archived: LIFTED }));
  assert.equal(r.findings.map((f) => [f.code, f.severity, f.path]), [['OBSERVATION_ARCHIVED', 'info', 'observations/test_y.json']]);
  assert.match(r.findings[0]!.message, `lifted by alice on 2026-09-17; the witness observations/test_y.bin is kept (sha256 ${sha256('witness of test_y')})`);
  assert.equal([...r.witnesses], [['test_y', sha256('witness of test_y')]]);
  // History from an earlier epoch is not OBSERVATION_EPOCH.
  const old = await check(observation('test_y', { archived: LIFTED, epoch_id: 'orders-2026-01-01-a' }));
  assert.equal(codes(old.findings), ['OBSERVATION_ARCHIVED']);
});

test('an archived observation still closes on a changed or missing witness, and a status fail still closes', async () => {
  const files = observation('test_y', { archived: LIFTED });
  files['observations/test_y.bin'] = 'rewritten';
  let r = await check(files);
  assert.equal(codes(r.findings), ['WITNESS_MISMATCH', 'OBSERVATION_ARCHIVED']);
  delete files['observations/test_y.bin'];
  r = await check(files);
  assert.equal(codes(r.findings), ['WITNESS_MISSING', 'OBSERVATION_ARCHIVED']);
  r = await check(observation('test_y', { archived: LIFTED, status: 'fail' }));
  assert.equal(codes(r.findings), ['OBSERVATION_FAILED', 'OBSERVATION_ARCHIVED']);
});

test('a keyed freeze citing an archived observation is FREEZE_UNWITNESSED (a new flake is a new observation)', async () => {
  const r = await check({ ...observation('test_y', { archived: LIFTED }), ...keyedFreeze('again') });
  assert.equal(codes(r.findings), ['OBSERVATION_ARCHIVED', 'FREEZE_UNWITNESSED']);
  assert.match(r.findings[1]!.message, 'which is archived: its freeze freezes/test_y.json was lifted on 2026-09-17');
});

test('an archived member that is malformed makes the record OBSERVATION_INVALID', async () => {
  const r = await check(observation('test_y', { archived: { lifted_by: '', lifted_on: '2026-09-17' } }));
  assert.ok(r.findings.length >= 1);
  assert.ok(r.findings.every((f) => f.code === 'OBSERVATION_INVALID'), codes(r.findings).join(' '));
});

test('fixes on owner-only files name an owner: a too long keyed freeze is shortened by an owner', async () => {
  const r = await check({ ...observation('test_y'), ...keyedFreeze('test_y', { expires_on: '2026-10-30' }) });
  const window = r.findings.find((f) => f.code === 'FREEZE_WINDOW')!;
  assert.match(window.fix, /^an owner \(.+\) shortens the freeze: "expires_on" 2026-10-02 or earlier$/);
});

test.run();
