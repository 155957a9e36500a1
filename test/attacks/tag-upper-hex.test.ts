// A tag whose first `object` line names an evil commit in upper-case hex and whose later line
// names main in lower case. git reads the first (parse_oid_hex takes either case), and the
// later line is only an extra header (ignored by git fsck): the tag is judged as the evil
// commit git peels it to. A tag git fsck reports an error for is OBJECT_INVALID.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRejected, remotePerTest, type Remote } from '../server/helpers';
import { BOB, EVIL_FIXTURE, IDENT, assertMainUntouched, assertObjectInvalid, findingOf, push, refOid, treeWithFixture, verifyRef, writeObject } from './object-helpers';
import { gitValue } from '../helpers/git';

let r: Remote;
remotePerTest(test, 'tag-upper', (remote) => {
  r = remote;
});

function crafted(): { tag: string; evil: string; main: string } {
  const main = gitValue(r.work, ['rev-parse', 'main']);
  const evil = gitValue(r.work, ['commit-tree', treeWithFixture(r.work, EVIL_FIXTURE), '-p', 'main', '-m', 'release']);
  const tag = writeObject(r.work, 'tag', `object ${evil.toUpperCase()}\ntype commit\ntag v9\ntagger ${IDENT}\nobject ${main}\n\nrelease\n`);
  assert.is(gitValue(r.work, ['rev-parse', `${tag}^{}`]), evil, 'git peels to the first object line');
  return { tag, evil, main };
}

test('a non-owner pushes the tag: judged as the evil commit (PATH_PROTECTED); main keeps its bytes', () => {
  const { tag, evil, main } = crafted();
  const m = assertRejected(push(r.work, ['origin', `${tag}:refs/tags/v9`], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.ok(m.findings.some((f) => f.code === 'PATH_PROTECTED' && f.commit === evil), 'the finding names the evil commit');
  assert.is(refOid(r.bare, 'refs/tags/v9'), null);
  assertMainUntouched(r, main);
});

test('with receive.fsckObjects=true git takes the tag and the hook judges it the same', () => {
  const { tag, main } = crafted();
  gitValue(r.bare, ['config', 'receive.fsckObjects', 'true']);
  assertRejected(push(r.work, ['origin', `${tag}:refs/tags/v9`], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assertMainUntouched(r, main);
});

test('a tag with a zero-padded tagger date (git fsck: zeroPaddedDate) on an honest commit is OBJECT_INVALID', () => {
  const main = gitValue(r.work, ['rev-parse', 'main']);
  const tag = writeObject(r.work, 'tag', `object ${main.toUpperCase()}\ntype commit\ntag v8\ntagger Dev <dev@example.com> 01788000000 +0000\n\nrelease\n`);
  assertObjectInvalid(push(r.work, ['origin', `${tag}:refs/tags/v8`], BOB), tag, 'zeroPaddedDate');
  assert.is(refOid(r.bare, 'refs/tags/v8'), null);
  assertMainUntouched(r, main);
});

test('verify-ref peels the tag as git does', () => {
  const { tag, evil } = crafted();
  gitValue(r.work, ['update-ref', 'refs/tags/v9', tag]);
  const run = verifyRef(r, 'refs/tags/v9');
  assert.is(run.json.verdict, 'closed', run.stdout);
  assert.is(run.json.head, evil);
  assert.ok(findingOf(run, 'PATH_PROTECTED'), run.stdout);
});

test.run();
