// Attack: deleting or rewriting (non-fast-forward) a protected ref. Closed for non-owners
// (REF_PROTECTED), allowed for owners; unprotected refs are anyone's (docs/contract.md §2).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accept, ALICE, arenaPerFile, assertClosed, baseEnv, BOB, commitAll, push, refOid, write } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test, (a) => gitValue(a.work, ['push', '-q', 'origin', 'main:refs/heads/release/1.0', 'main:refs/heads/scratch'], { env: baseEnv() }));

test('force push and deletion of the protected main are closed for a non-owner, allowed for an owner', () => {
  const r = arena();
  write(r.work, 'src/a.py', 'a = 1\n');
  commitAll(r.work, 'a');
  accept(r, push(r.work, ['origin', 'HEAD:main'], ALICE));
  gitValue(r.work, ['reset', '-q', '--hard', 'HEAD~1']);
  write(r.work, 'src/b.py', 'b = 1\n');
  commitAll(r.work, 'b instead');
  const tip = refOid(r.bare, 'refs/heads/main');
  assertClosed(r, push(r.work, ['--force', 'origin', 'HEAD:main'], BOB), 'REF_PROTECTED');
  assertClosed(r, push(r.work, ['origin', ':refs/heads/main'], BOB), 'REF_PROTECTED');
  // A protected ref that does not exist: the deletion is closed all the same.
  assertClosed(r, push(r.work, ['origin', ':refs/heads/release/9.9'], BOB), 'REF_PROTECTED');
  assert.is(refOid(r.bare, 'refs/heads/main'), tip);
  assert.is(gitValue(r.bare, ['show', 'main:src/a.py']), 'a = 1');
  accept(r, push(r.work, ['--force', 'origin', 'HEAD:main'], ALICE));
});

test('deleting a protected branch is closed for a non-owner; an unprotected one is fine', () => {
  const r = arena();
  const del = push(r.work, ['origin', ':refs/heads/release/1.0'], BOB);
  assertClosed(r, del, 'REF_PROTECTED');
  assert.ok(refOid(r.bare, 'refs/heads/release/1.0'));
  accept(r, push(r.work, ['origin', ':refs/heads/scratch'], BOB));
  assert.is(refOid(r.bare, 'refs/heads/scratch'), null);
  accept(r, push(r.work, ['origin', ':refs/heads/release/1.0'], ALICE));
});

test('rewinding a release branch, or moving it or main to unrelated history, is a rewrite', () => {
  const r = arena();
  write(r.work, 'src/c.py', 'c = 1\n');
  commitAll(r.work, 'c');
  accept(r, push(r.work, ['origin', 'HEAD:refs/heads/release/3.0'], ALICE));
  const tip = refOid(r.bare, 'refs/heads/release/3.0');
  assertClosed(r, push(r.work, ['--force', 'origin', 'HEAD~1:refs/heads/release/3.0'], BOB), 'REF_PROTECTED');
  gitValue(r.work, ['checkout', '-q', '--orphan', 'unrelated']);
  commitAll(r.work, 'unrelated history, same tree');
  assertClosed(r, push(r.work, ['--force', 'origin', 'HEAD:refs/heads/release/3.0'], BOB), 'REF_PROTECTED');
  assertClosed(r, push(r.work, ['--force', 'origin', 'HEAD:main'], BOB), 'REF_PROTECTED');
  assert.is(refOid(r.bare, 'refs/heads/release/3.0'), tip);
});

test.run();
