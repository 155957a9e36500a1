// The walks on hand-made histories where git's answer depends on what a date-ordered walk gets
// wrong: equal-dated merge bases (git's order differs with and without a commit-graph), a
// fast-forward dated days before its parent, shallow clones, a commit whose parent is absent,
// and the deadline inside a walk.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ObjectStore } from '../../src/git/store';
import { Deadline, DeadlineExceeded } from '../../src/deadline';
import { GitReadError } from '../../src/git/types';
import { History } from '../../src/git/history/history';
import { isAncestor, mergeBase, mergeBases } from '../../src/git/history/merge-base';
import { newCommits } from '../../src/git/history/new-commits';
import { newCommitsOnServer } from '../../src/git/history/server-new-commits';
import { ShallowBoundaryError } from '../../src/git/history/shallow';
import { hashObject } from './helpers';
import { buildDag, writeGraph, type DagCommit } from './walk-dag';
import { cleanupTempDirs, git, GIT_ENV, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);
const never = Deadline.never();

function gitOut(repo: string, args: string[]): string {
  return execFileSync('git', args, { cwd: repo, env: GIT_ENV }).toString().trim();
}

test('equal-dated merge bases come out in git\'s order, which the commit-graph changes', async () => {
  // R; A(R); C1(R); C2(C1); B(C2); M1(A,B); M2(A,B), every commit at the same second: A and B
  // are both best bases. Without generation data git's queue is first-in first-out and finds A
  // first; with corrected commit dates B (the higher generation) comes first.
  const spec: DagCommit[] = [
    { back: [], dt: 0, ref: false },
    { back: [1], dt: 0, ref: false },
    { back: [2], dt: 0, ref: false },
    { back: [1], dt: 0, ref: false },
    { back: [1], dt: 0, ref: false },
    { back: [4, 1], dt: 0, ref: true },
    { back: [5, 2], dt: 0, ref: true },
  ];
  const dag = buildDag(spec, { allEqualDates: true });
  const [m1, m2] = [dag.commits[5]!, dag.commits[6]!];
  const printed = new Map<string, string>();
  for (const variant of ['none', 'full', 'v1', 'split', 'partial'] as const) {
    writeGraph(dag, variant);
    const store = await ObjectStore.discover(dag.repo);
    const history = new History(store);
    for (const [a, b] of [[m1, m2], [m2, m1]] as const) {
      const expected = gitOut(dag.repo, ['merge-base', a, b]);
      assert.is(await mergeBase(history, a, b, never), expected, `${variant}: merge-base ${a} ${b}`);
      assert.equal(await mergeBases(history, a, b, never), gitOut(dag.repo, ['merge-base', '--all', a, b]).split('\n'), `${variant}: --all`);
      printed.set(variant, expected);
    }
    store.close();
  }
  assert.is(printed.get('none'), dag.commits[1], 'without a graph git prints A');
  assert.is(printed.get('full'), dag.commits[4], 'with corrected commit dates git prints B');
});

test('a fast-forward dated days before its parent is a fast-forward, and its commits are new', async () => {
  // main at c0; 300 commits on top, each dated four days before its parent.
  const spec: DagCommit[] = [{ back: [], dt: 0, ref: true }];
  for (let i = 0; i < 300; i++) spec.push({ back: [1], dt: -4 * 86_400, ref: false });
  spec.push({ back: [1], dt: 7200, ref: true });
  for (const variant of ['none', 'full'] as const) {
    const dag = buildDag(spec);
    writeGraph(dag, variant);
    const store = await ObjectStore.discover(dag.repo);
    const history = new History(store);
    const [main, tip] = [dag.commits[0]!, dag.commits[dag.commits.length - 1]!];
    assert.is(await isAncestor(history, main, tip, never), true, variant);
    assert.is(await isAncestor(history, tip, main, never), false, variant);
    assert.is(await mergeBase(history, main, tip, never), main, variant);
    assert.equal((await newCommits(history, tip, [main], never)).sort(), dag.commits.slice(1).sort(), variant);
    assert.equal(await newCommits(history, main, [tip], never), [], variant);
    // A commit the tip's history holds, dated after everything: still not new.
    assert.equal(await newCommits(history, dag.commits[1]!, [tip], never), [], variant);
    store.close();
  }
});

function shallowClone(depth: number): { src: string; clone: string } {
  const src = initRepo();
  for (let i = 0; i < 8; i++) git(src, ['commit', '-q', '--allow-empty', '-m', `m${i}`]);
  git(src, ['checkout', '-q', '-b', 'topic', 'HEAD~5']);
  for (let i = 0; i < 2; i++) git(src, ['commit', '-q', '--allow-empty', '-m', `t${i}`]);
  git(src, ['checkout', '-q', 'main']);
  const clone = join(tempDir(), 'shallow');
  git(src, ['clone', '-q', '--no-single-branch', `--depth=${depth}`, `file://${src}`, clone]);
  return { src, clone };
}

test('shallow clones: answers within the clone are git\'s, answers beyond its boundary are refused', async () => {
  const { clone } = shallowClone(3);
  assert.ok(readFileSync(join(clone, '.git/shallow'), 'utf8').trim().length >= 40, 'the clone is shallow');
  const store = await ObjectStore.discover(clone);
  const history = new History(store);
  const main = gitOut(clone, ['rev-parse', 'origin/main']);
  const topic = gitOut(clone, ['rev-parse', 'origin/topic']);
  // Within the clone: main~1..main is one commit, main~2 an ancestor of main.
  assert.equal(await newCommits(history, main, [`${gitOut(clone, ['rev-parse', 'origin/main~1'])}`], never), [main]);
  assert.is(await isAncestor(history, gitOut(clone, ['rev-parse', 'origin/main~2']), main, never), true);
  // The fork point of topic lies beyond both boundaries.
  const err = await mergeBase(history, main, topic, never).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ShallowBoundaryError && err instanceof GitReadError, `merge base beyond the boundary is refused: ${String(err)}`);
  assert.match((err as Error).message, /fetch-depth: 0/);
  assert.match((err as Error).message, /git fetch --unshallow/);
  // Everything from topic down to its boundary, with nothing excluded: the boundary's parents
  // may be new too.
  const err2 = await newCommits(history, topic, [main], never).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err2 instanceof ShallowBoundaryError, `new commits past the boundary are refused: ${String(err2)}`);
  const err3 = await isAncestor(history, topic, main, never).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err3 instanceof ShallowBoundaryError, `a "no" past the boundary is refused: ${String(err3)}`);
  store.close();

  // Deepened until the fork point is in: git's answers.
  git(clone, ['fetch', '-q', '--deepen=10']);
  const deep = await ObjectStore.discover(clone);
  const deepHistory = new History(deep);
  assert.is(await mergeBase(deepHistory, main, topic, never), gitOut(clone, ['merge-base', main, topic]));
  assert.equal((await newCommits(deepHistory, topic, [main], never)).sort(), gitOut(clone, ['rev-list', topic, '--not', main]).split('\n').sort());
  deep.close();
});

test('a pushed commit whose parent is absent: new on the server, a boundary for newCommits', async () => {
  const repo = initRepo({ bare: true });
  const tree = hashObject(repo, 'tree', Buffer.alloc(0));
  const ghost = 'e'.repeat(40);
  const body = `tree ${tree}\nparent ${ghost}\nauthor A <a@example.com> 1800000000 +0000\ncommitter C <c@example.com> 1800000000 +0000\n\norphaned\n`;
  const c = hashObject(repo, 'commit', Buffer.from(body));
  const store = await ObjectStore.discover(repo);
  const history = new History(store);
  assert.equal(await newCommitsOnServer(history, c, [], never), [c]);
  const err = await newCommits(history, c, [], never).then(
    () => null,
    (e: unknown) => e,
  );
  assert.ok(err instanceof ShallowBoundaryError, String(err));
  assert.match((err as Error).message, new RegExp(`parent ${ghost} of commit ${c} is not in the repository`));
  store.close();
});

test('refs to blobs and trees among the excluded and existing tips are ignored, not errors', async () => {
  const dag = buildDag([{ back: [], dt: 0, ref: true }, { back: [1], dt: 60, ref: true }]);
  const blob = hashObject(dag.repo, 'blob', Buffer.from('a key\n'));
  const tag = hashObject(dag.repo, 'tag', Buffer.from(`object ${blob}\ntype blob\ntag key\ntagger T <t@example.com> 1800000000 +0000\n\nkey\n`));
  const tree = hashObject(dag.repo, 'tree', Buffer.alloc(0));
  git(dag.repo, ['update-ref', 'refs/tags/key', tag]);
  const store = await ObjectStore.discover(dag.repo);
  const history = new History(store);
  const [c0, c1] = dag.commits as [string, string];
  assert.equal(await newCommitsOnServer(history, c1, [tag, tree, blob, c0], never), [c1]);
  assert.equal(await newCommits(history, c1, [tag, tree, c0], never), [c1]);
  store.close();
});

test('every walk checks the deadline inside its loop', async () => {
  const spec: DagCommit[] = [{ back: [], dt: 0, ref: true }];
  for (let i = 0; i < 2000; i++) spec.push({ back: i % 7 === 3 ? [1, 5] : [1], dt: 60, ref: false });
  const dag = buildDag(spec);
  const [root, tip] = [dag.commits[0]!, dag.commits[dag.commits.length - 1]!];
  const store = await ObjectStore.discover(dag.repo);
  const history = new History(store);
  const runs: [string, (d: Deadline) => Promise<unknown>][] = [
    ['newCommits', (d) => newCommits(history, tip, ['1'.repeat(40)], d)],
    ['newCommitsOnServer', (d) => newCommitsOnServer(history, tip, [root], d)],
    ['isAncestor', (d) => isAncestor(history, dag.commits[1]!, tip, d)],
    ['mergeBases', (d) => mergeBases(history, tip, root, d)],
  ];
  for (const [name, run] of runs) {
    // A clock that moves 100 ms per reading (tick() reads it every 256 steps): a 500 ms
    // budget passes inside the walk, thousands of steps before it could end.
    let now = 0;
    const deadline = Deadline.after(500, () => (now += 100));
    const err = await run(deadline).then(
      () => null,
      (e: unknown) => e,
    );
    assert.ok(err instanceof DeadlineExceeded, `${name}: ${String(err)}`);
  }
  store.close();
});

test('newCommitsOnServer on a real push: commits that arrived earlier without a ref are new', async () => {
  // C1 edits, C2 reverts; both pushed to a branch that is then deleted, so the server holds them
  // unreferenced; then C2 is pushed to main: the quarantine brings nothing, C1 and C2 are new.
  const server = initRepo({ bare: true });
  const work = initRepo();
  git(work, ['commit', '-q', '--allow-empty', '-m', 'base']);
  git(work, ['push', '-q', server, 'main']);
  git(work, ['commit', '-q', '--allow-empty', '-m', 'C1']);
  git(work, ['commit', '-q', '--allow-empty', '-m', 'C2']);
  git(work, ['push', '-q', server, 'main:refs/heads/side']);
  git(work, ['push', '-q', server, ':refs/heads/side']);
  const [c1, c2] = [gitOut(work, ['rev-parse', 'HEAD~1']), gitOut(work, ['rev-parse', 'HEAD'])];
  const out = join(tempDir(), 'probe.json');
  const probe = join(__dirname, 'walk-server-probe.ts');
  const tsx = join(__dirname, '..', '..', 'node_modules', '.bin', 'tsx');
  const hook = join(server, 'hooks', 'pre-receive');
  writeFileSync(hook, `#!/bin/sh\nexec '${tsx}' '${probe}' '${out}'\n`, { mode: 0o755 });
  const r = spawnSync('git', ['push', '-q', server, 'main'], { cwd: work, env: GIT_ENV, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  const record = JSON.parse(readFileSync(out, 'utf8')) as { mine: string[]; git: string[]; quarantined: boolean[] };
  assert.equal(record.mine.sort(), [c1, c2].sort());
  assert.equal(record.git.sort(), [c1, c2].sort());
  assert.equal(record.quarantined, [false, false], 'the quarantine did not bring them');
});

test.run();
