// The time budget on a busy server (docs/contract.md §6 "Time", docs/engine.md "Time limits"):
// limits.timeoutMs is counted on the gate's own CPU time, so load on the server does not refuse
// an honest push, and the wall-clock ceiling never outlives the shim's hard timeout: a budget
// the hard timeout cannot hold is LIMIT_EXCEEDED naming RECEIPT_GATE_HARD_TIMEOUT and the value
// to set, never INTERNAL_ERROR "hook timed out". Real pushes into a bare repository with the
// installed hook; the load is busy-loop processes for the push's duration. No duration is
// asserted.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, type ChildProcess } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accept, ALICE, arenaPerFile, budget, longBranch, assertClosed, BOB, commitAll, EPOCH_ID, GENERATOR, machine, POLICY, push, serverRefs, sha256, type Arena, type PushResult, write } from './harness';
import { gitValue } from '../helpers/git';
import { hardTimeoutFor, WALL_FACTOR } from '../../src/deadline';

const arena = arenaPerFile(test);

/** `count` busy-loop processes, one node each, for the duration of `work`. */
function underLoad<T>(count: number, work: () => T): T {
  const busy: ChildProcess[] = [];
  try {
    for (let i = 0; i < count; i++) busy.push(spawn(process.execPath, ['-e', 'for(;;){}'], { stdio: 'ignore' }));
    return work();
  } finally {
    for (const child of busy) child.kill('SIGKILL');
  }
}


function assertAccepted(r: Arena, result: PushResult, ref: string, name: string): void {
  assert.is(result.status, 0, `push should be accepted:\n${result.stderr}`);
  assert.is(gitValue(r.bare, ['rev-parse', ref]), gitValue(r.work, ['rev-parse', name]));
}

test('a busy server: a push within its CPU budget is accepted, however long the load makes it in wall time', () => {
  const r = arena();
  // 2,000 commits cost the gate about 0.3 s of CPU, node's start included (0.5 s before the
  // per-commit work became synchronous); 1500 ms is an honest budget. Four busy loops on top of the push (and whatever else the machine runs)
  // stretch its wall time past 1500 ms: counted on the wall clock, the push was refused.
  budget(r, 1500);
  longBranch(r, 'busy', 2000);
  const result = underLoad(4, () => push(r.work, ['origin', 'busy'], BOB));
  assertAccepted(r, result, 'refs/heads/busy', 'busy');
});

test('a budget the hard timeout cannot hold, where the shim cannot run the check again: LIMIT_EXCEEDED naming RECEIPT_GATE_HARD_TIMEOUT and its value, never "hook timed out"; that value accepts the push', () => {
  const r = arena();
  // 8000 ms of CPU wants a wall-clock ceiling of 10 × 8 s; a 3 s hard timeout holds 1.5 s of it
  // (2 s, or half, is kept to answer). 24,000 commits take the gate about 1.6 s of CPU, and
  // longer than that on the wall clock under the load. The shim
  // would run the check again under 82 s (test/attacks/limits-hard-timeout.test.ts); here node
  // is not given the file to ask for it in (as when no file can be made in the repository).
  const timeoutMs = 8000;
  budget(r, timeoutMs);
  longBranch(r, 'long', 24000);
  const cannotAsk = join(r.root, 'node-without-rerun');
  writeFileSync(cannotAsk, `#!/bin/sh\nRECEIPT_GATE_RERUN_FILE= exec '${process.execPath}' "$@"\n`, { mode: 0o755 });
  const short = underLoad(2, () => push(r.work, ['origin', 'long'], { ...BOB, RECEIPT_GATE_HARD_TIMEOUT: '3', RECEIPT_GATE_NODE: cannotAsk }));
  const m = assertClosed(r, short, 'LIMIT_EXCEEDED');
  assert.not.ok(m.findings.some((f) => f.code === 'INTERNAL_ERROR'), short.stderr);
  assert.not.match(short.stderr, /hook timed out|did not answer within/);
  const text = short.remote.join('\n');
  // Which limit ran out, and the setting to raise, with the value this budget needs.
  assert.match(text, /wall-clock ceiling ran out first/, short.stderr);
  assert.match(text, /RECEIPT_GATE_HARD_TIMEOUT=3 s/, short.stderr);
  const need = Math.ceil((timeoutMs * WALL_FACTOR + 2000) / 1000);
  assert.is(hardTimeoutFor(timeoutMs), need);
  assert.ok(text.includes(`sets RECEIPT_GATE_HARD_TIMEOUT to at least ${need} s`), short.stderr);

  // The administrator does as it says: the same push is judged, and accepted.
  const raised = push(r.work, ['origin', 'long'], { ...BOB, RECEIPT_GATE_HARD_TIMEOUT: String(need) });
  assertAccepted(r, raised, 'refs/heads/long', 'long');
});

test('the CPU budget still refuses a push that needs more than it: LIMIT_EXCEEDED naming limits.timeoutMs and CPU time', () => {
  const r = arena();
  // 10,000 commits cost about 0.9 s of CPU, more than twice 400 ms; 10 × 400 ms of wall time is
  // more than the push needs to use up its CPU on this machine's own load.
  budget(r, 400);
  longBranch(r, 'heavy', 10000);
  const result = push(r.work, ['origin', 'heavy'], BOB);
  const m = assertClosed(r, result, 'LIMIT_EXCEEDED');
  assert.not.ok(m.findings.some((f) => f.code === 'INTERNAL_ERROR'), result.stderr);
  assert.match(result.remote.join('\n'), /did not finish within limits\.timeoutMs \(400 ms\), counted on the check's own CPU time/, result.stderr);
  assert.is(machine(result).verdict, 'closed');
});

test('a pinned generator over 64 MiB (a hand-written pin that came past the hook) closes every push until an owner re-pins one under 64 MiB', () => {
  const r = arena();
  budget(r, POLICY.limits.timeoutMs);
  // The large generator and a pin of its digest, written by hand and put on the server without
  // the hook (a fetch into the bare repository runs no pre-receive).
  const huge = Buffer.concat([Buffer.from(GENERATOR), Buffer.alloc(65 * 1024 * 1024, 0x23)]);
  write(r.work, 'fixtures/generate_orders.py', huge);
  write(r.work, 'fixtures/EPOCH', `${JSON.stringify({ epoch_id: EPOCH_ID, generator: 'fixtures/generate_orders.py', generator_sha256: sha256(huge), inputs: ['fixtures/orders/base.json'] })}\n`);
  commitAll(r.work, 'a 65 MiB generator, pinned by hand');
  gitValue(r.bare, ['fetch', '-q', r.work, '+attack:refs/heads/main']);
  r.refs = serverRefs(r.bare);
  gitValue(r.work, ['fetch', '-q', 'origin']);

  // Anyone's push that keeps it: LIMIT_EXCEEDED naming the generator, closed, never a pass.
  write(r.work, 'src/orders.py', 'def total(orders):\n    return 0\n');
  commitAll(r.work, 'an unrelated change');
  for (const who of [BOB, ALICE]) {
    const result = push(r.work, ['origin', 'HEAD:refs/heads/topic'], who);
    assertClosed(r, result, 'LIMIT_EXCEEDED', 'fixtures/generate_orders.py');
  }

  // The owner's way out: a generator under 64 MiB, pinned under a new epoch id.
  gitValue(r.work, ['reset', '-q', '--hard', 'origin/main']);
  const id = `${EPOCH_ID}-small`;
  write(r.work, 'fixtures/generate_orders.py', GENERATOR);
  write(r.work, 'fixtures/EPOCH', `${JSON.stringify({ epoch_id: id, generator: 'fixtures/generate_orders.py', generator_sha256: sha256(GENERATOR), inputs: ['fixtures/orders/base.json'] })}\n`);
  const witness = 'run 1: pass\n';
  write(r.work, 'observations/obs-1.json', `${JSON.stringify({ id: 'obs-1', epoch_id: id, status: 'pass', rerun_passed: true, witness_sha256: sha256(witness) })}\n`);
  commitAll(r.work, 'a generator under 64 MiB, a new epoch');
  accept(r, push(r.work, ['origin', 'HEAD:main'], ALICE));
});

test.run();
