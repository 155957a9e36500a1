// `old` in a pre-receive line is never trusted: every update is judged against what the ref
// holds now (inside GIT_NAMESPACE too). A zero `old` for an existing main is a rewind of main,
// not a creation; a lying non-zero `old` (the new commit itself) does not make a rewind a
// fast-forward. The lines are fed to the installed hook as git runs it, the rewritten
// commit's objects fetched into the repository without a ref.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { machine, remotePerTest, write, ZERO, type Remote } from '../server/helpers';
import { assertHookRefused, assertUnchanged, runHook, serverState } from './refs-harness';
import { gitValue } from '../helpers/git';

const untrusted = suite('old is never trusted');
let r: Remote;
let rewritten = '';
remotePerTest(untrusted, 'attack-old', (remote) => {
  r = remote;
  gitValue(r.work, ['checkout', '-q', '-B', 'rewrite', 'main']);
  write(r.work, 'src/orders.py', 'def total(orders):\n    return 0\n');
  gitValue(r.work, ['add', '-A']);
  gitValue(r.work, ['commit', '-q', '--amend', '-m', 'rewritten history']);
  rewritten = gitValue(r.work, ['rev-parse', 'rewrite']);
  gitValue(r.bare, ['fetch', '-q', r.work, 'rewrite:refs/tmp/rewrite']);
  gitValue(r.bare, ['update-ref', '-d', 'refs/tmp/rewrite']);
});

const BOB = { REMOTE_USER: 'bob' };
const ALICE = { REMOTE_USER: 'alice' };

untrusted('a zero old for the existing main is a rewind of main: closed for a non-owner', () => {
  const before = serverState(r.bare);
  const m = assertHookRefused(runHook(r.bare, `${ZERO} ${rewritten} refs/heads/main\n`, BOB), /rewrites the protected ref refs\/heads\/main/);
  assert.ok(m.findings.some((f) => f.code === 'REF_PROTECTED' && f.ref === 'refs/heads/main'), JSON.stringify(m));
  assertUnchanged(r.bare, before, 'zero old');
});

untrusted('a lying old (the new commit itself) does not make a rewind a fast-forward', () => {
  const m = assertHookRefused(runHook(r.bare, `${rewritten} ${rewritten} refs/heads/main\n`, BOB), /rewrites the protected ref/);
  assert.ok(m.findings.some((f) => f.code === 'REF_PROTECTED'));
});

untrusted('a zero old and a zero new for the existing main is a deletion of main', () => {
  assertHookRefused(runHook(r.bare, `${ZERO} ${ZERO} refs/heads/main\n`, BOB), /deletes the protected ref refs\/heads\/main/);
});

untrusted('an owner may rewind main; what the line claims does not matter', () => {
  const ok = runHook(r.bare, `${ZERO} ${rewritten} refs/heads/main\n`, ALICE);
  assert.is(ok.status, 0, ok.stderr);
});

untrusted('inside GIT_NAMESPACE the ref read is the namespace one', () => {
  // The namespace's main is read inside the namespace: a zero old still finds it.
  const main = gitValue(r.bare, ['rev-parse', 'main']);
  gitValue(r.bare, ['update-ref', 'refs/namespaces/team/refs/heads/main', main]);
  gitValue(r.bare, ['symbolic-ref', 'refs/namespaces/team/HEAD', 'refs/heads/main']);
  const result = runHook(r.bare, `${ZERO} ${rewritten} refs/heads/main\n`, { ...BOB, GIT_NAMESPACE: 'team' });
  assert.is.not(result.status, 0, result.stderr);
  assert.ok(machine(result).findings.some((f) => f.code === 'REF_PROTECTED'), result.stderr);
});

untrusted.run();
