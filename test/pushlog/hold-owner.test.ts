// An owner's push that leaves a valid keyed freeze on main is accepted with a notice
// (docs/contract.md §2 On the server); the push log records it as the gate's decision, so
// verify-log accepts that move of main. A non-owner's held patch on a protected ref is refused
// and never reaches the log as a move. Real pushes into a bare repository with the installed
// hooks (pre-receive and reference-transaction), then `receipt-gate verify-log`.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, commitAll, EPOCH_ID, machine, push, refOid, sha256, write } from '../server/helpers';
import { codes, freshRepo, logEntries, startServers, verifyLog, type LogServer } from './helpers';
import { gitValue } from '../helpers/git';

let server: LogServer;

test.before(async () => {
  server = await startServers('pushlog-hold');
});

test.after(() => {
  server?.stop();
  cleanup(server?.root);
});

function freezeFlake(work: string): string {
  gitValue(work, ['checkout', '-q', '-B', 'work', 'main']);
  const witness = 'run 1: fail (timeout)\nrun 2: pass\n';
  write(work, 'observations/obs-2.bin', witness);
  write(work, 'observations/obs-2.json', `${JSON.stringify({ id: 'obs-2', epoch_id: EPOCH_ID, status: 'flake', rerun_passed: true, witness_sha256: sha256(witness) })}\n`);
  write(work, 'freezes/f2.json', `${JSON.stringify({ observation_id: 'obs-2', epoch_id: EPOCH_ID, expires_on: '2026-09-15', reason: 'network timeout; rerun passed' })}\n`);
  return commitAll(work, 'freeze a witnessed flake');
}

test("an owner's held push to main is logged as the gate's decision: verify-log stays eligible", () => {
  const r = freshRepo(server, 'hold-owner');
  const head = freezeFlake(r.work);
  const p = push(r.work, ['origin', 'work:main'], { REMOTE_USER: 'alice' });
  assert.is(p.status, 0, p.stderr);
  assert.is(machine(p).verdict, 'hold');
  assert.is(refOid(r.bare, 'refs/heads/main'), head);
  const last = logEntries(r.bare).at(-1)!;
  const update = last.updates.find((u) => u.ref === 'refs/heads/main')!;
  assert.is(update.verdict, 'hold');
  assert.is(update.protected, true);
  assert.is(update.held_by_owner, true);
  const v = verifyLog(r.bare, server.pub);
  assert.equal(codes(v), [], v.text);
  assert.is(v.verdict, 'eligible', v.text);
  assert.is(v.status, 0, v.text);
});

test("a non-owner's held patch on main is refused and leaves the log verifying", () => {
  const r = freshRepo(server, 'hold-nonowner');
  freezeFlake(r.work);
  assert.is(push(r.work, ['origin', 'work:main'], { REMOTE_USER: 'alice' }).status, 0);
  const before = refOid(r.bare, 'refs/heads/main');
  write(r.work, 'src/orders.py', 'def total(orders):\n    return sum(o["amount"] for o in orders)  # held\n');
  commitAll(r.work, 'a patch on a held main');
  const p = push(r.work, ['origin', 'work:main'], { REMOTE_USER: 'bob' });
  assert.is.not(p.status, 0, p.stderr);
  assert.is(machine(p).verdict, 'hold');
  assert.is(refOid(r.bare, 'refs/heads/main'), before);
  const v = verifyLog(r.bare, server.pub);
  assert.is(v.verdict, 'eligible', v.text);
});

test.run();
