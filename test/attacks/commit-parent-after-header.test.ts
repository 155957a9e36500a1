// A commit whose `parent` line comes after the committer: `tree T / author / committer /
// parent MAIN`. git reads a root commit (only the lines right after `tree` are parents), so
// pushing it to main throws main's history away; a reader that collects every `parent` line
// sees a child of main. git fsck says nothing of it: it is judged as the root commit it is.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRejected, remotePerTest, type Remote } from '../server/helpers';
import { BOB, EVIL_FIXTURE, IDENT, assertMainUntouched, findingOf, push, refOid, treeWithFixture, verifyRef, writeObject } from './object-helpers';
import { gitValue } from '../helpers/git';

let r: Remote;
remotePerTest(test, 'parent-after', (remote) => {
  r = remote;
});

function crafted(tree: string): { commit: string; main: string } {
  const main = gitValue(r.work, ['rev-parse', 'main']);
  const commit = writeObject(r.work, 'commit', `tree ${tree}\nauthor ${IDENT}\ncommitter ${IDENT}\nparent ${main}\n\nlooks like a child of main\n`);
  assert.is(gitValue(r.work, ['rev-list', '--parents', '-n1', commit]), commit, 'git reads a root commit');
  return { commit, main };
}

test('pushed over main by a non-owner: a rewrite of main (REF_PROTECTED); main keeps its history', () => {
  const { commit, main } = crafted(treeWithFixture(r.work, EVIL_FIXTURE));
  const m = assertRejected(push(r.work, ['origin', `+${commit}:refs/heads/main`], BOB), 'REF_PROTECTED');
  assert.not.ok(m.findings.some((f) => f.code === 'OBJECT_INVALID'), 'git fsck accepts the object');
  assertMainUntouched(r, main);
});

test('on a branch: a root commit, every path it brings judged (the fixture: PATH_PROTECTED)', () => {
  const { commit, main } = crafted(treeWithFixture(r.work, EVIL_FIXTURE));
  assertRejected(push(r.work, ['origin', `${commit}:refs/heads/feature/root`], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.is(refOid(r.bare, 'refs/heads/feature/root'), null);
  assertMainUntouched(r, main);
});

test('with receive.fsckObjects=true git accepts the object and the hook judges it the same', () => {
  const { commit, main } = crafted(treeWithFixture(r.work, EVIL_FIXTURE));
  gitValue(r.bare, ['config', 'receive.fsckObjects', 'true']);
  assertRejected(push(r.work, ['origin', `+${commit}:refs/heads/main`], BOB), 'REF_PROTECTED');
  assertMainUntouched(r, main);
});

test('verify-ref reads the same root commit', () => {
  const { commit } = crafted(treeWithFixture(r.work, EVIL_FIXTURE));
  gitValue(r.work, ['update-ref', 'refs/heads/root', commit]);
  const run = verifyRef(r, 'root');
  assert.is(run.json.verdict, 'closed', run.stdout);
  assert.ok(findingOf(run, 'PATH_PROTECTED'), run.stdout);
  assert.not.ok(findingOf(run, 'OBJECT_INVALID'), run.stdout);
});

test.run();
