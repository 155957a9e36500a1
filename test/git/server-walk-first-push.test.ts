// The server's first push on a repository whose history did not arrive through pushes the hook
// accepted: a bare repository filled by `git fetch`, a `git clone --mirror`, the same with a
// commit-graph, and one restored from a bundle. None has receipt-gate-cache/ when the first
// push comes; newCommitsOnServer must give `git rev-list NEW --not --all`'s answer from that
// push on, and after a push git refused (the hook said no: its objects are gone, its cache
// entries stay). A `git clone --shared` server, whose history lies in an alternate, too. Dates are skewed (four days back every tenth commit, pushed commits dated
// before or after everything), the parents deep below the tips.
//
// After the walk, on the same History (as the engine asks), the merge bases of each existing
// ref's commit and the pushed one are compared with `git merge-base --all`.
//
// The answer is compared with the exact one (`git rev-list NEW` less `git rev-list --all`) and
// with `git rev-list NEW --not --all`. git's own walk stops on dates, so on skewed histories it
// can list commits an existing ref reaches (the case below where it does is asserted as such);
// newCommitsOnServer stops only on proof, so it always gives the exact set, which is git's
// wherever git's walk is not misled.
//
// Two parts: real pushes into each kind of server with a pre-receive hook that computes the
// answers in the hook's own environment (walk-server-exact-probe.ts), and a property over
// random DAGs judged in-process on a fetched, mirrored or bundle-restored copy (fast-check seed
// recorded below).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ObjectStore } from '../../src/git/store';
import { Deadline } from '../../src/deadline';
import { History } from '../../src/git/history/history';
import { newCommitsOnServer } from '../../src/git/history/server-new-commits';
import { mergeBases } from '../../src/git/history/merge-base';
import { CommitCache, commitCachePath } from '../../src/git/history/commit-cache';
import { buildDag, dagArb, objectsDir, quarantine, type DagCommit, type Quarantine } from './walk-dag';
import { cleanupTempDirs, git, GIT_ENV, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

export const SEED = 20261205;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
type ServerKind = 'fetch' | 'mirror' | 'mirror+graph' | 'bundle' | 'shared';
const KINDS: ServerKind[] = ['fetch', 'mirror', 'mirror+graph', 'bundle', 'shared'];

function lines(s: string): string[] {
  return s.split('\n').filter(Boolean);
}

/** A bare server holding `source`'s history, brought the way `kind` says. */
function serverFrom(source: string, kind: ServerKind): string {
  const dir = join(tempDir(), `server-${kind.replace('+', '-')}.git`);
  if (kind === 'fetch') {
    git(tempDir(), ['init', '-q', '--bare', dir]);
    git(dir, ['fetch', '-q', source, '+refs/heads/*:refs/heads/*', '+refs/tags/*:refs/tags/*']);
  } else if (kind === 'shared') {
    // Its objects borrowed from the source through objects/info/alternates.
    git(tempDir(), ['clone', '-q', '--bare', '--shared', source, dir]);
  } else if (kind === 'bundle') {
    const bundle = join(tempDir(), 'history.bundle');
    git(source, ['bundle', 'create', '-q', bundle, '--all']);
    git(tempDir(), ['clone', '-q', '--mirror', bundle, dir]);
  } else {
    git(tempDir(), ['clone', '-q', '--mirror', source, dir]);
    if (kind === 'mirror+graph') git(dir, ['commit-graph', 'write', '--reachable']);
  }
  assert.not.ok(existsSync(commitCachePath(objectsDir(dir))), `${kind}: no receipt-gate-cache/ before the first push`);
  return dir;
}

/** 300 commits, dates four days back every tenth commit, a merge every 25th (second parent 7
 * back), refs on commits 150 and 299 and an annotated tag on 200. */
function skewedSource(): { repo: string; commits: string[] } {
  const spec: DagCommit[] = Array.from({ length: 300 }, (_, i) => ({
    back: i === 0 ? [] : i % 25 === 0 ? [1, 7] : [1],
    dt: i % 10 === 0 ? -4 * 86_400 : 60,
    ref: i === 150 || i === 299,
  }));
  const { repo, commits } = buildDag(spec, { bare: true });
  git(repo, ['tag', '-a', '-m', 'v1', 'v1', commits[200]!]);
  return { repo, commits };
}

interface ProbeRecord {
  mine: string[];
  git: string[];
  exact: string[];
  /** Per existing ref: mergeBases after the walk, and git merge-base --all. */
  bases: { ref: string; mine: string[]; git: string[] }[];
}

/** The merge bases agree with git's for every existing ref. */
function basesAgree(record: ProbeRecord, label: string): void {
  assert.ok(record.bases.length > 0, `${label}: merge bases were asked`);
  for (const b of record.bases) assert.equal(b.mine, b.git, `${label}: merge-base --all ${b.ref}`);
}

/** Installs the probe as the server's pre-receive hook; `refuse`: it then exits 1, so git
 * refuses the push after the hook ran. */
function installProbe(server: string, out: string, refuse: boolean): void {
  const probe = join(__dirname, 'walk-server-exact-probe.ts');
  const tsx = join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
  const tail = refuse ? `'${tsx}' '${probe}' '${out}' || exit 2\nexit 1\n` : `exec '${tsx}' '${probe}' '${out}'\n`;
  writeFileSync(join(server, 'hooks', 'pre-receive'), `#!/bin/sh\n${tail}`, { mode: 0o755 });
}

/** One commit on each of `parents` (a merge when two), dated `time`, made in `client` and
 * pushed to `server` as `ref`; the probe's record and git push's status. */
function pushCommit(client: string, server: string, parents: string[], time: number, ref: string, refuse: boolean): { record: ProbeRecord; status: number | null; tip: string } {
  const date = `${time} +0000`;
  const tip = git(client, ['commit-tree', EMPTY_TREE, ...parents.flatMap((p) => ['-p', p]), '-m', `push ${ref}`], {
    env: { GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
  }).trim();
  const out = join(tempDir(), `probe-${ref.replace(/\//g, '-')}.json`);
  rmSync(out, { force: true });
  installProbe(server, out, refuse);
  const r = spawnSync('git', ['push', '-q', server, `${tip}:refs/heads/${ref}`], { cwd: client, env: GIT_ENV, encoding: 'utf8' });
  assert.ok(existsSync(out), `the hook ran for ${ref}: ${r.stderr}`);
  return { record: JSON.parse(readFileSync(out, 'utf8')) as ProbeRecord, status: r.status, tip };
}

test('first push on a fetched, mirrored (with and without a commit-graph), bundle-restored and shared (alternates) server, then a refused push and one after it: the same new commits as git rev-list, dates skewed', () => {
  const { repo: source, commits } = skewedSource();
  const client = join(tempDir(), 'client.git');
  git(tempDir(), ['clone', '-q', '--bare', source, client]);
  for (const kind of KINDS) {
    const server = serverFrom(source, kind);
    const cache = commitCachePath(objectsDir(server));
    // 1. The first push: one commit on commit 40 (260 below the main tip), dated before
    //    every commit of the history.
    const first = pushCommit(client, server, [commits[40]!], 1_500_000_000, 'first', false);
    assert.is(first.status, 0, `${kind}: the first push is accepted`);
    assert.equal(first.record.git, [first.tip], `${kind}: git says only the pushed commit is new`);
    assert.equal(first.record.exact, [first.tip]);
    assert.equal(first.record.mine, first.record.git, `${kind}: first push`);
    basesAgree(first.record, `${kind}: first push`);
    if (kind !== 'mirror+graph') assert.ok(CommitCache.open(cache).size >= 100, `${kind}: the first push wrote the commit cache`);
    // 2. A push git refuses after the hook: a merge of commit 70 and of commit 160 (above the
    //    ref on 150, below the tip on 299), dated between them.
    const refused = pushCommit(client, server, [commits[70]!, commits[160]!], 1_800_000_000, 'refused', true);
    assert.is.not(refused.status, 0, `${kind}: git refused the push`);
    assert.equal(refused.record.exact, [refused.tip], `${kind}: the refs reach both parents`);
    assert.equal(refused.record.mine, refused.record.exact, `${kind}: refused push`);
    basesAgree(refused.record, `${kind}: refused push`);
    // git's walk, misled by the dates (the ref on 299 is dated before the commits it reaches
    // down to 160), lists commits that ref reaches: a superset of the exact answer.
    assert.ok(refused.record.git.length > 1 && refused.record.exact.every((c) => refused.record.git.includes(c)), `${kind}: git's date-limited walk over-reports here`);
    assert.is(git(server, ['for-each-ref', 'refs/heads/refused']).trim(), '', `${kind}: the refused ref does not exist`);
    // 3. The same two parents after the refusal (its objects are gone): pushed again, now
    //    two commits on top, the older dated days before its parents.
    const again = pushCommit(client, server, [commits[70]!, commits[160]!], 1_700_000_000, 'again', false);
    const second = pushCommit(client, server, [again.tip], 1_600_000_000, 'again-2', false);
    assert.is(again.status, 0, `${kind}: the push after the refusal is accepted`);
    assert.equal(again.record.mine, again.record.exact, `${kind}: push after the refusal`);
    assert.equal(again.record.exact, [again.tip]);
    assert.equal(second.record.mine, second.record.git, `${kind}: the next push`);
    basesAgree(again.record, `${kind}: push after the refusal`);
    basesAgree(second.record, `${kind}: the next push`);
    assert.equal(second.record.exact, [second.tip]);
    // A commit of the history no ref reaches any more is new again when pushed back.
    git(server, ['update-ref', '-d', 'refs/heads/r299']);
    const back = pushCommit(client, server, [commits[298]!], 1_900_000_000, 'back', false);
    assert.equal(back.record.mine.sort(), back.record.exact.sort(), `${kind}: commits no ref reaches`);
    assert.equal(back.record.git.sort(), back.record.exact, `${kind}: git agrees`);
    basesAgree(back.record, `${kind}: commits no ref reaches`);
    assert.ok(back.record.exact.length > 1, `${kind}: the unreferenced commits count as new (${back.record.exact.length})`);
  }
});

/** The new commits, and then on the same History the merge bases of each existing ref's commit
 * and the pushed one, each against git merge-base --all in the quarantine's environment. */
async function onServer(repo: string, q: Quarantine, tip: string): Promise<string[]> {
  const store = await ObjectStore.open({ gitdir: repo, env: q.env });
  try {
    const history = new History(store);
    const refs = [...store.refs.list().values()];
    const found = await newCommitsOnServer(history, tip, refs, Deadline.never());
    for (const ref of new Set(refs)) {
      const commit = await store.commits.peelToCommit(ref);
      const r = spawnSync('git', ['merge-base', '--all', commit, tip], { cwd: repo, env: { ...GIT_ENV, ...q.env }, encoding: 'utf8' });
      assert.equal(await mergeBases(history, commit, tip, Deadline.never()), lines(r.stdout), `merge-base --all ${commit} ${tip}`);
    }
    return found;
  } finally {
    store.close();
  }
}

function revList(repo: string, q: Quarantine, args: string[]): string[] {
  const r = spawnSync('git', ['rev-list', ...args], { cwd: repo, env: { ...GIT_ENV, ...q.env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git rev-list: ${r.stderr}`);
  return lines(r.stdout);
}

test('random histories, fetched or mirrored, judged on their first push: the same new commits as git rev-list NEW --not --all', async () => {
  const seen = { pushes: 0, deep: 0, merges: 0, older: 0, gitExact: 0 };
  await fc.assert(
    fc.asyncProperty(
      dagArb,
      fc.constantFrom<ServerKind>(...KINDS),
      fc.nat(),
      fc.option(fc.nat(), { nil: undefined }),
      fc.constantFrom(0, 60, -4 * 86_400, -400 * 86_400),
      async (spec, kind, parentAt, mergeAt, dt) => {
        const { repo: source, commits } = buildDag(spec, { bare: true });
        const server = serverFrom(source, kind);
        const q = quarantine(server);
        // Parents among the commits the server holds (a fetch brings only what the refs reach).
        const held = commits.filter((c) => spawnSync('git', ['cat-file', '-e', c], { cwd: server, env: GIT_ENV }).status === 0);
        const parent = held[parentAt % Math.max(1, held.length >> 1)]!;
        const parents = [...new Set(mergeAt === undefined ? [parent] : [parent, held[mergeAt % held.length]!])];
        const time = Number(git(server, ['show', '-s', '--format=%ct', parent]).trim()) + dt;
        const date = `${time} +0000`;
        const tip = git(server, ['commit-tree', EMPTY_TREE, ...parents.flatMap((p) => ['-p', p]), '-m', 'pushed'], {
          env: { ...q.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
        }).trim();
        const old = new Set(revList(server, q, ['--all']));
        const expected = revList(server, q, [tip]).filter((c) => !old.has(c)).sort();
        const byGit = revList(server, q, [tip, '--not', '--all']).sort();
        if (byGit.join() === expected.join()) seen.gitExact++;
        assert.equal((await onServer(server, q, tip)).sort(), expected, `${kind}: first push on ${parents.join(' ')}`);
        // And the second push of the same commit, with the cache the first one wrote.
        assert.equal((await onServer(server, q, tip)).sort(), expected, `${kind}: again, with the cache`);
        seen.pushes++;
        if (held.indexOf(parent) < held.length - 3) seen.deep++;
        if (parents.length > 1) seen.merges++;
        if (dt < 0) seen.older++;
      },
    ),
    { seed: SEED, numRuns: 24 },
  );
  assert.ok(seen.gitExact > 16, `git rev-list NEW --not --all gave the exact answer in most cases (${seen.gitExact})`);
  assert.ok(seen.deep > 8, `parents below the tips (${seen.deep})`);
  assert.ok(seen.merges > 4, `merges (${seen.merges})`);
  assert.ok(seen.older > 4, `pushed commits dated before their parent (${seen.older})`);
});

test.run();
