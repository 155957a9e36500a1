// Grader commands: exit status, captured output, deadlines, and processes left behind.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { runCommand } from '../../src/receipt/run-command';
import { tempDir } from '../helpers/git';

const base = { cwd: tempDir(), env: { PATH: process.env.PATH }, captureStdout: true, timeoutMs: 5000 };

test('exit status, stdin and stdout are passed through exactly', async () => {
  const r = await runCommand({ ...base, command: 'cat; printf "\\000\\377"; exit 7', stdin: 'héllo' });
  assert.is(r.exitCode, 7);
  assert.equal([...r.stdout], [...Buffer.from('héllo'), 0, 255]);
  assert.is(r.timedOut, false);
});

test('a command past its deadline is killed with its whole process group', async () => {
  const started = Date.now();
  const r = await runCommand({ ...base, command: 'sleep 30 & sleep 30', timeoutMs: 300 });
  assert.is(r.timedOut, true);
  assert.is(r.exitCode, null);
  assert.ok(Date.now() - started < 4000, `took ${Date.now() - started} ms`);
});

test('a process that escapes the group and holds stdout does not hold the grader', async () => {
  const started = Date.now();
  const r = await runCommand({ ...base, command: 'setsid sleep 4 & echo done', timeoutMs: 20000 });
  assert.is(r.exitCode, 0);
  assert.is(r.stdout.toString(), 'done\n');
  assert.ok(Date.now() - started < 6000, `took ${Date.now() - started} ms`);
});

test('output over the limit is refused, not truncated into a digest', async () => {
  const r = await runCommand({ ...base, command: 'head -c 100000 /dev/zero', maxStdoutBytes: 1000 });
  assert.is(r.stdoutTooLarge, true);
  assert.is(r.exitCode, null);
});

test('a command that cannot start is reported', async () => {
  const r = await runCommand({ ...base, command: 'true', cwd: '/nonexistent-dir-for-receipt-gate' });
  assert.is(r.exitCode, null);
  assert.ok(r.spawnError);
});

test.run();
