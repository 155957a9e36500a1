// Trees git accepts but isomorphic-git's parser refuses or mangles: written with
// `git hash-object --literally -t tree` and `git mktree`, read back through the store.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GitReadError, ObjectStore, decodePathBytes, diffTrees, isUnsafeName } from '../../src/git/index';
import { cleanup, git, hashObject, initRepo, rawTree } from './helpers';

test.after(cleanup);

test('decodePathBytes: valid UTF-8 as is, invalid bytes as \\xNN, never collapsing two names', () => {
  assert.is(decodePathBytes(Buffer.from('caf\u00e9/\u{1f600}', 'utf8')), 'caf\u00e9/\u{1f600}');
  assert.is(decodePathBytes(Buffer.from('cafe\u0301', 'utf8')), 'cafe\u0301', 'no normalisation');
  assert.is(decodePathBytes(Buffer.from([0x61, 0xff, 0x62])), 'a\\xffb');
  assert.is(decodePathBytes(Buffer.from([0xc3, 0xa9, 0xe9])), '\u00e9\\xe9', 'valid runs stay decoded beside an invalid byte');
  assert.is(decodePathBytes(Buffer.from([0x5c, 0xff])), '\\\\\\xff', 'a literal backslash is doubled in an escaped name');
  assert.is(decodePathBytes(Buffer.from([0xed, 0xa0, 0x80])), '\\xed\\xa0\\x80', 'an encoded surrogate is not UTF-8');
  assert.is(decodePathBytes(Buffer.from([0xc0, 0xaf])), '\\xc0\\xaf', 'an overlong encoding is not UTF-8');
  // Distinctness over every 1- and 2-byte name.
  const seen = new Map<string, string>();
  for (let a = 0; a < 256; a++) {
    for (let b = -1; b < 256; b++) {
      const bytes = Buffer.from(b < 0 ? [a] : [a, b]);
      const name = decodePathBytes(bytes);
      const hex = bytes.toString('hex');
      const valid = Buffer.from(name, 'utf8').equals(bytes);
      if (!valid) assert.ok(name.includes('\\'), `${hex} is visibly escaped`);
      const prior = seen.get(name);
      // The only permitted collision: a valid name spelling an escape with a literal backslash.
      if (prior !== undefined) assert.ok(bytes.includes(0x5c) || Buffer.from(prior, 'hex').includes(0x5c), `${hex} and ${prior} collide`);
      seen.set(name, hex);
    }
  }
});

test('isUnsafeName follows the checkout rules', () => {
  for (const bad of ['.git', '.GIT', '.Git', '.git.', '.git ', '.git. .', 'GIT~1', 'git~1', '.', '..', '', 'a\\b', 'a\0b', 'a/b', '.g\u200cit', '\ufeff.GIT', '.git::$INDEX_ALLOCATION']) {
    assert.ok(isUnsafeName(Buffer.from(bad, 'utf8')), JSON.stringify(bad));
  }
  for (const ok of ['.github', 'git', '.gitignore', '...', ' ', 'a.git', '.git~1', 'caf\u00e9']) {
    assert.not.ok(isUnsafeName(Buffer.from(ok, 'utf8')), JSON.stringify(ok));
  }
});

test('crafted trees parse, are flagged unsafe and never throw', async () => {
  const repo = initRepo();
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'x\n' }).trim();
  const names: (string | Buffer)[] = ['.git', '.GIT', '..', '.', 'a\\b', Buffer.from([0x66, 0xff]), Buffer.from([0x66, 0xfe]), 'ok.txt', ' . ', 'git~1'];
  const inner = hashObject(repo, 'tree', rawTree([{ mode: '100644', name: 'config', oid: blob }]));
  const entries = [
    ...names.map((name) => ({ mode: '100664', name, oid: blob })),
    { mode: '40000', name: 'sub', oid: inner },
    { mode: '160000', name: 'module', oid: 'a'.repeat(40) }, // a gitlink whose commit is absent
    { mode: '120000', name: 'link', oid: blob },
    { mode: '100755', name: 'run', oid: blob },
  ];
  const tree = hashObject(repo, 'tree', rawTree(entries));
  // git itself lists it (the oracle for names and modes).
  const listed = git(repo, ['ls-tree', '-z', tree]).split('\0').filter(Boolean);
  assert.is(listed.length, entries.length);
  const store = await ObjectStore.discover(repo);
  const parsed = await store.readTree(tree);
  assert.is(parsed.length, entries.length);
  for (const e of entries) {
    const raw = Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name);
    const got = parsed.find((p) => Buffer.from(p.rawName).equals(raw));
    assert.ok(got, `entry ${raw.toString('hex')} is present`);
    assert.is(got!.oid, e.oid);
    assert.is(got!.mode, e.mode);
  }
  assert.is(parsed.find((p) => p.name === 'module')!.kind, 'gitlink');
  assert.is(parsed.find((p) => p.name === 'link')!.kind, 'symlink');
  assert.is(parsed.find((p) => p.name === 'run')!.kind, 'exec');
  assert.is(parsed.find((p) => p.name === '.git')!.kind, 'file');
  const nonUtf8 = parsed.filter((p) => p.rawName[0] === 0x66 && p.rawName.length === 2).map((p) => p.name);
  assert.equal(nonUtf8.sort(), ['f\\xfe', 'f\\xff'], 'two non-UTF-8 names stay two names');

  const changes = await diffTrees(store, null, tree);
  const byPath = new Map(changes.map((c) => [c.path, c]));
  for (const p of ['.git', '.GIT', '..', '.', 'a\\b', 'git~1']) assert.is(byPath.get(p)?.unsafe, true, `${p} is unsafe`);
  for (const p of ['ok.txt', 'f\\xff', ' . ', 'module', 'link', 'run']) assert.is(byPath.get(p)?.unsafe, false, `${p} is safe`);
  assert.is(byPath.get('sub/config')?.unsafe, false);
  assert.is(byPath.get('module')?.change, 'add');
  // The gitlink's commit is absent; listing and diffing never read it.
  const files = await store.listFiles(tree, '');
  assert.ok(files.some((f) => f.path === 'module' && f.entry.kind === 'gitlink'));
  // A tree under an unsafe directory makes every path beneath unsafe.
  const outer = hashObject(repo, 'tree', rawTree([{ mode: '40000', name: '.GIT', oid: inner }]));
  const nested = await diffTrees(store, null, outer);
  assert.equal(nested.map((c) => [c.path, c.unsafe]), [['.GIT/config', true]]);
});

test('git mktree output with mode 100664 reads as a regular file', async () => {
  const repo = initRepo();
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'legacy\n' }).trim();
  const tree = git(repo, ['mktree'], { input: `100664 blob ${blob}\tlegacy.txt\n` }).trim();
  const store = await ObjectStore.discover(repo);
  const [entry] = await store.readTree(tree);
  assert.equal({ mode: entry!.mode, kind: entry!.kind, name: entry!.name }, { mode: '100664', kind: 'file', name: 'legacy.txt' });
  assert.is((await store.entryAt(tree, 'legacy.txt'))?.oid, blob);
});

test('an unknown mode or a truncated tree is a GitReadError naming the tree', async () => {
  const repo = initRepo();
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'x\n' }).trim();
  const store = await ObjectStore.discover(repo);
  const weird = hashObject(repo, 'tree', rawTree([{ mode: '100600', name: 'x', oid: blob }]));
  try {
    await store.readTree(weird);
    assert.unreachable();
  } catch (err) {
    assert.instance(err, GitReadError);
    assert.match((err as Error).message, new RegExp(`Tree ${weird} has an entry "x" with mode "100600"`));
  }
  const cut = hashObject(repo, 'tree', rawTree([{ mode: '100644', name: 'x', oid: blob }]).subarray(0, 15));
  try {
    await store.readTree(cut);
    assert.unreachable();
  } catch (err) {
    assert.instance(err, GitReadError);
    assert.match((err as Error).message, new RegExp(`Tree ${cut} is malformed`));
  }
});

test.run();
