// The diff on crafted trees: what git's own readers take from a tree that lists a name twice
// (the reason the first copy is the entry), the unsafe records the diff gives for every entry
// git fsck names on the changed side, modes read as a checkout reads them (against
// `git diff-tree -r --raw`), and the deadline inside the walk.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { Deadline, DeadlineExceeded } from '../../src/deadline';
import { ObjectStore, diffTrees, touchedPaths, type PathChange } from '../../src/git/index';
import { hashObject, rawTree } from './helpers';
import { cleanupTempDirs, git, gitBuf, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

function blobs(repo: string) {
  const evil = git(repo, ['hash-object', '-w', '--stdin'], { input: 'evil\n' }).trim();
  const good = git(repo, ['hash-object', '-w', '--stdin'], { input: 'good\n' }).trim();
  return { evil, good };
}

/** A commit whose tree holds `fixtures/orders/<entries>`, on top of `parent`. */
function commitWith(repo: string, orders: { mode: string; name: string; oid: string }[], parent?: string): { commit: string; tree: string; orders: string } {
  const ordersTree = hashObject(repo, 'tree', rawTree(orders));
  const fixtures = hashObject(repo, 'tree', rawTree([{ mode: '40000', name: 'orders', oid: ordersTree }]));
  const tree = hashObject(repo, 'tree', rawTree([{ mode: '40000', name: 'fixtures', oid: fixtures }]));
  const commit = git(repo, ['commit-tree', tree, '-m', 'c', ...(parent ? ['-p', parent] : [])]).trim();
  return { commit, tree, orders: ordersTree };
}

test('a name listed twice: git show and cat-file read the first copy, checkout writes the last; the store, the diff and the entries take the first', async () => {
  const repo = initRepo();
  const { evil, good } = blobs(repo);
  const base = commitWith(repo, [{ mode: '100644', name: 'base.json', oid: good }]);
  const dup = commitWith(repo, [{ mode: '100644', name: 'base.json', oid: evil }, { mode: '100644', name: 'base.json', oid: good }], base.commit);
  git(repo, ['update-ref', 'refs/heads/main', dup.commit]);
  // git's readers, as observed (git 2.39): they disagree among themselves.
  assert.is(git(repo, ['show', 'main:fixtures/orders/base.json']), 'evil\n');
  assert.is(git(repo, ['cat-file', '-p', 'main:fixtures/orders/base.json']), 'evil\n');
  const index = `${tempDir()}/index`;
  git(repo, ['read-tree', 'main'], { env: { GIT_INDEX_FILE: index } });
  assert.match(git(repo, ['ls-files', '-s'], { env: { GIT_INDEX_FILE: index } }), new RegExp(`^100644 ${good} 0\tfixtures/orders/base.json\n$`));
  // Ours: one entry, the first copy, wherever it is read.
  const store = await ObjectStore.discover(repo);
  assert.is((await store.trees.entryAt(dup.tree, 'fixtures/orders/base.json'))?.oid, evil);
  assert.equal((await store.trees.read(dup.orders)).map((e) => e.oid), [evil]);
  const changes = await touchedPaths(store, dup.commit);
  assert.equal(
    changes.map((c) => [c.path, c.change, c.before?.oid, c.after?.oid, c.unsafe]),
    [
      ['fixtures/orders/base.json', 'modify', good, evil, false],
      ['fixtures/orders/base.json', 'modify', good, good, true],
    ],
  );
  assert.is(changes[1]!.unsafeReason, "the tree 'fixtures/orders' lists 'base.json' twice (git fsck: duplicateEntries)");
});

test('the good copy first, the evil one last (what a checkout writes): still unsafe, naming the copy', async () => {
  const repo = initRepo();
  const { evil, good } = blobs(repo);
  const base = commitWith(repo, [{ mode: '100644', name: 'base.json', oid: good }]);
  const dup = commitWith(repo, [{ mode: '100644', name: 'base.json', oid: good }, { mode: '100644', name: 'base.json', oid: evil }], base.commit);
  const store = await ObjectStore.discover(repo);
  const changes = await touchedPaths(store, dup.commit);
  assert.equal(changes.map((c) => [c.path, c.change, c.before?.oid, c.after?.oid, c.unsafe]), [['fixtures/orders/base.json', 'modify', good, evil, true]]);
  assert.match(changes[0]!.unsafeReason!, /\(git fsck: duplicateEntries\)$/);
});

test('unsorted trees are unsafe at the tree\'s own path (the root tree: at the entry out of order)', async () => {
  const repo = initRepo();
  const { good } = blobs(repo);
  const base = commitWith(repo, [{ mode: '100644', name: 'a.json', oid: good }, { mode: '100644', name: 'b.json', oid: good }]);
  const swapped = commitWith(repo, [{ mode: '100644', name: 'b.json', oid: good }, { mode: '100644', name: 'a.json', oid: good }], base.commit);
  const store = await ObjectStore.discover(repo);
  const changes = await diffTrees(store, base.tree, swapped.tree);
  assert.equal(
    changes.map((c) => [c.path, c.change, c.before?.oid, c.after?.oid, c.unsafe, c.unsafeReason]),
    [['fixtures/orders', 'modify', base.orders, swapped.orders, true, "the tree 'fixtures/orders' lists 'a.json' after 'b.json', out of git's order (git fsck: treeNotSorted)"]],
  );
  const root = hashObject(repo, 'tree', rawTree([{ mode: '100644', name: 'z', oid: good }, { mode: '100644', name: 'y', oid: good }]));
  const atRoot = await diffTrees(store, null, root);
  assert.equal(atRoot.map((c) => [c.path, c.unsafe]), [['y', true], ['z', false]]);
  assert.match(atRoot[0]!.unsafeReason!, /^the root tree lists 'y' after 'z', out of git's order \(git fsck: treeNotSorted\)$/);
});

test('modes: an unchanged file whose mode git fsck refuses is unsafe; the change a checkout sees is the canonical mode; 100664 stays accepted', async () => {
  const repo = initRepo();
  const { good, evil } = blobs(repo);
  const base = commitWith(repo, [{ mode: '100644', name: 'a', oid: good }, { mode: '100644', name: 'b', oid: good }, { mode: '100644', name: 'c', oid: good }]);
  const odd = commitWith(
    repo,
    [
      { mode: '100600', name: 'a', oid: good }, // reads as 100644: no change, but badFilemode
      { mode: '100700', name: 'b', oid: good }, // reads as 100755: a mode change
      { mode: '100664', name: 'c', oid: evil }, // reads as 100644: a content change, accepted
    ],
    base.commit,
  );
  const store = await ObjectStore.discover(repo);
  const changes = await diffTrees(store, base.tree, odd.tree);
  assert.equal(
    changes.map((c) => [c.path, c.change, c.before?.mode, c.after?.mode, c.unsafe]),
    [
      ['fixtures/orders/a', 'modify', '100644', '100644', true],
      ['fixtures/orders/b', 'mode', '100644', '100755', true],
      ['fixtures/orders/c', 'modify', '100644', '100644', false],
    ],
  );
  assert.match(changes[0]!.unsafeReason!, /has mode 100600.*\(git fsck: badFilemode\)$/);
  // git diff-tree reads the modes the same way: only b and c differ.
  assert.equal(git(repo, ['diff-tree', '-r', '--name-status', base.tree, odd.tree]).trim().split('\n'), ['M\tfixtures/orders/b', 'M\tfixtures/orders/c']);
  // A zero-padded directory (git 1.x wrote 040000; git fsck only warns) with the same content:
  // it is the directory it names, nothing below it changes and nothing is unsafe; the change
  // beside it is judged as any other.
  const sub = hashObject(repo, 'tree', rawTree([{ mode: '100644', name: 'x', oid: good }]));
  const plain = hashObject(repo, 'tree', rawTree([{ mode: '40000', name: 'd', oid: sub }, { mode: '100644', name: 'e', oid: good }]));
  const padded = hashObject(repo, 'tree', rawTree([{ mode: '040000', name: 'd', oid: sub }, { mode: '100644', name: 'e', oid: evil }]));
  const padDiff = await diffTrees(store, plain, padded);
  assert.equal(padDiff.map((c) => [c.path, c.change, c.unsafe]), [['e', 'modify', false]]);
  assert.equal((await store.objects.readRawTree(padded)).fsckIds(), ['zeroPaddedFilemode']);
  assert.equal(git(repo, ['diff-tree', '-r', '--name-only', plain, padded]).trim(), 'e');
  // A zero-padded directory that is new: every path below it is judged, none is unsafe.
  assert.equal((await diffTrees(store, null, padded)).map((c) => [c.path, c.unsafe]), [['d/x', false], ['e', false]]);
  // The old side is not judged: removing the bad tree is the fix.
  assert.equal((await diffTrees(store, odd.tree, base.tree)).filter((c) => c.unsafe), []);
});

test('a tree with problems that is not read (unchanged, same oid) is not reported again', async () => {
  const repo = initRepo();
  const { good, evil } = blobs(repo);
  const dup = hashObject(repo, 'tree', rawTree([{ mode: '100644', name: 'x', oid: good }, { mode: '100644', name: 'x', oid: good }]));
  const a = hashObject(repo, 'tree', rawTree([{ mode: '40000', name: 'old', oid: dup }, { mode: '100644', name: 'z', oid: good }]));
  const b = hashObject(repo, 'tree', rawTree([{ mode: '40000', name: 'old', oid: dup }, { mode: '100644', name: 'z', oid: evil }]));
  const store = await ObjectStore.discover(repo);
  assert.equal((await diffTrees(store, a, b)).map((c) => [c.path, c.unsafe]), [['z', false]]);
});

// Sorted trees with unique names and every kind of mode: the diff (its records that are not
// unsafe markers of unchanged or directory entries) is git diff-tree -r --raw's, modes and all.
const NAMES = ['a', 'a.b', 'a-', 'b', 'c'];
const MODES = ['100644', '100664', '100600', '100755', '100700', '100777', '120000', '120777', '1100644', '40000', '040000', '40755'];

test('modes are compared as git diff-tree --raw compares them', async () => {
  const repo = initRepo();
  const contents = ['1\n', '2\n'].map((t) => git(repo, ['hash-object', '-w', '--stdin'], { input: t }).trim());
  const subs = contents.map((oid) => hashObject(repo, 'tree', rawTree([{ mode: '100644', name: 'f', oid }])));
  const store = await ObjectStore.discover(repo);
  const treeArb = fc.uniqueArray(fc.record({ name: fc.constantFrom(...NAMES), mode: fc.constantFrom(...MODES), content: fc.nat(1) }), { selector: (e) => e.name, maxLength: 5 });
  const isDir = (mode: string) => (parseInt(mode, 8) & 0o170000) === 0o040000;
  const write = (entries: { name: string; mode: string; content: number }[]) => {
    const key = (e: { name: string; mode: string }) => Buffer.from(e.name + (isDir(e.mode) ? '/' : '\0'));
    const sorted = [...entries].sort((x, y) => Buffer.compare(key(x), key(y)));
    return hashObject(repo, 'tree', rawTree(sorted.map((e) => ({ name: e.name, mode: e.mode, oid: (isDir(e.mode) ? subs : contents)[e.content]! }))));
  };
  const sameSides = (c: PathChange) => JSON.stringify(c.before) === JSON.stringify(c.after);
  /** Our records in git's --raw shape; a file<->directory swap is git's delete and add. */
  const raw = (changes: PathChange[]) =>
    changes
      // Markers git has no line for: an unchanged entry, or a directory entry (git lists the
      // files below it).
      .filter((c) => !(c.unsafe && (sameSides(c) || (c.after?.kind === 'tree' && c.change !== 'type'))))
      .map((c) => {
        const pad = (m?: string) => (m ?? '0').padStart(6, '0');
        const zero = '0'.repeat(40);
        if (c.change === 'type' && c.after?.kind === 'tree') return `:${pad(c.before!.mode)} 000000 ${c.before!.oid} ${zero} D\t${c.path}`;
        if (c.change === 'type' && c.before?.kind === 'tree') return `:000000 ${pad(c.after!.mode)} ${zero} ${c.after!.oid} A\t${c.path}`;
        const letter = { add: 'A', delete: 'D', modify: 'M', mode: 'M', type: 'T' }[c.change];
        return `:${pad(c.before?.mode)} ${pad(c.after?.mode)} ${c.before?.oid ?? zero} ${c.after?.oid ?? zero} ${letter}\t${c.path}`;
      })
      .sort();
  await fc.assert(
    fc.asyncProperty(treeArb, treeArb, async (ea, eb) => {
      const a = write(ea);
      const b = write(eb);
      const expected = gitBuf(repo, ['diff-tree', '-r', '--raw', '--no-abbrev', '--no-renames', a, b]).toString('utf8').split('\n').filter(Boolean).sort();
      assert.equal(raw(await diffTrees(store, a, b)), expected);
    }),
    { seed: 20261201, numRuns: 150 },
  );
});

test('the deadline is checked inside the walk: diffTrees and touchedPaths end with DeadlineExceeded', async () => {
  const repo = initRepo();
  const { good } = blobs(repo);
  const wide = hashObject(repo, 'tree', rawTree(Array.from({ length: 3000 }, (_, k) => ({ mode: '100644', name: `f${String(k).padStart(5, '0')}`, oid: good }))));
  const commit = git(repo, ['commit-tree', wide, '-m', 'wide']).trim();
  const store = await ObjectStore.discover(repo);
  let now = 0;
  // A clock that moves one ms per reading: the walk reads it every 256 entries.
  const deadline = () => new Deadline(5, 5, () => now++);
  for (const run of [() => diffTrees(store, null, wide, deadline()), () => touchedPaths(store, commit, deadline())]) {
    now = 0;
    try {
      await run();
      assert.unreachable('the deadline passed');
    } catch (err) {
      assert.instance(err, DeadlineExceeded);
    }
  }
  assert.is((await diffTrees(store, null, wide, Deadline.never())).length, 3000);
  assert.is((await diffTrees(store, EMPTY_TREE, wide)).length, 3000);
});

test.run();
