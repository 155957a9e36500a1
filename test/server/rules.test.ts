// Every evidence rule of docs/contract.md §2, reached through a real push: alice (an owner, so
// protected paths are hers to change) pushes broken evidence to a work branch, and the hook
// rejects it with the rule's code. A valid keyed freeze holds: accepted with a notice on a
// work branch, and on the protected main as the owner's push. (FIXTURE_DIGEST needs the produced bytes, which
// only `receipt` runs; the server never executes code from a push.)

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { commitAll, EPOCH_ID, GENERATOR, machine, manifestDigest, push, pythonSample, refOid, type Remote, remotePerTest, sha256, write } from './helpers';
import { gitValue } from '../helpers/git';

const ALICE = { REMOTE_USER: 'alice' };
let r: Remote;
remotePerTest(test, 'rules', (remote) => {
  r = remote;
  gitValue(r.work, ['checkout', '-q', '-B', 'work', 'main']);
});

function json(path: string, value: unknown): void {
  write(r.work, path, `${JSON.stringify(value)}\n`);
}

function rejectsWith(code: string, change: () => void): void {
  change();
  commitAll(r.work, `break ${code}`);
  const result = push(r.work, ['origin', 'work'], ALICE);
  assert.is.not(result.status, 0, `expected ${code}, the push was accepted:\n${result.stderr}`);
  const m = machine(result);
  assert.is(m.verdict, 'closed', result.stderr);
  assert.ok(m.findings.some((f) => f.code === code), `expected ${code}:\n${result.stderr}`);
  assert.match(result.remote.join('\n'), new RegExp(`${code} work [0-9a-f]{7}`));
  assert.is(refOid(r.bare, 'refs/heads/work'), null);
}

const pin = (over: Record<string, unknown> = {}) => ({
  epoch_id: EPOCH_ID, generator: 'fixtures/generate_orders.py', generator_sha256: sha256(GENERATOR), inputs: ['fixtures/orders/base.json'], ...over,
});

test('EPOCH_MISSING: the pin is removed', () => rejectsWith('EPOCH_MISSING', () => rmSync(join(r.work, 'fixtures/EPOCH'))));
test('EPOCH_INVALID: the pin fails its schema', () => rejectsWith('EPOCH_INVALID', () => json('fixtures/EPOCH', { epoch_id: 5 })));
test('EPOCH_MISMATCH: the generator changes under the pin', () =>
  rejectsWith('EPOCH_MISMATCH', () => write(r.work, 'fixtures/generate_orders.py', 'print("different")\n')));
test('EPOCH_REWRITTEN: same epoch_id, new digest', () =>
  rejectsWith('EPOCH_REWRITTEN', () => {
    const generator = 'print("regenerated")\n';
    write(r.work, 'fixtures/generate_orders.py', generator);
    json('fixtures/EPOCH', { ...pin(), generator_sha256: sha256(generator) });
  }));
test('MANIFEST_INVALID: the manifest fails its schema', () => rejectsWith('MANIFEST_INVALID', () => json('checks/manifest.json', { seed: 'x' })));
test('MANIFEST_DIGEST: the digest is not the canonical one', () =>
  rejectsWith('MANIFEST_DIGEST', () => {
    const m = JSON.parse(gitValue(r.work, ['show', 'main:checks/manifest.json']));
    json('checks/manifest.json', { ...m, manifest_sha256: '0'.repeat(64) });
  }));
test('MANIFEST_SAMPLE: the properties are not the draw for the seed', () =>
  rejectsWith('MANIFEST_SAMPLE', () => {
    const catalog = JSON.parse(gitValue(r.work, ['show', 'main:checks/properties.json'])).properties as unknown[];
    const seed = 20260925;
    const drawn = JSON.stringify(pythonSample(seed, catalog, 3));
    const chosen = [catalog[0], catalog[1], catalog[2]];
    const properties = JSON.stringify(chosen) === drawn ? [catalog[2], catalog[3], catalog[4]] : chosen;
    json('checks/manifest.json', { seed, properties, manifest_sha256: manifestDigest(seed, properties) });
  }));
const freezeRow = (over: Record<string, unknown>) => ({ version: 1, frozen: [{ id: 'tests/t.py::t', reason: 'timing', expires: '2026-09-20', owner: 'human', added: '2026-09-06', ...over }] });
test('FREEZE_INVALID: the freeze file fails its schema', () => rejectsWith('FREEZE_INVALID', () => json('freeze.json', { version: 1, frozen: [{ id: 1 }] })));
test('FREEZE_REASON: a reason outside the closed set', () => rejectsWith('FREEZE_REASON', () => json('freeze.json', freezeRow({ reason: 'flaky' }))));
test('FREEZE_WINDOW: a window longer than maxDays', () =>
  rejectsWith('FREEZE_WINDOW', () => json('freeze.json', freezeRow({ added: '2026-09-06', expires: '2026-10-06' }))));
test('FREEZE_EXPIRED: an expired freeze still present', () =>
  rejectsWith('FREEZE_EXPIRED', () => json('freeze.json', freezeRow({ added: '2026-09-01', expires: '2026-09-09' }))));

const observation = (over: Record<string, unknown>) => ({ id: 'obs-1', epoch_id: EPOCH_ID, status: 'pass', rerun_passed: true, witness_sha256: sha256('run 1: pass\n'), ...over });
test('OBSERVATION_FAILED: an observation failed', () => rejectsWith('OBSERVATION_FAILED', () => json('observations/obs-1.json', observation({ status: 'fail' }))));
test('OBSERVATION_EPOCH: an observation from another epoch', () =>
  rejectsWith('OBSERVATION_EPOCH', () => json('observations/obs-1.json', observation({ epoch_id: 'orders-2020-01-01-z' }))));
test('WITNESS_MISSING: the witness bytes are gone', () => rejectsWith('WITNESS_MISSING', () => rmSync(join(r.work, 'observations/obs-1.bin'))));
test('WITNESS_MISMATCH: the witness bytes changed', () => rejectsWith('WITNESS_MISMATCH', () => write(r.work, 'observations/obs-1.bin', 'run 1: fail\n')));
test('FLAKE_UNFROZEN: a flake no keyed freeze cites', () => rejectsWith('FLAKE_UNFROZEN', () => json('observations/obs-1.json', observation({ status: 'flake' }))));
test('FREEZE_UNWITNESSED: a keyed freeze citing no observation', () =>
  rejectsWith('FREEZE_UNWITNESSED', () =>
    json('freezes/f1.json', { observation_id: 'obs-404', epoch_id: EPOCH_ID, expires_on: '2026-09-15', reason: 'retry storm in CI' })));
test('FIXTURE_PLACEHOLDER: a fixture record without a real digest', () =>
  rejectsWith('FIXTURE_PLACEHOLDER', () => json('fixtures/weights_v3.json', { id: 'weights_v3', input: {}, sha256: 'TODO' })));

test("FREEZE_HELD: a witnessed, frozen flake holds: accepted with a notice on a work branch, and on main as an owner's push", () => {
  json('observations/obs-1.json', observation({ status: 'flake', rerun_passed: true }));
  json('freezes/f1.json', { observation_id: 'obs-1', epoch_id: EPOCH_ID, expires_on: '2026-09-15', reason: 'network timeout; rerun passed' });
  const head = commitAll(r.work, 'freeze a witnessed flake');
  const onWork = push(r.work, ['origin', 'work'], ALICE);
  assert.is(onWork.status, 0, onWork.stderr);
  assert.match(onWork.remote.join('\n'), /accepted with a notice: hold/);
  assert.is(machine(onWork).verdict, 'hold');
  assert.is(refOid(r.bare, 'refs/heads/work'), head);
  // alice is an owner: her push is the human decision a hold asks for (a non-owner's is
  // refused on main: test/server/hold-owner.test.ts).
  const onMain = push(r.work, ['origin', 'work:main'], ALICE);
  assert.is(onMain.status, 0, onMain.stderr);
  assert.match(onMain.remote.join('\n'), /accepted with a notice: hold, on a protected ref as an owner/);
  assert.is(machine(onMain).verdict, 'hold');
  assert.is(refOid(r.bare, 'refs/heads/main'), head);
});

test.run();
