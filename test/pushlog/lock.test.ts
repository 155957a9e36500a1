// The push log's lock (docs/push-log.md, "The lock"), driven from both sides at once: the
// reference-transaction shell hook as git runs it (server-hooks/reference-transaction
// `prepared`, then `aborted`, with git's process id being the hook's parent) and the Node
// writer's side (src/git/ref-lock.ts, which src/pushlog/append.ts appends under). One holds,
// the other waits for it; a lock whose holder is gone, or older than two minutes, is broken by
// either as documented; a lock taken meanwhile is never removed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RefLock, RefLockBusyError } from '../../src/git/ref-lock';
import { ROOT } from '../server/helpers';
import { gitValue, tempDir } from '../helpers/git';

const HOOK = join(ROOT, 'server-hooks', 'reference-transaction');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const LINE = `${'1'.repeat(40)} ${'2'.repeat(40)} refs/heads/main\n`;
const OID = 'a'.repeat(40);

function repo(): { gitdir: string; ref: string; lock: string } {
  const gitdir = join(tempDir('pushlog-lock'), 'repo.git');
  gitValue(tempDir('pushlog-lock-cwd'), ['init', '-q', '--bare', gitdir]);
  mkdirSync(join(gitdir, 'receipt-gate'));
  mkdirSync(join(gitdir, 'refs', 'receipt-gate'), { recursive: true });
  const ref = join(gitdir, 'refs', 'receipt-gate', 'log');
  return { gitdir, ref, lock: `${ref}.lock` };
}

/** A stand-in for git: a shell that runs the hook's `prepared` (so the hook's $PPID is this
 * shell, as it is git's process for a real transaction), notes when it returned, holds for
 * `holdS` seconds, then runs `aborted` (the lock is released). */
function transaction(gitdir: string, holdS: number, out: string): ChildProcess {
  const script = `t0=$(date +%s%N); printf '%s' "$LINE" | sh "$HOOK" prepared; rc=$?; t1=$(date +%s%N); echo "$rc $$ $(( (t1 - t0) / 1000000 ))" > "$OUT"; sleep ${holdS}; printf '%s' "$LINE" | sh "$HOOK" aborted`;
  return spawn('sh', ['-c', script], {
    cwd: gitdir,
    env: { PATH: process.env.PATH, GIT_DIR: '.', LINE, HOOK, OUT: out, RECEIPT_GATE_NODE: '/nonexistent-node' },
    stdio: 'ignore',
  });
}

/** The transaction's `prepared` outcome once it returned: exit status, the stand-in's process
 * id (the lock's holder), how long it took in ms. */
function preparedResult(out: string, timeoutMs = 30_000): { rc: number; pid: number; ms: number } {
  const until = Date.now() + timeoutMs;
  while (!existsSync(out) || readFileSync(out, 'utf8').trim() === '') {
    if (Date.now() > until) throw new Error('the hook did not return from prepared');
    Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 20);
  }
  const [rc, pid, ms] = readFileSync(out, 'utf8').trim().split(' ').map(Number);
  return { rc: rc!, pid: pid!, ms: ms! };
}

function exited(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => (child.exitCode !== null ? resolve() : child.on('exit', () => resolve())));
}

function holder(lock: string): string | null {
  return existsSync(lock) ? readFileSync(lock, 'utf8').split('\n', 1)[0]! : null;
}

/** The id of a process that has exited. */
function deadPid(): number {
  return spawnSync('true').pid!;
}

test('the shell hook holds the lock (a transaction between prepared and committed): the Node writer waits, then takes it and moves the ref', async () => {
  const r = repo();
  const out = join(r.gitdir, 'prepared.out');
  const txn = transaction(r.gitdir, 1.5, out);
  const held = preparedResult(out);
  assert.is(held.rc, 0);
  assert.is(holder(r.lock), String(held.pid), 'the lock names the transaction');
  const t0 = Date.now();
  const lock = RefLock.take(r.ref, { waitMs: 20_000, staleMs: 120_000 });
  const waited = Date.now() - t0;
  assert.ok(waited >= 500, `the writer waited for the transaction (${waited} ms)`);
  assert.is(holder(r.lock), String(process.pid));
  lock.commit(OID);
  assert.is(readFileSync(r.ref, 'utf8'), `${OID}\n`);
  assert.not.ok(existsSync(r.lock));
  await exited(txn);
  // The transaction's `aborted` did not remove a lock that was not its own (there was none).
  assert.is(readFileSync(r.ref, 'utf8'), `${OID}\n`);
});

test("the shell hook holds the lock: the Node writer of that transaction (heldBy: git's process id) uses it as its own", async () => {
  const r = repo();
  const out = join(r.gitdir, 'prepared.out');
  const txn = transaction(r.gitdir, 1, out);
  const held = preparedResult(out);
  const t0 = Date.now();
  const lock = RefLock.take(r.ref, { heldBy: held.pid, waitMs: 20_000, staleMs: 120_000 });
  assert.ok(Date.now() - t0 < 500);
  lock.commit(OID);
  assert.is(readFileSync(r.ref, 'utf8'), `${OID}\n`);
  await exited(txn);
});

test('the Node writer holds the lock: the shell hook waits in prepared, then takes it for its transaction', async () => {
  const r = repo();
  const script = join(r.gitdir, 'writer.ts');
  writeFileSync(
    script,
    `import { RefLock } from ${JSON.stringify(join(ROOT, 'src', 'git', 'ref-lock.ts'))};\n` +
      `const lock = RefLock.take(${JSON.stringify(r.ref)}, { waitMs: 20000, staleMs: 120000 });\n` +
      `process.stdout.write(\`held \${process.pid}\\n\`);\n` +
      `Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1500);\n` +
      `lock.commit(${JSON.stringify(OID)});\n`,
  );
  const writer = spawn(TSX, [script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const writerPid = await new Promise<string>((resolve) => writer.stdout!.on('data', (d) => /held (\d+)/.test(String(d)) && resolve(/held (\d+)/.exec(String(d))![1]!)));
  assert.is(holder(r.lock), writerPid, 'the lock names the Node writer');
  const out = join(r.gitdir, 'prepared.out');
  const txn = transaction(r.gitdir, 0, out);
  const got = preparedResult(out);
  assert.is(got.rc, 0);
  assert.ok(got.ms >= 500, `prepared waited for the writer (${got.ms} ms)`);
  // The writer's append landed, and the transaction held the lock after it (then released it).
  assert.is(readFileSync(r.ref, 'utf8'), `${OID}\n`);
  await exited(txn);
  await exited(writer);
  assert.not.ok(existsSync(r.lock));
});

test('a lock whose holder is gone is broken at once, by the shell hook and by the Node writer', async () => {
  const r = repo();
  writeFileSync(r.lock, `${deadPid()}\n`);
  const out = join(r.gitdir, 'prepared.out');
  const txn = transaction(r.gitdir, 0, out);
  const got = preparedResult(out);
  assert.is(got.rc, 0);
  assert.ok(got.ms < 5000, `${got.ms} ms`);
  await exited(txn);
  assert.not.ok(existsSync(r.lock));

  writeFileSync(r.lock, `${deadPid()}\n`);
  const t0 = Date.now();
  const lock = RefLock.take(r.ref, { waitMs: 20_000, staleMs: 120_000 });
  assert.ok(Date.now() - t0 < 2000);
  assert.is(holder(r.lock), String(process.pid));
  lock.release();
  assert.not.ok(existsSync(r.lock));
});

test('a lock older than two minutes is broken even when its holder lives (a process id used again); a fresh one of a live holder is waited for', async () => {
  const r = repo();
  const live = spawn('sleep', ['60'], { stdio: 'ignore' });
  try {
    const old = (Date.now() - 180_000) / 1000;
    writeFileSync(r.lock, `${live.pid}\n`);
    utimesSync(r.lock, old, old);
    const out = join(r.gitdir, 'prepared.out');
    const txn = transaction(r.gitdir, 0, out);
    const got = preparedResult(out);
    assert.is(got.rc, 0);
    await exited(txn);
    assert.not.ok(existsSync(r.lock));

    writeFileSync(r.lock, `${live.pid}\n`);
    utimesSync(r.lock, old, old);
    const lock = RefLock.take(r.ref, { waitMs: 20_000, staleMs: 120_000 });
    assert.is(holder(r.lock), String(process.pid));
    lock.release();

    // Fresh, live: the Node writer waits and gives up after its wait (the shell's 20 s is the
    // same rule, not waited for here).
    writeFileSync(r.lock, `${live.pid}\n`);
    assert.throws(() => RefLock.take(r.ref, { waitMs: 300, staleMs: 120_000 }), (e: unknown) => e instanceof RefLockBusyError);
    assert.is(holder(r.lock), String(live.pid), 'a live lock is left alone');
  } finally {
    live.kill();
    rmSync(r.lock, { force: true });
  }
});

test('one breaker at a time: a break file left by a breaker that died is removed, and the stale lock is then broken', async () => {
  const r = repo();
  writeFileSync(r.lock, `${deadPid()}\n`);
  writeFileSync(`${r.lock}.break`, `${deadPid()}\n`);
  const out = join(r.gitdir, 'prepared.out');
  const txn = transaction(r.gitdir, 0, out);
  const got = preparedResult(out);
  assert.is(got.rc, 0);
  await exited(txn);
  assert.not.ok(existsSync(`${r.lock}.break`));
  assert.not.ok(existsSync(r.lock));

  writeFileSync(r.lock, `${deadPid()}\n`);
  writeFileSync(`${r.lock}.break`, `${deadPid()}\n`);
  const lock = RefLock.take(r.ref, { waitMs: 20_000, staleMs: 120_000 });
  assert.not.ok(existsSync(`${r.lock}.break`));
  lock.release();
});

test.run();
