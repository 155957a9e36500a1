// Differential properties: random histories are built with real git (`git fast-import`:
// adds, deletes, edits, chmod, symlinks, gitlinks, file<->directory swaps, branches, merges,
// unrelated roots), then every answer of the store is compared with the git CLI's:
// touchedPaths vs `git diff-tree -r [-c]`, diffTrees vs `git diff-tree -r --name-status
// --no-renames`. Seeds are fixed and recorded. (The commit walks have their own differential
// tests: walk-*.test.ts.)

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ObjectStore, diffTrees, touchedPaths, type PathChange } from '../../src/git/index';
import { cleanupTempDirs, git, GIT_ENV, initRepo, tempDir } from '../helpers/git';

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
const dt = fc.constantFrom(0, 0, 60, 60, 3600, -600, -4 * 86_400);
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
  const emit = (b: number, parents: number[], tree: Map<string, Entry>, dt: number) => {
    mark++;
    time += dt;
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
  const out = execFileSync('git', args, { cwd: repo, env: GIT_ENV }).toString('utf8');
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

test.after(cleanupTempDirs);

test('touchedPaths and diffTrees agree with git diff-tree on random histories', async () => {
  let checkedMerges = 0;
  let checkedSwaps = 0;
  await fc.assert(
    fc.asyncProperty(historyArb, fc.array(fc.tuple(fc.nat(), fc.nat()), { minLength: 3, maxLength: 3 }), async (steps, pairs) => {
      const { repo, commits } = build(steps);
      if (commits.length === 0) return;
      const store = await ObjectStore.discover(repo);
      for (const c of commits) {
        const parents = (await store.commits.read(c)).parents;
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
      // The same diffs asked newest first (as the engine asks a push's commits: a tree already
      // split is then the new side, and the old side is split from it), in a store of its own.
      const backward = await ObjectStore.discover(repo);
      for (const c of [...commits].reverse()) {
        if ((await backward.commits.read(c)).parents.length > 1) continue;
        assert.equal(mine(await touchedPaths(backward, c)), nameStatus(repo, ['--root', '--no-commit-id', c]), `commit ${c}, newest first`);
      }
      // listFiles and entryAt against git ls-tree, on the last commit.
      const last = commits[commits.length - 1]!;
      const lastTree = (await store.commits.read(last)).tree;
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
        const got = (await store.trees.listFiles(lastTree, dir)).map((f) => `${f.entry.mode} ${f.entry.oid} ${f.path}`).sort();
        assert.equal(got, expected, `listFiles ${last} ${dir}`);
      }
      // entryAt keeps its answers per store: every path of every commit's tree, asked twice, in
      // two orders (a file before its folder, then a folder before its files), each time as git
      // ls-tree answers for that commit.
      const queries = [...PATHS, 'd/e', 'nope', 'a/b/c', 'd/e/z/w'];
      const listed = new Map(
        commits.map((c) => [c, new Map(gitZ(repo, ['ls-tree', '-r', '-t', '-z', c]).map((l) => [l.slice(l.indexOf('\t') + 1), l.slice(0, l.indexOf('\t'))]))]),
      );
      for (const order of [[...queries].reverse(), queries]) {
        for (const c of commits) {
          const tree = (await store.commits.read(c)).tree;
          for (const p of order) {
            const meta = listed.get(c)!.get(p);
            const entry = await store.trees.entryAt(tree, p);
            if (meta === undefined) assert.is(entry, null, `entryAt ${c} ${p}`);
            else assert.is(`${entry?.mode.padStart(6, '0')} ${entry?.oid}`, `${meta.split(' ')[0]} ${meta.split(' ')[2]}`, `entryAt ${c} ${p}`);
          }
        }
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

test.run();
