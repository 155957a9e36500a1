// Trees with zero-padded directory modes (`040000`), as git 1.x wrote them (real histories
// carry them, e.g. prezto). git fsck only warns (zeroPaddedFilemode) and every git reads them
// as the directories they are: such a history is pushed by anyone and judged by its paths, and
// audited with verify-ref.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRejected, remotePerTest, write, type Remote } from '../server/helpers';
import { BOB, EVIL_FIXTURE, assertMainUntouched, findingOf, machine, push, refOid, treeWithFixture, verifyRef, writeObject } from './object-helpers';
import { gitValue } from '../helpers/git';

let r: Remote;
remotePerTest(test, 'zero-padded', (remote) => {
  r = remote;
});

/** `tree` rewritten with every directory entry's mode written `040000`, recursively. */
function padded(tree: string): string {
  const entries = gitValue(r.work, ['ls-tree', '-z', tree]).split('\0').filter(Boolean);
  const parts: Buffer[] = [];
  for (const line of entries) {
    const [meta, name] = line.split('\t') as [string, string];
    const [mode, type, oid] = meta.split(' ') as [string, string, string];
    const sub = type === 'tree' ? padded(oid) : oid;
    parts.push(Buffer.from(`${type === 'tree' ? '040000' : mode} ${name}\0`), Buffer.from(sub, 'hex'));
  }
  return writeObject(r.work, 'tree', Buffer.concat(parts));
}

function honestTree(): string {
  write(r.work, 'src/orders.py', 'def total(orders):\n    return sum(o.get("amount", 0) for o in orders)\n');
  gitValue(r.work, ['add', '-A']);
  const tree = gitValue(r.work, ['write-tree']);
  gitValue(r.work, ['reset', '-q', '--hard', 'main']);
  return tree;
}

test('an honest commit whose trees are all zero-padded: accepted for a non-owner, on a branch and on main', () => {
  const tree = padded(honestTree());
  assert.match(gitValue(r.work, ['cat-file', '-p', tree]), /^040000 tree /m, 'the tree is written zero-padded');
  const commit = gitValue(r.work, ['commit-tree', tree, '-p', 'main', '-m', 'old history']);
  const result = push(r.work, ['origin', `${commit}:refs/heads/feature/old`], BOB);
  assert.is(result.status, 0, result.stderr);
  assert.is(machine(result).verdict, 'eligible', result.stderr);
  const onMain = push(r.work, ['origin', `${commit}:refs/heads/main`], BOB);
  assert.is(onMain.status, 0, onMain.stderr);
  assert.is(refOid(r.bare, 'refs/heads/main'), commit);
  assert.match(gitValue(r.bare, ['show', 'main:src/orders.py']), /o\.get\("amount", 0\)/);
});

test('a zero-padded tree that edits the fixture: judged by its paths (PATH_PROTECTED, not PATH_UNSAFE)', () => {
  const main = gitValue(r.work, ['rev-parse', 'main']);
  const commit = gitValue(r.work, ['commit-tree', padded(treeWithFixture(r.work, EVIL_FIXTURE)), '-p', 'main', '-m', 'edit the fixture']);
  const m = assertRejected(push(r.work, ['origin', `${commit}:refs/heads/main`], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.not.ok(m.findings.some((f) => f.code === 'PATH_UNSAFE'), 'nothing is unsafe');
  assertMainUntouched(r, main);
});

test('verify-ref audits such a history: eligible', () => {
  const commit = gitValue(r.work, ['commit-tree', padded(honestTree()), '-p', 'main', '-m', 'old history']);
  gitValue(r.work, ['update-ref', 'refs/heads/old', commit]);
  const run = verifyRef(r, 'old');
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.is(run.json.verdict, 'eligible');
  assert.not.ok(findingOf(run, 'PATH_UNSAFE'));
});

test.run();
