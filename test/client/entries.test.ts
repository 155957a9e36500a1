// The hook entries under git without husky: the shipped shims (hooks/) as the repository's
// hooks, the built CLI on PATH. Covers what husky does not: the temporary index git uses for
// `git commit -a` and `git commit PATH`, an unborn HEAD, the bypass variables, holds, and the
// pre-push protocol's edge cases.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parsePushLines } from '../../src/entries/pre-push';
import { ZERO_OID } from '../../src/types';
import { fullPolicy, LocalRepo } from './local';
import { buildIfStale, REPO_ROOT, withBuildLock } from './harness';

withBuildLock(buildIfStale);
const bin = mkdtempSync(join(tmpdir(), 'rg-bin-'));
writeFileSync(join(bin, 'receipt-gate'), `#!/bin/sh\nexec node ${JSON.stringify(join(REPO_ROOT, 'dist/cli.js'))} "$@"\n`);
chmodSync(join(bin, 'receipt-gate'), 0o755);
process.on('exit', () => rmSync(bin, { recursive: true, force: true }));

/** A repository whose hooks are the shipped shims, with a committed policy. */
function hookedRepo(
  name: string,
  email: string,
  policy = fullPolicy({ epoch: undefined, manifest: undefined, observations: undefined, protectedRefs: ['refs/heads/main', 'refs/heads/release/**'] }),
): LocalRepo {
  const repo = new LocalRepo(name, email);
  repo.env = { ...repo.env, PATH: `${bin}:${process.env.PATH}` };
  repo.git('config', 'core.hooksPath', join(REPO_ROOT, 'hooks'));
  repo.write('.receipt-gate.json', policy);
  repo.write('freeze.json', '{"version": 1, "frozen": []}\n');
  repo.write('fixtures/orders.json', '{"id": "orders", "input": {}, "sha256": "' + 'a'.repeat(64) + '"}\n');
  repo.write('src/app.js', '1\n');
  repo.git('add', '-A');
  repo.git('-c', 'core.hooksPath=/dev/null', 'commit', '-qm', 'guarded');
  return repo;
}

test('git commit -a and git commit PATH are judged on the index git commits (GIT_INDEX_FILE)', () => {
  const repo = hookedRepo('entries-index', 'agent@example.com');
  try {
    const head = repo.git('rev-parse', 'HEAD');
    repo.write('fixtures/orders.json', '{"id": "orders", "input": {"x": 1}, "sha256": "' + 'b'.repeat(64) + '"}\n');
    repo.write('src/app.js', '2\n');
    // Nothing staged: the plain index holds no change; only the temporary index does.
    const all = repo.gitRun(['commit', '-qam', 'all']);
    assert.is.not(all.status, 0, all.out);
    assert.match(all.out, /PATH_PROTECTED.*fixtures\/orders\.json/);
    const only = repo.gitRun(['commit', '-qm', 'only', '--', 'fixtures/orders.json']);
    assert.is.not(only.status, 0, only.out);
    assert.match(only.out, /PATH_PROTECTED.*fixtures\/orders\.json/);
    assert.is(repo.git('rev-parse', 'HEAD'), head);
    // The same partial commit of a free path passes, though the fixture edit sits in the tree.
    const free = repo.gitRun(['commit', '-qm', 'code', '--', 'src/app.js']);
    assert.is(free.status, 0, free.out);
  } finally {
    repo.remove();
  }
});

test('HUSKY=0 and RECEIPT_GATE_SKIP=1 skip the client hooks with one line; other values do not', () => {
  const repo = hookedRepo('entries-skip', 'agent@example.com');
  try {
    for (const [name, value, passes] of [
      ['RECEIPT_GATE_SKIP', '0', false],
      ['HUSKY', '1', false],
      ['HUSKY', '0', true],
      ['RECEIPT_GATE_SKIP', '1', true],
    ] as const) {
      repo.write('fixtures/orders.json', `{"edit": "${name}=${value}"}\n`);
      repo.git('add', '-A');
      const r = repo.gitRun(['commit', '-qm', `${name}=${value}`], { [name]: value });
      assert.is(r.status === 0, passes, `${name}=${value}: ${r.out}`);
      if (passes) {
        const lines = r.out.trim().split('\n');
        assert.equal(lines, [`receipt-gate pre-commit: skipped (${name}=${value}); the server hook still checks every push`]);
      }
    }
  } finally {
    repo.remove();
  }
});

test('an owner (git config user.email) may commit protected paths; a broken staged policy closes', () => {
  const repo = hookedRepo('entries-owner', 'alice@example.com');
  try {
    repo.write('fixtures/orders.json', '{"id": "orders", "input": {"y": 2}, "sha256": "' + 'c'.repeat(64) + '"}\n');
    repo.git('add', '-A');
    const ok = repo.gitRun(['commit', '-qm', 'owner edit']);
    assert.is(ok.status, 0, ok.out);
    repo.write('.receipt-gate.json', '{"version": 1, "owners": ["alice@example.com"], "protected": "fixtures/**"}\n');
    repo.git('add', '-A');
    const broken = repo.gitRun(['commit', '-qm', 'broken policy']);
    assert.is.not(broken.status, 0);
    assert.match(broken.out, /POLICY_INVALID/);
    assert.match(broken.out, /\/protected/);
  } finally {
    repo.remove();
  }
});

test('an unborn HEAD with no policy anywhere is unguarded: the first commit passes with a notice', () => {
  const repo = new LocalRepo('entries-unborn', 'agent@example.com');
  try {
    repo.env = { ...repo.env, PATH: `${bin}:${process.env.PATH}` };
    repo.git('config', 'core.hooksPath', join(REPO_ROOT, 'hooks'));
    repo.write('fixtures/a.json', '{}\n');
    repo.git('add', '-A');
    const r = repo.gitRun(['commit', '-qm', 'first']);
    assert.is(r.status, 0, r.out);
    assert.match(r.out, /unguarded and nothing was checked/);
  } finally {
    repo.remove();
  }
});

test('a held flake stops a commit on the base branch only (the server rejects holds on protected refs)', async () => {
  const repo = hookedRepo('entries-hold', 'alice@example.com', fullPolicy({ manifest: undefined }));
  try {
    repo.write('fixtures/gen.py', 'gen\n');
    repo.git('add', '-A');
    assert.is((await repo.cli(['epoch', 'pin', '--id', 'ep1', '--generator', 'fixtures/gen.py'])).code, 0);
    repo.write('w.log', 'flaky then green\n');
    assert.is((await repo.cli(['observe', '--id', 'prop_a', '--status', 'flake', '--rerun-passed', '--witness', 'w.log'])).code, 0);
    repo.write('freezes/prop_a.json', '{"observation_id": "prop_a", "epoch_id": "ep1", "expires_on": "2026-12-05", "reason": "re-ran green, see witness"}\n');
    rmSync(join(repo.dir, 'w.log'));
    repo.git('add', '-A');
    const onMain = repo.gitRun(['commit', '-qm', 'hold on main']);
    assert.is.not(onMain.status, 0, onMain.out);
    assert.match(onMain.out, /FREEZE_HELD/);
    assert.match(onMain.out, /"verdict":"hold"/);
    repo.git('checkout', '-q', '-b', 'work');
    const onBranch = repo.gitRun(['commit', '-qm', 'hold on a branch']);
    assert.is(onBranch.status, 0, onBranch.out);
    assert.match(onBranch.out, /FREEZE_HELD/);
  } finally {
    repo.remove();
  }
});

test('pre-push input: the four fields per line, deletions, and malformed lines refused', async () => {
  const oid = 'a'.repeat(40);
  assert.equal(parsePushLines(`refs/heads/x ${oid} refs/heads/x ${ZERO_OID}\n(delete) ${ZERO_OID} refs/heads/y ${oid}\n\n`), [
    { localRef: 'refs/heads/x', localOid: oid, remoteRef: 'refs/heads/x', remoteOid: ZERO_OID },
    { localRef: '(delete)', localOid: ZERO_OID, remoteRef: 'refs/heads/y', remoteOid: oid },
  ]);
  assert.throws(() => parsePushLines(`refs/heads/x ${oid} refs/heads/x\n`), /line 1/);
  assert.throws(() => parsePushLines(`refs/heads/x zz refs/heads/x ${oid}\n`), /line 1/);
  const repo = hookedRepo('entries-push', 'agent@example.com');
  try {
    const bad = await repo.cli(['pre-push', 'origin', 'url'], {}, 'garbage\n');
    assert.is(bad.code, 2);
    const none = await repo.cli(['pre-push', 'origin', 'url'], {}, '');
    assert.is(none.code, 0);
    const noRemote = await repo.cli(['pre-push'], {}, '');
    assert.is(noRemote.code, 2);
  } finally {
    repo.remove();
  }
});

test('pre-push to a bare repository: a protected deletion by a non-owner is refused before it leaves', () => {
  const repo = hookedRepo('entries-delete', 'agent@example.com');
  const bareDir = mkdtempSync(join(tmpdir(), 'rg-bare-'));
  try {
    const bare = join(bareDir, 'server.git');
    mkdirSync(bare);
    repo.git('init', '-q', '--bare', bare);
    repo.git('remote', 'add', 'origin', bare);
    repo.git('-c', 'core.hooksPath=/dev/null', 'push', '-q', 'origin', 'main', 'main:release/1');
    repo.git('fetch', '-q', 'origin');
    const del = repo.gitRun(['push', 'origin', ':release/1']);
    assert.is.not(del.status, 0, del.out);
    assert.match(del.out, /REF_PROTECTED/);
    const branch = repo.gitRun(['push', 'origin', 'main:feature/ok']);
    assert.is(branch.status, 0, branch.out);
  } finally {
    repo.remove();
    rmSync(bareDir, { recursive: true, force: true });
  }
});

test("pre-push judges by the remote's policy (baseBranch trunk), never by the pushed commits' own", () => {
  const ownerRepo = hookedRepo(
    'entries-trunk',
    'alice@example.com',
    fullPolicy({ baseBranch: 'trunk', epoch: undefined, manifest: undefined, observations: undefined }),
  );
  const bareDir = mkdtempSync(join(tmpdir(), 'rg-bare-'));
  let agent: LocalRepo | null = null;
  try {
    const bare = join(bareDir, 'server.git');
    ownerRepo.git('init', '-q', '--bare', '-b', 'trunk', bare);
    ownerRepo.git('-c', 'core.hooksPath=/dev/null', 'push', '-q', bare, 'main:trunk');

    agent = new LocalRepo('entries-trunk-agent', 'agent@example.com');
    agent.env = { ...agent.env, PATH: `${bin}:${process.env.PATH}` };
    agent.git('remote', 'add', 'origin', bare);
    agent.git('fetch', '-q', 'origin');
    agent.git('remote', 'set-head', 'origin', '--auto');
    agent.git('checkout', '-q', '-b', 'feature/x', 'origin/trunk');
    agent.git('config', 'core.hooksPath', join(REPO_ROOT, 'hooks'));
    // The agent's commit unprotects fixtures in its own copy of the policy, then edits one.
    agent.write('.receipt-gate.json', '{"version": 1, "baseBranch": "trunk", "owners": ["agent@example.com"]}\n');
    agent.write('fixtures/orders.json', '{"id": "orders", "input": {"z": 1}, "sha256": "' + 'd'.repeat(64) + '"}\n');
    agent.git('add', '-A');
    agent.git('commit', '-q', '--no-verify', '-m', 'loosen the policy');
    const push = agent.gitRun(['push', 'origin', 'feature/x']);
    assert.is.not(push.status, 0, push.out);
    assert.match(push.out, /against refs\/remotes\/origin\/trunk/);
    assert.match(push.out, /PATH_PROTECTED feature\/x \w+ \.receipt-gate\.json/);
    assert.match(push.out, /PATH_PROTECTED feature\/x \w+ fixtures\/orders\.json/);
    assert.match(push.out, /alice@example\.com, alice/);
  } finally {
    ownerRepo.remove();
    agent?.remove();
    rmSync(bareDir, { recursive: true, force: true });
  }
});

test("concluding a merge of the base branch is not a touch of what the merge brings", () => {
  const repo = hookedRepo('entries-merge', 'agent@example.com');
  try {
    repo.git('checkout', '-q', '-b', 'feature');
    repo.write('src/app.js', 'feature\n');
    repo.git('commit', '-qam', 'feature work');
    repo.git('checkout', '-q', 'main');
    repo.write('src/app.js', 'main\n');
    repo.write('fixtures/orders.json', '{"id": "orders", "input": {"v": 2}, "sha256": "' + 'e'.repeat(64) + '"}\n');
    repo.git('-c', 'core.hooksPath=/dev/null', '-c', 'user.email=alice@example.com', 'commit', '-qam', 'owner updates the fixture');
    repo.git('checkout', '-q', 'feature');
    assert.is.not(repo.gitRun(['merge', '-q', 'main']).status, 0, 'the merge conflicts in src/app.js');
    repo.write('src/app.js', 'feature and main\n');
    repo.git('add', 'src/app.js');
    const merged = repo.gitRun(['commit', '-q', '--no-edit']);
    assert.is(merged.status, 0, merged.out);
    assert.is(repo.git('rev-list', '--count', '--merges', 'HEAD').trim(), '1');

    // The same fixture change made in the merge itself is a touch.
    repo.git('reset', '-q', '--hard', 'HEAD~1');
    assert.is.not(repo.gitRun(['merge', '-q', 'main']).status, 0);
    repo.write('src/app.js', 'feature and main\n');
    repo.write('fixtures/orders.json', '{"sneaked": true}\n');
    repo.git('add', '-A');
    const sneaked = repo.gitRun(['commit', '-q', '--no-edit']);
    assert.is.not(sneaked.status, 0, sneaked.out);
    assert.match(sneaked.out, /PATH_PROTECTED.*fixtures\/orders\.json/);
  } finally {
    repo.remove();
  }
});

test('pre-push to a URL (no remote-tracking refs) takes the policy from the tip git read from the server', () => {
  const repo = hookedRepo('entries-url', 'agent@example.com');
  const bareDir = mkdtempSync(join(tmpdir(), 'rg-bare-'));
  try {
    const bare = join(bareDir, 'server.git');
    repo.git('init', '-q', '--bare', '-b', 'main', bare);
    repo.git('-c', 'core.hooksPath=/dev/null', 'push', '-q', bare, 'main');
    repo.write('.receipt-gate.json', '{"version": 1, "owners": ["agent@example.com"]}\n');
    repo.write('fixtures/orders.json', '{"loosened": true}\n');
    repo.git('add', '-A');
    repo.git('commit', '-q', '--no-verify', '-m', 'make myself an owner');
    const push = repo.gitRun(['push', bare, 'main']);
    assert.is.not(push.status, 0, push.out);
    assert.match(push.out, /against main on /);
    assert.match(push.out, /PATH_PROTECTED main \w+ fixtures\/orders\.json/);
    assert.match(push.out, /PATH_PROTECTED main \w+ \.receipt-gate\.json/);
  } finally {
    repo.remove();
    rmSync(bareDir, { recursive: true, force: true });
  }
});

test.run();
