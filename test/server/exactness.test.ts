// What a push changes, as git sees it (docs/contract.md §2, §6): updates through symbolic refs, commits the
// repository holds but no ref reaches, refs to trees and blobs. Real `git push` into bare
// repositories with the installed hook.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRejected, commitAll, git, machine, push, refOid, type Remote, remotePerTest, write } from './helpers';

const BOB = { REMOTE_USER: 'bob' };
const ALICE = { REMOTE_USER: 'alice' };

let r: Remote;
remotePerTest(test, 'exact', (remote) => {
  r = remote;
});


test('an alias of main cannot rewind it or delete it; main stays where it was', () => {
  write(r.work, 'src/a.py', 'a = 1\n');
  commitAll(r.work, 'a');
  assert.is(push(r.work, ['origin', 'main'], ALICE).status, 0);
  const tip = refOid(r.bare, 'refs/heads/main');
  git(r.bare, ['symbolic-ref', 'refs/heads/master', 'refs/heads/main']);

  assertRejected(push(r.work, ['--force', 'origin', 'main~1:refs/heads/master'], BOB), 'REF_PROTECTED');
  assert.is(refOid(r.bare, 'refs/heads/main'), tip);
  assertRejected(push(r.work, ['origin', ':refs/heads/master'], BOB), 'REF_PROTECTED');
  assert.is(refOid(r.bare, 'refs/heads/main'), tip);

  // Through the alias, a fixture edit is judged as an update of main: old -> new.
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": -1}]}\n');
  commitAll(r.work, 'fixture through the alias');
  assertRejected(push(r.work, ['origin', 'HEAD:refs/heads/master'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.is(refOid(r.bare, 'refs/heads/main'), tip);
});

test('an update through a symbolic ref whose own name is protected is the owners\' decision', () => {
  git(r.bare, ['branch', 'feature/x', 'main']);
  git(r.bare, ['symbolic-ref', 'refs/heads/release/current', 'refs/heads/feature/x']);
  git(r.work, ['fetch', '-q', 'origin']);
  git(r.work, ['checkout', '-q', '-b', 'feature/x', 'origin/feature/x']);
  write(r.work, 'src/b.py', 'b = 1\n');
  commitAll(r.work, 'b');
  assertRejected(push(r.work, ['origin', 'HEAD:refs/heads/release/current'], BOB), 'REF_PROTECTED');
  assert.is(push(r.work, ['origin', 'HEAD:refs/heads/release/current'], ALICE).status, 0);
});

test('commits the repository already holds, unreferenced, are new when a ref first reaches them', () => {
  // C1 edits a fixture, C2 reverts it; both reach the server's object store without a ref
  // (an earlier fetch by the server, a rejected push's leftovers, a shared alternate).
  git(r.work, ['checkout', '-q', '-b', 'sneak']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": -1}]}\n');
  const c1 = commitAll(r.work, 'edit the fixture');
  git(r.work, ['revert', '--no-edit', 'HEAD']);
  const c2 = git(r.work, ['rev-parse', 'HEAD']);
  git(r.bare, ['fetch', '-q', r.work, 'refs/heads/sneak']);
  assert.ok(git(r.bare, ['cat-file', '-t', c1]) === 'commit');
  assert.is(git(r.bare, ['for-each-ref', '--contains', c2]), '', 'no ref reaches the commits');

  const result = push(r.work, ['origin', `${c2}:refs/heads/main`], BOB);
  assertRejected(result, 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.ok(machine(result).findings.some((f) => f.commit === c1), result.stderr);
});

test('a tag on a tree and a tag on a blob bring no commit: accepted, nothing touched', () => {
  const tree = git(r.work, ['rev-parse', 'HEAD^{tree}']);
  const blob = git(r.work, ['rev-parse', 'HEAD:README.md']);
  git(r.work, ['tag', '-a', '-m', 'a tree', 'tree-tag', tree]);
  git(r.work, ['tag', 'blob-tag', blob]);
  const result = push(r.work, ['origin', 'refs/tags/tree-tag', 'refs/tags/blob-tag'], BOB);
  assert.is(result.status, 0, result.stderr);
  assert.not.match(result.stderr, /INTERNAL_ERROR/);
  assert.ok(refOid(r.bare, 'refs/tags/blob-tag') === blob);
});

test('a protected ref may not be pointed at a tree by a non-owner', () => {
  const tree = git(r.work, ['rev-parse', 'HEAD^{tree}']);
  git(r.work, ['tag', '-a', '-m', 'a tree', 'tree-tag', tree]);
  assertRejected(push(r.work, ['origin', 'tree-tag:refs/heads/release/1.0'], BOB), 'REF_PROTECTED');
});

test.run();
