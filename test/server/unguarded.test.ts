// A repository whose default branch has no policy yet: pushes are accepted with one notice
// line, but a push that adds a policy must add a valid one.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, commitAll, guardedRemote, machine, makeTemplate, push, refOid, write, POLICY, type Remote } from './helpers';
import { gitValue } from '../helpers/git';

let template: Remote;
let r: Remote;
test.before(() => {
  template = makeTemplate({ evidence: false });
});
test.after(() => cleanup(template?.root));
test.before.each(() => {
  r = guardedRemote(template, 'unguarded');
});
test.after.each(() => cleanup(r?.root));

test('an unguarded repository accepts a push with exactly one notice line', () => {
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/x', 'main']);
  write(r.work, 'fixtures/anything.json', '{}\n');
  const head = commitAll(r.work, 'x');
  const result = push(r.work, ['origin', 'feature/x'], { REMOTE_USER: 'bob' });
  assert.is(result.status, 0, result.stderr);
  const ours = result.remote.filter((l) => l.includes('receipt-gate'));
  assert.is(ours.length, 1, result.stderr);
  assert.match(ours[0]!, /unguarded .*push accepted without checks/);
  assert.match(ours[0]!, /no \.receipt-gate\.json on main, the branch HEAD names/);
  assert.is(refOid(r.bare, 'refs/heads/feature/x'), head);
});

test('a push that adds an invalid policy is rejected with POLICY_INVALID', () => {
  write(r.work, '.receipt-gate.json', '{"version": 1, "owners": "alice"}\n');
  commitAll(r.work, 'guard it, badly');
  const result = push(r.work, ['origin', 'main'], { REMOTE_USER: 'alice' });
  assert.is.not(result.status, 0, result.stderr);
  const m = machine(result);
  assert.ok(m.findings.some((f) => f.code === 'POLICY_INVALID' && f.path === '.receipt-gate.json'), result.stderr);
});

test('a push that adds a valid policy is accepted, and from then on the repository is guarded', () => {
  const minimal = { version: 1, baseBranch: 'main', protected: ['fixtures/**'], owners: POLICY.owners, identityEnv: POLICY.identityEnv };
  write(r.work, '.receipt-gate.json', `${JSON.stringify(minimal)}\n`);
  commitAll(r.work, 'guard it');
  const added = push(r.work, ['origin', 'main'], { REMOTE_USER: 'alice' });
  assert.is(added.status, 0, added.stderr);
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/y', 'main']);
  write(r.work, 'fixtures/y.json', '{}\n');
  commitAll(r.work, 'y');
  const result = push(r.work, ['origin', 'feature/y'], { REMOTE_USER: 'bob' });
  assert.is.not(result.status, 0, result.stderr);
  assert.equal(machine(result).blocked_paths, ['fixtures/y.json']);
});

test.run();
