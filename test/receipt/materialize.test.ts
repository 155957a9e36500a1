// The grader's tree: written from git objects, compared with what `git archive` writes for the
// same commit (an independent implementation), including exec bits and symlinks; unsafe paths
// and symlinks out of the tree are refused.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { chmodSync, lstatSync, mkdirSync, readdirSync, readFileSync, readlinkSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { ObjectStore } from '../../src/git/store';
import { materializeCommit, MaterializeError, resolvesInside, symlinkTargetInside, unsafePathReason } from '../../src/receipt/materialize';
import { commitAll, git, tempDir, writeFiles } from '../helpers/git';

/** path -> 'file:<mode>:<hex of content>' | 'link:<target>' | 'dir', for every entry below root. */
function snapshot(root: string): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (rel: string) => {
    for (const name of readdirSync(join(root, rel)).sort()) {
      const p = rel ? `${rel}/${name}` : name;
      const st = lstatSync(join(root, p));
      if (st.isSymbolicLink()) out.set(p, `link:${readlinkSync(join(root, p))}`);
      else if (st.isDirectory()) {
        out.set(p, 'dir');
        walk(p);
      } else out.set(p, `file:${(st.mode & 0o111) !== 0 ? 'x' : '-'}:${readFileSync(join(root, p)).toString('hex')}`);
    }
  };
  walk('');
  return out;
}

async function materializeAndArchive(repo: string): Promise<{ ours: Map<string, string>; theirs: Map<string, string> }> {
  const head = git(repo, ['rev-parse', 'HEAD']).trim();
  const store = await ObjectStore.discover(repo, {});
  const ours = tempDir('ours');
  await materializeCommit(store, head, ours);
  const theirs = tempDir('theirs');
  execFileSync('sh', ['-c', `git -C '${repo}' archive --format=tar HEAD | tar -x -C '${theirs}'`]);
  return { ours: snapshot(ours), theirs: snapshot(theirs) };
}

test('a tree with exec bits, symlinks, nested dirs and binary files matches git archive', async () => {
  const repo = tempDir();
  git(repo, ['init', '-q', '-b', 'main']);
  writeFiles(repo, { 'a.txt': 'a\r\n', 'bin/run.sh': '#!/bin/sh\necho hi\n', 'deep/er/still/x.json': '{}', 'crlf.txt': 'x\r\ny\r\n' });
  chmodSync(join(repo, 'bin/run.sh'), 0o755);
  symlinkSync('a.txt', join(repo, 'link-to-a'));
  symlinkSync('../../a.txt', join(repo, 'deep/er/up'));
  symlinkSync('missing-target', join(repo, 'dangling'));
  execFileSync('sh', ['-c', `head -c 3000 /dev/urandom > '${join(repo, 'blob.bin')}'`]);
  // A submodule (gitlink): written as an empty directory, as an uninitialised checkout has it.
  git(repo, ['add', '-A']);
  git(repo, ['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/sub`]);
  git(repo, ['commit', '-q', '-m', 'tree']);
  const { ours, theirs } = await materializeAndArchive(repo);
  assert.equal([...ours.entries()], [...theirs.entries()]);
  assert.is(ours.get('bin/run.sh')?.slice(0, 6), 'file:x');
  assert.is(ours.get('link-to-a'), 'link:a.txt');
  assert.is(ours.get('vendor/sub'), 'dir');
});

test('eol attributes are not applied: bytes are written as stored in git', async () => {
  const repo = tempDir();
  git(repo, ['init', '-q', '-b', 'main']);
  writeFiles(repo, { '.gitattributes': '*.txt eol=crlf\n', 'a.txt': 'one\ntwo\n' });
  const head = commitAll(repo, 'attrs');
  const store = await ObjectStore.discover(repo, {});
  const dir = tempDir('attrs');
  await materializeCommit(store, head, dir);
  const stored = execFileSync('git', ['cat-file', 'blob', 'HEAD:a.txt'], { cwd: repo });
  assert.equal(readFileSync(join(dir, 'a.txt')), stored);
  // git archive would convert (checkout semantics); the grader does not.
  const archived = execFileSync('sh', ['-c', `git -C '${repo}' archive --format=tar HEAD a.txt | tar -xO`]);
  assert.is.not(archived.toString(), stored.toString());
});

test('random trees match git archive (differential, fixed seed)', async () => {
  const segment = fc.constantFrom('a', 'b', 'src', 'lib', 'x.js', 'y.txt', 'é', 'sp ace');
  const entry = fc.record({
    path: fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/')),
    content: fc.string({ maxLength: 20 }),
    exec: fc.boolean(),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(entry, { minLength: 1, maxLength: 8 }), async (entries) => {
      const repo = tempDir();
      git(repo, ['init', '-q', '-b', 'main']);
      const written = new Set<string>();
      for (const e of entries) {
        // Skip paths that collide with a file/dir already written.
        const clash = [...written].some((w) => w === e.path || w.startsWith(`${e.path}/`) || e.path.startsWith(`${w}/`));
        if (clash) continue;
        writeFiles(repo, { [e.path]: e.content });
        if (e.exec) chmodSync(join(repo, e.path), 0o755);
        written.add(e.path);
      }
      commitAll(repo, 'random');
      const { ours, theirs } = await materializeAndArchive(repo);
      assert.equal([...ours.entries()], [...theirs.entries()]);
    }),
    { seed: 20261129, numRuns: 8 },
  );
});

test('a symlink out of the tree is refused, directly or through another link', async () => {
  for (const links of [{ out: '../outside' }, { abs: '/etc/passwd' }, { 'd/s': '..', t: 'd/s/..' }]) {
    const repo = tempDir();
    git(repo, ['init', '-q', '-b', 'main']);
    writeFiles(repo, { 'keep.txt': 'k' });
    for (const [path, target] of Object.entries(links)) {
      mkdirSync(join(repo, path, '..'), { recursive: true });
      symlinkSync(target, join(repo, path));
    }
    const head = commitAll(repo, 'links');
    const store = await ObjectStore.discover(repo, {});
    let error: unknown = null;
    try {
      await materializeCommit(store, head, tempDir('out'));
    } catch (err) {
      error = err;
    }
    assert.ok(error instanceof MaterializeError, `refused ${JSON.stringify(links)}`);
    assert.match((error as Error).message, /leaves the tree/);
  }
});

test('a crafted tree with a .GIT segment is refused before anything is written there', async () => {
  const repo = tempDir();
  git(repo, ['init', '-q', '-b', 'main']);
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'evil hook\n' }).trim();
  const inner = git(repo, ['mktree'], { input: `100755 blob ${blob}\tpost-checkout\n` }).trim();
  const hooks = git(repo, ['mktree'], { input: `040000 tree ${inner}\thooks\n` }).trim();
  const root = git(repo, ['mktree'], { input: `040000 tree ${hooks}\t.GIT\n` }).trim();
  const commit = git(repo, ['commit-tree', root, '-m', 'crafted']).trim();
  const store = await ObjectStore.discover(repo, {});
  const dir = tempDir('crafted');
  let error: unknown = null;
  try {
    await materializeCommit(store, commit, dir);
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof MaterializeError);
  assert.match((error as Error).message, /segment '\.GIT' is not a name a checkout may write/);
  assert.equal(readdirSync(dir), []);
});

test('a name that is not UTF-8 is written under its exact bytes, as git archive writes it', async () => {
  const repo = tempDir();
  git(repo, ['init', '-q', '-b', 'main']);
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'x\n' }).trim();
  const linkBlob = git(repo, ['hash-object', '-w', '--stdin'], { input: Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('.txt')]) }).trim();
  const name = Buffer.concat([Buffer.from('caf'), Buffer.from([0xe9]), Buffer.from('.txt')]);
  const dirName = Buffer.from([0x64, 0xff]); // "d\xff"
  const inner = git(repo, ['mktree'], { input: Buffer.concat([Buffer.from(`100644 blob ${blob}\t`), name, Buffer.from(`\n120000 blob ${linkBlob}\tlink\n`)]) }).trim();
  const root = git(repo, ['mktree'], { input: Buffer.concat([Buffer.from(`100644 blob ${blob}\t`), name, Buffer.from(`\n040000 tree ${inner}\t`), dirName, Buffer.from('\n')]) }).trim();
  const commit = git(repo, ['commit-tree', root, '-m', 'latin-1 names']).trim();
  const store = await ObjectStore.discover(repo, {});
  const ours = tempDir('latin1');
  const result = await materializeCommit(store, commit, ours);
  assert.is(result.files, 2);
  assert.is(result.symlinks, 1);
  const theirs = tempDir('latin1-archive');
  execFileSync('sh', ['-c', `git -C '${repo}' archive --format=tar ${commit} | tar -x -C '${theirs}'`]);
  const list = (dir: string) =>
    readdirSync(Buffer.from(dir), { encoding: 'buffer' })
      .map((n) => n.toString('hex'))
      .sort();
  assert.equal(list(ours), [dirName.toString('hex'), name.toString('hex')].sort());
  assert.equal(list(ours), list(theirs));
  const sub = Buffer.concat([Buffer.from(`${ours}/`), dirName]);
  const subEntries = readdirSync(sub, { encoding: 'buffer' }).map((n) => n.toString('hex')).sort();
  assert.equal(subEntries, [name.toString('hex'), Buffer.from('link').toString('hex')].sort());
  assert.equal(readFileSync(Buffer.concat([sub, Buffer.from('/'), name])), Buffer.from('x\n'));
  assert.equal(readlinkSync(Buffer.concat([sub, Buffer.from('/link')]), { encoding: 'buffer' }), name);
});

test('a name with a backslash is refused, whatever its other bytes', async () => {
  const repo = tempDir();
  git(repo, ['init', '-q', '-b', 'main']);
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'x\n' }).trim();
  const root = git(repo, ['mktree'], { input: Buffer.concat([Buffer.from(`100644 blob ${blob}\ta\\`), Buffer.from([0xe9]), Buffer.from('\n')]) }).trim();
  const commit = git(repo, ['commit-tree', root, '-m', 'backslash']).trim();
  const store = await ObjectStore.discover(repo, {});
  const dir = tempDir('backslash');
  let error: unknown = null;
  try {
    await materializeCommit(store, commit, dir);
  } catch (err) {
    error = err;
  }
  assert.ok(error instanceof MaterializeError);
  assert.match((error as Error).message, /a\\\\\\xe9.*contains a backslash/);
  assert.equal(readdirSync(dir), []);
});

test('path and target rules', () => {
  assert.is(unsafePathReason('src/a.js'), null);
  for (const p of ['.git/config', 'a/.Git/x', 'a/../b', './a', 'a//b', 'a\\b', '/abs', '.git./x', 'GIT~1/x', '.g\u200cit/x', '.git::$INDEX_ALLOCATION/x', 'a\0b']) {
    assert.ok(unsafePathReason(p), p);
  }
  assert.is(unsafePathReason('.gitignore'), null);
  assert.is(unsafePathReason('dir/.github/x'), null);
  assert.is(symlinkTargetInside('a/b', '../c'), 'c');
  assert.is(symlinkTargetInside('a/b', '../../c'), null);
  assert.is(symlinkTargetInside('a', '/etc'), null);
  const root = tempDir();
  mkdirSync(join(root, 'd'));
  symlinkSync('..', join(root, 'd/s'));
  symlinkSync('d/s/..', join(root, 't'));
  symlinkSync('t', join(root, 'u'));
  assert.ok(resolvesInside(root, 'd/s'));
  assert.not.ok(resolvesInside(root, 't'));
  assert.not.ok(resolvesInside(root, 'u'));
  symlinkSync('loop2', join(root, 'loop1'));
  symlinkSync('loop1', join(root, 'loop2'));
  assert.not.ok(resolvesInside(root, 'loop1'));
});

test.run();
