// What pre-push judges when git's stdin lines do not reach it: the pre-commit framework's
// PRE_COMMIT_* variables, husky 4's HUSKY_GIT_STDIN, else HEAD's branch (said so), and with
// nothing to go on a usage error (exit 2), never a silent pass. Real repositories and a bare
// remote; the variables are set exactly as pre-commit's hook_impl sets them.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readPushInput } from '../../src/client/push-input';
import { ZERO_OID } from '../../src/types';
import { fullPolicy, LocalRepo } from './local';

/** A guarded clone with a bare origin (main pushed, policy on it), and a fixture commit on
 * branch `feature` that origin does not have. */
function pushRepo(name: string): { repo: LocalRepo; bare: string; main: string; feature: string; cleanup(this: void): void } {
  const bare = mkdtempSync(join(tmpdir(), `rg-${name}-bare-`));
  const repo = new LocalRepo(name, 'agent@example.com');
  repo.git('init', '-q', '--bare', '-b', 'main', bare);
  repo.write('.receipt-gate.json', fullPolicy({ epoch: undefined, manifest: undefined, observations: undefined }));
  repo.write('freeze.json', '{"version": 1, "frozen": []}\n');
  repo.write('src/app.js', '1\n');
  repo.git('add', '-A');
  repo.git('commit', '-qm', 'guarded');
  repo.git('remote', 'add', 'origin', bare);
  repo.git('push', '-q', 'origin', 'main');
  const main = repo.git('rev-parse', 'HEAD').trim();
  repo.git('checkout', '-q', '-b', 'feature');
  repo.write('fixtures/orders.json', '{"id": "orders"}\n');
  repo.git('add', '-A');
  repo.git('commit', '-qm', 'edit a fixture');
  const feature = repo.git('rev-parse', 'HEAD').trim();
  return { repo, bare, main, feature, cleanup: () => (repo.remove(), rmSync(bare, { recursive: true, force: true })) };
}

test("git's lines win; husky 4's HUSKY_GIT_STDIN and HUSKY_GIT_PARAMS stand in for them", () => {
  const { repo, main, feature, cleanup } = pushRepo('input-stdin');
  try {
    const line = `refs/heads/feature ${feature} refs/heads/feature ${ZERO_OID}\n`;
    const fromGit = readPushInput({ positionals: ['origin', 'url'], stdin: line, env: { ...repo.env, PRE_COMMIT_TO_REF: main, PRE_COMMIT_REMOTE_BRANCH: 'refs/heads/x' }, top: repo.dir });
    assert.equal(fromGit, { remote: 'origin', lines: [{ localRef: 'refs/heads/feature', localOid: feature, remoteRef: 'refs/heads/feature', remoteOid: ZERO_OID }], notice: null });
    const husky4 = readPushInput({ positionals: [], stdin: '', env: { ...repo.env, HUSKY_GIT_STDIN: line, HUSKY_GIT_PARAMS: 'upstream url' }, top: repo.dir });
    assert.is(husky4.remote, 'upstream');
    assert.equal(husky4.lines, fromGit.lines);
  } finally {
    cleanup();
  }
});

test("the pre-commit framework's variables: an existing branch, a new branch, a root push", () => {
  const { repo, main, feature, cleanup } = pushRepo('input-pre-commit');
  try {
    const base = { ...repo.env, PRE_COMMIT_REMOTE_NAME: 'origin', PRE_COMMIT_REMOTE_URL: 'url' };
    // Existing branch: FROM is the remote's tip (refs/remotes/origin/main exists).
    const existing = readPushInput({
      positionals: [],
      stdin: '',
      env: { ...base, PRE_COMMIT_FROM_REF: main, PRE_COMMIT_TO_REF: feature, PRE_COMMIT_LOCAL_BRANCH: 'refs/heads/feature', PRE_COMMIT_REMOTE_BRANCH: 'refs/heads/main' },
      top: repo.dir,
    });
    assert.equal(existing.lines, [{ localRef: 'refs/heads/feature', localOid: feature, remoteRef: 'refs/heads/main', remoteOid: main }]);
    assert.match(existing.notice ?? '', /from the pre-commit framework's PRE_COMMIT_\* variables/);
    // New branch: FROM is the parent of the first new commit, not a remote tip: a creation.
    const created = readPushInput({
      positionals: [],
      stdin: '',
      env: { ...base, PRE_COMMIT_FROM_REF: main, PRE_COMMIT_TO_REF: feature, PRE_COMMIT_LOCAL_BRANCH: 'refs/heads/feature', PRE_COMMIT_REMOTE_BRANCH: 'refs/heads/feature' },
      top: repo.dir,
    });
    assert.equal(created.lines, [{ localRef: 'refs/heads/feature', localOid: feature, remoteRef: 'refs/heads/feature', remoteOid: ZERO_OID }]);
    // Root push (pre-commit sets no FROM/TO, only the branches): the local branch's tip.
    const root = readPushInput({
      positionals: [],
      stdin: '',
      env: { ...base, PRE_COMMIT_LOCAL_BRANCH: 'refs/heads/feature', PRE_COMMIT_REMOTE_BRANCH: 'refs/heads/other' },
      top: repo.dir,
    });
    assert.equal(root.lines, [{ localRef: 'refs/heads/feature', localOid: feature, remoteRef: 'refs/heads/other', remoteOid: ZERO_OID }]);
    // Half the variables: refused, not guessed.
    assert.throws(
      () => readPushInput({ positionals: [], stdin: '', env: { ...base, PRE_COMMIT_TO_REF: feature }, top: repo.dir }),
      /only part of the pre-commit framework's variables \(PRE_COMMIT_REMOTE_BRANCH unset\): nothing was checked/,
    );
    assert.throws(
      () => readPushInput({ positionals: [], stdin: '', env: { ...base, PRE_COMMIT_TO_REF: 'nope', PRE_COMMIT_REMOTE_BRANCH: 'refs/heads/main' }, top: repo.dir }),
      /PRE_COMMIT_TO_REF is "nope", which names no commit/,
    );
  } finally {
    cleanup();
  }
});

test("no input at all: HEAD's branch to its upstream, said so; detached HEAD or no remote is exit 2", async () => {
  const { repo, main, feature, cleanup } = pushRepo('input-none');
  try {
    const guessed = readPushInput({ positionals: ['origin', 'url'], stdin: '', env: repo.env, top: repo.dir });
    assert.equal(guessed.lines, [{ localRef: 'refs/heads/feature', localOid: feature, remoteRef: 'refs/heads/feature', remoteOid: ZERO_OID }]);
    assert.match(guessed.notice ?? '', /judging HEAD's branch feature \([0-9a-f]{7}\) as the push to feature on origin/);
    repo.git('branch', '-q', '--set-upstream-to', 'origin/main');
    const upstream = readPushInput({ positionals: [], stdin: '', env: repo.env, top: repo.dir });
    assert.equal(upstream.lines, [{ localRef: 'refs/heads/feature', localOid: feature, remoteRef: 'refs/heads/main', remoteOid: main }]);

    // Through the entry: the fixture commit is judged and refused, not passed silently.
    const refused = await repo.cli(['pre-push'], {}, '');
    assert.is(refused.code, 1, refused.stderr);
    assert.match(refused.stderr, /no ref lines on standard input/);
    assert.match(refused.stderr, /PATH_PROTECTED/);

    repo.git('checkout', '-q', '--detach');
    const detached = await repo.cli(['pre-push', 'origin', 'url'], {}, '');
    assert.is(detached.code, 2);
    assert.match(detached.stderr, /no ref lines on standard input, no PRE_COMMIT_\* variables, and HEAD is not on a branch: nothing to judge, nothing was checked/);
    assert.not.match(detached.stderr, /null|undefined/);
    repo.git('checkout', '-q', 'feature');
    repo.git('remote', 'remove', 'origin');
    const noRemote = await repo.cli(['pre-push'], {}, '');
    assert.is(noRemote.code, 2);
    assert.match(noRemote.stderr, /no remote 'origin': nothing was checked/);
  } finally {
    cleanup();
  }
});

test.run();
