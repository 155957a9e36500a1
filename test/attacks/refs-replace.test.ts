// refs/replace/<oid> changes what git reads for that object: `git show`, checkout, archive and
// every --mirror clone read the replacement. A non-owner may not create, move or delete one
// (REF_PROTECTED); the gate reads objects through the replace refs already in force, as git
// does (unless GIT_NO_REPLACE_OBJECTS or core.useReplaceRefs=false); a replace ref pushed in
// the same push never changes how that push is judged.

import { suite } from 'uvu';
import { spawnSync } from 'node:child_process';
import * as assert from 'uvu/assert';
import { assertRejected, commitAll, machine, push, remotePerTest, write, ZERO, type Remote } from '../server/helpers';
import { assertUnchanged, refAt, runHook, serverState } from './refs-harness';
import { gitValue } from '../helpers/git';

const replace = suite('refs/replace');
let r: Remote;
remotePerTest(replace, 'attack-replace', (remote) => {
  r = remote;
});

const BOB = { REMOTE_USER: 'bob' };
const ALICE = { REMOTE_USER: 'alice' };

/** A replace ref in the work clone: `path` at main is replaced by a blob of `content`. */
function replaceBlob(path: string, content: string): { original: string; replacement: string } {
  const original = gitValue(r.work, ['rev-parse', `main:${path}`]);
  const replacement = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: content });
  gitValue(r.work, ['replace', '-f', original, replacement]);
  return { original, replacement };
}

replace('a non-owner replacing a fixture blob is closed, and the server still shows the real fixture', () => {
  const { original } = replaceBlob('fixtures/orders/base.json', '{"orders": [{"amount": 1000000}]}\n');
  const before = serverState(r.bare);
  const result = push(r.work, ['origin', `refs/replace/${original}`], BOB);
  const m = assertRejected(result, 'REF_PROTECTED');
  assert.ok(m.findings.some((f) => f.ref === `refs/replace/${original}`), result.stderr);
  assert.match(result.remote.join('\n'), /creates the replace ref refs\/replace\/[0-9a-f]{40} as bob, who is not an owner: a replace ref changes what git reads/);
  assertUnchanged(r.bare, before, 'rejected replace ref');
  assert.is(gitValue(r.bare, ['show', 'main:fixtures/orders/base.json']), '{"orders": []}');
});

replace('a non-owner replacing the policy blob (naming themselves owner) is closed', () => {
  const policy = JSON.parse(gitValue(r.work, ['show', 'main:.receipt-gate.json'])) as { owners: string[] };
  const { original } = replaceBlob('.receipt-gate.json', `${JSON.stringify({ ...policy, owners: ['bob'] })}\n`);
  const before = serverState(r.bare);
  assertRejected(push(r.work, ['origin', `refs/replace/${original}`], BOB), 'REF_PROTECTED');
  assertUnchanged(r.bare, before, 'rejected policy replacement');
  assert.ok(gitValue(r.bare, ['show', 'main:.receipt-gate.json']).includes('"alice"'));
});

replace('a non-owner replacing the fixtures/ tree, or the main commit, is closed', () => {
  const tree = gitValue(r.work, ['rev-parse', 'main:fixtures']);
  gitValue(r.work, ['checkout', '-q', '-B', 'evil', 'main']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": 7}]}\n');
  commitAll(r.work, 'evil fixtures');
  const evilTree = gitValue(r.work, ['rev-parse', 'evil:fixtures']);
  gitValue(r.work, ['replace', '-f', tree, evilTree]);
  gitValue(r.work, ['replace', '-f', gitValue(r.work, ['rev-parse', 'main']), gitValue(r.work, ['rev-parse', 'evil'])]);
  const before = serverState(r.bare);
  const result = push(r.work, ['origin', 'refs/replace/*:refs/replace/*'], BOB);
  const m = assertRejected(result, 'REF_PROTECTED');
  assert.is(m.findings.filter((f) => f.code === 'REF_PROTECTED').length, 2, result.stderr);
  assertUnchanged(r.bare, before, 'rejected tree and commit replacements');
});

replace('an owner may push a replace ref; a non-owner may neither move nor delete it', () => {
  const { original } = replaceBlob('README.md', '# orders (replaced)\n');
  const created = push(r.work, ['origin', `refs/replace/${original}`], ALICE);
  assert.is(created.status, 0, created.stderr);
  assert.ok(refAt(r.bare, `refs/replace/${original}`));

  const before = serverState(r.bare);
  assertRejected(push(r.work, ['origin', `:refs/replace/${original}`], BOB), 'REF_PROTECTED');
  assertUnchanged(r.bare, before, 'rejected deletion');
  const other = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: '# bob was here\n' });
  gitValue(r.work, ['replace', '-f', original, other]);
  assertRejected(push(r.work, ['--force', 'origin', `refs/replace/${original}`], BOB), 'REF_PROTECTED');
  assertUnchanged(r.bare, before, 'rejected move');
});

replace('objects are read through the replace refs in force, as git reads them; a replace ref pushed alongside does not change that push', () => {
  // The owner replaces the epoch pin with a broken one and pushes a branch in the same push:
  // the branch is judged by the replace refs the repository had (none), so it is accepted.
  const { original } = replaceBlob('fixtures/EPOCH', '{"epoch_id": "broken"}\n');
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/with-replace', 'main']);
  write(r.work, 'src/a.py', 'a = 1\n');
  commitAll(r.work, 'a');
  const both = push(r.work, ['origin', `refs/replace/${original}`, 'feature/with-replace'], ALICE);
  assert.is(both.status, 0, both.stderr);

  // Now the replacement is in force: git shows the broken pin on main, and so does the gate.
  assert.match(gitValue(r.bare, ['show', 'main:fixtures/EPOCH']), /broken/);
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/honest', 'main']);
  write(r.work, 'src/b.py', 'b = 2\n');
  commitAll(r.work, 'b');
  const before = serverState(r.bare);
  assertRejected(push(r.work, ['origin', 'feature/honest'], BOB), 'EPOCH_INVALID');
  assertUnchanged(r.bare, before, 'judged through the replacement');

  // Without replacement (as git with GIT_NO_REPLACE_OBJECTS, or core.useReplaceRefs=false) the
  // stored pin is read, and the branch is eligible. (git's local transport clears
  // GIT_NO_REPLACE_OBJECTS for receive-pack, so the hook is run directly with it, the commit's
  // objects fetched into the repository without a ref.)
  gitValue(r.bare, ['fetch', '-q', r.work, 'feature/honest:refs/tmp/honest']);
  gitValue(r.bare, ['update-ref', '-d', 'refs/tmp/honest']);
  const line = `${ZERO} ${gitValue(r.work, ['rev-parse', 'feature/honest'])} refs/heads/feature/honest\n`;
  assert.is.not(runHook(r.bare, line, BOB).status, 0, 'read through the replacement');
  const off = runHook(r.bare, line, { ...BOB, GIT_NO_REPLACE_OBJECTS: '1' });
  assert.is(off.status, 0, off.stderr);
  gitValue(r.bare, ['config', 'core.useReplaceRefs', 'false']);
  write(r.work, 'src/c.py', 'c = 3\n');
  commitAll(r.work, 'c');
  const config = push(r.work, ['origin', 'feature/honest'], BOB);
  assert.is(config.status, 0, config.stderr);
});

replace('a chain of replace refs deeper than git follows closes the push, as git dies on it', () => {
  // Six replace refs in a chain: git's lookup gives up after five (replace depth too high).
  const oids = ['one', 'two', 'three', 'four', 'five', 'six', 'seven'].map((w) => gitValue(r.bare, ['hash-object', '-w', '--stdin'], { input: `${w}\n` }));
  const pin = gitValue(r.bare, ['rev-parse', 'main:fixtures/EPOCH']);
  gitValue(r.bare, ['replace', '-f', pin, oids[0]!]);
  for (let i = 0; i + 1 < oids.length; i++) gitValue(r.bare, ['replace', '-f', oids[i]!, oids[i + 1]!]);
  assert.is.not(spawnSync('git', ['--git-dir', r.bare, 'cat-file', '-p', pin], { encoding: 'utf8' }).status, 0, 'git itself refuses to read it');
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/deep', 'main']);
  write(r.work, 'src/d.py', 'd = 4\n');
  commitAll(r.work, 'd');
  const before = serverState(r.bare);
  const result = push(r.work, ['origin', 'feature/deep'], BOB);
  assert.is.not(result.status, 0, result.stderr);
  assert.match(result.remote.join('\n'), /fixtures\/EPOCH\n.*form a chain deeper than 5/);
  assert.ok(machine(result).findings.some((f) => f.code === 'INTERNAL_ERROR' && f.path === 'fixtures/EPOCH'), result.stderr);
  assertUnchanged(r.bare, before, 'deep chain');
});

replace.run();
