// Hold on a protected ref is refused for non-owners only (docs/contract.md §2 On the server):
// an owner's push that leaves a valid keyed freeze on main is the human decision a hold asks
// for, accepted with a notice; a non-owner's push of the same commit is rejected, naming who
// may make it; once main holds the freeze, a non-owner's patch on top is still held. Real
// pushes into a bare repository with the installed hook.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { commitAll, EPOCH_ID, machine, push, refOid, type Remote, remotePerTest, sha256, write } from './helpers';
import { gitValue } from '../helpers/git';

const ALICE = { REMOTE_USER: 'alice' };
const BOB = { REMOTE_USER: 'bob' };
let r: Remote;
remotePerTest(test, 'hold-owner', (remote) => {
  r = remote;
  gitValue(r.work, ['checkout', '-q', '-B', 'work', 'main']);
});

/** A witnessed flake (observation + witness) frozen by a keyed freeze, committed on `work`. */
function freezeFlake(): string {
  const witness = 'run 1: fail (timeout)\nrun 2: pass\n';
  write(r.work, 'observations/obs-2.bin', witness);
  write(r.work, 'observations/obs-2.json', `${JSON.stringify({ id: 'obs-2', epoch_id: EPOCH_ID, status: 'flake', rerun_passed: true, witness_sha256: sha256(witness) })}\n`);
  write(r.work, 'freezes/f2.json', `${JSON.stringify({ observation_id: 'obs-2', epoch_id: EPOCH_ID, expires_on: '2026-09-15', reason: 'network timeout; rerun passed' })}\n`);
  return commitAll(r.work, 'freeze a witnessed flake');
}

test("an owner's push of a valid keyed freeze to main: accepted with a notice, main moves", () => {
  const before = refOid(r.bare, 'refs/heads/main');
  const head = freezeFlake();
  const result = push(r.work, ['origin', 'work:main'], ALICE);
  assert.is(result.status, 0, result.stderr);
  const text = result.remote.join('\n');
  assert.match(text, /^receipt-gate: push accepted with a notice: hold \(1 ref, 1 new commit, pusher alice\); accepted on a protected ref as an owner's push/m);
  assert.match(text, /refs\/heads\/main update \w+\.\.\w+: accepted with a notice: hold, on a protected ref as an owner/);
  assert.match(text, /FREEZE_HELD/);
  const m = machine(result);
  assert.is(m.verdict, 'hold');
  assert.ok(m.findings.some((f) => f.code === 'FREEZE_HELD' && f.severity === 'hold'), JSON.stringify(m));
  assert.match(m.recommended_action, /^none: accepted as an owner's push/);
  assert.is.not(before, head);
  assert.is(refOid(r.bare, 'refs/heads/main'), head);
});

test("a non-owner's push of the same commit to main: rejected (the evidence is the owners' to change), main unchanged", () => {
  const before = refOid(r.bare, 'refs/heads/main');
  freezeFlake();
  const result = push(r.work, ['origin', 'work:main'], BOB);
  assert.is.not(result.status, 0, result.stderr);
  const m = machine(result);
  assert.is(m.verdict, 'closed');
  assert.equal(m.blocked_paths, ['freezes/f2.json', 'observations/obs-2.bin', 'observations/obs-2.json']);
  assert.match(m.recommended_action, /only alice, release-bot may change them/);
  assert.is(refOid(r.bare, 'refs/heads/main'), before);
});

/** Main holds a keyed freeze (an owner's push); `work` has a non-owner's patch on top. */
function heldMain(): string {
  freezeFlake();
  const landed = push(r.work, ['origin', 'work:main'], ALICE);
  assert.is(landed.status, 0, landed.stderr);
  write(r.work, 'src/orders.py', 'def total(orders):\n    return sum(o["amount"] for o in orders if o)\n');
  commitAll(r.work, 'orders: skip empty entries');
  return refOid(r.bare, 'refs/heads/main')!;
}

test("with the freeze on main, a non-owner's patch on top is held: rejected on main naming the owners, accepted with a notice on a work branch", () => {
  const main = heldMain();
  const onMain = push(r.work, ['origin', 'work:main'], BOB);
  assert.is.not(onMain.status, 0, onMain.stderr);
  const text = onMain.remote.join('\n');
  assert.match(text, /^receipt-gate: push REJECTED: hold on a protected ref \(a frozen flake waits for an owner: alice, release-bot\) \(1 ref, 1 new commit, pusher bob\)/m);
  assert.match(text, /refs\/heads\/main update \w+\.\.\w+: REJECTED: hold on a protected ref/);
  const m = machine(onMain);
  assert.is(m.verdict, 'hold');
  assert.match(m.recommended_action, /only alice, release-bot may update protected refs while it holds; push to a work branch instead/);
  assert.is(refOid(r.bare, 'refs/heads/main'), main);
  const onWork = push(r.work, ['origin', 'work:agent/patch'], BOB);
  assert.is(onWork.status, 0, onWork.stderr);
  assert.is(machine(onWork).verdict, 'hold');
  assert.match(onWork.remote.join('\n'), /push accepted with a notice: hold .*a non-owner's update of a protected ref would be refused \(only alice, release-bot may make it\)/);
  // The owner's push of the same patch is the human decision: accepted with a notice.
  const byOwner = push(r.work, ['origin', 'work:main'], ALICE);
  assert.is(byOwner.status, 0, byOwner.stderr);
  assert.is(machine(byOwner).verdict, 'hold');
});

test('nobody (no identity variable set) is no owner: the held push to main is rejected', () => {
  const main = heldMain();
  const result = push(r.work, ['origin', 'work:main'], {});
  assert.is.not(result.status, 0, result.stderr);
  assert.match(result.remote.join('\n'), /push REJECTED: hold on a protected ref .*pusher nobody/);
  assert.is(refOid(r.bare, 'refs/heads/main'), main);
});

test.run();
