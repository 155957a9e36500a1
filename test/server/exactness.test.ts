// What a push changes, as git sees it (docs/contract.md §2, §6): refs to trees and blobs. Real `git push`
// into bare repositories with the installed hook. (Updates through symbolic refs and commits the
// repository holds but no ref reaches are in test/attacks/.)

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRejected, push, refOid, type Remote, remotePerTest } from './helpers';
import { gitValue } from '../helpers/git';

const BOB = { REMOTE_USER: 'bob' };

let r: Remote;
remotePerTest(test, 'exact', (remote) => {
  r = remote;
});


test('a tag on a tree and a tag on a blob bring no commit: accepted, nothing touched', () => {
  const tree = gitValue(r.work, ['rev-parse', 'HEAD^{tree}']);
  const blob = gitValue(r.work, ['rev-parse', 'HEAD:README.md']);
  gitValue(r.work, ['tag', '-a', '-m', 'a tree', 'tree-tag', tree]);
  gitValue(r.work, ['tag', 'blob-tag', blob]);
  const result = push(r.work, ['origin', 'refs/tags/tree-tag', 'refs/tags/blob-tag'], BOB);
  assert.is(result.status, 0, result.stderr);
  assert.not.match(result.stderr, /INTERNAL_ERROR/);
  assert.ok(refOid(r.bare, 'refs/tags/blob-tag') === blob);
});

test('a protected ref may not be pointed at a tree by a non-owner', () => {
  const tree = gitValue(r.work, ['rev-parse', 'HEAD^{tree}']);
  gitValue(r.work, ['tag', '-a', '-m', 'a tree', 'tree-tag', tree]);
  assertRejected(push(r.work, ['origin', 'tree-tag:refs/heads/release/1.0'], BOB), 'REF_PROTECTED');
});

test.run();
