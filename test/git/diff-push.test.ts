// End to end: crafted trees sent with a real `git push` to a bare repository guarded by the
// hook install-server.sh installs. The receiving repository keeps git's default
// (receive.fsckObjects off), so the objects arrive as written; the gate must refuse them as
// PATH_UNSAFE for every pusher, owners included, naming git fsck's message id.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { machine, push, refOid, type Remote, remotePerTest } from '../server/helpers';
import { gitValue } from '../helpers/git';

const ALICE = { REMOTE_USER: 'alice' }; // an owner in the test policy

let r: Remote;
remotePerTest(test, 'trees', (remote) => {
  r = remote;
});

type Entry = { mode: string; name: string; oid: string };

/** Writes a tree object from raw entries, exactly as given (order, names and modes). */
function writeTree(entries: Entry[]): string {
  const content = Buffer.concat(entries.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.oid, 'hex')]));
  return gitValue(r.work, ['hash-object', '-t', 'tree', '-w', '--literally', '--stdin'], { input: content });
}

/** The entries of the tree at `path` of main's tree, as raw entries. */
function entriesAt(path: string): Entry[] {
  return gitValue(r.work, ['ls-tree', '-z', `main:${path}`])
    .split('\0')
    .filter(Boolean)
    .map((l) => {
      const [meta, name] = l.split('\t');
      const [mode, , oid] = meta!.split(' ');
      return { mode: mode!.replace(/^0+/, ''), name: name!, oid: oid! };
    });
}

/** A commit on main whose fixtures/orders tree is `orders`, the rest of main unchanged. */
function commitWithOrders(orders: Entry[]): string {
  const ordersTree = writeTree(orders);
  const fixtures = writeTree(entriesAt('fixtures').map((e) => (e.name === 'orders' ? { ...e, oid: ordersTree } : e)));
  const root = writeTree(entriesAt('').map((e) => (e.name === 'fixtures' ? { ...e, oid: fixtures } : e)));
  return gitValue(r.work, ['commit-tree', root, '-p', 'main', '-m', 'crafted fixtures tree']);
}

function assertUnsafe(commit: string, fsckId: string, path: string): void {
  const branch = `refs/heads/feature/crafted`;
  const result = push(r.work, ['origin', `${commit}:${branch}`], ALICE);
  assert.is.not(result.status, 0, `push should be rejected:\n${result.stderr}`);
  const m = machine(result);
  assert.is(m.verdict, 'closed', result.stderr);
  const hit = m.findings.find((f) => f.code === 'PATH_UNSAFE' && f.path === path);
  assert.ok(hit, `PATH_UNSAFE on ${path} in:\n${result.stderr}`);
  assert.match(result.remote.join('\n'), new RegExp(`git fsck: ${fsckId}`), 'the message names git fsck\'s id');
  assert.is(refOid(r.bare, branch), null, 'the ref was not created');
}

test('a tree listing base.json twice (the evil copy first) is PATH_UNSAFE even for an owner', () => {
  const good = entriesAt('fixtures/orders').find((e) => e.name === 'base.json')!;
  const evil = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: '{"orders": [{"amount": -1}]}\n' });
  const orders = entriesAt('fixtures/orders').flatMap((e) => (e.name === 'base.json' ? [{ ...e, oid: evil }, good] : [e]));
  const commit = commitWithOrders(orders);
  // git's own readers disagree on such a tree: `git show` prints the first copy.
  assert.is(gitValue(r.work, ['show', `${commit}:fixtures/orders/base.json`]), '{"orders": [{"amount": -1}]}');
  assertUnsafe(commit, 'duplicateEntries', 'fixtures/orders/base.json');
});

test('the same file listed twice with the good copy first is PATH_UNSAFE too', () => {
  const good = entriesAt('fixtures/orders').find((e) => e.name === 'base.json')!;
  const orders = entriesAt('fixtures/orders').flatMap((e) => (e.name === 'base.json' ? [good, good] : [e]));
  assertUnsafe(commitWithOrders(orders), 'duplicateEntries', 'fixtures/orders/base.json');
});

test('entries out of git\'s order are PATH_UNSAFE at the tree\'s path', () => {
  const blob = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: 'z\n' });
  const orders = [{ mode: '100644', name: 'zz.json', oid: blob }, ...entriesAt('fixtures/orders')];
  assertUnsafe(commitWithOrders(orders), 'treeNotSorted', 'fixtures/orders');
});

test('a mode git fsck refuses (100600) is PATH_UNSAFE', () => {
  const orders = entriesAt('fixtures/orders').map((e) => (e.name === 'base.json' ? { ...e, mode: '100600' } : e));
  assertUnsafe(commitWithOrders(orders), 'badFilemode', 'fixtures/orders/base.json');
});

test('the legacy mode 100664 stays accepted for an owner', () => {
  const blob = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: '# notes\n' });
  const root = writeTree([...entriesAt(''), { mode: '100664', name: 'zz-notes.md', oid: blob }]);
  const commit = gitValue(r.work, ['commit-tree', root, '-p', 'main', '-m', 'legacy mode']);
  const result = push(r.work, ['origin', `${commit}:refs/heads/feature/legacy`], ALICE);
  assert.is(result.status, 0, result.stderr);
  assert.is(refOid(r.bare, 'refs/heads/feature/legacy'), commit);
});

test.run();
