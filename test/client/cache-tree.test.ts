// The pre-commit diff that trusts the index's cache-tree (indexChangesAgainstTree) against two
// independent answers after random staging operations done with the git CLI: `git diff
// --cached` and the full comparison (every file of HEAD against every index entry). It must
// also read only the trees along what changed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { diffFlatAgainstIndex, flattenTree, indexChangesAgainstTree, parseIndex } from '../../src/git/staged-index';
import { ObjectStore } from '../../src/git/store';
import { git } from '../helpers/git';

const dirs: string[] = [];
test.after(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function write(dir: string, path: string, content: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

/** A committed tree of 3 x 3 directories with 3 files each (cache-tree fully valid after it). */
function seededRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rg-cachetree-'));
  dirs.push(dir);
  git(dir, ['init', '-q', '-b', 'main']);
  for (const a of ['a', 'b', 'c']) for (const b of ['x', 'y', 'z']) for (const f of ['1', '2', '3']) write(dir, `${a}/${b}/f${f}.txt`, `${a}${b}${f}\n`);
  write(dir, 'top.txt', 'top\n');
  git(dir, ['add', '-A']);
  git(dir, ['commit', '-q', '-m', 'seed']);
  return dir;
}

type Op = { kind: 'modify' | 'add' | 'delete' | 'chmod' | 'dir-to-file' | 'commit' | 'write-tree'; a: string; b: string; f: string };

function apply(dir: string, op: Op, n: number): void {
  const path = `${op.a}/${op.b}/f${op.f}.txt`;
  const exists = (p: string) => git(dir, ['ls-files', '--', p]).trim() !== '';
  switch (op.kind) {
    case 'modify':
      write(dir, path, `changed ${n}\n`);
      git(dir, ['add', '-A', '--', op.a]);
      break;
    case 'add':
      write(dir, `${op.a}/${op.b}/new${n}/g.txt`, `new ${n}\n`);
      git(dir, ['add', '-A', '--', op.a]);
      break;
    case 'delete':
      if (exists(path)) git(dir, ['rm', '-q', '--cached', '--', path]);
      break;
    case 'chmod':
      if (exists(path)) git(dir, ['update-index', '--chmod=+x', '--', path]);
      break;
    case 'dir-to-file':
      if (exists(`${op.a}/${op.b}`)) {
        git(dir, ['rm', '-q', '-r', '--cached', '--', `${op.a}/${op.b}`]);
        rmSync(join(dir, op.a, op.b), { recursive: true, force: true });
        write(dir, `${op.a}/${op.b}`, 'now a file\n');
        git(dir, ['add', '--', `${op.a}/${op.b}`]);
      }
      break;
    case 'commit':
      git(dir, ['commit', '-q', '--allow-empty', '-m', `c${n}`]);
      break;
    case 'write-tree':
      git(dir, ['write-tree']); // revalidates the cache-tree without committing
      break;
  }
}

const opArb: fc.Arbitrary<Op> = fc.record({
  kind: fc.constantFrom('modify', 'add', 'delete', 'chmod', 'dir-to-file', 'commit', 'write-tree'),
  a: fc.constantFrom('a', 'b', 'c'),
  b: fc.constantFrom('x', 'y', 'z'),
  f: fc.constantFrom('1', '2', '3'),
});

/** A store that counts the trees read through it (the real store underneath). */
function counting(store: ObjectStore): { store: ObjectStore; reads: () => number } {
  let n = 0;
  const bound = <T extends object>(target: T, prop: string | symbol, receiver: unknown): unknown => {
    const value = Reflect.get(target, prop, receiver);
    return typeof value === 'function' ? value.bind(target) : value;
  };
  const trees = new Proxy(store.trees, {
    get(target, prop, receiver) {
      if (prop === 'read') {
        return (oid: string) => {
          n++;
          return target.read(oid);
        };
      }
      return bound(target, prop, receiver);
    },
  });
  const spy = new Proxy(store, {
    get(target, prop, receiver) {
      return prop === 'trees' ? trees : bound(target, prop, receiver);
    },
  });
  return { store: spy, reads: () => n };
}

test('indexChangesAgainstTree equals git diff --cached and the full comparison after random staging', async () => {
  let shortcuts = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(opArb, { minLength: 1, maxLength: 5 }), async (ops) => {
      const dir = seededRepo();
      ops.forEach((op, n) => apply(dir, op, n));
      const store = await ObjectStore.discover(dir);
      try {
        const index = parseIndex(readFileSync(join(dir, '.git', 'index')));
        const head = (await store.commits.read(store.refs.resolve('HEAD')!)).tree;
        const counted = counting(store);
        const fast = await indexChangesAgainstTree(counted.store, head, index);
        const full = diffFlatAgainstIndex(await flattenTree(store, head), index.entries);
        assert.equal(fast, full);
        const letter = { add: 'A', delete: 'D', modify: 'M', mode: 'M', type: 'T' } as const;
        const expected = git(dir, ['diff', '--cached', '--no-renames', '--name-status', 'HEAD'])
          .split('\n')
          .filter(Boolean)
          .map((l) => `${l[0]} ${l.slice(2)}`)
          .sort();
        // git reports a file that became a directory as D + A; the tree diff as T + A.
        const ours = fast.map((c) => `${letter[c.change]} ${c.path}`).sort();
        const norm = (rows: string[]) => rows.map((r) => r.replace(/^T /, 'D ')).sort();
        assert.equal(norm(ours), norm(expected));
        if (index.cacheTree !== null && counted.reads() < 13) shortcuts++;
      } finally {
        store.close();
      }
    }),
    { seed: 20261129, numRuns: 40 },
  );
  assert.ok(shortcuts > 10, `the cache-tree shortcut was taken (${shortcuts} runs)`);
});

test('one staged file in a committed tree: only the trees on its path are read', async () => {
  const dir = seededRepo();
  write(dir, 'b/y/f2.txt', 'staged\n');
  git(dir, ['add', 'b/y/f2.txt']);
  const store = await ObjectStore.discover(dir);
  try {
    const index = parseIndex(readFileSync(join(dir, '.git', 'index')));
    assert.ok(index.cacheTree !== null);
    assert.is(index.cacheTree!.entryCount, -1, 'git invalidated the root');
    assert.is(index.cacheTree!.children.get('a')!.entryCount, 9);
    const head = (await store.commits.read(store.refs.resolve('HEAD')!)).tree;
    const counted = counting(store);
    const changes = await indexChangesAgainstTree(counted.store, head, index);
    assert.equal(
      changes.map((c) => [c.change, c.path]),
      [['modify', 'b/y/f2.txt']],
    );
    // root, b and b/y: a, c, b/x and b/z are identical by their recorded oids.
    assert.is(counted.reads(), 3);
  } finally {
    store.close();
  }
});

test('a cache-tree record that does not fit the entries is not trusted', async () => {
  const dir = seededRepo();
  write(dir, 'a/x/f1.txt', 'staged\n');
  git(dir, ['add', 'a/x/f1.txt']);
  const store = await ObjectStore.discover(dir);
  try {
    const index = parseIndex(readFileSync(join(dir, '.git', 'index')));
    const head = (await store.commits.read(store.refs.resolve('HEAD')!)).tree;
    // Drop an entry under c/ while its record still claims 9 entries and HEAD's oid.
    const tampered = { ...index, entries: index.entries.filter((e) => e.path !== 'c/z/f3.txt') };
    const changes = await indexChangesAgainstTree(store, head, tampered);
    assert.equal(
      changes.map((c) => [c.change, c.path]),
      [
        ['modify', 'a/x/f1.txt'],
        ['delete', 'c/z/f3.txt'],
      ],
    );
  } finally {
    store.close();
  }
});

test.run();
