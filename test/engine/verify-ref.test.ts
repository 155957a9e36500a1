// verify-ref end to end on real repositories: every row of the verdict table (docs/contract.md §2 Verdicts), the exit
// codes, the --json shape and the human lines.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codes, EPOCH_ID, guardedRepo, POLICY, runCli, sha256 } from '../helpers/repo';
import { commitAll, git, initRepo, removeFiles, writeFiles } from '../helpers/git';

const NOW = '2026-11-29';

function verify(repo: string, ref: string, extra: string[] = []) {
  return runCli(['verify-ref', ref, '--base', 'main', '--now', NOW, '--json', ...extra], { cwd: repo });
}

function branch(repo: string, name: string, files: Record<string, string | Buffer>, remove: string[] = []): string {
  git(repo, ['checkout', '-q', '-B', name, 'main']);
  writeFiles(repo, files);
  removeFiles(repo, remove);
  const oid = commitAll(repo, `change on ${name}`);
  git(repo, ['checkout', '-q', 'main']);
  return oid;
}

/** Evidence changes an owner makes on main, so the rule under test is the only finding. */
function ownerCommit(repo: string, files: Record<string, string | Buffer>, remove: string[] = []): void {
  writeFiles(repo, files);
  removeFiles(repo, remove);
  commitAll(repo, 'owner updates evidence');
}

function observation(id: string, status: string, rerun: boolean, witness: string, epoch = EPOCH_ID) {
  return {
    [`observations/${id}.json`]: JSON.stringify({ id, epoch_id: epoch, status, rerun_passed: rerun, witness_sha256: sha256(witness) }),
    [`observations/${id}.bin`]: witness,
  };
}

test('no failures, no freeze, all digests agree: eligible (exit 0)', () => {
  const repo = guardedRepo();
  branch(repo, 'honest', { 'src/alloc.py': 'def allocate(total, weights):\n    return [total, 0]\n' });
  const run = verify(repo, 'honest');
  assert.is(run.status, 0, run.stderr + run.stdout);
  assert.is(run.json.verdict, 'eligible');
  assert.equal(codes(run), []);
  assert.is(run.json.identities.epoch_id, EPOCH_ID);
  assert.is(run.json.head, git(repo, ['rev-parse', 'honest']).trim());
  assert.is(run.json.base, git(repo, ['rev-parse', 'main']).trim());
});

test('protected path edited by a non-owner: closed with PATH_PROTECTED naming the path (exit 1)', () => {
  const repo = guardedRepo();
  const oid = branch(repo, 'agent', { 'fixtures/orders/base.json': '{"orders": [1]}\n', 'src/alloc.py': 'x = 1\n' });
  const run = verify(repo, 'agent');
  assert.is(run.status, 1);
  assert.is(run.json.verdict, 'closed');
  const f = run.json.findings.find((x: any) => x.code === 'PATH_PROTECTED');
  assert.ok(f, JSON.stringify(run.json));
  assert.is(f.path, 'fixtures/orders/base.json');
  assert.is(f.commit, oid);
  assert.is(f.severity, 'closed');
  assert.match(f.fix, /alice, release-bot/);
  assert.not.ok(run.json.findings.some((x: any) => x.path === 'src/alloc.py'));
});

test('the same edit by an owner (--identity alice) is eligible; author fields never count', () => {
  const repo = guardedRepo();
  git(repo, ['config', 'user.name', 'alice']);
  branch(repo, 'owner', { 'fixtures/README.md': 'notes\n', 'checks/notes.txt': 'x\n' });
  assert.is(verify(repo, 'owner').status, 1);
  const run = verify(repo, 'owner', ['--identity', 'alice']);
  assert.is(run.status, 0, JSON.stringify(run.json));
  assert.is(verify(repo, 'owner', ['--identity', 'Alice']).status, 1);
});

test('policy, manifest and freeze file edited by a non-owner: each closed', () => {
  const repo = guardedRepo();
  branch(repo, 'p', { '.receipt-gate.json': '{"version": 1, "owners": ["mallory"]}\n' });
  branch(repo, 'm', { 'checks/manifest.json': '{}\n' });
  branch(repo, 'f', { 'freeze.json': '{"version": 1, "frozen": [{"id": "t::x", "reason": "timing", "expires": "2026-12-01"}]}\n' });
  for (const [ref, path] of [['p', '.receipt-gate.json'], ['m', 'checks/manifest.json'], ['f', 'freeze.json']]) {
    const run = verify(repo, ref!);
    assert.is(run.status, 1, ref);
    assert.ok(run.json.findings.some((x: any) => x.code === 'PATH_PROTECTED' && x.path === path), `${ref}: ${JSON.stringify(run.json.findings)}`);
  }
});

test('a README under fixtures/ is an exception anyone may change', () => {
  const repo = guardedRepo();
  branch(repo, 'docs', { 'fixtures/README.md': 'More notes.\n' });
  const run = verify(repo, 'docs');
  assert.is(run.status, 0, JSON.stringify(run.json));
});

test('generator bytes differ from the pin: closed with EPOCH_MISMATCH', () => {
  const repo = guardedRepo();
  ownerCommit(repo, { 'fixtures/generate_orders.py': '# changed\n' });
  const run = verify(repo, 'main');
  assert.is(run.status, 1);
  assert.ok(codes(run).includes('EPOCH_MISMATCH'), JSON.stringify(run.json));
});

test('property failed on the recorded seed (observation fail): closed', () => {
  const repo = guardedRepo();
  ownerCommit(repo, observation('obs1', 'fail', false, 'trace'));
  const run = verify(repo, 'main');
  assert.is(run.status, 1);
  assert.ok(codes(run).includes('OBSERVATION_FAILED'), JSON.stringify(run.json));
});

test('expired freeze still present on main blocks an honest branch: closed', () => {
  const repo = guardedRepo();
  ownerCommit(repo, {
    'freeze.json': JSON.stringify({ version: 1, frozen: [{ id: 'tests/test_x.py::test_y', reason: 'timing', expires: '2026-11-28', owner: 'human', added: '2026-11-20' }] }),
  });
  branch(repo, 'honest', { 'src/alloc.py': 'y = 2\n' });
  const run = verify(repo, 'honest');
  assert.is(run.status, 1);
  assert.equal(codes(run), ['FREEZE_EXPIRED']);
  // expires == today is not expired: an active freeze is info only and stays eligible
  const sameDay = runCli(['verify-ref', 'honest', '--base', 'main', '--now', '2026-11-28', '--json'], { cwd: repo });
  assert.is(sameDay.status, 0, JSON.stringify(sameDay.json));
  assert.equal(codes(sameDay), ['FREEZE_ACTIVE']);
});

test('keyed freeze with no witness, or a witness from another epoch: closed', () => {
  const repo = guardedRepo();
  ownerCommit(repo, {
    'freezes/f1.json': JSON.stringify({ observation_id: 'missing', epoch_id: EPOCH_ID, expires_on: '2026-12-05', reason: 'flaky network' }),
  });
  const run = verify(repo, 'main');
  assert.is(run.status, 1);
  assert.ok(codes(run).includes('FREEZE_UNWITNESSED'), JSON.stringify(run.json));

  const other = guardedRepo();
  ownerCommit(other, {
    ...observation('o2', 'flake', true, 'w', 'orders-2025-01-01-z'),
    'freezes/f2.json': JSON.stringify({ observation_id: 'o2', epoch_id: EPOCH_ID, expires_on: '2026-12-05', reason: 'flaky network' }),
  });
  const run2 = verify(other, 'main');
  assert.is(run2.status, 1);
  assert.ok(codes(run2).includes('OBSERVATION_EPOCH'), JSON.stringify(run2.json));
});

test('flake re-ran green on the pinned epoch, witness present, keyed freeze cites it: hold (exit 3)', () => {
  const repo = guardedRepo();
  ownerCommit(repo, {
    ...observation('o3', 'flake', true, 'witness bytes'),
    'freezes/f3.json': JSON.stringify({ observation_id: 'o3', epoch_id: EPOCH_ID, expires_on: '2026-12-05', reason: 'socket timeout on CI' }),
  });
  const run = verify(repo, 'main');
  assert.is(run.status, 3, JSON.stringify(run.json));
  assert.is(run.json.verdict, 'hold');
  assert.equal(codes(run), ['FREEZE_HELD']);
  assert.is(run.json.identities.witnesses.o3, sha256('witness bytes'));
});

test('flake observed but no keyed freeze cites it: closed with FLAKE_UNFROZEN', () => {
  const repo = guardedRepo();
  ownerCommit(repo, observation('o4', 'flake', true, 'w4'));
  const run = verify(repo, 'main');
  assert.is(run.status, 1);
  assert.equal(codes(run), ['FLAKE_UNFROZEN']);
});

test('a fixture edited then reverted in a later commit is still a touch', () => {
  const repo = guardedRepo();
  git(repo, ['checkout', '-q', '-b', 'sneaky']);
  writeFiles(repo, { 'fixtures/orders/base.json': '{"orders": [9]}\n' });
  const first = commitAll(repo, 'tweak');
  writeFiles(repo, { 'fixtures/orders/base.json': '{"orders": []}\n' });
  commitAll(repo, 'revert tweak');
  const run = verify(repo, 'sneaky');
  assert.is(run.status, 1);
  const f = run.json.findings.find((x: any) => x.code === 'PATH_PROTECTED');
  assert.is(f.commit, first);
});

test('case and Unicode variants of a protected path are the same path', () => {
  const repo = guardedRepo();
  branch(repo, 'case', { 'Fixtures/new.json': '{}\n' });
  assert.is(verify(repo, 'case').status, 1);
  const decomposed = 'fi\u0301xtures'; // not a variant of "fixtures": must stay eligible
  branch(repo, 'other', { [`${decomposed}/x.txt`]: 'x\n' });
  assert.is(verify(repo, 'other').status, 0);
});

test('mode change, rename out of a protected folder, symlink replacing a fixture: each closed', () => {
  const repo = guardedRepo();
  git(repo, ['checkout', '-q', '-b', 'chmod']);
  git(repo, ['update-index', '--chmod=+x', 'fixtures/generate_orders.py']);
  git(repo, ['commit', '-q', '-m', 'chmod']);
  git(repo, ['checkout', '-q', '-f', 'main']);
  assert.is(verify(repo, 'chmod').status, 1);

  git(repo, ['checkout', '-q', '-b', 'rename']);
  git(repo, ['mv', 'fixtures/orders/base.json', 'src/base.json']);
  git(repo, ['commit', '-q', '-m', 'move']);
  git(repo, ['checkout', '-q', '-f', 'main']);
  const moved = verify(repo, 'rename');
  assert.is(moved.status, 1);
  assert.ok(moved.json.findings.some((x: any) => x.path === 'fixtures/orders/base.json'));

  git(repo, ['checkout', '-q', '-b', 'link']);
  removeFiles(repo, ['fixtures/orders/base.json']);
  git(repo, ['add', '-A']);
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: '../../src/alloc.py' }).trim();
  git(repo, ['update-index', '--add', '--cacheinfo', `120000,${blob},fixtures/orders/base.json`]);
  git(repo, ['commit', '-q', '-m', 'symlink']);
  git(repo, ['checkout', '-q', '-f', 'main']);
  assert.is(verify(repo, 'link').status, 1);
});

test('merging main into a work branch is not a touch; fast-forwarding main onto a fixture change is', () => {
  const repo = guardedRepo();
  git(repo, ['checkout', '-q', '-b', 'work']);
  writeFiles(repo, { 'src/feature.py': 'f = 1\n' });
  commitAll(repo, 'feature');
  git(repo, ['checkout', '-q', 'main']);
  ownerCommit(repo, { 'fixtures/orders/base.json': '{"orders": [2]}\n' });
  git(repo, ['checkout', '-q', 'work']);
  git(repo, ['merge', '-q', '--no-edit', 'main']);
  git(repo, ['checkout', '-q', 'main']);
  const run = verify(repo, 'work');
  assert.is(run.status, 0, JSON.stringify(run.json));
});

test('unguarded repository: exit 2 and nothing passes silently', () => {
  const repo = initRepo();
  writeFiles(repo, { 'a.txt': 'a\n' });
  commitAll(repo, 'init');
  const run = runCli(['verify-ref', 'HEAD', '--now', NOW], { cwd: repo });
  assert.is(run.status, 2);
  assert.match(run.stderr, /unguarded/);
});

test('malformed policy at the base: closed with POLICY_INVALID naming the file', () => {
  const repo = initRepo();
  writeFiles(repo, { '.receipt-gate.json': '{"version": 1, "owners": "alice"' });
  commitAll(repo, 'broken policy');
  const run = runCli(['verify-ref', 'HEAD', '--base', 'main', '--now', NOW, '--json'], { cwd: repo });
  assert.is(run.status, 1);
  assert.equal(codes(run), ['POLICY_INVALID']);
  assert.is(run.json.findings[0].path, '.receipt-gate.json');
});

test('human output: one line per finding with rule, commit, path and fix, then the verdict', () => {
  const repo = guardedRepo();
  const oid = branch(repo, 'agent', { 'fixtures/orders/base.json': '{"orders": [1]}\n', 'checks/manifest.json': '{}\n' });
  const run = runCli(['verify-ref', 'agent', '--base', 'main', '--now', NOW], { cwd: repo });
  assert.is(run.status, 1);
  const lines = run.stdout.trim().split('\n');
  const protectedLines = lines.filter((l) => l.includes('PATH_PROTECTED'));
  assert.is(protectedLines.length, 2);
  for (const l of protectedLines) {
    assert.ok(l.includes(oid.slice(0, 7)));
    assert.match(l, /Fix: .*alice, release-bot/);
  }
  assert.match(lines[lines.length - 1]!, /^verdict: closed/);
});

test('a run past limits.timeoutMs is closed with LIMIT_EXCEEDED, even when the work never yields', () => {
  const repo = guardedRepo({ '.receipt-gate.json': `${JSON.stringify({ ...POLICY, limits: { timeoutMs: 100, maxEvidenceBytes: 1048576 } })}\n` });
  // 3,000 commits on a branch, written with fast-import: far more than 100 ms of reading.
  const main = git(repo, ['rev-parse', 'main']).trim();
  let stream = '';
  for (let i = 0; i < 3000; i++) {
    stream += `commit refs/heads/long\nmark :${i + 1}\ncommitter T <t@example.com> ${1700000000 + i} +0000\ndata 2\nc\n`;
    stream += i === 0 ? `from ${main}\n` : `from :${i}\n`;
    stream += `M 100644 inline src/f${i % 50}.txt\ndata ${String(i).length + 1}\n${i}\n\n`;
  }
  git(repo, ['fast-import', '--quiet'], { input: stream });
  const run = verify(repo, 'long');
  assert.is(run.status, 1, JSON.stringify(run.json));
  assert.equal(codes(run), ['LIMIT_EXCEEDED']);
  assert.match(run.json.findings[0].message, /100 ms/);
});

test('a commit-graph that fails its checks is not used: one notice on stderr, the same verdict', () => {
  const repo = guardedRepo();
  branch(repo, 'honest', { 'src/alloc.py': 'def allocate(total, weights):\n    return [total, 0]\n' });
  git(repo, ['commit-graph', 'write', '--reachable']);
  const intact = verify(repo, 'honest');
  assert.is(intact.status, 0, intact.stderr + intact.stdout);
  assert.not.match(intact.stderr, /notice/);
  // One flipped byte: the graph's trailing checksum no longer matches.
  const file = join(repo, '.git', 'objects', 'info', 'commit-graph');
  const bytes = readFileSync(file);
  bytes[bytes.length >> 1] ^= 0xff;
  chmodSync(file, 0o644);
  writeFileSync(file, bytes);
  const run = verify(repo, 'honest');
  assert.is(run.status, 0, run.stderr + run.stdout);
  assert.is(run.json.verdict, 'eligible');
  assert.equal(codes(run), []);
  const notices = run.stderr.split('\n').filter((l) => l.includes('notice'));
  assert.is(notices.length, 1, run.stderr);
  assert.match(notices[0]!, /^receipt-gate verify-ref: notice: commit-graph .* is not used .*git commit-graph write --reachable/);
});

test('usage errors exit 2', () => {
  const repo = guardedRepo();
  assert.is(runCli(['verify-ref', '--bogus'], { cwd: repo }).status, 2);
  assert.is(runCli(['verify-ref', 'no-such-ref', '--now', NOW], { cwd: repo }).status, 2);
  assert.is(runCli(['verify-ref', 'main', '--now', '2026-02-30'], { cwd: repo }).status, 2);
});


test('two commits that each bring a tree git cannot split: the error names the older one, as a parents-first diff meets it', () => {
  const repo = guardedRepo();
  const hashTree = (bytes: string) => git(repo, ['hash-object', '-t', 'tree', '--literally', '-w', '--stdin'], { input: bytes }).trim();
  // A mode with no space and name after it, then no NUL: no entry git can split.
  const bad1 = hashTree('100644');
  const bad2 = hashTree('40000 x');
  const withSub = (tree: string, name: string, sub: string) => {
    const lines = git(repo, ['ls-tree', tree]);
    return git(repo, ['mktree'], { input: `${lines}040000 tree ${sub}\t${name}\n` }).trim();
  };
  const main = git(repo, ['rev-parse', 'main']).trim();
  const tree1 = withSub(`${main}^{tree}`, 'bad1', bad1);
  const first = git(repo, ['commit-tree', tree1, '-p', main, '-m', 'older'], { env: { GIT_COMMITTER_DATE: '2026-11-20T00:00:00Z' } }).trim();
  const tree2 = withSub(tree1, 'bad2', bad2);
  const second = git(repo, ['commit-tree', tree2, '-p', first, '-m', 'newer'], { env: { GIT_COMMITTER_DATE: '2026-11-21T00:00:00Z' } }).trim();
  git(repo, ['update-ref', 'refs/heads/broken', second]);
  const run = verify(repo, 'broken');
  assert.is(run.status, 1, run.stderr + run.stdout);
  assert.is(run.json.verdict, 'closed');
  const text = JSON.stringify(run.json.findings);
  assert.ok(text.includes(bad1), text);
  assert.not.ok(text.includes(bad2), text);
});

test.run();
