// Differential properties: random histories are built with real git (`git fast-import`:
// adds, deletes, edits, chmod, symlinks, gitlinks, file<->directory swaps, branches, merges,
// unrelated roots), then every answer of the store is compared with the git CLI's:
// touchedPaths vs `git diff-tree -r [-c]`, diffTrees vs `git diff-tree -r --name-status
// --no-renames`, newCommits vs `git rev-list`, mergeBase vs `git merge-base`, isAncestor vs
// `git merge-base --is-ancestor`. Seeds are fixed and recorded.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLOCK_SKEW_SECONDS } from '../../src/git/walk';
import { ObjectStore, diffTrees, isAncestor, mergeBase, mergeBases, newCommits, touchedPaths, type PathChange } from '../../src/git/index';
import { BASE_ENV, cleanup, commit, git, initRepo, tempDir } from './helpers';

const SEED = 20261129;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
const PATHS = ['a', 'b', 'a/b', 'd', 'd/x', 'd/y', 'd/e/z', 'e', 'e/f', 'g h', 'caf\u00e9'];
const CONTENTS = ['one\n', 'two\n', 'three\n', ''];
const BRANCHES = 3;

type Kind = 'file' | 'exec' | 'symlink' | 'gitlink';
type Edit = { op: 'write'; path: string; content: number; kind: Kind } | { op: 'delete'; path: string } | { op: 'chmod'; path: string };
/** dt: seconds between this commit's date and the previous one's: ties (0) and clock skew
 * (negative) are as common as ordinary steps, so walks cannot lean on dates being monotone. */
type Step = { op: 'commit'; branch: number; edits: Edit[]; dt: number } | { op: 'merge'; into: number; from: number; edits: Edit[]; dt: number } | { op: 'reset'; branch: number; to: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('write' as const), path: fc.constantFrom(...PATHS), content: fc.nat(CONTENTS.length - 1), kind: fc.constantFrom<Kind>('file', 'file', 'file', 'exec', 'symlink', 'gitlink') }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), path: fc.constantFrom(...PATHS) }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('chmod' as const), path: fc.constantFrom(...PATHS) }) },
);
const edits = fc.array(editArb, { minLength: 0, maxLength: 4 });
const branch = fc.nat(BRANCHES - 1);
const dt = fc.constantFrom(0, 0, 60, 60, 3600, -600, -CLOCK_SKEW_SECONDS);
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ op: fc.constant('commit' as const), branch, edits, dt }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('merge' as const), into: branch, from: branch, edits, dt }) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('reset' as const), branch, to: branch }) },
);
const historyArb = fc.array(stepArb, { minLength: 4, maxLength: 22 });

interface Entry {
  kind: Kind;
  data: string;
}

function applyEdit(tree: Map<string, Entry>, e: Edit): void {
  if (e.op === 'delete') {
    tree.delete(e.path);
    return;
  }
  if (e.op === 'chmod') {
    const cur = tree.get(e.path);
    if (cur && (cur.kind === 'file' || cur.kind === 'exec')) cur.kind = cur.kind === 'file' ? 'exec' : 'file';
    return;
  }
  for (const p of [...tree.keys()]) if (p.startsWith(e.path + '/') || e.path.startsWith(p + '/')) tree.delete(p);
  const data = e.kind === 'gitlink' ? String(e.content + 1).repeat(40).slice(0, 40) : e.kind === 'symlink' ? `target-${e.content}` : CONTENTS[e.content]!;
  tree.set(e.path, { kind: e.kind, data });
}

/** Builds the history with git fast-import; returns the repo and every commit oid. */
function build(steps: Step[]): { repo: string; commits: string[] } {
  const repo = initRepo();
  const heads: ({ mark: number; tree: Map<string, Entry> } | null)[] = Array(BRANCHES).fill(null);
  let stream = '';
  let mark = 0;
  let time = 1_800_000_000;
  let latest = time;
  const emit = (b: number, parents: number[], tree: Map<string, Entry>, dt: number) => {
    mark++;
    // Skewed, but never more than the walks' allowance below any earlier commit (ancestors are
    // always earlier in the stream).
    latest = Math.max(latest, time);
    time = Math.max(time + dt, latest - CLOCK_SKEW_SECONDS + 1);
    const lines = [`commit refs/heads/b${b}`, `mark :${mark}`, `committer C <c@example.com> ${time} +0000`, 'data 2', 'm'];
    if (parents[0]) lines.push(`from :${parents[0]}`);
    for (const p of parents.slice(1)) lines.push(`merge :${p}`);
    lines.push('deleteall');
    for (const [path, e] of [...tree].sort()) {
      if (e.kind === 'gitlink') {
        lines.push(`M 160000 ${e.data} "${path}"`);
      } else {
        const mode = e.kind === 'exec' ? '100755' : e.kind === 'symlink' ? '120000' : '100644';
        lines.push(`M ${mode} inline "${path}"`, `data ${Buffer.byteLength(e.data)}`, e.data);
      }
    }
    stream += lines.join('\n') + '\n\n';
    heads[b] = { mark, tree: new Map([...tree].map(([k, v]) => [k, { ...v }])) };
  };
  for (const step of steps) {
    if (step.op === 'commit') {
      const head = heads[step.branch];
      const tree = new Map([...(head?.tree ?? new Map<string, Entry>())].map(([k, v]) => [k, { ...v }]));
      for (const e of step.edits) applyEdit(tree, e);
      if (!head) stream += `reset refs/heads/b${step.branch}\n\n`;
      emit(step.branch, head ? [head.mark] : [], tree, step.dt);
    } else if (step.op === 'merge') {
      const into = heads[step.into];
      const from = heads[step.from];
      if (!into || !from || into.mark === from.mark) continue;
      const tree = new Map([...into.tree].map(([k, v]) => [k, { ...v }]));
      // Take the other side's version of some paths, then the step's own edits.
      for (const [p, e] of from.tree) if (p.length % 2 === 0) applyEdit(tree, { op: 'write', path: p, content: CONTENTS.indexOf(e.data) < 0 ? 0 : CONTENTS.indexOf(e.data), kind: e.kind });
      for (const e of step.edits) applyEdit(tree, e);
      emit(step.into, [into.mark, from.mark], tree, step.dt);
    } else {
      const to = heads[step.to];
      if (!to || step.branch === step.to) continue;
      stream += `reset refs/heads/b${step.branch}\nfrom :${to.mark}\n\n`;
      heads[step.branch] = { mark: to.mark, tree: new Map([...to.tree].map(([k, v]) => [k, { ...v }])) };
    }
  }
  if (mark === 0) return { repo, commits: [] };
  const marks = join(tempDir(), 'marks');
  git(repo, ['fast-import', '--quiet', `--export-marks=${marks}`], { input: stream });
  // Half of the histories are read from a pack (with deltas), half from loose objects.
  if (steps.length % 2 === 0) git(repo, ['repack', '-adq']);
  const commits = readFileSync(marks, 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' ')[1]!);
  return { repo, commits };
}

function gitZ(repo: string, args: string[]): string[] {
  const out = execFileSync('git', args, { cwd: repo, env: BASE_ENV }).toString('utf8');
  return out.split('\0').filter((s) => s !== '');
}

/** git's --name-status letters for our changes. */
function statusOf(c: PathChange): string {
  switch (c.change) {
    case 'add':
      return 'A';
    case 'delete':
      return 'D';
    case 'modify':
    case 'mode':
      return 'M';
    case 'type':
      return c.before?.kind === 'tree' ? 'A' : c.after?.kind === 'tree' ? 'D' : 'T';
  }
}

function nameStatus(repo: string, args: string[]): string[] {
  const items = gitZ(repo, ['diff-tree', '-r', '--no-renames', '--name-status', '-z', ...args]);
  const out: string[] = [];
  for (let i = 0; i < items.length; i += 2) out.push(`${items[i]}\t${items[i + 1]}`);
  return out.sort();
}

const mine = (changes: PathChange[]) => changes.map((c) => `${statusOf(c)}\t${c.path}`).sort();

test.after(cleanup);

test('touchedPaths and diffTrees agree with git diff-tree on random histories', async () => {
  let checkedMerges = 0;
  let checkedSwaps = 0;
  await fc.assert(
    fc.asyncProperty(historyArb, fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 3, maxLength: 3 }), async (steps, pairs) => {
      const { repo, commits } = build(steps);
      if (commits.length === 0) return;
      const store = await ObjectStore.discover(repo);
      for (const c of commits) {
        const parents = (await store.readCommit(c)).parents;
        const touched = await touchedPaths(store, c);
        if (parents.length > 1) {
          checkedMerges++;
          const expected = gitZ(repo, ['diff-tree', '-r', '-c', '--no-commit-id', '--name-only', '-z', c]).sort();
          assert.equal([...new Set(touched.map((t) => t.path))].sort(), expected, `merge ${c}`);
        } else {
          assert.equal(mine(touched), nameStatus(repo, ['--root', '--no-commit-id', c]), `commit ${c}`);
          if (touched.some((t) => t.change === 'type' && (t.before?.kind === 'tree' || t.after?.kind === 'tree'))) checkedSwaps++;
        }
      }
      // listFiles and entryAt against git ls-tree, on the last commit.
      const last = commits[commits.length - 1]!;
      const lastTree = (await store.readCommit(last)).tree;
      for (const dir of ['', 'd', 'e', 'a']) {
        const expected = gitZ(repo, ['ls-tree', '-r', '-z', last, '--', ...(dir ? [`${dir}/`] : [])])
          .map((l) => {
            const [meta, path] = l.split('\t');
            const [mode, , oid] = meta!.split(' ');
            return { line: `${mode} ${oid} ${path}`, path: path! };
          })
          .filter((e) => dir === '' || e.path.startsWith(`${dir}/`)) // `ls-tree -- a/` also lists a gitlink `a`
          .map((e) => e.line)
          .sort();
        const got = (await store.listFiles(lastTree, dir)).map((f) => `${f.entry.mode} ${f.entry.oid} ${f.path}`).sort();
        assert.equal(got, expected, `listFiles ${last} ${dir}`);
      }
      for (const p of [...PATHS, 'd/e', 'nope', 'a/b/c']) {
        const line = gitZ(repo, ['ls-tree', '-z', last, '--', p])[0];
        const entry = await store.entryAt(lastTree, p);
        if (!line || !line.endsWith(`\t${p}`)) assert.is(entry, null, `entryAt ${p}`);
        else assert.is(`${entry?.mode.padStart(6, '0')} ${entry?.oid}`, `${line.split(' ')[0]} ${line.split(' ')[2]!.split('\t')[0]}`, `entryAt ${p}`);
      }
      for (const [i, j] of pairs) {
        const a = commits[i % commits.length]!;
        const b = commits[j % commits.length]!;
        assert.equal(mine(await diffTrees(store, a, b)), nameStatus(repo, [a, b]), `diff ${a} ${b}`);
        const ta = git(repo, ['rev-parse', `${a}^{tree}`]).trim();
        assert.equal(mine(await diffTrees(store, null, ta)), nameStatus(repo, [EMPTY_TREE, ta]), `diff empty ${ta}`);
        assert.equal(mine(await diffTrees(store, ta, null)), nameStatus(repo, [ta, EMPTY_TREE]), `diff ${ta} empty`);
      }
      store.close();
    }),
    { seed: SEED, numRuns: 30 },
  );
  assert.ok(checkedMerges > 10, `merges were exercised (${checkedMerges})`);
  assert.ok(checkedSwaps > 3, `file<->directory swaps were exercised (${checkedSwaps})`);
});

/** Every commit's ancestors (itself included), from the parent lists git prints. */
function ancestry(repo: string, commits: string[]): Map<string, Set<string>> {
  const parents = new Map<string, string[]>();
  for (const line of git(repo, ['rev-list', '--no-walk=unsorted', '--parents', ...commits]).trim().split('\n')) {
    const [c, ...ps] = line.split(' ');
    parents.set(c!, ps);
  }
  const memo = new Map<string, Set<string>>();
  const anc = (c: string): Set<string> => {
    let s = memo.get(c);
    if (!s) {
      s = new Set([c]);
      for (const p of parents.get(c) ?? []) for (const x of anc(p)) s.add(x);
      memo.set(c, s);
    }
    return s;
  };
  for (const c of commits) anc(c);
  return memo;
}

test('newCommits, mergeBase and isAncestor agree with git rev-list on histories with skewed clocks', async () => {
  let nonEmptyRanges = 0;
  let unrelated = 0;
  await fc.assert(
    fc.asyncProperty(historyArb, fc.array(fc.tuple(fc.nat(), fc.array(fc.nat(), { maxLength: 3 })), { minLength: 4, maxLength: 4 }), async (steps, queries) => {
      const { repo, commits } = build(steps);
      if (commits.length === 0) return;
      const store = await ObjectStore.discover(repo);
      const anc = ancestry(repo, commits);
      for (const [t, ex] of queries) {
        const tip = commits[t % commits.length]!;
        const exclude = ex.map((e) => commits[e % commits.length]!);
        // Exact oracle: everything git lists from tip, minus everything it lists from exclude
        // (two full walks; git's own `--not` walk is itself date-based).
        const fromTip = git(repo, ['rev-list', tip, '--']).split('\n').filter(Boolean);
        const hidden = new Set(exclude.length ? git(repo, ['rev-list', ...exclude, '--']).split('\n').filter(Boolean) : []);
        const expected = fromTip.filter((c) => !hidden.has(c)).sort();
        const got = await newCommits(store, tip, exclude);
        assert.equal([...got].sort(), expected, `rev-list ${tip} --not ${exclude.join(' ')}`);
        assert.is(new Set(got).size, got.length, 'no duplicates');
        if (expected.length > 0 && hidden.size > 0) nonEmptyRanges++;
        const other = exclude[0] ?? commits[0]!;
        // Best common ancestors: common ancestors that are not ancestors of another one.
        const common = [...anc.get(tip)!].filter((c) => anc.get(other)!.has(c));
        const best = common.filter((c) => !common.some((d) => d !== c && anc.get(d)!.has(c)));
        if (best.length === 0) unrelated++;
        const base = await mergeBase(store, tip, other);
        if (best.length === 0) assert.is(base, null, `no merge base of ${tip} ${other}`);
        else assert.ok(base !== null && best.includes(base), `merge-base ${tip} ${other}: ${base} not in ${best}`);
        if (best.length === 1) assert.is(base, git(repo, ['merge-base', tip, other]).trim());
        assert.is(await isAncestor(store, other, tip), anc.get(tip)!.has(other), `is-ancestor ${other} ${tip}`);
      }
      store.close();
    }),
    { seed: SEED, numRuns: 40 },
  );
  assert.ok(nonEmptyRanges > 30, `non-empty ranges were exercised (${nonEmptyRanges})`);
  assert.ok(unrelated > 0, `unrelated histories were exercised (${unrelated})`);
});

test('a shallow clone: the missing parent is a boundary, as for git', async () => {
  const src = initRepo();
  for (let i = 0; i < 6; i++) {
    git(src, ['commit', '-q', '--allow-empty', '-m', `c${i}`]);
    commit(src, { [`f${i % 2}`]: `${i}\n` }, `f${i}`);
  }
  const shallow = join(tempDir(), 'shallow');
  git(src, ['clone', '-q', '--depth', '3', `file://${src}`, shallow]);
  assert.ok(readFileSync(join(shallow, '.git/shallow'), 'utf8').trim().length === 40, 'the clone is shallow');
  const store = await ObjectStore.discover(shallow);
  const head = git(shallow, ['rev-parse', 'HEAD']).trim();
  const expected = git(shallow, ['rev-list', 'HEAD']).trim().split('\n');
  assert.is(expected.length, 3);
  assert.equal(await newCommits(store, head, []), expected);
  const boundary = expected[2]!;
  assert.equal(mine(await touchedPaths(store, boundary)), nameStatus(shallow, ['--root', '--no-commit-id', boundary]));
  assert.is(await isAncestor(store, boundary, head), true);
  assert.is(await mergeBase(store, boundary, head), boundary);
});

test('criss-cross merges: mergeBase picks the base git merge-base picks, among both', async () => {
  const steps: Step[] = [
    { op: 'commit', branch: 0, edits: [{ op: 'write', path: 'a', content: 0, kind: 'file' }], dt: 60 },
    { op: 'reset', branch: 1, to: 0 },
    { op: 'commit', branch: 0, edits: [{ op: 'write', path: 'b', content: 1, kind: 'file' }], dt: 60 },
    { op: 'commit', branch: 1, edits: [{ op: 'write', path: 'd', content: 2, kind: 'file' }], dt: 60 },
    { op: 'reset', branch: 2, to: 0 },
    { op: 'merge', into: 0, from: 1, edits: [], dt: 60 },
    { op: 'merge', into: 1, from: 2, edits: [{ op: 'write', path: 'e', content: 1, kind: 'exec' }], dt: 60 },
  ];
  const { repo } = build(steps);
  const store = await ObjectStore.discover(repo);
  const [m1, m2] = [git(repo, ['rev-parse', 'b0']).trim(), git(repo, ['rev-parse', 'b1']).trim()];
  const all = git(repo, ['merge-base', '--all', m1, m2]).trim().split('\n').sort();
  assert.is(all.length, 2, 'a criss-cross has two best bases');
  assert.equal((await mergeBases(store, m1, m2)).sort(), all);
  assert.is(await mergeBase(store, m1, m2), git(repo, ['merge-base', m1, m2]).trim());
  assert.is(await mergeBase(store, m2, m1), git(repo, ['merge-base', m2, m1]).trim());
});

test.run();
