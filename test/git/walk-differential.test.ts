// Differential properties of the commit walks against the git CLI, on random DAGs whose dates
// are equal, out of order, or days before their parents, each read with every commit-graph
// variant git writes (none, full, topological levels only, a split chain, one covering only the
// older commits, one with a flipped byte): newCommits vs `git rev-list A --not B C`,
// newCommitsOnServer vs `git rev-list A --not --all` on a repository holding unreferenced
// commits, mergeBases / mergeBase vs `git merge-base [--all]` (order included: equal-dated
// bases come out in git's order), isAncestor vs `git merge-base --is-ancestor`. The seed is
// recorded in walk-dag.ts.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { ObjectStore } from '../../src/git/store';
import { Deadline } from '../../src/deadline';
import { History } from '../../src/git/history/history';
import { isAncestor, mergeBase, mergeBases } from '../../src/git/history/merge-base';
import { newCommits } from '../../src/git/history/new-commits';
import { newCommitsOnServer } from '../../src/git/history/server-new-commits';
import { SEED, VARIANTS, buildDag, dagArb, writeGraph, type GraphVariant } from './walk-dag';
import { cleanupTempDirs, git, GIT_ENV } from '../helpers/git';

test.after(cleanupTempDirs);

const never = Deadline.never();

function lines(s: string): string[] {
  return s.split('\n').filter(Boolean);
}

/** git with the variant's view: a corrupt graph is not what git should answer from. */
function gitIn(repo: string, variant: GraphVariant, args: string[]): { status: number; out: string } {
  const pre = variant === 'corrupt' ? ['-c', 'core.commitGraph=false'] : [];
  const r = spawnSync('git', [...pre, ...args], { cwd: repo, env: GIT_ENV, encoding: 'utf8' });
  if (r.status !== 0 && r.status !== 1) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  return { status: r.status, out: r.stdout };
}

/** Every commit's ancestors (itself included), from the parents git prints. */
function ancestry(repo: string, commits: string[]): Map<string, Set<string>> {
  const parents = new Map<string, string[]>();
  for (const line of lines(git(repo, ['rev-list', '--no-walk=unsorted', '--parents', ...commits]))) {
    const [c, ...ps] = line.split(' ');
    parents.set(c!, ps);
  }
  const memo = new Map<string, Set<string>>();
  for (const c of commits) {
    // commits are in parent-first order
    const s = new Set([c]);
    for (const p of parents.get(c)!) for (const x of memo.get(p)!) s.add(x);
    memo.set(c, s);
  }
  return memo;
}

const queryArb = fc.record({
  tip: fc.nat(),
  exclude: fc.array(fc.nat(), { maxLength: 3 }),
  a: fc.nat(),
  b: fc.nat(),
});

test('walks agree with git on random DAGs with skewed and equal dates, with every commit-graph variant', async () => {
  const seen = { ranges: 0, orderedBases: 0, unrelated: 0, unreferencedNew: 0, ancestors: 0, graphsUsed: 0 };
  await fc.assert(
    fc.asyncProperty(dagArb, fc.array(queryArb, { minLength: 3, maxLength: 3 }), fc.boolean(), async (spec, queries, allEqual) => {
      const dag = buildDag(spec, { allEqualDates: allEqual });
      const { repo, commits, refs } = dag;
      const anc = ancestry(repo, commits);
      const pick = (n: number) => commits[n % commits.length]!;
      for (const variant of VARIANTS) {
        writeGraph(dag, variant);
        const store = await ObjectStore.discover(repo);
        const history = new History(store);
        for (const q of queries) {
          const tip = pick(q.tip);
          // Excludes are mostly later commits, often descendants of the tip: the case a
          // date-ordered walk gets wrong when the tip is dated after them.
          const exclude = q.exclude.map((e) => pick(q.tip + 1 + (e % 4)));
          const label = `${variant}: ${tip} --not ${exclude.join(' ')}`;
          // newCommits: exactly `git rev-list tip --not exclude`, and the exact set difference.
          const got = await newCommits(history, tip, exclude, never);
          const hidden = new Set(exclude.flatMap((e) => [...anc.get(e)!]));
          const exact = [...anc.get(tip)!].filter((c) => !hidden.has(c)).sort();
          assert.equal([...got].sort(), exact, `exact ${label}`);
          assert.equal([...got].sort(), lines(gitIn(repo, variant, ['rev-list', tip, '--not', ...exclude, '--']).out).sort(), `rev-list ${label}`);
          if (exact.length > 0 && hidden.size > 0) seen.ranges++;

          // newCommitsOnServer: the repository's refs are the existing tips; the rest of the
          // commits sit in it unreferenced.
          const onServer = await newCommitsOnServer(history, tip, refs, never);
          assert.equal([...onServer].sort(), lines(gitIn(repo, variant, ['rev-list', tip, '--not', '--all']).out).sort(), `server ${label}`);
          const referenced = new Set(refs.flatMap((r) => [...anc.get(r)!]));
          assert.equal([...onServer].sort(), [...anc.get(tip)!].filter((c) => !referenced.has(c)).sort(), `server exact ${label}`);
          if (onServer.length > 0) seen.unreferencedNew++;

          // What those walks saw about ancestry answers the merge bases and ancestry checks
          // that follow on the same store (tip against an exclude, the tip's parents).
          const parents = (await store.commits.read(tip)).parents;
          for (const [x, y] of [...exclude.slice(0, 1).flatMap((e) => [[e, tip], [tip, e]]), ...parents.map((p) => [p, tip]), ...parents.map((p) => [tip, p])]) {
            const bases = lines(gitIn(repo, variant, ['merge-base', '--all', x!, y!]).out);
            assert.equal(await mergeBases(history, x!, y!, never), bases, `after the walks, ${variant}: merge-base --all ${x} ${y}`);
            assert.is(await isAncestor(history, x!, y!, never), anc.get(y!)!.has(x!), `after the walks, ${variant}: is-ancestor ${x} ${y}`);
          }

          // Merge bases, in git's order.
          const a = pick(q.a);
          const b = pick(q.b);
          const all = lines(gitIn(repo, variant, ['merge-base', '--all', a, b]).out);
          const mine = await mergeBases(history, a, b, never);
          assert.equal(mine, all, `${variant}: merge-base --all ${a} ${b}`);
          const one = gitIn(repo, variant, ['merge-base', a, b]);
          assert.is(await mergeBase(history, a, b, never), one.status === 0 ? one.out.trim() : null, `${variant}: merge-base ${a} ${b}`);
          if (all.length === 0) seen.unrelated++;
          if (all.length > 1) seen.orderedBases++;

          const isAnc = gitIn(repo, variant, ['merge-base', '--is-ancestor', a, b]).status === 0;
          assert.is(await isAncestor(history, a, b, never), isAnc, `${variant}: is-ancestor ${a} ${b}`);
          assert.is(isAnc, anc.get(b)!.has(a));
          if (isAnc && a !== b) seen.ancestors++;
        }
        const notices = history.commitGraphNotices();
        if (variant === 'corrupt') {
          assert.is(notices.length, 1, 'a corrupt graph gives one notice');
          assert.match(notices[0]!, /commit-graph .*commit-graph is not used \(its trailing checksum/);
          assert.not.match(notices[0]!, /\n/);
          assert.equal(history.commitGraphFiles(), []);
        } else {
          assert.equal(notices, [], `${variant}: no notice`);
          assert.is(history.commitGraphFiles().length, variant === 'none' ? 0 : variant === 'split' ? 2 : 1, `${variant}: the graph is used`);
          if (variant !== 'none') seen.graphsUsed++;
        }
        store.close();
      }
    }),
    { seed: SEED, numRuns: 16 },
  );
  assert.ok(seen.ranges > 10, `non-empty ranges were exercised (${seen.ranges})`);
  assert.ok(seen.orderedBases > 5, `several merge bases were exercised (${seen.orderedBases})`);
  assert.ok(seen.unrelated > 0, `unrelated histories were exercised (${seen.unrelated})`);
  assert.ok(seen.unreferencedNew > 10, `unreferenced commits were exercised (${seen.unreferencedNew})`);
  assert.ok(seen.ancestors > 10, `ancestors were exercised (${seen.ancestors})`);
});

test.run();
