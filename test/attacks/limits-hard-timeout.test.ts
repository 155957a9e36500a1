// limits.timeoutMs and the shim's hard timeout are one setting seen from two sides
// (docs/engine.md, "Time limits"; docs/contract.md §6 "Time"). An owner who raises timeoutMs
// raises the hard timeout: a check the hard timeout cuts short is run again by the shim under
// the hard timeout the policy's budget needs (10 × timeoutMs + 2 s). An administrator who raises
// RECEIPT_GATE_HARD_TIMEOUT raises the wall-clock ceiling past 10 × timeoutMs. And the hard
// timeout still fails closed: a node that never answers is killed at the shim's own value, which
// nothing in the pushed tree raises. Real pushes into a bare repository with the installed hook;
// the wall time a busy server would add is made with SIGSTOP (node paused) or an input that
// arrives late, never measured: no duration is asserted.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { arenaPerFile, budget, longBranch, assertClosed, BOB, commitAll, POLICY, push, serverRefs, type Arena, type PushResult, write } from './harness';
import { gitValue } from '../helpers/git';
import { hardTimeoutFor } from '../../src/deadline';

const arena = arenaPerFile(test);


/** An executable script in the arena, used as RECEIPT_GATE_NODE. */
function script(r: Arena, name: string, body: string): string {
  const path = join(r.root, name);
  writeFileSync(path, `#!/bin/sh\n${body}`, { mode: 0o755 });
  return path;
}

/**
 * A node that a busy server pauses: run under the hard timeout `hard`, node is stopped (SIGSTOP)
 * once it has used `cpuMs` of CPU time (read from /proc: past its start and the setup, inside
 * the check of the commits), and goes on (SIGCONT) `contAtMs` after its start, or at once when
 * that is past; under any other hard timeout it runs as it is. The answer's descriptor 3 (the
 * snapshot run's) is passed on when open.
 */
function pausedNode(r: Arena, hard: number, cpuMs: number, contAtMs: number): string {
  const path = join(r.root, `paused-node-${hard}`);
  writeFileSync(
    path,
    `#!${process.execPath}
const { spawn, execFileSync } = require('node:child_process');
const fs = require('node:fs');
const { constants } = require('node:os');
let stdio = [0, 1, 2];
try {
  fs.fstatSync(3);
  stdio = [0, 1, 2, 3];
} catch {}
const start = Date.now();
const child = spawn(${JSON.stringify(process.execPath)}, process.argv.slice(2), { stdio });
let poll = null;
let resume = null;
if (process.env.RECEIPT_GATE_HARD_TIMEOUT === '${hard}') {
  const tick = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' })) || 100;
  poll = setInterval(() => {
    let stat;
    try {
      stat = fs.readFileSync('/proc/' + child.pid + '/stat', 'utf8');
    } catch {
      return;
    }
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (((Number(f[11]) + Number(f[12])) * 1000) / tick < ${cpuMs}) return;
    clearInterval(poll);
    process.kill(child.pid, 'SIGSTOP');
    resume = setTimeout(() => process.kill(child.pid, 'SIGCONT'), Math.max(0, start + ${contAtMs} - Date.now()));
  }, 5);
}
child.on('exit', (code, signal) => {
  clearInterval(poll);
  clearTimeout(resume);
  process.exitCode = code ?? 128 + constants.signals[signal];
});
`,
    { mode: 0o755 },
  );
  return path;
}

function assertAccepted(r: Arena, result: PushResult, ref: string, name: string): void {
  assert.is(result.status, 0, `push should be accepted:\n${result.stderr}`);
  assert.is(gitValue(r.bare, ['rev-parse', ref]), gitValue(r.work, ['rev-parse', name]));
}

test('an owner who raises limits.timeoutMs raises the hard timeout: a check cut short by RECEIPT_GATE_HARD_TIMEOUT is run again under 10 × timeoutMs + 2 s, and judged (from the snapshot, and from the plain bundle)', () => {
  const r = arena();
  // 60 s of CPU wants a hard timeout of 602 s; the server's is 8 s (a ceiling of 6 s). The
  // check of 20,000 commits is paused once node has used 200 ms of CPU, until 6.4 s after its
  // start, as a busy server would: its ceiling runs out, with most of its CPU budget left.
  // Before, that was LIMIT_EXCEEDED naming RECEIPT_GATE_HARD_TIMEOUT; now the shim runs it
  // again under 602 s.
  // From the plain bundle the shim does not spool the push's input: the second run reads the
  // copy node wrote.
  const timeoutMs = 60_000;
  budget(r, timeoutMs);
  assert.is(hardTimeoutFor(timeoutMs), 602);
  const modes: [string, Record<string, string>][] = [['long-snapshot', {}], ['long-plain', { RECEIPT_GATE_NO_SNAPSHOT: '1' }]];
  for (const [name, env] of modes) {
    longBranch(r, name, 20_000);
    const result = push(r.work, ['origin', name], { ...BOB, ...env, RECEIPT_GATE_HARD_TIMEOUT: '8', RECEIPT_GATE_NODE: pausedNode(r, 8, 200, 6400) });
    assertAccepted(r, result, `refs/heads/${name}`, name);
    const notice = result.remote.filter((l) => l.includes('notice: the check needs more than the hook\'s hard timeout'));
    assert.equal(notice, ['receipt-gate: notice: the check needs more than the hook\'s hard timeout of 8 s (RECEIPT_GATE_HARD_TIMEOUT): the policy\'s limits.timeoutMs gives it 602 s (10 x limits.timeoutMs + 2 s), and the push is checked again under that'], result.stderr);
    assert.not.match(result.stderr, /LIMIT_EXCEEDED|did not answer within|snapshot receipt-gate\.blob could not be used/);
    assert.match(result.remote.join('\n'), /push accepted: eligible \(1 ref, 20000 new commits, pusher bob\)/, result.stderr);
  }
  // The request file is gone with the hook.
  assert.equal(readdirSync(r.bare).filter((f) => f.startsWith('receipt-gate-rerun')), []);
});

test('the server administrator caps what a policy may ask for: over RECEIPT_GATE_MAX_HARD_TIMEOUT the push is LIMIT_EXCEEDED naming it, and node is not run again', () => {
  const r = arena();
  const timeoutMs = 60_000;
  budget(r, timeoutMs);
  longBranch(r, 'capped', 20_000);
  const result = push(r.work, ['origin', 'capped'], { ...BOB, RECEIPT_GATE_HARD_TIMEOUT: '8', RECEIPT_GATE_MAX_HARD_TIMEOUT: '300', RECEIPT_GATE_NODE: pausedNode(r, 8, 200, 6400) });
  const m = assertClosed(r, result, 'LIMIT_EXCEEDED');
  assert.equal(m.findings.map((f) => f.code), ['LIMIT_EXCEEDED']);
  assert.match(result.stderr, /needs a hard timeout of 602 s .*over this server's cap of 300 s \(RECEIPT_GATE_MAX_HARD_TIMEOUT\)/);
  assert.not.match(result.stderr, /checked again under that/);
  assert.equal(readdirSync(r.bare).filter((f) => f.startsWith('receipt-gate-rerun')), []);
});

test('the hard timeout asked for is the base policy\'s: a push that raises limits.timeoutMs in its own tree gets the base budget\'s (42 s), never its own', () => {
  const r = arena();
  budget(r, 4000);
  // 20,000 commits, then one that raises limits.timeoutMs to its largest value (a non-owner's
  // policy edit, closed in any case); paused past the 6 s ceiling as above.
  longBranch(r, 'raise', 20_000);
  gitValue(r.work, ['checkout', '-q', 'raise']);
  write(r.work, '.receipt-gate.json', `${JSON.stringify({ ...POLICY, limits: { timeoutMs: 3_600_000, maxEvidenceBytes: 1048576 } }, null, 2)}\n`);
  commitAll(r.work, 'a budget of an hour');
  const result = push(r.work, ['origin', 'raise'], { ...BOB, RECEIPT_GATE_HARD_TIMEOUT: '8', RECEIPT_GATE_NODE: pausedNode(r, 8, 200, 6400) });
  const notice = result.remote.filter((l) => l.includes('notice: the check needs more than the hook\'s hard timeout'));
  assert.equal(notice, [`receipt-gate: notice: the check needs more than the hook's hard timeout of 8 s (RECEIPT_GATE_HARD_TIMEOUT): the policy's limits.timeoutMs gives it ${hardTimeoutFor(4000)} s (10 x limits.timeoutMs + 2 s), and the push is checked again under that`], result.stderr);
  assert.is(hardTimeoutFor(4000), 42);
  assertClosed(r, result, 'PATH_PROTECTED', '.receipt-gate.json');
});

test('the shim\'s side: the second run gets the hard timeout asked for and the push\'s input unchanged, cannot ask again, and an unreadable request is refused', () => {
  const r = arena();
  write(r.work, 'src/orders.py', 'def total(orders):\n    return 3\n');
  commitAll(r.work, 'an honest change');
  const before = serverRefs(r.bare);
  const log = join(r.root, 'asking-node.log');
  // A node that asks for `answer` (and copies its input after it) whenever it may, and logs the
  // hard timeout and the input of each run.
  const asking = (answer: string) =>
    script(
      r,
      `asking-node-${answer.replace(/\W/g, '_')}`,
      `input=$(cat)
printf '%s %s\\n' "$RECEIPT_GATE_HARD_TIMEOUT" "$input" >>'${log}'
if [ -n "$RECEIPT_GATE_RERUN_FILE" ]; then printf '${answer}\\n%s\\n' "$input" >"$RECEIPT_GATE_RERUN_FILE"; fi
exit 83
`,
    );
  const modes: Record<string, string>[] = [{}, { RECEIPT_GATE_NO_SNAPSHOT: '1' }];
  for (const snapshot of modes) {
    writeFileSync(log, '');
    const again = push(r.work, ['origin', 'HEAD:refs/heads/again'], { ...BOB, ...snapshot, RECEIPT_GATE_HARD_TIMEOUT: '30', RECEIPT_GATE_NODE: asking('50') });
    assert.is.not(again.status, 0, again.stderr);
    assert.match(again.stderr, /the gate could not run \(exit status 83/);
    const runs = readFileSync(log, 'utf8').trimEnd().split('\n');
    assert.is(runs.length, 2, runs.join('\n'));
    const line = /^30 (\S+ \S+ refs\/heads\/again)$/.exec(runs[0]!)?.[1];
    assert.ok(line, runs[0]);
    assert.is(runs[1], `50 ${line}`);
    assert.is(serverRefs(r.bare), before);
  }
  for (const bad of ['ten', '36003', '0042', '']) {
    const result = push(r.work, ['origin', 'HEAD:refs/heads/again'], { ...BOB, RECEIPT_GATE_HARD_TIMEOUT: '30', RECEIPT_GATE_NODE: asking(bad) });
    assert.is.not(result.status, 0, result.stderr);
    assert.match(result.stderr, /the gate asked to be run again under a hard timeout the hook cannot read \(not whole seconds from 1 to 36002\); the push fails closed/, bad);
    assert.not.match(result.stderr, /receipt-gate-rerun/, bad);
    assert.match(result.stderr, /"message":"hook rerun request unreadable"/, bad);
    assert.is(serverRefs(r.bare), before);
  }
  assert.equal(readdirSync(r.bare).filter((f) => f.startsWith('receipt-gate-rerun')), []);
});

test('an administrator who raises RECEIPT_GATE_HARD_TIMEOUT raises the wall-clock ceiling past 10 × limits.timeoutMs', () => {
  const r = arena();
  // A 300 ms budget: a wall-clock ceiling of 3 s on its own. The push's input reaches node 4.5 s
  // after node's start (a server too busy to run it): under a 6 s hard timeout (a 4 s ceiling)
  // that is LIMIT_EXCEEDED on the wall clock; under 14 s (a 12 s ceiling) the push is judged.
  budget(r, 300);
  const late = script(r, 'late-input-node', `{ sleep 4.5; cat; } | '${process.execPath}' "$@"\n`);
  write(r.work, 'src/orders.py', 'def total(orders):\n    return 1\n');
  commitAll(r.work, 'an honest change');
  gitValue(r.work, ['branch', '-f', 'late']);

  const short = push(r.work, ['origin', 'late'], { ...BOB, RECEIPT_GATE_HARD_TIMEOUT: '6', RECEIPT_GATE_NODE: late });
  const m = assertClosed(r, short, 'LIMIT_EXCEEDED');
  assert.not.ok(m.findings.some((f) => f.code === 'INTERNAL_ERROR'), short.stderr);
  assert.match(short.remote.join('\n'), /wall-clock ceiling ran out first, after 4000 ms of wall-clock time, the server's hard timeout \(RECEIPT_GATE_HARD_TIMEOUT=6 s\)/, short.stderr);

  const raised = push(r.work, ['origin', 'late'], { ...BOB, RECEIPT_GATE_HARD_TIMEOUT: '14', RECEIPT_GATE_NODE: late });
  assertAccepted(r, raised, 'refs/heads/late', 'late');
  assert.not.match(raised.stderr, /notice: the check needs more/);
});

test('the hard timeout still fails closed: a node that never answers is killed at RECEIPT_GATE_HARD_TIMEOUT, whatever timeoutMs the policy sets', () => {
  const r = arena();
  budget(r, 60_000);
  const before = serverRefs(r.bare);
  const hang = script(r, 'hanging-node', 'exec sleep 30\n');
  write(r.work, 'src/orders.py', 'def total(orders):\n    return 2\n');
  commitAll(r.work, 'an honest change');
  const result = push(r.work, ['origin', 'HEAD:refs/heads/hang'], { ...BOB, RECEIPT_GATE_HARD_TIMEOUT: '2', RECEIPT_GATE_NODE: hang });
  assert.is.not(result.status, 0, result.stderr);
  assert.match(result.stderr, /the gate did not answer within 2 s \(the hook's hard timeout, RECEIPT_GATE_HARD_TIMEOUT\)/);
  assert.not.match(result.stderr, /notice: the check needs more/);
  assert.is(serverRefs(r.bare), before);
});

test.run();
