// The engine itself, without the bundle or a CLI entry: real repositories built with the git
// CLI, the engine's own store, base rule and evaluate()/evaluateIndex() called directly. What
// each case expects is stated from the contract (docs/engine.md), never read off a run.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate, evaluateIndex } from '../../src/engine';
import { IndexSource } from '../../src/client/index-source';
import { ObjectStore } from '../../src/git/store';
import { indexChangesAgainstTree, readStagedIndex } from '../../src/git/staged-index';
import { resolveBase, type BaseChoice } from '../../src/run/base';
import type { RunSetup } from '../../src/run/context';
import { ZERO_OID } from '../../src/types';
import { commitAll, git, guardedRepo, initRepo, POLICY, writeFiles } from '../helpers/repo';
import { join } from 'node:path';

const TODAY = '2026-11-02';

async function setup(repo: string, identity: string | null, choice: BaseChoice = { kind: 'named', spec: 'main' }): Promise<RunSetup & { close(): void }> {
  const store = await ObjectStore.discover(repo, {});
  const base = await resolveBase(store, choice);
  return { store, base, identity, today: TODAY, scope: { kind: 'base', exclude: [] }, close: () => store.close() };
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

test.run();
