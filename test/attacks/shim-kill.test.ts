// The hook shim when node dies before it answers: a kill, an abort, a crash, a node that exits
// 0 without the gate's answer, a node that hangs. Each fails closed through a real `git push`
// into the installed hook, with the sentence that says what happened (a kill is not a timeout)
// and the machine line last. Node is really killed: RECEIPT_GATE_NODE is a wrapper that runs
// the real node with a preloaded module doing it to itself.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, commitAll, guardedRemote, machine, makeTemplate, push, refOid, write, type PushResult, type Remote } from '../server/helpers';
import { gitValue } from '../helpers/git';

let template: Remote;
let r: Remote;
const BOB = { REMOTE_USER: 'bob' };

test.before(() => {
  template = makeTemplate();
  r = guardedRemote(template, 'shim-kill');
  assert.ok(existsSync(join(r.bare, 'hooks', 'receipt-gate.blob')), 'the install left a startup snapshot');
  gitValue(r.work, ['checkout', '-q', '-b', 'feature/honest']);
  write(r.work, 'src/orders.py', 'def total(orders):\n    return 0\n');
  commitAll(r.work, 'honest');
});
// A push a test let through by mistake must not turn the next tests into "up to date".
test.after.each(() => {
  gitValue(r.bare, ['update-ref', '-d', 'refs/heads/feature/honest']);
});
test.after(() => {
  cleanup(r?.root);
  cleanup(template?.root);
});

/** A RECEIPT_GATE_NODE: the real node, with `preload` evaluated before the bundle (a plain
 * bundle run: node does not evaluate --require modules when it starts from a snapshot). */
function nodeWith(name: string, preload: string): string {
  const script = join(r.root, `node-${name}`);
  const module = join(r.root, `${name}.cjs`);
  writeFileSync(module, `${preload}\n`);
  writeFileSync(script, `#!/bin/sh\nexec '${process.execPath}' --require '${module}' "$@"\n`, { mode: 0o755 });
  return script;
}

/** A preload that runs `action` when the gate reads its input (the bundle calls fs.readSync(0,
 * ...) through the module object). */
function atRead(action: string): string {
  return (
    "const fs = require('node:fs'); const readSync = fs.readSync;\n" +
    `fs.readSync = function (fd, ...rest) { if (fd === 0) ${action}; return readSync.call(this, fd, ...rest); };`
  );
}

/**
 * A RECEIPT_GATE_NODE that starts the real node, from the snapshot or the bundle as the shim
 * asks, with its stdin on a FIFO that gets half a pre-receive line and is never closed: the
 * gate has started and waits for the rest of its input. Then `signal` is sent to that node
 * (none: it waits until the hook's hard timeout stops it). The wrapper's status is node's, as
 * the shell reports a killed child (128 + N).
 */
function nodeKilledBy(name: string, signal: string | null): string {
  const script = join(r.root, `node-${name}`);
  writeFileSync(
    script,
    `#!/bin/sh
dir=$(mktemp -d '${r.root}/fifo.XXXXXX') || exit 70
mkfifo "$dir/in" || exit 70
'${process.execPath}' "$@" <"$dir/in" &
pid=$!
exec 5>"$dir/in"
printf '0000000000' >&5
sleep 0.3
${signal === null ? '' : `kill -${signal} $pid`}
wait $pid
`,
    { mode: 0o755 },
  );
  return script;
}

function pushWith(env: Record<string, string>): PushResult {
  return push(r.work, ['origin', 'feature/honest'], { ...BOB, ...env });
}

function assertFailedClosed(result: PushResult, sentence: RegExp, message: string): void {
  assert.is.not(result.status, 0, result.stderr);
  assert.is(refOid(r.bare, 'refs/heads/feature/honest'), null, 'nothing landed');
  const text = result.remote.join('\n');
  assert.match(text, sentence, result.stderr);
  const m = machine(result);
  assert.is(m.verdict, 'closed');
  assert.equal(
    m.findings.map((f) => [f.code, (f as { message?: string }).message]),
    [['INTERNAL_ERROR', message]],
  );
  // The machine line is the last line the pusher sees from the hook.
  assert.match(result.remote[result.remote.length - 1]!, /^receipt-gate: \{"verdict":"closed"/);
}

const KILLED = /the gate was killed by signal 9 \(SIGKILL: kill -9, or the kernel out-of-memory killer\) before it answered; this was not the hook's timeout/;

const PLAIN = { RECEIPT_GATE_NO_SNAPSHOT: '1' };

test('node killed by SIGKILL while the gate works: "killed by signal 9", not a timeout (snapshot and plain bundle)', () => {
  const node = nodeKilledBy('sigkill', 'KILL');
  for (const env of [{}, PLAIN]) {
    const result = pushWith({ RECEIPT_GATE_NODE: node, ...env });
    assertFailedClosed(result, KILLED, 'hook killed by signal 9');
    assert.not.match(result.stderr, /did not answer within|hard timeout|fewer commits/);
    assert.not.match(result.stderr, /startup snapshot receipt-gate\.blob could not be used/, 'a killed snapshot run is not retried');
  }
});

test('node killed from inside (process.kill(process.pid, "SIGKILL")) in a plain bundle run: the same sentence', () => {
  // Killed as the gate reads its input.
  const node = nodeWith('self-kill', atRead("process.kill(process.pid, 'SIGKILL')"));
  assertFailedClosed(pushWith({ RECEIPT_GATE_NODE: node, ...PLAIN }), KILLED, 'hook killed by signal 9');
});

test('on GitLab every line of the sentence and the machine line carry GL-HOOK-ERR:', () => {
  const result = pushWith({ RECEIPT_GATE_NODE: nodeKilledBy('sigkill-gl', 'KILL'), GL_PROTOCOL: 'ssh' });
  assert.is.not(result.status, 0);
  const ours = result.remote.filter((l) => l.includes('receipt-gate: '));
  assert.is(ours.length, 2, result.stderr);
  for (const line of ours) assert.match(line, /^GL-HOOK-ERR: receipt-gate: /);
  assert.match(ours[1]!, /^GL-HOOK-ERR: receipt-gate: \{"verdict":"closed".*"hook killed by signal 9"/);
});

test('node aborts (a fatal error, as when the heap runs out): "killed by signal 6"', () => {
  const sentence = /killed by signal 6 \(SIGABRT: a fatal error in Node\.js/;
  assertFailedClosed(pushWith({ RECEIPT_GATE_NODE: nodeKilledBy('sigabrt', 'ABRT'), ...PLAIN }), sentence, 'hook killed by signal 6');
  assertFailedClosed(pushWith({ RECEIPT_GATE_NODE: nodeWith('abort', atRead('process.abort()')), ...PLAIN }), sentence, 'hook killed by signal 6');
  // From the snapshot: an abort is what a damaged snapshot gives, so the plain bundle is asked;
  // killed again, the answer is the kill.
  const fromSnapshot = pushWith({ RECEIPT_GATE_NODE: nodeKilledBy('sigabrt-snap', 'ABRT') });
  assertFailedClosed(fromSnapshot, sentence, 'hook killed by signal 6');
  assert.match(fromSnapshot.remote[0]!, /startup snapshot receipt-gate\.blob could not be used \(exit status 134;/);
});

test('node killed by SIGTERM (not the hook\'s timeout): "killed by signal 15"', () => {
  assertFailedClosed(pushWith({ RECEIPT_GATE_NODE: nodeKilledBy('sigterm', 'TERM'), ...PLAIN }), /killed by signal 15 \(SIGTERM\) before it answered; this was not the hook's timeout/, 'hook killed by signal 15');
});

test('an exception before the gate answers: "could not run (exit status 1", with node\'s words above', () => {
  const node = nodeWith('throw', "throw new Error('preloaded failure');");
  const result = pushWith({ RECEIPT_GATE_NODE: node, ...PLAIN });
  assertFailedClosed(result, /the gate could not run \(exit status 1, output above\)/, 'hook crashed with status 1');
  assert.match(result.stderr, /preloaded failure/);
});

test('node exits 0 without the gate\'s answer: the push is rejected, never accepted', () => {
  const node = nodeWith('exit0', 'process.exit(0);');
  assertFailedClosed(pushWith({ RECEIPT_GATE_NODE: node, ...PLAIN }), /the gate could not run \(exit status 0, output above\)/, 'hook crashed with status 0');
});

test('node waits past RECEIPT_GATE_HARD_TIMEOUT, or spins: "did not answer within 1 s", the hard timeout', () => {
  const waiting = nodeKilledBy('waits', null);
  const spinning = nodeWith('spin', 'for (;;) {}');
  for (const env of [{ RECEIPT_GATE_NODE: waiting }, { RECEIPT_GATE_NODE: waiting, ...PLAIN }, { RECEIPT_GATE_NODE: spinning, ...PLAIN }]) {
    const result = pushWith({ RECEIPT_GATE_HARD_TIMEOUT: '1', ...env });
    assertFailedClosed(result, /the gate did not answer within 1 s \(the hook's hard timeout, RECEIPT_GATE_HARD_TIMEOUT\)/, 'hook timed out after 1 s');
    assert.not.match(result.stderr, /killed by signal/);
  }
});

test('the same push with the real node is accepted (the wrappers above are what failed)', () => {
  const result = pushWith({});
  assert.is(result.status, 0, result.stderr);
  assert.is(machine(result).verdict, 'eligible');
  assert.ok(refOid(r.bare, 'refs/heads/feature/honest'));
});

test.run();
