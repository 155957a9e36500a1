// Attack: GIT_NAMESPACE (gitnamespaces(7)): one bare repository serves several projects, each under
// refs/namespaces/<ns>/. The hook reads HEAD, the base branch and every ref inside the
// namespace of the push, as git's receive-pack shows them to the client.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { assertRejected, cleanup, commitAll, installHook, machine, push, write, writeEvidence, ensureBuilt } from '../server/helpers';
import { gitValue, tempDir } from '../helpers/git';

const BOB = { REMOTE_USER: 'bob' };
const ALICE = { REMOTE_USER: 'alice' };

function nsPush(work: string, ns: string, args: string[], env: Record<string, string>) {
  return push(work, [`--receive-pack=env GIT_NAMESPACE=${ns} git-receive-pack`, ...args], env);
}

function setup(): { root: string; bare: string; work: string } {
  ensureBuilt();
  const root = tempDir('ns');
  const bare = join(root, 'shared.git');
  const work = join(root, 'work');
  gitValue(root, ['init', '-q', '--bare', '-b', 'main', bare]);
  installHook(bare);
  gitValue(root, ['init', '-q', '-b', 'main', work]);
  gitValue(work, ['remote', 'add', 'origin', `file://${bare}`]);
  writeEvidence(work);
  commitAll(work, 'guarded start');
  // The namespace starts unguarded: the owner's first push adds the policy.
  const first = nsPush(work, 'proj', ['origin', 'main'], ALICE);
  assert.is(first.status, 0, first.stderr);
  return { root, bare, work };
}

test('inside a namespace, the namespace\'s own policy guards its refs', () => {
  const { root, bare, work } = setup();
  try {
    assert.ok(gitValue(bare, ['for-each-ref', '--format=%(refname)']).includes('refs/namespaces/proj/refs/heads/main'));
    write(work, 'fixtures/orders/base.json', '{"orders": [{"amount": -1}]}\n');
    commitAll(work, 'fixture edit');
    const result = nsPush(work, 'proj', ['origin', 'HEAD:refs/heads/feature'], BOB);
    assert.is.not(result.status, 0, result.stderr);
    const m = machine(result);
    assert.ok(m.findings.some((f) => f.code === 'PATH_PROTECTED' && f.path === 'fixtures/orders/base.json'), result.stderr);
    assert.is(m.verdict, 'closed');
    assert.is(gitValue(bare, ['for-each-ref', 'refs/namespaces/proj/refs/heads/feature']), '', 'the namespace is unchanged');
    const mainBefore = gitValue(bare, ['rev-parse', 'refs/namespaces/proj/refs/heads/main']);
    assertRejected(nsPush(work, 'proj', ['origin', 'HEAD:refs/heads/main'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
    assert.is(gitValue(bare, ['rev-parse', 'refs/namespaces/proj/refs/heads/main']), mainBefore);
    assert.is(gitValue(bare, ['show', 'refs/namespaces/proj/refs/heads/main:fixtures/orders/base.json']), '{"orders": []}');
    // The same repository outside the namespace has no policy: unguarded, as it really is.
    const outside = push(work, ['origin', 'HEAD:refs/heads/feature'], BOB);
    assert.is(outside.status, 0, outside.stderr);
    assert.match(outside.stderr, /unguarded/);
  } finally {
    cleanup(root);
  }
});

test('history another namespace already holds is new to this one', () => {
  const { root, bare, work } = setup();
  try {
    gitValue(work, ['checkout', '-q', '-b', 'sneak']);
    write(work, 'fixtures/orders/base.json', '{"orders": [{"amount": -1}]}\n');
    commitAll(work, 'fixture edit');
    // An unguarded namespace takes the commit...
    assert.is(nsPush(work, 'scratch', ['origin', 'sneak'], BOB).status, 0);
    // ...which does not make it old for the guarded one.
    const result = nsPush(work, 'proj', ['origin', 'sneak'], BOB);
    assert.is.not(result.status, 0, result.stderr);
    assert.ok(machine(result).findings.some((f) => f.code === 'PATH_PROTECTED'), result.stderr);
    assert.is(machine(result).verdict, 'closed');
    assert.is(gitValue(bare, ['for-each-ref', 'refs/namespaces/proj/refs/heads/sneak']), '');
  } finally {
    cleanup(root);
  }
});

test.run();
