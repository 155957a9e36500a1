// Trees git accepts but isomorphic-git's parser refuses or mangles: written with
// `git hash-object --literally -t tree` and `git mktree`, read back through the store.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { GitReadError, ObjectStore, decodePathBytes, diffTrees, isUnsafeName } from '../../src/git/index';
import { hashObject, rawTree } from './helpers';
import { cleanupTempDirs, git, gitBuf, initRepo } from '../helpers/git';

test.after(cleanupTempDirs);

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
  const listedMode = new Map(
    gitBuf(repo, ['ls-tree', '-z', tree])
      .toString('latin1')
      .split('\0')
      .filter(Boolean)
      .map((l) => [l.slice(l.indexOf('\t') + 1), l.split(' ')[0]!.replace(/^0+/, '')]),
  );
  const store = await ObjectStore.discover(repo);
  const parsed = await store.trees.read(tree);
  assert.is(parsed.length, entries.length);
  for (const e of entries) {
    const raw = Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name);
    const got = parsed.find((p) => Buffer.from(p.rawName).equals(raw));
    assert.ok(got, `entry ${raw.toString('hex')} is present`);
    assert.is(got!.oid, e.oid);
    assert.is(got!.mode, listedMode.get(raw.toString('latin1')), 'the mode git ls-tree shows (100664 reads as 100644)');
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
  const files = await store.trees.listFiles(tree, '');
  assert.ok(files.some((f) => f.path === 'module' && f.entry.kind === 'gitlink'));
  // A tree under an unsafe directory makes every path beneath unsafe.
  const outer = hashObject(repo, 'tree', rawTree([{ mode: '40000', name: '.GIT', oid: inner }]));
  const nested = await diffTrees(store, null, outer);
  // The directory itself is reported too: git fsck names the entry (hasDotgit).
  assert.equal(nested.map((c) => [c.path, c.unsafe]), [['.GIT', true], ['.GIT/config', true]]);
  assert.match(nested[0]!.unsafeReason ?? '', /\(git fsck: hasDotgit\)/);
  assert.match(nested[1]!.unsafeReason ?? '', /\(git fsck: hasDotgit\)/);
});

test('mode 100664 (git.git\'s own first commit has it) reads as a regular file, and fsck accepts it', async () => {
  const repo = initRepo();
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'legacy\n' }).trim();
  const tree = hashObject(repo, 'tree', rawTree([{ mode: '100664', name: 'legacy.txt', oid: blob }]));
  assert.is(git(repo, ['ls-tree', tree]).split(' ')[0], '100644', 'git reads it as 100644');
  const store = await ObjectStore.discover(repo);
  const [entry] = await store.trees.read(tree);
  assert.equal({ mode: entry!.mode, kind: entry!.kind, name: entry!.name }, { mode: '100644', kind: 'file', name: 'legacy.txt' });
  assert.is((await store.trees.entryAt(tree, 'legacy.txt'))?.oid, blob);
  assert.equal((await store.objects.readRawTree(tree)).fsckIds(), []);
  assert.equal(await diffTrees(store, null, tree), [{ path: 'legacy.txt', change: 'add', after: { mode: '100644', kind: 'file', oid: blob }, unsafe: false }]);
});

test('a mode git cannot parse or a truncated tree is a GitReadError naming the tree; a mode fsck refuses reads as git reads it', async () => {
  const repo = initRepo();
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'x\n' }).trim();
  const store = await ObjectStore.discover(repo);
  const odd = hashObject(repo, 'tree', rawTree([{ mode: '100600', name: 'x', oid: blob }]));
  const [entry] = await store.trees.read(odd);
  assert.is(entry!.mode, git(repo, ['ls-tree', odd]).split(' ')[0], 'as git ls-tree reads it');
  assert.equal((await store.objects.readRawTree(odd)).fsckIds(), ['badFilemode']);
  for (const mode of ['10064x', '']) {
    const bad = hashObject(repo, 'tree', rawTree([{ mode, name: 'x', oid: blob }]));
    assert.throws(() => gitBuf(repo, ['ls-tree', bad]), /malformed mode/, 'git refuses it too');
    try {
      await store.trees.read(bad);
      assert.unreachable();
    } catch (err) {
      assert.instance(err, GitReadError);
      assert.match((err as Error).message, new RegExp(`Tree ${bad} has an entry "x" with mode ${JSON.stringify(JSON.stringify(mode)).slice(1, -1)}, which is not an octal mode`));
    }
  }
  const cut = hashObject(repo, 'tree', rawTree([{ mode: '100644', name: 'x', oid: blob }]).subarray(0, 15));
  try {
    await store.trees.read(cut);
    assert.unreachable();
  } catch (err) {
    assert.instance(err, GitReadError);
    assert.match((err as Error).message, new RegExp(`Tree ${cut} is malformed`));
  }
});

test('entryAt keeps its answers per store, but not a failed read: a folder that arrives later is found', async () => {
  const repo = initRepo();
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'x\n' }).trim();
  const inner = rawTree([{ mode: '100644', name: 'x', oid: blob }]);
  const innerOid = git(repo, ['hash-object', '--literally', '-t', 'tree', '--stdin'], { input: inner }).trim(); // not written
  const outer = hashObject(repo, 'tree', rawTree([{ mode: '40000', name: 'dir', oid: innerOid }, { mode: '100644', name: 'top', oid: blob }]));
  const store = await ObjectStore.discover(repo);
  const first = await store.trees.entryAt(outer, 'top');
  assert.is(first?.oid, blob);
  assert.is(await store.trees.entryAt(outer, 'top'), first, 'the same answer, kept');
  assert.is(await store.trees.entryAt(outer, 'nothing/here'), null);
  for (let i = 0; i < 2; i++) {
    try {
      await store.trees.entryAt(outer, 'dir/x');
      assert.unreachable();
    } catch (err) {
      assert.instance(err, GitReadError);
      assert.match((err as Error).message, innerOid);
    }
  }
  assert.is(hashObject(repo, 'tree', inner), innerOid);
  assert.is((await store.trees.entryAt(outer, 'dir/x'))?.oid, blob);
  assert.is((await store.trees.entryAt(outer, 'dir'))?.oid, innerOid);
  store.close();
});

test.run();
