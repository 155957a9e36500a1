import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkFreezeFile } from '../../src/evidence/freeze';
import { assertWellFormed, codes, context, json, sha256, specPolicy } from './evidence-helpers';

const policy = specPolicy({ owners: ['alice', 'release-bot'] });
const TODAY = '2026-09-18';

function freezeFile(rows: unknown[]): string {
  return json({ version: 1, frozen: rows });
}
const row = (fields: Record<string, unknown> = {}) => ({
  id: 'tests/test_x.py::test_y',
  reason: 'timing',
  expires: '2026-09-20',
  owner: 'human',
  added: '2026-09-06',
  ...fields,
});
async function check(text: string | Record<string, unknown>, today = TODAY, p = policy) {
  const files = typeof text === 'string' ? { 'freeze.json': text } : (text as Record<string, string>);
  return checkFreezeFile(context(p, files, { today }));
}

test('absent freeze file: nothing frozen, no digest', async () => {
  const r = await checkFreezeFile(context(policy, {}));
  assert.equal(r.findings, []);
  assert.is(r.freezeFileSha256, null);
});

test('the docs/evidence.md example row is active (info) and the file digest is recorded', async () => {
  const text = freezeFile([row()]);
  const r = await check(text);
  assert.equal(codes(r.findings), ['FREEZE_ACTIVE']);
  assert.is(r.findings[0]!.severity, 'info');
  assert.match(r.findings[0]!.message, 'until 2026-09-20 (2 days left)');
  assert.is(r.freezeFileSha256, sha256(text));
  assert.equal(r.active, [row()]);
  assertWellFormed(r.findings);
});

test('an empty freeze file is fine', async () => {
  const r = await check(freezeFile([]));
  assert.equal(r.findings, []);
});

test('expiry boundaries: expires == today is not expired, the day after is', async () => {
  let r = await check(freezeFile([row({ expires: TODAY, added: '2026-09-10' })]));
  assert.equal(codes(r.findings), ['FREEZE_ACTIVE']);
  assert.match(r.findings[0]!.message, 'today is its last day');
  r = await check(freezeFile([row({ expires: '2026-09-17', added: '2026-09-10' })]));
  assert.equal(codes(r.findings), ['FREEZE_EXPIRED']);
  assert.match(r.findings[0]!.message, '2026-09-17');
  assert.match(r.findings[0]!.message, TODAY);
  assert.match(r.findings[0]!.fix, 'an owner (alice, release-bot) removes the expired entry with `receipt-gate freeze prune`');
  assertWellFormed(r.findings);
});

test('expiry across a year and a leap day', async () => {
  let r = await check(freezeFile([row({ expires: '2028-02-29', added: '2028-02-20' })]), '2028-03-01');
  assert.equal(codes(r.findings), ['FREEZE_EXPIRED']);
  r = await check(freezeFile([row({ expires: '2028-02-29', added: '2028-02-20' })]), '2028-02-29');
  assert.equal(codes(r.findings), ['FREEZE_ACTIVE']);
  r = await check(freezeFile([row({ expires: '2027-01-01', added: '2026-12-25' })]), '2026-12-31');
  assert.equal(codes(r.findings), ['FREEZE_ACTIVE']);
  assert.match(r.findings[0]!.message, '1 day left');
});

test('FREEZE_WINDOW: added after expires; span over maxDays; exactly maxDays is fine', async () => {
  let r = await check(freezeFile([row({ added: '2026-09-21', expires: '2026-09-20' })]));
  assert.equal(codes(r.findings), ['FREEZE_WINDOW']);
  assert.match(r.findings[0]!.message, 'added on 2026-09-21, after it expires (2026-09-20)');
  r = await check(freezeFile([row({ added: '2026-09-10', expires: '2026-09-25' })]));
  assert.equal(codes(r.findings), ['FREEZE_WINDOW']);
  assert.match(r.findings[0]!.message, 'spans 15 days');
  assert.match(r.findings[0]!.fix, '2026-09-24');
  r = await check(freezeFile([row({ added: '2026-09-11', expires: '2026-09-25' })]));
  assert.equal(codes(r.findings), ['FREEZE_ACTIVE']);
  // Across February of a leap year: 2028-02-20 + 14 days = 2028-03-05.
  r = await check(freezeFile([row({ added: '2028-02-20', expires: '2028-03-05' })]), '2028-02-21');
  assert.equal(codes(r.findings), ['FREEZE_ACTIVE']);
  r = await check(freezeFile([row({ added: '2028-02-20', expires: '2028-03-06' })]), '2028-02-21');
  assert.equal(codes(r.findings), ['FREEZE_WINDOW']);
  assertWellFormed(r.findings);
});

test('FREEZE_WINDOW without "added": the window is expires - today', async () => {
  const noAdded = (expires: string) => ({ id: 't', reason: 'infra', expires });
  let r = await check(freezeFile([noAdded('2026-10-02')]));
  assert.equal(codes(r.findings), ['FREEZE_ACTIVE'], '14 days from today');
  r = await check(freezeFile([noAdded('2026-10-03')]));
  assert.equal(codes(r.findings), ['FREEZE_WINDOW'], '15 days from today');
  assert.match(r.findings[0]!.message, '15 days after today (2026-09-18)');
});

test('maxDays comes from the policy', async () => {
  const strict = specPolicy({ freeze: { maxDays: 3 } });
  const r = await check(freezeFile([row({ added: '2026-09-16', expires: '2026-09-20' })]), TODAY, strict);
  assert.equal(codes(r.findings), ['FREEZE_WINDOW']);
});

test('FREEZE_REASON: outside the closed set, listing the allowed reasons', async () => {
  const r = await check(freezeFile([row({ reason: 'flaky' })]));
  assert.equal(codes(r.findings), ['FREEZE_REASON']);
  assert.match(r.findings[0]!.message, '"flaky"');
  assert.match(r.findings[0]!.message, 'timing, network, order, infra');
  const custom = specPolicy({ freeze: { reasons: ['flaky'] } });
  assert.equal(codes((await check(freezeFile([row({ reason: 'flaky' })]), TODAY, custom)).findings), ['FREEZE_ACTIVE']);
  assertWellFormed(r.findings);
});

test('FREEZE_INVALID: invalid calendar dates', async () => {
  for (const bad of ['2026-02-29', '2026-13-01', '2026-04-31', '2026-9-20', '20260920', '2026-09-20T00:00:00Z', '']) {
    const r = await check(freezeFile([row({ expires: bad })]));
    assert.equal(codes(r.findings), ['FREEZE_INVALID'], bad);
    assert.match(r.findings[0]!.message, 'at /frozen/0/expires: expected a real calendar date written YYYY-MM-DD');
  }
  const r = await check(freezeFile([row({ added: '2026-02-30' })]));
  assert.equal(codes(r.findings), ['FREEZE_INVALID']);
});

test('FREEZE_INVALID: every problem listed, each with its pointer; valid rows still checked', async () => {
  const text = json({
    version: 2,
    frozen: [{ id: '', reason: 3, expires: '2026-09-20', extra: true }, row({ id: 'ok' }), row({ id: 'late', expires: '2026-09-01', added: '2026-08-30' })],
  });
  const r = await check(text);
  const messages = r.findings.map((f) => `${f.code} ${f.message}`);
  assert.equal(codes(r.findings), ['FREEZE_INVALID', 'FREEZE_INVALID', 'FREEZE_INVALID', 'FREEZE_INVALID', 'FREEZE_ACTIVE', 'FREEZE_EXPIRED'], messages.join('\n'));
  const text2 = messages.join('\n');
  assert.match(text2, 'at /version: expected 1, found 2');
  assert.match(text2, 'at /frozen/0/id: expected a non-empty test id');
  assert.match(text2, 'at /frozen/0/reason: expected one of the policy');
  assert.match(text2, 'at /frozen/0/extra: unexpected member "extra"');
  assertWellFormed(r.findings);
});

test('FREEZE_INVALID: a duplicate id, reported at the second row', async () => {
  const r = await check(freezeFile([row(), row({ reason: 'network' })]));
  assert.equal(codes(r.findings), ['FREEZE_ACTIVE', 'FREEZE_INVALID']);
  assert.match(r.findings[1]!.message, '/frozen/1');
  assert.match(r.findings[1]!.message, '/frozen/0');
});

test('FREEZE_INVALID: syntax error with line and column, wrong top-level types', async () => {
  let r = await check('{"version": 1,\n "frozen": [\n  {"id": "x",}\n ]\n}');
  assert.equal(codes(r.findings), ['FREEZE_INVALID']);
  assert.match(r.findings[0]!.message, 'line 3, column 14');
  r = await check('[]');
  assert.equal(codes(r.findings), ['FREEZE_INVALID']);
  assert.match(r.findings[0]!.message, 'at / (the whole document): expected an object, found an empty array');
  r = await check(json({ version: 1, frozen: {} }));
  assert.equal(codes(r.findings), ['FREEZE_INVALID']);
  r = await check(json({ version: 1 }));
  assert.match(r.findings[0]!.message, 'at /frozen: missing required member "frozen"');
  r = await check('');
  assert.equal(codes(r.findings), ['FREEZE_INVALID']);
});

test('duplicate keys: the last wins (an expired row hidden behind an earlier "expires")', async () => {
  const text = `{"version": 1, "frozen": [{"id": "t", "reason": "timing", "expires": "2026-09-20", "expires": "2026-09-01", "added": "2026-08-30"}]}`;
  const r = await check(text);
  assert.equal(codes(r.findings), ['FREEZE_EXPIRED']);
  const dupFrozen = `{"version": 1, "frozen": [], "frozen": [{"id": "t", "reason": "nope", "expires": "2026-09-20"}]}`;
  assert.equal(codes((await check(dupFrozen)).findings), ['FREEZE_REASON']);
});

test('a __proto__ member is reported, and pollutes nothing', async () => {
  const text = `{"version": 1, "frozen": [], "__proto__": {"polluted": true}}`;
  const r = await check(text);
  assert.equal(codes(r.findings), ['FREEZE_INVALID']);
  assert.match(r.findings[0]!.message, 'at /__proto__: unexpected member "__proto__"');
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  const rowProto = `{"version": 1, "frozen": [{"id": "t", "reason": "timing", "expires": "2026-09-20", "__proto__": {"reason": "x"}}]}`;
  const r2 = await check(rowProto);
  assert.equal(codes(r2.findings), ['FREEZE_INVALID']);
});

test('a 50 MB freeze file is refused by its size, before it is read', async () => {
  const r = await check({ 'freeze.json': { size: 50 * 1024 * 1024 } } as never);
  assert.equal(codes(r.findings), ['LIMIT_EXCEEDED']);
  assert.match(r.findings[0]!.message, '52428800 bytes');
  assert.match(r.findings[0]!.message, '1048576');
  assert.is(r.freezeFileSha256, null);
  assertWellFormed(r.findings);
});

test('a symlink or a directory where the freeze file should be', async () => {
  let r = await check({ 'freeze.json': { symlink: '/etc/passwd' } } as never);
  assert.equal(codes(r.findings), ['FREEZE_INVALID']);
  assert.match(r.findings[0]!.message, 'expected a regular file, found a symlink');
  r = await check({ 'freeze.json/x': 'x' } as never);
  assert.equal(codes(r.findings), ['FREEZE_INVALID']);
  assert.match(r.findings[0]!.message, 'found a directory');
});

test('no freeze section: the freeze file is not checked', async () => {
  const p = specPolicy();
  delete p.freeze;
  const r = await checkFreezeFile(context(p, { 'freeze.json': 'garbage' }));
  assert.equal(r.findings, []);
});

test.run();
