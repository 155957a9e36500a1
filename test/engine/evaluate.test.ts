// The engine itself, without the bundle or a CLI entry: real repositories built with the git
// CLI, the engine's own store, base rule and evaluate()/evaluateIndex() called directly. What
// each case expects is stated from the contract (docs/engine.md), never read off a run.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, evaluateIndex } from '../../src/engine';
import { IndexSource } from '../../src/client/index-source';
import { History } from '../../src/git/history/history';
import { ObjectStore } from '../../src/git/store';
import { indexChangesAgainstTree, readStagedIndex } from '../../src/git/staged-index';
import { resolveBase, type BaseChoice } from '../../src/run/base';
import type { RunSetup } from '../../src/run/context';
import { ZERO_OID } from '../../src/types';
import { guardedRepo, POLICY } from '../helpers/repo';
import { join } from 'node:path';
import { commitAll, git, initRepo, writeFiles } from '../helpers/git';

const TODAY = '2026-11-02';

async function setup(repo: string, identity: string | null, choice: BaseChoice = { kind: 'named', spec: 'main' }): Promise<RunSetup & { close(): void }> {
  const store = await ObjectStore.discover(repo, {});
  const base = await resolveBase(store, choice);
  return { store, history: new History(store), base, identity, today: TODAY, scope: { kind: 'base', exclude: [] }, close: () => store.close() };
}

function rev(repo: string, spec: string): string {
  return git(repo, ['rev-parse', spec]).trim();
}

/** A branch off main with one commit writing `files`. */
function branch(repo: string, name: string, files: Record<string, string>): string {
  git(repo, ['checkout', '-q', '-b', name, 'main']);
  writeFiles(repo, files);
  const tip = commitAll(repo, `${name}: change`);
  git(repo, ['checkout', '-q', 'main']);
  return tip;
}

const codesOf = (findings: { code: string; severity: string }[], severity = 'closed') =>
  findings.filter((f) => f.severity === severity).map((f) => f.code).sort();

test('an honest change to production code is eligible, a fixture edit by nobody is closed naming the path', async () => {
  const repo = guardedRepo();
  const honest = branch(repo, 'honest', { 'src/alloc.py': 'def allocate(total, weights):\n    return [total, 0]\n' });
  const fixture = branch(repo, 'fixture', { 'fixtures/orders/base.json': '{"orders": [9]}\n' });
  const s = await setup(repo, null);
  try {
    const result = await evaluate(s, [
      { old: ZERO_OID, new: honest, ref: 'refs/heads/honest' },
      { old: ZERO_OID, new: fixture, ref: 'refs/heads/fixture' },
    ]);
    assert.is(result.refs[0]!.verdict, 'eligible');
    assert.equal(result.refs[0]!.newCommits, [honest]);
    assert.is(result.refs[1]!.verdict, 'closed');
    const f = result.refs[1]!.findings.find((x) => x.code === 'PATH_PROTECTED');
    assert.ok(f, JSON.stringify(result.refs[1]!.findings));
    assert.is(f!.path, 'fixtures/orders/base.json');
    assert.is(f!.commit, fixture);
    assert.is(result.verdict, 'closed');
  } finally {
    s.close();
  }
});

test('an owner may change a fixture; the identity is matched exactly', async () => {
  const repo = guardedRepo();
  const fixture = branch(repo, 'fixture', { 'fixtures/orders/base.json': '{"orders": [9]}\n' });
  for (const [identity, verdict] of [['alice', 'eligible'], ['Alice', 'closed'], [null, 'closed']] as const) {
    const s = await setup(repo, identity);
    try {
      const result = await evaluate(s, [{ old: ZERO_OID, new: fixture, ref: 'refs/heads/fixture' }]);
      assert.is(result.verdict, verdict, String(identity));
    } finally {
      s.close();
    }
  }
});

test('deleting or rewinding a protected ref is REF_PROTECTED for a non-owner, allowed for an owner', async () => {
  const repo = guardedRepo();
  const first = rev(repo, 'main');
  writeFiles(repo, { 'src/alloc.py': 'x = 1\n' });
  const second = commitAll(repo, 'second');
  for (const [identity, expected] of [[null, ['REF_PROTECTED']], ['alice', []]] as const) {
    const s = await setup(repo, identity, { kind: 'named', spec: first });
    try {
      const deletion = await evaluate(s, [{ old: second, new: ZERO_OID, ref: 'refs/heads/main' }]);
      assert.equal(codesOf(deletion.findings), expected, `delete as ${identity}`);
      const rewind = await evaluate(s, [{ old: second, new: first, ref: 'refs/heads/main' }]);
      assert.equal(codesOf(rewind.findings), expected, `rewind as ${identity}`);
    } finally {
      s.close();
    }
  }
});

test('a broken policy at the base closes every update; no policy at the base is unguarded', async () => {
  const broken = guardedRepo({ '.receipt-gate.json': '{"version": 1, "baseBranch": 7}\n' });
  const tip = branch(broken, 'work', { 'src/a.py': 'a = 1\n' });
  let s = await setup(broken, 'alice');
  try {
    const result = await evaluate(s, [{ old: ZERO_OID, new: tip, ref: 'refs/heads/work' }]);
    assert.is(result.verdict, 'closed');
    assert.equal(codesOf(result.findings), ['POLICY_INVALID']);
  } finally {
    s.close();
  }

  const plain = initRepo();
  writeFiles(plain, { 'README.md': 'hello\n' });
  commitAll(plain, 'init');
  const work = branch(plain, 'work', { 'src/a.py': 'a = 1\n' });
  s = await setup(plain, null);
  try {
    const result = await evaluate(s, [{ old: ZERO_OID, new: work, ref: 'refs/heads/work' }]);
    assert.is(result.unguarded, true);
    assert.is(result.verdict, 'eligible');
  } finally {
    s.close();
  }
});

test('the staged index is judged by the same rules: protected paths, the policy it would leave, evidence', async () => {
  const repo = guardedRepo();
  const head = rev(repo, 'main');
  const judgeStaged = async (identity: string | null) => {
    const s = await setup(repo, identity);
    try {
      const index = await readStagedIndex(join(repo, '.git', 'index'));
      const headTree = (await s.store.commits.read(head)).tree;
      return await evaluateIndex(s, {
        ref: 'refs/heads/main',
        head,
        changes: await indexChangesAgainstTree(s.store, headTree, index),
        staged: new IndexSource(s.store, index.entries),
        stagedPolicyOid: index.entries.find((e) => e.path === '.receipt-gate.json')?.oid ?? null,
        findings: [],
      });
    } finally {
      s.close();
    }
  };

  writeFiles(repo, { 'src/alloc.py': 'y = 2\n' });
  git(repo, ['add', '-A']);
  assert.is((await judgeStaged(null)).verdict, 'eligible');

  writeFiles(repo, { 'fixtures/orders/base.json': '{"orders": [1]}\n' });
  git(repo, ['add', '-A']);
  const staged = await judgeStaged(null);
  assert.equal(codesOf(staged.findings), ['PATH_PROTECTED']);
  assert.is(staged.refs[0]!.isProtectedRef, true);
  assert.is((await judgeStaged('alice')).verdict, 'eligible');

  // An owner's staged policy must still be valid, and evidence is checked on the staged tree.
  writeFiles(repo, { '.receipt-gate.json': `${JSON.stringify({ ...POLICY, protectedRefs: 'main' })}\n`, 'fixtures/EPOCH': '{}\n' });
  git(repo, ['add', '-A']);
  const owner = await judgeStaged('alice');
  assert.ok(codesOf(owner.findings).includes('POLICY_INVALID'), JSON.stringify(owner.findings));
  assert.ok(codesOf(owner.findings).includes('EPOCH_INVALID'), JSON.stringify(owner.findings));
});

// The steps of judgeRef, one by one: what each decides, through evaluate() on real repositories.

test('an update through a symbolic ref is judged as the ref it names (startJudgement)', async () => {
  const repo = guardedRepo();
  const first = rev(repo, 'main');
  writeFiles(repo, { 'src/alloc.py': 'x = 1\n' });
  const second = commitAll(repo, 'second');
  git(repo, ['symbolic-ref', 'refs/heads/alias', 'refs/heads/main']);
  git(repo, ['branch', 'plain', second]);
  const s = await setup(repo, null, { kind: 'named', spec: first });
  try {
    // refs/heads/alias names main, a protected ref: rewinding it is rewinding main.
    const alias = await evaluate(s, [{ old: second, new: first, ref: 'refs/heads/alias' }]);
    assert.equal(codesOf(alias.findings), ['REF_PROTECTED'], JSON.stringify(alias.findings));
    assert.is(alias.refs[0]!.update.ref, 'refs/heads/alias', 'the result carries the name that was pushed');
    assert.is(alias.refs[0]!.isProtectedRef, true);
    // The same rewind of a branch that is no alias is nobody's business.
    const plain = await evaluate(s, [{ old: second, new: first, ref: 'refs/heads/plain' }]);
    assert.equal(codesOf(plain.findings), []);
    assert.is(plain.refs[0]!.isProtectedRef, false);
  } finally {
    s.close();
  }
});

test('a ref naming a tree or a blob brings no commit: info on a branch, REF_PROTECTED on a protected ref (peelNew)', async () => {
  const repo = guardedRepo();
  const tip = rev(repo, 'main');
  const tree = rev(repo, 'main^{tree}');
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'not a commit\n' }).trim();
  for (const identity of [null, 'alice']) {
    const s = await setup(repo, identity);
    try {
      const result = await evaluate(s, [
        { old: ZERO_OID, new: tree, ref: 'refs/heads/tree-ref' },
        { old: ZERO_OID, new: blob, ref: 'refs/tags/blob-ref' },
        { old: tip, new: tree, ref: 'refs/heads/main' },
      ]);
      const [treeRef, blobRef, main] = result.refs;
      assert.equal(codesOf(treeRef!.findings, 'info'), ['REF_NO_COMMIT'], String(identity));
      assert.equal(treeRef!.newCommits, []);
      assert.equal(codesOf(blobRef!.findings, 'info'), ['REF_NO_COMMIT'], String(identity));
      assert.is(blobRef!.verdict, 'eligible');
      // main is protected: a non-owner may not point it at a tree; an owner is told it brings no commit.
      if (identity === null) assert.equal(codesOf(main!.findings), ['REF_PROTECTED']);
      else assert.equal([codesOf(main!.findings), codesOf(main!.findings, 'info')], [[], ['REF_NO_COMMIT']]);
    } finally {
      s.close();
    }
  }
});

test('a path two new commits touch is reported once, with the commit that touched it first (judgeHistory)', async () => {
  const repo = guardedRepo();
  git(repo, ['checkout', '-q', '-b', 'twice', 'main']);
  writeFiles(repo, { 'fixtures/orders/base.json': '{"orders": [1]}\n' });
  const firstTouch = commitAll(repo, 'first touch');
  writeFiles(repo, { 'src/alloc.py': 'x = 2\n' });
  const between = commitAll(repo, 'code only');
  writeFiles(repo, { 'fixtures/orders/base.json': '{"orders": [2]}\n' });
  const secondTouch = commitAll(repo, 'second touch');
  git(repo, ['checkout', '-q', 'main']);
  const s = await setup(repo, null);
  try {
    const result = await evaluate(s, [{ old: ZERO_OID, new: secondTouch, ref: 'refs/heads/twice' }]);
    assert.equal([...result.refs[0]!.newCommits].sort(), [firstTouch, between, secondTouch].sort());
    const paths = result.findings.filter((f) => f.code === 'PATH_PROTECTED');
    assert.equal(paths.map((f) => [f.path, f.commit]), [['fixtures/orders/base.json', firstTouch]]);
  } finally {
    s.close();
  }
});

test("a branch's net change is taken from its merge-base with the base, not from the base's tip (judgeNetChange)", async () => {
  const repo = guardedRepo();
  const forkPoint = rev(repo, 'main');
  // Since the branch left, an owner added a protected file on main.
  writeFiles(repo, { 'fixtures/notes.txt': 'kept by the owners\n' });
  commitAll(repo, 'owners: notes');
  git(repo, ['checkout', '-q', '-b', 'late', forkPoint]);
  writeFiles(repo, { 'src/alloc.py': 'x = 3\n' });
  const late = commitAll(repo, 'late: change');
  git(repo, ['checkout', '-q', 'main']);
  const s = await setup(repo, null);
  try {
    // Against main's tip the branch would "delete" fixtures/notes.txt; from the merge-base it
    // changes src/alloc.py only.
    const branchResult = await evaluate(s, [{ old: ZERO_OID, new: late, ref: 'refs/heads/late' }]);
    assert.equal(codesOf(branchResult.findings), [], JSON.stringify(branchResult.findings));
    // Pushed onto main itself (a protected ref, old = main's tip), the net change is old -> new:
    // the owners' file goes, and that is a protected path (besides the rewind).
    const onMain = await evaluate(s, [{ old: rev(repo, 'main'), new: late, ref: 'refs/heads/main' }]);
    const removed = onMain.findings.find((f) => f.code === 'PATH_PROTECTED');
    assert.ok(removed, JSON.stringify(onMain.findings));
    assert.is(removed!.path, 'fixtures/notes.txt');
    assert.is(removed!.commit, late);
  } finally {
    s.close();
  }
});

test.run();
