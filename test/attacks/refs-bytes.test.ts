// Ref names are bytes, as git keeps them (bytes from 0x80 up are allowed, UTF-8 or not).
// `refs/heads/release/v\xff` is protected by `refs/heads/release/**` as git matches it, so a
// non-owner's rewind of it is closed; an honest branch whose name is UTF-8 with a NBSP is
// judged (never INTERNAL_ERROR); names print as git quotes them, and in the machine line as
// UTF-8 with `\xHH` for bytes that are not.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { commitAll, machine, push, remotePerTest, write, type Remote } from '../server/helpers';
import { assertUnchanged, pushBytes, refAt, serverState } from './refs-harness';
import { gitValue } from '../helpers/git';

const bytes = suite('ref names as bytes');
let r: Remote;
remotePerTest(bytes, 'attack-bytes', (remote) => {
  r = remote;
});

const BOB = { REMOTE_USER: 'bob' };
const ALICE = { REMOTE_USER: 'alice' };
const RELEASE = 'refs/heads/release/v\xff'; // a byte string: the last byte is 0xff

bytes('a non-owner rewinding refs/heads/release/v\\xff (protected by release/**) is closed', () => {
  gitValue(r.work, ['checkout', '-q', '-B', 'rel', 'main']);
  write(r.work, 'src/r1.py', 'r = 1\n');
  commitAll(r.work, 'r1');
  write(r.work, 'src/r2.py', 'r = 2\n');
  const second = commitAll(r.work, 'r2');
  const created = pushBytes(r.work, [`rel:${RELEASE}`], ALICE);
  assert.is(created.status, 0, created.stderr);
  assert.is(refAt(r.bare, RELEASE), second);

  const before = serverState(r.bare);
  const rewind = pushBytes(r.work, [`rel~1:${RELEASE}`], BOB, ['--force']);
  assert.is.not(rewind.status, 0, rewind.stderr);
  const m = machine(rewind);
  assert.is(m.verdict, 'closed');
  const hit = m.findings.find((f) => f.code === 'REF_PROTECTED');
  assert.ok(hit, rewind.stderr);
  // JSON: UTF-8 where the bytes are UTF-8, a literal \xHH for a byte that is not.
  assert.is(hit!.ref, 'refs/heads/release/v\\xff');
  // Human output: quoted as git quotes it (core.quotePath).
  assert.match(rewind.remote.join('\n'), /"refs\/heads\/release\/v\\377" update/);
  assert.match(rewind.remote.join('\n'), /rewrites the protected ref "refs\/heads\/release\/v\\377"/);
  assertUnchanged(r.bare, before, 'rejected rewind');
  assert.is(refAt(r.bare, RELEASE), second);

  // Deleting it is closed as well; the owner may do both.
  assert.is.not(pushBytes(r.work, [`:${RELEASE}`], BOB).status, 0);
  assertUnchanged(r.bare, before, 'rejected deletion');
  assert.is(pushBytes(r.work, [`rel~1:${RELEASE}`], ALICE, ['--force']).status, 0);
});

bytes('an honest branch named with a UTF-8 NBSP is judged and accepted', () => {
  const name = 'feature\u00a0x';
  gitValue(r.work, ['checkout', '-q', '-B', name, 'main']);
  write(r.work, 'src/nbsp.py', 'n = 1\n');
  const head = commitAll(r.work, 'nbsp');
  const result = push(r.work, ['origin', name], BOB);
  assert.is(result.status, 0, result.stderr);
  assert.not.match(result.stderr, /INTERNAL_ERROR/);
  assert.match(result.remote.join('\n'), /push accepted: eligible/);
  assert.match(result.remote.join('\n'), /"refs\/heads\/feature\\302\\240x" create/);
  assert.is(refAt(r.bare, Buffer.from(`refs/heads/${name}`, 'utf8').toString('latin1')), head);
});

bytes('a fixture edit on a branch whose name is not UTF-8 is closed like any other', () => {
  gitValue(r.work, ['checkout', '-q', '-B', 'cheat', 'main']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": 3}]}\n');
  commitAll(r.work, 'cheat');
  const before = serverState(r.bare);
  const result = pushBytes(r.work, ['cheat:refs/heads/\xfe\xffcheat'], BOB);
  assert.is.not(result.status, 0, result.stderr);
  const m = machine(result);
  assert.ok(m.findings.some((f) => f.code === 'PATH_PROTECTED' && f.path === 'fixtures/orders/base.json' && f.ref === 'refs/heads/\\xfe\\xffcheat'), result.stderr);
  assertUnchanged(r.bare, before, 'rejected fixture edit');
});

bytes('a base branch named in UTF-8 is protected on its bytes', () => {
  // The policy's baseBranch is text; the ref on disk is its UTF-8 bytes.
  const policy = JSON.parse(gitValue(r.work, ['show', 'main:.receipt-gate.json'])) as Record<string, unknown>;
  gitValue(r.work, ['checkout', '-q', '-B', 'main', 'main']);
  write(r.work, '.receipt-gate.json', `${JSON.stringify({ ...policy, baseBranch: 'ma\u00efn', protectedRefs: [] }, null, 2)}\n`);
  const head = commitAll(r.work, 'base branch renamed');
  assert.is(push(r.work, ['origin', 'main', 'main:ma\u00efn'], ALICE).status, 0);
  const before = serverState(r.bare);
  const result = push(r.work, ['origin', ':ma\u00efn'], BOB);
  assert.is.not(result.status, 0, result.stderr);
  assert.ok(machine(result).findings.some((f) => f.code === 'REF_PROTECTED' && f.ref === 'refs/heads/ma\u00efn'), result.stderr);
  assertUnchanged(r.bare, before, 'rejected deletion of the base branch');
  assert.is(refAt(r.bare, Buffer.from('refs/heads/ma\u00efn', 'utf8').toString('latin1')), head);
});

bytes.run();
