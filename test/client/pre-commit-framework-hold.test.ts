// A hold's notice reaches the developer through the pre-commit framework (Debian's
// /usr/bin/pre-commit): examples/python with a witnessed flake frozen by an owner (observe,
// freeze add --observation), the `repo: local` entry init writes (mergePreCommitConfig, the
// same function), and an agent's commit on a feature branch. The hook passes (a hold lets an
// unprotected ref through) and the framework shows the FREEZE_HELD notice and the hold's
// machine line, which it hides behind "Passed" without `verbose: true`.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { mergePreCommitConfig } from '../../src/client/hook-config';
import { cleanupTempDirs, tempDir } from '../helpers/git';
import { machineLineOf } from './harness';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'cli.js');

test('a held commit on a feature branch: the pre-commit framework shows the hold notice', () => {
  const dir = tempDir('pc-hold');
  try {
    // receipt-gate on PATH, as a Python project without package.json has it.
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    writeFileSync(join(bin, 'receipt-gate'), `#!/bin/sh\nexec node '${CLI}' "$@"\n`);
    chmodSync(join(bin, 'receipt-gate'), 0o755);
    const env: NodeJS.ProcessEnv = {
      PATH: `${bin}:${process.env.PATH}`,
      HOME: dir,
      LANG: 'C.UTF-8',
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: '/dev/null',
      GIT_AUTHOR_NAME: 'Alice',
      GIT_COMMITTER_NAME: 'Alice',
      PRE_COMMIT_HOME: join(dir, 'pre-commit-home'),
      RECEIPT_GATE_NOW: '2026-09-18',
    };
    const work = join(dir, 'work');
    cpSync(join(ROOT, 'examples', 'python'), work, { recursive: true, filter: (src) => !/__pycache__|\.pytest_cache/.test(src) });
    const run = (cmd: string, args: string[], extra: NodeJS.ProcessEnv = {}) => {
      const r = spawnSync(cmd, args, { cwd: work, env: { ...env, ...extra }, encoding: 'utf8' });
      return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
    };
    const must = (cmd: string, args: string[]) => {
      const r = run(cmd, args);
      assert.is(r.status, 0, `${cmd} ${args.join(' ')}: ${r.out}`);
      return r.out;
    };
    const hooks = [
      { id: 'receipt-gate-pre-commit', name: 'receipt-gate pre-commit', entry: 'receipt-gate pre-commit', stage: 'commit' as const },
      { id: 'receipt-gate-pre-push', name: 'receipt-gate pre-push', entry: 'receipt-gate pre-push', stage: 'push' as const },
    ];
    writeFileSync(join(work, '.pre-commit-config.yaml'), mergePreCommitConfig('', hooks, '.pre-commit-config.yaml').text!);
    must('git', ['init', '-q', '-b', 'main']);
    must('git', ['config', 'user.email', 'alice']);
    must('git', ['add', '-A']);
    must('git', ['commit', '-q', '-m', 'allocation, with the gate through the pre-commit framework']);

    // The owner records a witnessed flake and freezes it: every tree that holds the keyed
    // freeze is held until the owner lifts it.
    writeFileSync(join(dir, 'witness.txt'), 'tests/test_allocate.py::test_concurrent_realloc FAILED, then passed on re-run\n');
    must('receipt-gate', ['observe', '--status', 'flake', '--rerun-passed', '--witness', join(dir, 'witness.txt'), '--id', 'flaky-1']);
    must('receipt-gate', ['freeze', 'add', '--observation', 'flaky-1', '--expires-on', '2026-09-25', '--reason', 'timing flake']);
    must('git', ['add', '-A']);
    must('git', ['commit', '-q', '-m', 'freeze the flaky test']);

    must('pre-commit', ['install', '--hook-type', 'pre-commit', '--hook-type', 'pre-push']);
    must('git', ['config', 'user.email', 'agent@example.com']);
    must('git', ['checkout', '-q', '-b', 'feature/docs']);
    writeFileSync(join(work, 'NOTES.md'), 'a note\n');
    must('git', ['add', 'NOTES.md']);
    const commit = run('git', ['commit', '-m', 'a note']);
    assert.is(commit.status, 0, commit.out);
    assert.match(commit.out, /receipt-gate pre-commit\.+Passed/);
    assert.match(commit.out, /\n {2}hold {3}FREEZE_HELD feature\/docs freezes\/flaky-1\.json: Observation flaky-1 is a witnessed flake/, commit.out);
    assert.match(commit.out, /\nverdict: hold \(0 closing, 1 hold, 1 info\)/, commit.out);
    assert.is(machineLineOf(commit.out)?.verdict, 'hold', commit.out);
  } finally {
    cleanupTempDirs();
  }
});

test.run();
