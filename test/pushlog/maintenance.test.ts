// Ref maintenance is not a move (SPEC §9, docs/push-log.md "Maintenance"): real pushes into a
// bare repository through the installed hooks, then each of git's maintenance commands run
// in that repository, with the hooks in place. `git pack-refs` (alone, inside `git gc`, git's
// auto gc after a push, `git maintenance run`) deletes each loose ref in a ref transaction of
// its own, and git runs the reference-transaction hook for it: the ref still holds the same
// value, through packed-refs, and the log records nothing. `verify-log`'s output is exactly
// what it was before each command, and a push after it is logged and verifies.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { baseEnv, cleanup, commitAll, push, refOid, write } from '../server/helpers';
import { gitResult, gitValue, tempDir } from '../helpers/git';
import { execCli, freshRepo, logEntries, startServers, type LogRepo, type LogServer } from './helpers';

let server: LogServer;

test.before(async () => {
  server = await startServers('pushlog-maintenance');
});

test.after(() => {
  server?.stop();
  cleanup(server?.root);
});

function commitTo(r: LogRepo, branch: string, file: string): string {
  gitValue(r.work, ['checkout', '-q', '-B', branch]);
  write(r.work, file, `x = "${file}"\n`);
  const oid = commitAll(r.work, `${branch}: ${file}`);
  gitValue(r.work, ['checkout', '-q', 'main']);
  return oid;
}

function filePush(r: LogRepo, args: string[]) {
  const p = push(r.work, [`file://${r.bare}`, ...args]);
  assert.is(p.status, 0, p.stderr);
  return p;
}

/** A repository with a few pushes logged: main twice, a branch, two tags (one annotated), a
 * branch deleted; every ref loose. */
function pushed(name: string): LogRepo {
  const r = freshRepo(server, name);
  gitValue(r.work, ['checkout', '-q', 'main']);
  commitTo(r, 'main', 'src/a.py');
  filePush(r, ['main']);
  commitTo(r, 'feature/x', 'src/x.py');
  commitTo(r, 'feature/gone', 'src/gone.py');
  gitValue(r.work, ['tag', 'v1', 'main']);
  gitValue(r.work, ['tag', '-a', '-m', 'release 2', 'v2', 'main'], { env: baseEnv() });
  filePush(r, ['feature/x', 'feature/gone', 'v1', 'v2']);
  filePush(r, [':feature/gone']);
  commitTo(r, 'main', 'src/b.py');
  filePush(r, ['main']);
  return r;
}

/** verify-log's whole text output and exit status, with every ref the log names checked. */
function verifyText(repo: string, extra: string[] = []): string {
  const refs = ['main', 'feature/x', 'feature/gone', 'refs/tags/v1', 'refs/tags/v2'];
  const v = execCli(['verify-log', '--repo', repo, '--pub', server.pub, '--every-signature', ...refs.flatMap((x) => ['--ref', x]), ...extra]);
  return `exit ${v.status}\n${v.stdout}${v.stderr}`;
}

function git(dir: string, args: string[], env: Record<string, string> = {}): string {
  const res = gitResult(dir, args, { env: baseEnv(env) });
  assert.is(res.status, 0, `git ${args.join(' ')}: ${res.stderr}`);
  return `${res.stdout}${res.stderr}`;
}

function looseRefs(bare: string): string[] {
  const r = spawnSync('find', [join(bare, 'refs'), '-type', 'f'], { encoding: 'utf8' });
  return r.stdout.trim().split('\n').filter(Boolean);
}

function unlogged(r: LogRepo): string[] {
  const file = join(r.bare, 'receipt-gate', 'audit.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').filter((l) => /"unlogged"/.test(l)) : [];
}

/** Runs `run` on a freshly pushed repository: verify-log says exactly the same before and
 * after, no entry is added, and a push after it is logged and verifies. */
function unchanged(name: string, run: (r: LogRepo) => void, opts: { packs?: boolean } = {}): void {
  const r = pushed(name);
  const before = verifyText(r.bare);
  assert.match(before, /^exit 0\n/, before);
  const entries = logEntries(r.bare).length;
  assert.ok(looseRefs(r.bare).some((f) => f.endsWith('refs/heads/feature/x')), 'the refs are loose before maintenance');
  run(r);
  if (opts.packs) assert.ok(!looseRefs(r.bare).some((f) => f.endsWith('refs/heads/feature/x')), `${name}: the refs were packed (${looseRefs(r.bare).join(' ')})`);
  assert.is(verifyText(r.bare), before, name);
  assert.is(logEntries(r.bare).length, entries, `${name}: no entry is added`);
  assert.ok(!existsSync(join(r.bare, 'refs', 'receipt-gate', 'log.lock')), `${name}: the log's lock is released`);
  // A push after it is appended and verifies.
  const next = commitTo(r, 'main', `src/after-${name}.py`);
  filePush(r, ['main']);
  const last = logEntries(r.bare);
  assert.is(last.length, entries + 1);
  assert.equal(last[last.length - 1]!.updates.map((u) => [u.ref, u.new, u.verdict]), [['refs/heads/main', next, 'eligible']]);
  const after = verifyText(r.bare);
  assert.match(after, /^exit 0\n/, after);
  assert.equal(unlogged(r), []);
}

test('git gc', () => unchanged('gc', (r) => git(r.bare, ['gc']), { packs: true }));
test('git gc --prune=now --aggressive', () => unchanged('gc-aggressive', (r) => git(r.bare, ['gc', '--prune=now', '--aggressive']), { packs: true }));
test('git pack-refs --all --prune', () => unchanged('pack-refs', (r) => git(r.bare, ['pack-refs', '--all', '--prune']), { packs: true }));
test('git pack-refs --all --prune twice, and after a push', () =>
  unchanged('pack-refs-twice', (r) => {
    git(r.bare, ['pack-refs', '--all', '--prune']);
    git(r.bare, ['pack-refs', '--all', '--prune']);
  }, { packs: true }));
for (const task of ['gc', 'commit-graph', 'loose-objects', 'incremental-repack', 'pack-refs']) {
  test(`git maintenance run --task=${task}`, () =>
    unchanged(`maintenance-${task}`, (r) => {
      // (incremental-repack works on packs: git refuses a repository whose objects are all
      // loose, "no pack files to index", so the pushed objects are packed first.)
      if (task === 'incremental-repack') git(r.bare, ['repack', '-q']);
      git(r.bare, ['maintenance', 'run', `--task=${task}`]);
    }, { packs: task === 'gc' || task === 'pack-refs' }));
}
test('git maintenance run (the default tasks) and every task in one run', () =>
  unchanged('maintenance-all', (r) => {
    git(r.bare, ['maintenance', 'run']);
    git(r.bare, ['maintenance', 'run', '--task=gc', '--task=commit-graph', '--task=loose-objects', '--task=incremental-repack', '--task=pack-refs', '--task=prefetch']);
  }, { packs: true }));
test('git reflog expire --all --expire=now', () => unchanged('reflog', (r) => git(r.bare, ['reflog', 'expire', '--all', '--expire=now'])));
test('git repack -adk', () => unchanged('repack', (r) => git(r.bare, ['repack', '-adk'])));
test('git fsck', () => unchanged('fsck', (r) => git(r.bare, ['fsck', '--strict'])));

test('git maintenance run --task=prefetch and git remote prune in a server repository that fetches from an upstream: the refs they write are logged, unchecked, and the verdict stays', () => {
  // A server repository that also fetches from an upstream (a fork host): prefetch creates
  // refs/prefetch/remotes/upstream/*, `remote prune` deletes a stale refs/remotes/ ref. Those
  // are real ref moves, recorded as such (`ungated`: no push made them); they move no checked
  // ref, and verify-log's findings and verdict are what they were.
  const upstream = join(tempDir('pushlog-upstream'), 'up.git');
  git(server.root, ['clone', '-q', '--bare', server.template.bare, upstream]);
  const r = pushed('prefetch-prune');
  git(r.bare, ['remote', 'add', 'upstream', upstream]);
  git(upstream, ['branch', 'stale', 'main']);
  git(r.bare, ['fetch', '-q', 'upstream']);
  git(upstream, ['branch', '-D', 'stale']);
  const before = verifyText(r.bare);
  assert.match(before, /^exit 0\n/, before);
  const entries = logEntries(r.bare).length;
  git(r.bare, ['maintenance', 'run', '--task=prefetch']);
  git(r.bare, ['remote', 'prune', 'upstream']);
  assert.is(refOid(r.bare, 'refs/remotes/upstream/stale'), null);
  assert.ok(refOid(r.bare, 'refs/prefetch/remotes/upstream/main'));
  const added = logEntries(r.bare).slice(entries);
  assert.equal(
    added.flatMap((e) => e.updates.map((u) => `${e.kind} ${u.ref}`)).sort(),
    ['ungated refs/prefetch/remotes/upstream/main', 'ungated refs/remotes/upstream/stale'],
  );
  const withoutHeader = (text: string) => text.replace(/^(exit \d+\n)receipt-gate verify-log: \d+ entries up to [0-9a-f]+;/, '$1');
  assert.is(withoutHeader(verifyText(r.bare)), withoutHeader(before));
});

test("git's auto gc after pushes (receive.unpackLimit=1, gc.autoPackLimit=2, gc.auto=1) packs the refs and leaves the log verifying", () => {
  const r = pushed('auto-gc');
  for (const [k, v] of [['receive.unpackLimit', '1'], ['gc.autoPackLimit', '2'], ['gc.auto', '1'], ['gc.autoDetach', 'false']]) git(r.bare, ['config', k!, v!]);
  const before = logEntries(r.bare).length;
  const heads: string[] = [];
  for (let i = 0; i < 4; i++) {
    heads.push(commitTo(r, 'main', `src/auto${i}.py`));
    const p = filePush(r, ['main']);
    assert.not.match(p.stderr, /cannot lock ref|push log/, p.stderr);
  }
  assert.ok(!looseRefs(r.bare).some((f) => f.endsWith('refs/tags/v1')), `auto gc packed the refs (${looseRefs(r.bare).join(' ')})`);
  const entries = logEntries(r.bare);
  assert.equal(entries.slice(before).map((e) => e.updates.map((u) => [u.ref, u.new, u.verdict])), heads.map((h) => [['refs/heads/main', h, 'eligible']]));
  assert.equal(entries.map((e) => e.kind).filter((k) => k === 'ungated'), []);
  const v = verifyText(r.bare);
  assert.match(v, /^exit 0\n/, v);
  assert.equal(unlogged(r), []);
});

test('a mirror: clone --mirror, then fetch --prune after the server moved and deleted refs, verifies as the server does', () => {
  const r = pushed('mirror');
  const replica = join(tempDir('pushlog-replica'), 'replica.git');
  git(server.root, ['clone', '-q', '--mirror', `file://${r.bare}`, replica]);
  const first = verifyText(replica);
  assert.match(first, /^exit 0\n/, first);
  git(replica, ['pack-refs', '--all', '--prune']);
  git(replica, ['gc', '-q']);
  assert.is(verifyText(replica), first);
  // The server: gc, a push, a deletion; the replica fetches with --prune.
  git(r.bare, ['gc', '-q']);
  commitTo(r, 'main', 'src/mirror-next.py');
  filePush(r, ['main']);
  filePush(r, [':feature/x']);
  const server2 = verifyText(r.bare);
  assert.match(server2, /^exit 0\n/, server2);
  git(replica, ['fetch', '-q', '--prune', 'origin']);
  assert.is(refOid(replica, 'refs/heads/feature/x'), null);
  assert.is(verifyText(replica), server2.split(r.bare).join(replica));
  git(replica, ['fetch', '-q', '--prune', 'origin']);
  assert.is(verifyText(replica), server2.split(r.bare).join(replica));
});

test.run();
