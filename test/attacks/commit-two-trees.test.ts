// A commit with two `tree` lines: `tree EVIL / parent MAIN / tree ORIGINAL`. git reads the first
// tree (the fixture edited); a reader that takes the last sees main's own tree. git fsck reports
// missingAuthor (an error: after the parents it expects the author), so the push is refused
// for every pusher as OBJECT_INVALID, and main keeps its bytes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { remotePerTest, type Remote } from '../server/helpers';
import { ALICE, BOB, EVIL_FIXTURE, IDENT, assertMainUntouched, assertObjectInvalid, findingOf, push, refOid, treeWithFixture, verifyRef, writeObject } from './object-helpers';
import { gitValue } from '../helpers/git';

let r: Remote;
remotePerTest(test, 'two-trees', (remote) => {
  r = remote;
});

function crafted(): { commit: string; main: string; evil: string } {
  const main = gitValue(r.work, ['rev-parse', 'main']);
  const original = gitValue(r.work, ['rev-parse', 'main^{tree}']);
  const evil = treeWithFixture(r.work, EVIL_FIXTURE);
  const commit = writeObject(r.work, 'commit', `tree ${evil}\nparent ${main}\ntree ${original}\nauthor ${IDENT}\ncommitter ${IDENT}\n\nkeep main's tree\n`);
  // git itself reads the first tree and main as the parent.
  assert.is(gitValue(r.work, ['rev-parse', `${commit}^{tree}`]), evil);
  assert.is(gitValue(r.work, ['rev-list', '--parents', '-n1', commit]), `${commit} ${main}`);
  return { commit, main, evil };
}

test('a non-owner\'s push of a two-tree commit is OBJECT_INVALID (missingAuthor); main keeps its bytes', () => {
  const { commit, main } = crafted();
  assertObjectInvalid(push(r.work, ['origin', `${commit}:refs/heads/feature/two-trees`], BOB), commit, 'missingAuthor');
  assert.is(refOid(r.bare, 'refs/heads/feature/two-trees'), null);
  assertObjectInvalid(push(r.work, ['origin', `${commit}:refs/heads/main`], BOB), commit, 'missingAuthor');
  assertMainUntouched(r, main);
});

test('an owner\'s push of the same commit is refused too', () => {
  const { commit, main } = crafted();
  assertObjectInvalid(push(r.work, ['origin', `${commit}:refs/heads/main`], ALICE), commit, 'missingAuthor');
  assertMainUntouched(r, main);
});

test('with receive.fsckObjects=true git refuses the object itself; main keeps its bytes', () => {
  const { commit, main } = crafted();
  gitValue(r.bare, ['config', 'receive.fsckObjects', 'true']);
  const result = push(r.work, ['origin', `${commit}:refs/heads/main`], BOB);
  assert.is.not(result.status, 0, result.stderr);
  assert.match(result.stderr, /missingAuthor/);
  assertMainUntouched(r, main);
});

test('verify-ref names the commit and the fsck id', () => {
  const { commit } = crafted();
  gitValue(r.work, ['update-ref', 'refs/heads/two-trees', commit]);
  const run = verifyRef(r, 'two-trees');
  assert.is.not(run.status, 0, run.stdout + run.stderr);
  assert.is(run.json.verdict, 'closed');
  const f = findingOf(run, 'OBJECT_INVALID', commit);
  assert.ok(f, run.stdout);
  assert.match(f!.message, /missingAuthor/);
});

test.run();
