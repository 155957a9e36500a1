// The pre-receive hook end to end over file://: real `git push` into bare repositories with
// the hook installed by install-server.sh. The pusher's environment reaches the hook, so each
// push names its identity with REMOTE_USER (one of the policy's identityEnv variables).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { assertRejected, commitAll, isFile, machine, POLICY, push, refOid, type Remote, remotePerTest, write } from './helpers';
import { gitValue } from '../helpers/git';

const BOB = { REMOTE_USER: 'bob' };
const ALICE = { REMOTE_USER: 'alice' };

let r: Remote;
remotePerTest(test, 'file', (remote) => {
  r = remote;
});

function branch(name: string): void {
  gitValue(r.work, ['checkout', '-q', '-b', name, 'main']);
}


test('an honest new branch is accepted and created', () => {
  branch('feature/honest');
  write(r.work, 'src/orders.py', 'def total(orders):\n    return sum(o["amount"] for o in orders if o)\n');
  const head = commitAll(r.work, 'skip empty orders');
  const result = push(r.work, ['origin', 'feature/honest'], BOB);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.remote.join('\n'), /push accepted: eligible/);
  assert.is(machine(result).verdict, 'eligible');
  assert.is(refOid(r.bare, 'refs/heads/feature/honest'), head);
});

test('a fixture edit by a non-owner is rejected with ref, commit, path, rule and who may change it', () => {
  branch('feature/cheat');
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": -1}]}\n');
  const head = commitAll(r.work, 'adjust fixture');
  const result = push(r.work, ['origin', 'feature/cheat'], BOB);
  const m = assertRejected(result, 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.equal(m.blocked_paths, ['fixtures/orders/base.json']);
  const text = result.remote.join('\n');
  assert.match(text, /push REJECTED/);
  assert.match(text, /PATH_PROTECTED feature\/cheat/);
  assert.ok(text.includes(head.slice(0, 7)), text);
  assert.match(text, /may only be changed by: alice, release-bot/);
  assert.ok(result.remote.length <= 24, `more than one screen:\n${text}`);
  assert.is(refOid(r.bare, 'refs/heads/feature/cheat'), null, 'the ref must not be created');
});

test('the same fixture edit by an owner is accepted', () => {
  branch('feature/owner');
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": 3}]}\n');
  commitAll(r.work, 'owner updates fixture');
  const result = push(r.work, ['origin', 'feature/owner'], ALICE);
  assert.is(result.status, 0, result.stderr);
});

test('commit author set to an owner does not make the pusher one', () => {
  branch('feature/spoof');
  write(r.work, 'fixtures/orders/base.json', '{"orders": [7]}\n');
  commitAll(r.work, 'looks like alice', { GIT_AUTHOR_NAME: 'alice', GIT_COMMITTER_NAME: 'alice', GIT_AUTHOR_EMAIL: 'alice@example.com' });
  assertRejected(push(r.work, ['origin', 'feature/spoof'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
});

test('a pusher with no identity variable is nobody and owns nothing', () => {
  branch('feature/anon');
  write(r.work, 'checks/manifest.json', '{}\n');
  commitAll(r.work, 'anon');
  assertRejected(push(r.work, ['origin', 'feature/anon']), 'PATH_PROTECTED', 'checks/manifest.json');
});

test('a fixture edited then reverted in a later commit is still rejected', () => {
  branch('feature/revert');
  const original = readFileSync(join(r.work, 'fixtures/orders/base.json'));
  write(r.work, 'fixtures/orders/base.json', '{"orders": [1]}\n');
  const touched = commitAll(r.work, 'edit');
  write(r.work, 'fixtures/orders/base.json', original);
  const reverted = commitAll(r.work, 'revert');
  assert.is(gitValue(r.work, ['rev-parse', 'HEAD^{tree}']), gitValue(r.work, ['rev-parse', 'main^{tree}']), 'the net change is empty');
  const result = push(r.work, ['origin', 'feature/revert'], BOB);
  const m = assertRejected(result, 'PATH_PROTECTED', 'fixtures/orders/base.json');
  const f = m.findings.find((x) => x.code === 'PATH_PROTECTED')!;
  assert.ok(f.commit === touched || f.commit === reverted, result.stderr);
});

test('a rename out of a protected folder is rejected', () => {
  branch('feature/rename');
  gitValue(r.work, ['mv', 'fixtures/weights_v3.json', 'src/weights_v3.json']);
  commitAll(r.work, 'move weights');
  assertRejected(push(r.work, ['origin', 'feature/rename'], BOB), 'PATH_PROTECTED', 'fixtures/weights_v3.json');
});

test('a mode change of a protected file is rejected', () => {
  branch('feature/mode');
  chmodSync(join(r.work, 'fixtures/generate_orders.py'), 0o755);
  gitValue(r.work, ['update-index', '--chmod=+x', 'fixtures/generate_orders.py']);
  commitAll(r.work, 'make generator executable');
  assertRejected(push(r.work, ['origin', 'feature/mode'], BOB), 'PATH_PROTECTED', 'fixtures/generate_orders.py');
});

test('a .gitattributes filter added anywhere is rejected', () => {
  branch('feature/attrs');
  write(r.work, 'src/.gitattributes', '*.json filter=lie\n');
  write(r.work, '.gitattributes', 'fixtures/** -diff\n');
  commitAll(r.work, 'attributes');
  const m = assertRejected(push(r.work, ['origin', 'feature/attrs'], BOB), 'PATH_PROTECTED', 'src/.gitattributes');
  assert.ok(m.blocked_paths.includes('.gitattributes'));
});

test('a policy edited in the same push is judged by the old policy', () => {
  branch('feature/policy');
  const loosened = { ...POLICY, protected: [], owners: ['bob'] };
  write(r.work, '.receipt-gate.json', `${JSON.stringify(loosened)}\n`);
  write(r.work, 'fixtures/orders/base.json', '{"orders": [9]}\n');
  commitAll(r.work, 'loosen policy and edit fixture');
  const m = assertRejected(push(r.work, ['origin', 'feature/policy'], BOB), 'PATH_PROTECTED', '.receipt-gate.json');
  assert.ok(m.blocked_paths.includes('fixtures/orders/base.json'));
});

test('an owner pushing an invalid policy is rejected with POLICY_INVALID', () => {
  // (version 2 is the bounded-contexts policy; 3 is a version no receipt-gate reads)
  write(r.work, '.receipt-gate.json', `${JSON.stringify({ ...POLICY, version: 3 })}\n`);
  commitAll(r.work, 'bad policy');
  assertRejected(push(r.work, ['origin', 'main'], ALICE), 'POLICY_INVALID', '.receipt-gate.json');
});

test('an evil merge (a change in neither parent) is rejected', () => {
  branch('side');
  write(r.work, 'src/side.py', 'x = 1\n');
  commitAll(r.work, 'side');
  gitValue(r.work, ['checkout', '-q', '-b', 'feature/evil', 'main']);
  write(r.work, 'src/other.py', 'y = 2\n');
  commitAll(r.work, 'other');
  gitValue(r.work, ['merge', '-q', '--no-commit', '--no-ff', 'side']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": ["evil"]}\n');
  gitValue(r.work, ['add', '-A']);
  gitValue(r.work, ['commit', '-qm', 'merge side']);
  const merge = gitValue(r.work, ['rev-parse', 'HEAD']);
  const result = push(r.work, ['origin', 'feature/evil'], BOB);
  const m = assertRejected(result, 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.ok(m.findings.some((f) => f.commit === merge), result.stderr);
});

test('tags: lightweight and annotated tags on a fixture edit are rejected, on honest commits accepted', () => {
  branch('feature/t');
  write(r.work, 'src/t.py', 't = 1\n');
  commitAll(r.work, 'honest');
  gitValue(r.work, ['tag', 'v1.0']);
  gitValue(r.work, ['tag', '-a', '-m', 'release', 'v1.0-annotated']);
  assert.is(push(r.work, ['origin', 'refs/tags/v1.0', 'refs/tags/v1.0-annotated'], BOB).status, 0);
  write(r.work, 'fixtures/orders/base.json', '{"orders": ["tag"]}\n');
  commitAll(r.work, 'cheat');
  gitValue(r.work, ['tag', 'v2.0']);
  gitValue(r.work, ['tag', '-a', '-m', 'cheat release', 'v2.0-annotated']);
  assertRejected(push(r.work, ['origin', 'refs/tags/v2.0'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assertRejected(push(r.work, ['origin', 'refs/tags/v2.0-annotated'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.is(refOid(r.bare, 'refs/tags/v2.0'), null);
});

test('a multi-ref push with one bad ref is rejected as a whole; no ref moves', () => {
  branch('good');
  write(r.work, 'src/good.py', 'g = 1\n');
  commitAll(r.work, 'good');
  branch('bad');
  write(r.work, 'freeze.json', '{"version": 1, "frozen": []}\n');
  commitAll(r.work, 'drop freezes');
  const result = push(r.work, ['origin', 'good', 'bad'], BOB);
  const m = assertRejected(result, 'PATH_PROTECTED', 'freeze.json');
  const closing = m.findings.filter((f) => f.severity === 'closed');
  assert.ok(closing.length > 0 && closing.every((f) => f.ref === 'refs/heads/bad'), result.stderr);
  assert.match(result.remote.join('\n'), /refs\/heads\/good create at \w+: ok/);
  assert.is(refOid(r.bare, 'refs/heads/good'), null);
  assert.is(refOid(r.bare, 'refs/heads/bad'), null);
});

test('a large push (over transfer.unpackLimit: a pack in quarantine) is judged like a small one', () => {
  gitValue(r.bare, ['config', 'receive.unpackLimit', '1']);
  branch('feature/big');
  for (let i = 0; i < 30; i++) {
    write(r.work, `src/gen/m${i}.py`, `value = ${i}\n`);
    commitAll(r.work, `module ${i}`);
  }
  // The commits the push brings, as git counts them: reachable from the tip, not from the server.
  const expected = gitValue(r.work, ['rev-list', '--count', 'feature/big', '--not', ...gitValue(r.bare, ['for-each-ref', '--format=%(objectname)']).split('\n')]);
  const ok = push(r.work, ['origin', 'feature/big'], BOB);
  assert.is(ok.status, 0, ok.stderr);
  assert.is(expected, '30');
  assert.match(ok.remote.join('\n'), new RegExp(`push accepted: eligible \\(1 ref, ${expected} new commits`));
  assert.ok(isFile(join(r.bare, 'objects', 'pack', readdirSync(join(r.bare, 'objects', 'pack')).find((f) => f.endsWith('.pack')) ?? 'none')), 'the push arrived as a pack');
  branch('feature/big-cheat');
  for (let i = 0; i < 30; i++) {
    write(r.work, `src/gen2/m${i}.py`, `value = ${i}\n`);
    if (i === 17) write(r.work, 'fixtures/orders/base.json', '{"orders": ["deep"]}\n');
    if (i === 18) gitValue(r.work, ['checkout', 'main', '--', 'fixtures/orders/base.json']);
    commitAll(r.work, `module ${i}`);
  }
  assertRejected(push(r.work, ['origin', 'feature/big-cheat'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
});

test('GitLab: with GL_PROTOCOL set every rejection line carries GL-HOOK-ERR:', () => {
  branch('feature/gl');
  write(r.work, 'fixtures/orders/base.json', '{"orders": ["gl"]}\n');
  commitAll(r.work, 'gl');
  const result = push(r.work, ['origin', 'feature/gl'], { GL_PROTOCOL: 'ssh', GL_USERNAME: 'bob' });
  assert.is.not(result.status, 0);
  const lines = result.remote.filter((x) => x.trim() !== '');
  assert.ok(lines.length > 3, result.stderr);
  for (const l of lines) assert.ok(l.startsWith('GL-HOOK-ERR: '), `line without prefix: ${l}`);
  assert.match(lines.join('\n'), /pusher bob/);
  assert.is(machine(result).verdict, 'closed');
});

test('an unreadable object in the repository rejects the push (fail closed)', () => {
  // Corrupt the loose object of main's policy blob on the server: the policy cannot be read.
  const blob = gitValue(r.bare, ['rev-parse', 'main:.receipt-gate.json']);
  const file = join(r.bare, 'objects', blob.slice(0, 2), blob.slice(2));
  assert.ok(isFile(file), 'the template push stored loose objects');
  chmodSync(file, 0o644);
  writeFileSync(file, 'not a zlib stream');
  branch('feature/after-damage');
  write(r.work, 'src/x.py', 'x = 0\n');
  commitAll(r.work, 'x');
  const result = push(r.work, ['origin', 'feature/after-damage'], BOB);
  assert.is.not(result.status, 0, result.stderr);
  const m = machine(result);
  assert.is(m.verdict, 'closed');
  assert.ok(m.findings.some((f) => f.code === 'INTERNAL_ERROR'), result.stderr);
  assert.not.match(result.stderr, /^remote:\s+at /m, 'no bare stack trace');
  assert.is(refOid(r.bare, 'refs/heads/feature/after-damage'), null);
});

test('no Node.js on the server, or no bundle: the push is rejected with a sentence', () => {
  write(r.work, 'src/y.py', 'y = 0\n');
  commitAll(r.work, 'y');
  const noNode = push(r.work, ['origin', 'main'], { ...BOB, RECEIPT_GATE_NODE: '/nonexistent/node' });
  assert.is.not(noNode.status, 0);
  assert.match(noNode.remote.join('\n'), /Node\.js is not installed on this server/);
  assert.is(machine(noNode).verdict, 'closed');
  rmSync(join(r.bare, 'hooks', 'receipt-gate.cjs'));
  const noBundle = push(r.work, ['origin', 'main'], BOB);
  assert.is.not(noBundle.status, 0);
  assert.match(noBundle.remote.join('\n'), /bundle .* is missing/);
});

test('a crashing or hanging Node.js rejects the push', () => {
  write(r.work, 'src/z.py', 'z = 0\n');
  commitAll(r.work, 'z');
  const fake = join(r.root, 'fake-node');
  writeFileSync(fake, '#!/bin/sh\necho "SyntaxError: Unexpected token" >&2\nexit 1\n', { mode: 0o755 });
  const crash = push(r.work, ['origin', 'main'], { ...ALICE, RECEIPT_GATE_NODE: fake });
  assert.is.not(crash.status, 0);
  assert.match(crash.remote.join('\n'), /could not run \(exit status 1/);
  assert.is(machine(crash).verdict, 'closed');
  // A bundle that needs a module the server does not have: Node's own crash, then our sentence.
  const bundle = join(r.bare, 'hooks', 'receipt-gate.cjs');
  const real = readFileSync(bundle);
  writeFileSync(bundle, "require('isomorphic-git');\n");
  const missing = push(r.work, ['origin', 'main'], ALICE);
  assert.is.not(missing.status, 0);
  assert.match(missing.stderr, /Cannot find module 'isomorphic-git'/);
  assert.is(machine(missing).verdict, 'closed');
  writeFileSync(bundle, real);
  writeFileSync(fake, '#!/bin/sh\nexec sleep 30\n', { mode: 0o755 });
  const started = Date.now();
  const hang = push(r.work, ['origin', 'main'], { ...ALICE, RECEIPT_GATE_NODE: fake, RECEIPT_GATE_HARD_TIMEOUT: '1' });
  assert.is.not(hang.status, 0);
  assert.ok(Date.now() - started < 15_000);
  assert.match(hang.remote.join('\n'), /did not answer within 1 s/);
  assert.is(refOid(r.bare, 'refs/heads/main'), gitValue(r.bare, ['rev-parse', 'main']));
});

test.run();
