// The protected-path rule as a pure function over path changes: globs, exceptions, the paths
// that can never be excepted, case and Unicode folding, owners, unsafe entries. The matching
// itself is src/protection.ts (more of it in test/paths/protection.test.ts).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { protectedPathFindings as findingsFor } from '../../src/rules/protected-paths';
import { createRunContext } from '../../src/run/context';
import { identityFromEnv, isOwner } from '../../src/run/identity';
import { History } from '../../src/git/history/history';
import type { ObjectStore } from '../../src/git/store';
import { compileProtection as protectionRules } from '../../src/protection';
import type { PathChange } from '../../src/git/types';
import { parsePolicy } from '../../src/evidence/policy';
import type { Policy } from '../../src/evidence/types';
import { POLICY } from '../helpers/repo';

function policy(overrides: Record<string, unknown> = {}): Policy {
  const parsed = parsePolicy(Buffer.from(JSON.stringify({ ...POLICY, ...overrides })));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.findings));
  return parsed.policy;
}

/** The rule with a run context for `p` and `identity` (no repository is read). */
function protectedPathFindings(p: Policy, identity: string | null, changes: PathChange[], at: { ref?: string; commit?: string }) {
  const base = { name: 'main', policyCommit: null, tip: null, branchRef: 'refs/heads/main', policy: p, findings: [], policyOid: null };
  const ctx = createRunContext({ store: {} as ObjectStore, history: new History({} as ObjectStore), base, identity, today: '2026-12-01', scope: { kind: 'base', exclude: [] } }, p);
  return findingsFor(ctx, changes, at);
}

function change(path: string, unsafe = false): PathChange {
  return { path, change: 'modify', before: { mode: '100644', kind: 'file', oid: 'a'.repeat(40) }, after: { mode: '100644', kind: 'file', oid: 'b'.repeat(40) }, unsafe };
}

test('globs protect folders and files; other paths are free', () => {
  const rules = protectionRules(policy());
  for (const p of ['fixtures/a.json', 'fixtures/deep/x/y', 'freeze.json', 'checks/manifest.json', '.husky/pre-commit', 'src/.gitattributes', '.gitattributes', '.receipt-gate.json']) {
    assert.ok(rules.isProtected(p), p);
  }
  for (const p of ['src/a.ts', 'README.md', 'freeze.json.bak', 'fixturesx/a', 'docs/fixtures.md']) {
    assert.not.ok(rules.isProtected(p), p);
  }
});

test('exceptions open a path inside a protected folder but never the policy, pin, manifest or freeze file', () => {
  const rules = protectionRules(policy({ exceptions: ['fixtures/**/*.md', 'fixtures/EPOCH', 'freeze.json', '.receipt-gate.json', 'checks/**'] }));
  assert.not.ok(rules.isProtected('fixtures/notes/README.md'));
  assert.ok(rules.isProtected('fixtures/EPOCH'));
  assert.ok(rules.isProtected('freeze.json'));
  assert.ok(rules.isProtected('.receipt-gate.json'));
  assert.ok(rules.isProtected('checks/manifest.json'));
  assert.not.ok(rules.isProtected('checks/other.txt'));
});

test('the policy file is protected even when `protected` is empty', () => {
  const rules = protectionRules(policy({ protected: [] }));
  assert.ok(rules.isProtected('.receipt-gate.json'));
  assert.ok(rules.isProtected('.Receipt-Gate.JSON'));
});

test('matching folds case and Unicode normal forms', () => {
  const rules = protectionRules(policy({ protected: ['donn\u00e9es/**'] }));
  assert.ok(rules.isProtected('donne\u0301es/x.csv'));
  assert.ok(rules.isProtected('DONN\u00c9ES/x.csv'));
  assert.ok(rules.isProtected('FIXTURES/a') === false); // not in this policy's list
  const def = protectionRules(policy());
  assert.ok(def.isProtected('FIXTURES/a'));
  assert.ok(def.isProtected('Freeze.JSON'));
});

test('owners may change protected paths; nobody and look-alike names may not', () => {
  const p = policy();
  const changes = [change('fixtures/a.json'), change('src/x.ts')];
  assert.is(protectedPathFindings(p, 'alice', changes, {}).length, 0);
  for (const who of [null, 'mallory', 'Alice', 'alice ']) {
    const found = protectedPathFindings(p, who, changes, { ref: 'refs/heads/x', commit: 'c'.repeat(40) });
    assert.is(found.length, 1, String(who));
    assert.is(found[0]!.code, 'PATH_PROTECTED');
    assert.is(found[0]!.path, 'fixtures/a.json');
    assert.is(found[0]!.ref, 'refs/heads/x');
    assert.match(found[0]!.fix, /alice, release-bot/);
  }
  assert.ok(isOwner(p, 'release-bot'));
  assert.not.ok(isOwner(p, null));
});

test('unsafe entries close for every pusher, owners included; deleting one is allowed', () => {
  const p = policy();
  const found = protectedPathFindings(p, 'alice', [change('a/.git/hooks/post-checkout', true)], {});
  assert.equal(found.map((f) => f.code), ['PATH_UNSAFE']);
  const removal: PathChange = { path: 'a/.git/x', change: 'delete', before: { mode: '100644', kind: 'file', oid: 'a'.repeat(40) }, unsafe: true };
  assert.equal(protectedPathFindings(p, 'alice', [removal], {}), []);
});

test('identity is the first set, non-empty identity variable; author fields are not read', () => {
  const p = policy();
  assert.is(identityFromEnv(p, { GL_USERNAME: '', GITEA_PUSHER_NAME: 'bob', REMOTE_USER: 'carol' }), 'bob');
  assert.is(identityFromEnv(p, { GIT_AUTHOR_NAME: 'alice' }), null);
  assert.is(identityFromEnv(p, {}), null);
});

test.run();
