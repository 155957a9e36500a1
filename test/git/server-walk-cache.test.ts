// newCommitsOnServer with the server's commit cache (src/git/history/commit-cache.ts) against
// `git rev-list NEW --not --all`, on random DAGs whose dates are equal, out of order or days
// before their parents, holding commits no ref reaches: each push (one to three new commits in
// a quarantine, as receive-pack makes one, on a parent often deep below the tips, sometimes
// merging a second old commit) is judged with no cache, with the cache the previous pushes
// left (refs deleted and moved in between, so it lists commits no ref reaches any more), and
// with a corrupt cache; each without a commit-graph and with one. And pushes whose quarantine
// also holds commits the repository had (the parent, tips, unreferenced ones, as a client that
// sends them again writes them), with the new commits on them or not: the server's walk asks
// the repository only about the lowest pushed commits, and must still answer as git does. The
// seed is recorded.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { deflateSync } from 'node:zlib';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { ObjectStore } from '../../src/git/store';
import { Deadline } from '../../src/deadline';
import { History } from '../../src/git/history/history';
import { newCommitsOnServer } from '../../src/git/history/server-new-commits';
import { CommitCache, commitCachePath, verifiedGraphsPath } from '../../src/git/history/commit-cache';
import { readCommitGraph } from '../../src/git/history/commit-graph';
import { buildDag, dagArb, objectsDir, quarantine, removeGraphs, type Quarantine } from './walk-dag';
import { cleanupTempDirs, git, GIT_ENV, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

export const SEED = 20261204;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

function lines(s: string): string[] {
  return s.split('\n').filter(Boolean);
}

/** A new commit written into the quarantine, dated `time`. */
function commitInto(q: Quarantine, repo: string, parents: string[], time: number, msg: string): string {
  const args = ['commit-tree', EMPTY_TREE, ...parents.flatMap((p) => ['-p', p]), '-m', msg];
  const date = `${time} +0000`;
  return git(repo, args, { env: { ...q.env, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date } }).trim();
}

/** A push's new commits written into the quarantine on `below`, a minute apart from `time`, the
 * first merging a second old commit when the push says so; the tip. */
function newCommitsInto(q: Quarantine, repo: string, below: string, time: number, p: { count: number; merge?: number }, commits: string[], i: number): string {
  let tip = below;
  for (let k = 0; k < p.count; k++) {
    const parents = k === 0 && p.merge !== undefined ? [tip, commits[p.merge % commits.length]!] : [tip];
    tip = commitInto(q, repo, [...new Set(parents)], time + 60 * k, `push ${i}.${k}`);
  }
  return tip;
}

async function onServer(repo: string, q: Quarantine, tip: string): Promise<string[]> {
  const store = await ObjectStore.open({ gitdir: repo, env: q.env });
  try {
    return await newCommitsOnServer(new History(store), tip, [...store.refs.list().values()], Deadline.never());
  } finally {
    store.close();
  }
}

function revList(repo: string, q: Quarantine, tip: string): string[] {
  const r = spawnSync('git', ['rev-list', tip, '--not', '--all'], { cwd: repo, env: { ...GIT_ENV, ...q.env }, encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`git rev-list: ${r.stderr}`);
  return lines(r.stdout);
}

const pushArb = fc.record({
  /** Which old commit the push builds on: mostly in the older half (deep below the tips). */
  parent: fc.nat(),
  deep: fc.boolean(),
  /** A second old parent (a merge), when set. */
  merge: fc.option(fc.nat(), { nil: undefined }),
  count: fc.integer({ min: 1, max: 3 }),
  /** The new commits' dates against the parent's: the same, later, or days before. */
  dt: fc.constantFrom(0, 60, -4 * 86_400, -400 * 86_400),
  /** A ref deleted and one moved before this push (the cache keeps what they reached). */
  drop: fc.nat(),
  move: fc.nat(),
});

test('newCommitsOnServer with the commit cache agrees with git rev-list NEW --not --all (none, stale, corrupt; with and without a commit-graph)', async () => {
  const seen = { pushes: 0, cachedHits: 0, unreferencedNew: 0, deepParents: 0, withGraph: 0 };
  await fc.assert(
    fc.asyncProperty(dagArb, fc.array(pushArb, { minLength: 2, maxLength: 3 }), fc.boolean(), async (spec, pushes, graph) => {
      const dag = buildDag(spec, { bare: true });
      const { repo, commits } = dag;
      removeGraphs(repo);
      if (graph) git(repo, ['commit-graph', 'write', '--reachable']);
      const cachePath = commitCachePath(objectsDir(repo));
      const dateOf = (c: string) => Number(git(repo, ['show', '-s', '--format=%ct', c]).trim());
      for (const [i, p] of pushes.entries()) {
        // Refs move between pushes: commits the cache lists stop being reachable.
        const refs = lines(git(repo, ['for-each-ref', '--format=%(refname)', 'refs/heads']));
        if (refs.length > 1) git(repo, ['update-ref', '-d', refs[p.drop % refs.length]!]);
        git(repo, ['update-ref', `refs/heads/moved${i}`, commits[p.move % commits.length]!]);

        const half = Math.max(1, commits.length >> 1);
        const base = commits[p.deep ? p.parent % half : p.parent % commits.length]!;
        const q = quarantine(repo);
        const tip = newCommitsInto(q, repo, base, dateOf(base) + p.dt, p, commits, i);
        const expected = revList(repo, q, tip).sort();
        const label = `push ${i} on ${base} (graph: ${graph})`;

        // The cache as the previous pushes left it (none before the first).
        const before = existsSync(cachePath) ? CommitCache.open(cachePath).size : 0;
        assert.equal((await onServer(repo, q, tip)).sort(), expected, `${label}, cache of ${before} commits`);
        if (before > 0) seen.cachedHits++;
        // Again, with what that walk added.
        assert.equal((await onServer(repo, q, tip)).sort(), expected, `${label}, cache just written`);
        // A corrupt cache is not used (and is rewritten).
        if (existsSync(cachePath)) {
          const buf = readFileSync(cachePath);
          buf[buf.length >> 1] ^= 0x10;
          writeFileSync(cachePath, buf);
          assert.is(CommitCache.open(cachePath).size, 0, 'a corrupt cache reads as empty');
          assert.equal((await onServer(repo, q, tip)).sort(), expected, `${label}, corrupt cache`);
        }
        // No cache.
        rmSync(cachePath, { force: true });
        assert.equal((await onServer(repo, q, tip)).sort(), expected, `${label}, no cache`);

        seen.pushes++;
        if (expected.length > p.count) seen.unreferencedNew++;
        if (commits.indexOf(base) < half && commits.length > 8) seen.deepParents++;
        if (graph) seen.withGraph++;
        rmSync(q.dir, { recursive: true, force: true });
      }
    }),
    { seed: SEED, numRuns: 12 },
  );
  assert.ok(seen.cachedHits > 5, `pushes met a cache earlier pushes wrote (${seen.cachedHits})`);
  assert.ok(seen.unreferencedNew > 2, `commits no ref reached were new (${seen.unreferencedNew})`);
  assert.ok(seen.deepParents > 5, `parents deep below the tips (${seen.deepParents})`);
  assert.ok(seen.withGraph > 3, `with a commit-graph (${seen.withGraph})`);
});

test('a 1-commit push on a parent 300 commits below the tips, dates skewed: the same answer cold and warm, and the cache is written once', async () => {
  // A linear history of 400 commits whose dates go back 4 days every tenth commit, refs on
  // commits 300 and 399; the push builds on commit 99 and is dated before everything.
  const n = 400;
  const spec = Array.from({ length: n }, (_, i) => ({ back: i === 0 ? [] : [1], dt: i % 10 === 0 ? -4 * 86_400 : 60, ref: i === 300 }));
  const { repo, commits } = buildDag(spec, { bare: true });
  const cachePath = commitCachePath(objectsDir(repo));
  for (const graph of [false, true]) {
    removeGraphs(repo);
    rmSync(cachePath, { force: true });
    if (graph) git(repo, ['commit-graph', 'write', '--reachable']);
    const q = quarantine(repo);
    const tip = commitInto(q, repo, [commits[99]!], 1_500_000_000, 'one');
    const expected = revList(repo, q, tip);
    assert.equal(expected, [tip]);
    assert.equal(await onServer(repo, q, tip), expected, `cold (graph: ${graph})`);
    const written = existsSync(cachePath) ? CommitCache.open(cachePath).size : 0;
    // Without a graph the walk from the tips read the commits above the parent; with one it
    // read none from their objects.
    if (graph) assert.is(written, 0, 'with a commit-graph nothing is read from objects, so nothing is cached');
    else assert.ok(written >= 200, `the commits read from ref 300 down to the parent were cached (${written})`);
    assert.equal(await onServer(repo, q, tip), expected, `warm (graph: ${graph})`);
    if (!graph) assert.is(CommitCache.open(cachePath).size, written, 'a warm walk adds nothing');
    rmSync(q.dir, { recursive: true, force: true });
  }
});

test('a commit-graph checked whole on one push is not checked again on the next, until the file changes in place', async () => {
  const spec = Array.from({ length: 30 }, (_, i) => ({ back: i === 0 ? [] : i % 7 === 0 ? [1, 5] : [1], dt: i % 3 === 0 ? -86_400 : 60, ref: i % 10 === 9 }));
  const { repo } = buildDag(spec, { bare: true });
  git(repo, ['commit-graph', 'write', '--reachable']);
  const objects = objectsDir(repo);
  const marker = verifiedGraphsPath(objects);
  // A file changed less than two seconds ago is checked but not recorded.
  assert.ok(readCommitGraph(objects, undefined, marker).graph);
  assert.not.ok(existsSync(marker), 'a graph written just now is not recorded');
  await new Promise((r) => setTimeout(r, 2100));
  assert.ok(readCommitGraph(objects, undefined, marker).graph);
  assert.is(lines(readFileSync(marker, 'utf8')).length, 1, 'the settled graph is recorded');
  const again = readCommitGraph(objects, undefined, marker);
  assert.ok(again.graph);
  assert.equal(again.notices, []);
  // One byte flipped in place (same file, same size, same trailing checksum): checked again
  // in full, and refused.
  const file = join(objects, 'info', 'commit-graph');
  const buf = readFileSync(file);
  buf[buf.length >> 1] ^= 0x40;
  writeFileSync(file, buf);
  const flipped = readCommitGraph(objects, undefined, marker);
  assert.is(flipped.graph, null, 'a graph changed in place is checked again');
  assert.match(flipped.notices[0] ?? '', /trailing checksum/);
});

test('the cache file: entries saved in several runs are all read back, sorted, with their parents', () => {
  const path = join(tempDir(), 'receipt-gate-cache', 'commit-index');
  const oid = (n: number) => n.toString(16).padStart(8, '0').repeat(5);
  const want = new Map<string, { parents: string[]; time: number }>();
  for (const run of [[5, 1, 9], [3, 7], [2, 8, 4, 6]]) {
    const cache = CommitCache.open(path);
    for (const n of run) {
      const c = { parents: Array.from({ length: n % 4 }, (_, k) => oid(100 + n * 10 + k)), time: n % 2 === 0 ? -n * 1000 : 2 ** 35 + n };
      cache.add(oid(n), c);
      want.set(oid(n), c);
    }
    cache.save();
  }
  const cache = CommitCache.open(path);
  assert.is(cache.size, want.size);
  for (const [o, c] of want) assert.equal(cache.lookup(o), c, o);
  assert.is(cache.lookup(oid(10)), undefined);
  assert.is(cache.lookup('zz'), undefined);
});

test('the cache lives outside <gitdir>/receipt-gate/, whose presence turns the push log on', () => {
  const path = commitCachePath('/srv/repo.git/objects');
  assert.is(path, '/srv/repo.git/receipt-gate-cache/commit-index');
});

/** Writes `oid`'s object (read from the repository) into the quarantine as a loose object: a
 * client that sends again an object the server holds (git itself would not write it there). */
function resend(q: Quarantine, repo: string, oid: string): void {
  const content = spawnSync('git', ['cat-file', 'commit', oid], { cwd: repo, env: GIT_ENV }).stdout as Buffer;
  const dir = join(q.dir, oid.slice(0, 2));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, oid.slice(2)), deflateSync(Buffer.concat([Buffer.from(`commit ${content.length}\0`), content])));
}

test('pushes whose quarantine also holds commits the repository had (a tip, the parent, unreferenced ones) agree with git rev-list NEW --not --all', async () => {
  const seen = { pushes: 0, resentWalked: 0, resentTip: 0 };
  await fc.assert(
    fc.asyncProperty(dagArb, fc.array(pushArb, { minLength: 1, maxLength: 3 }), fc.array(fc.nat(), { maxLength: 4 }), fc.boolean(), async (spec, pushes, resent, onTop) => {
      const dag = buildDag(spec, { bare: true });
      const { repo, commits } = dag;
      removeGraphs(repo);
      const dateOf = (c: string) => Number(git(repo, ['show', '-s', '--format=%ct', c]).trim());
      for (const [i, p] of pushes.entries()) {
        const tips = new Set(lines(git(repo, ['for-each-ref', '--format=%(objectname)'])));
        const base = commits[p.parent % commits.length]!;
        const q = quarantine(repo);
        // The base and other old commits sent again; the new commits on the base, or on the
        // last of them.
        const again = [base, ...resent.map((n) => commits[n % commits.length]!)];
        for (const c of again) resend(q, repo, c);
        const below = onTop ? again[again.length - 1]! : base;
        const tip = newCommitsInto(q, repo, below, dateOf(below) + p.dt, p, commits, i);
        const expected = revList(repo, q, tip).sort();
        assert.equal((await onServer(repo, q, tip)).sort(), expected, `push ${i}: ${p.count} new on ${base}, ${again.length} sent again`);
        // And the pushed tip being one of the commits sent again.
        const old = again[again.length - 1]!;
        assert.equal((await onServer(repo, q, old)).sort(), revList(repo, q, old).sort(), `push ${i}: the old commit ${old} pushed again`);
        seen.pushes++;
        if (again.some((c) => !tips.has(c) && expected.includes(c))) seen.resentWalked++;
        if (again.some((c) => tips.has(c))) seen.resentTip++;
        rmSync(q.dir, { recursive: true, force: true });
        rmSync(commitCachePath(objectsDir(repo)), { force: true });
      }
    }),
    { seed: SEED, numRuns: 16 },
  );
  assert.ok(seen.resentWalked > 2, `commits sent again that no ref reached were new (${seen.resentWalked})`);
  assert.ok(seen.resentTip > 2, `tips sent again (${seen.resentTip})`);
});

test.run();
