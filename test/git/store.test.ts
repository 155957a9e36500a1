// ObjectStore against real repositories: every object read is compared with what the git CLI
// reports for it (`git cat-file --batch`), on loose objects, packs with offset and ref deltas,
// alternates (absolute and relative), bare repositories and linked worktrees.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, readdirSync, readFileSync, writeFileSync, truncateSync, statSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { deflateSync } from 'node:zlib';
import { BlobTooLargeError, GitReadError, ObjectStore } from '../../src/git/index';
import { MAX_NON_BLOB_BYTES, ObjectTooLargeError } from '../../src/git/objects';
import { UnsupportedRepositoryError, unsupportedRepositoryMessage } from '../../src/git/config';
import { allObjects, commit, rawTree } from './helpers';
import { cleanupTempDirs, git, gitBuf, initRepo, tempDir } from '../helpers/git';

/** `git cat-file --batch` for every object: oid -> { type, content }. */
function catAll(repo: string): Map<string, { type: string; content: Buffer }> {
  const objects = allObjects(repo);
  const out = gitBuf(repo, ['cat-file', '--batch'], { input: objects.map((o) => o.oid).join('\n') + '\n' });
  const map = new Map<string, { type: string; content: Buffer }>();
  let at = 0;
  while (at < out.length) {
    const nl = out.indexOf(10, at);
    const [oid, type, size] = out.toString('latin1', at, nl).split(' ');
    const start = nl + 1;
    map.set(oid!, { type: type!, content: out.subarray(start, start + Number(size)) });
    at = start + Number(size) + 1;
  }
  return map;
}

/** Reads every object through the store and compares it with git's view of it. */
async function checkEveryObject(store: ObjectStore, repo: string): Promise<number> {
  const expected = catAll(repo);
  assert.ok(expected.size > 0, 'the repository has objects');
  for (const [oid, { type, content }] of expected) {
    assert.equal(await store.objects.objectInfo(oid), { type, size: content.length }, `objectInfo ${oid}`);
    assert.ok(store.objects.hasObject(oid));
    if (type === 'blob') {
      assert.ok(Buffer.from(await store.objects.readBlob(oid, 1 << 30)).equals(content), `blob ${oid}`);
    } else if (type === 'tree') {
      const entries = await store.trees.read(oid);
      const again = rawTree(entries.map((e) => ({ mode: e.mode, name: Buffer.from(e.rawName), oid: e.oid })));
      assert.ok(again.equals(content), `tree ${oid} re-serialises to git's bytes`);
    } else if (type === 'commit') {
      const c = await store.commits.read(oid);
      const [tree, ...parents] = git(repo, ['log', '-1', '--format=%T %P', oid]).trim().split(' ').filter(Boolean);
      assert.equal(c, { oid, tree: tree!, parents });
    } else if (type === 'tag') {
      const peeled = git(repo, ['rev-parse', `${oid}^{commit}`]).trim();
      assert.is(await store.commits.peelToCommit(oid), peeled);
    }
  }
  return expected.size;
}

let template: string | null = null;

/** A repository with history worth delta-compressing: a file edited in many commits. Built
 * once, then copied for each test (tests change it: gc, pack-refs, checkouts). */
function historyRepo(): string {
  if (!template) template = buildHistoryRepo();
  const copy = tempDir();
  cpSync(template, copy, { recursive: true });
  return copy;
}

function buildHistoryRepo(): string {
  const repo = initRepo();
  let text = '';
  for (let i = 0; i < 30; i++) {
    text += `line ${i}: ${'lorem ipsum dolor sit amet '.repeat(4)}\n`;
    commit(repo, { 'doc/notes.txt': text, [`dir${i % 3}/f${i}.txt`]: `file ${i}\n`, 'bin/run': `#!/bin/sh\necho ${i}\n` }, `commit ${i}`);
  }
  git(repo, ['update-index', '--chmod=+x', 'bin/run']);
  git(repo, ['commit', '-q', '-m', 'exec']);
  git(repo, ['tag', '-a', 'v1', '-m', 'release 1']);
  git(repo, ['tag', 'light']);
  git(repo, ['tag', '-a', 'v1-again', '-m', 'tag of a tag', 'v1']);
  git(repo, ['branch', 'feature/x', 'HEAD~3']);
  git(repo, ['update-ref', 'refs/remotes/origin/main', 'HEAD~1']);
  git(repo, ['symbolic-ref', 'refs/remotes/origin/HEAD', 'refs/remotes/origin/main']);
  return repo;
}

function deltaCount(repo: string): number {
  const packDir = join(repo, '.git', 'objects', 'pack');
  let n = 0;
  for (const f of readdirSync(packDir).filter((x) => x.endsWith('.idx'))) {
    const out = git(repo, ['verify-pack', '-v', join(packDir, f)]);
    n += out.split('\n').filter((l) => /^[0-9a-f]{40} \w+ +\d+ \d+ \d+ \d+ [0-9a-f]{40}$/.test(l)).length;
  }
  return n;
}

test.after(cleanupTempDirs);

test('loose objects: every object reads as git reads it', async () => {
  const repo = historyRepo();
  assert.is(readdirSync(join(repo, '.git', 'objects', 'pack')).length, 0, 'nothing is packed yet');
  const store = await ObjectStore.discover(repo);
  assert.ok((await checkEveryObject(store, repo)) > 90);
  assert.is(store.objects.hasQuarantine, false);
});

test('after git gc: packs with offset deltas, then with ref deltas', async () => {
  const repo = historyRepo();
  git(repo, ['gc', '-q', '--aggressive']);
  assert.ok(deltaCount(repo) > 10, 'the pack holds deltas');
  assert.ok(readFileSync(join(repo, '.git', 'packed-refs'), 'utf8').includes('^'), 'packed-refs has peel lines');
  let store = await ObjectStore.discover(repo);
  await checkEveryObject(store, repo);
  store.close();
  git(repo, ['-c', 'repack.useDeltaBaseOffset=false', 'repack', '-adfq', '--depth=50', '--window=50']);
  const ofsOnly = git(repo, ['verify-pack', '-v', ...readdirSync(join(repo, '.git/objects/pack')).filter((f) => f.endsWith('.idx')).map((f) => join(repo, '.git/objects/pack', f))]);
  assert.match(ofsOnly, /chain length = [1-9]/, 'ref-delta pack has chains');
  store = await ObjectStore.discover(repo);
  await checkEveryObject(store, repo);
});

test('refs resolve as git rev-parse resolves them (loose and packed)', async () => {
  const repo = historyRepo();
  git(repo, ['branch', 'light']); // same short name as a tag: the tag wins, as in git
  const names = ['HEAD', '@', 'main', 'refs/heads/main', 'heads/main', 'v1', 'v1-again', 'light', 'tags/light', 'feature/x', 'origin/main', 'origin', 'remotes/origin/main', 'nope', 'feature', '../config', 'refs/heads/../../config', 'HEAD.lock', 'main~1'];
  const check = async (label: string) => {
    const store = await ObjectStore.discover(repo);
    for (const name of names) {
      let expected: string | null = null;
      try {
        expected = git(repo, ['rev-parse', '--verify', '-q', name]).trim() || null;
      } catch {
        expected = null;
      }
      if (name === 'main~1') expected = null; // revision syntax beyond names is not supported
      assert.is(store.refs.resolve(name), expected, `${label}: ${name}`);
    }
    const head = git(repo, ['rev-parse', 'HEAD']).trim();
    assert.is(store.refs.resolve(head), head);
    assert.is(store.refs.resolve('0'.repeat(40)), null);
    assert.is(store.refs.headTarget(), git(repo, ['symbolic-ref', 'HEAD']).trim());
    const refs = store.refs.list();
    const expectedRefs = new Map(
      git(repo, ['for-each-ref', '--format=%(refname) %(objectname)'])
        .trim()
        .split('\n')
        .map((l) => l.split(' ') as [string, string]),
    );
    assert.equal(refs, expectedRefs, `${label}: listRefs`);
  };
  await check('loose');
  git(repo, ['pack-refs', '--all']);
  assert.is(readdirSync(join(repo, '.git/refs/heads')).length, 0, 'refs are packed');
  await check('packed');
  git(repo, ['update-ref', 'refs/heads/main', 'HEAD~2']); // loose ref overriding its packed line
  await check('mixed');
  git(repo, ['checkout', '-qf', '--detach', 'HEAD~1']);
  const store = await ObjectStore.discover(repo);
  assert.is(store.refs.headTarget(), null);
  assert.is(store.refs.resolve('HEAD'), git(repo, ['rev-parse', 'HEAD']).trim());
});

test('bare repository, discover from a subdirectory, relative gitdir, linked worktree', async () => {
  const src = historyRepo();
  const bare = tempDir();
  git(src, ['clone', '-q', '--bare', src, bare]);
  const byOpen = await ObjectStore.open({ gitdir: bare });
  assert.is(byOpen.gitdir, bare);
  assert.is(byOpen.refs.resolve('v1'), git(src, ['rev-parse', 'v1']).trim());
  await checkEveryObject(byOpen, bare);
  const byDiscover = await ObjectStore.discover(bare);
  assert.is(byDiscover.gitdir, bare);
  assert.is((await ObjectStore.discover(join(src, '.git'))).gitdir, join(src, '.git'));
  const sub = await ObjectStore.discover(join(src, 'doc'));
  assert.is(sub.gitdir, join(src, '.git'));
  const rel = await ObjectStore.open({ gitdir: relative(process.cwd(), join(src, '.git')) || '.' });
  assert.is(rel.gitdir, join(src, '.git'));
  assert.is(rel.refs.resolve('main'), git(src, ['rev-parse', 'main']).trim());
  // A linked worktree: .git is a file, HEAD is per worktree, objects and refs are shared.
  const wt = join(tempDir(), 'wt');
  git(src, ['worktree', 'add', '-q', '-b', 'wt-branch', wt, 'HEAD~4']);
  const inWt = await ObjectStore.discover(wt);
  assert.is(inWt.refs.headTarget(), 'refs/heads/wt-branch');
  assert.is(inWt.refs.resolve('HEAD'), git(src, ['rev-parse', 'HEAD~4']).trim());
  assert.is(inWt.refs.resolve('main'), git(src, ['rev-parse', 'main']).trim());
  assert.is((await inWt.commits.read(git(src, ['rev-parse', 'HEAD']).trim())).tree, git(src, ['rev-parse', 'HEAD^{tree}']).trim());
});

test('clone --shared (absolute alternates) and relative alternates, recursively', async () => {
  const src = historyRepo();
  git(src, ['gc', '-q']);
  const shared = tempDir();
  git(src, ['clone', '-q', '--shared', src, shared]);
  assert.is(readFileSync(join(shared, '.git/objects/info/alternates'), 'utf8').trim(), join(src, '.git/objects'));
  commit(shared, { 'own.txt': 'only in the clone\n' });
  let store = await ObjectStore.discover(shared);
  await checkEveryObject(store, src);
  await checkEveryObject(store, shared);
  // A chain: third -> (relative) shared -> (absolute) src.
  const third = initRepo();
  writeFileSync(join(third, '.git/objects/info/alternates'), relative(join(third, '.git/objects'), join(shared, '.git/objects')) + '\n');
  store = await ObjectStore.discover(third);
  const own = git(shared, ['rev-parse', 'HEAD:own.txt']).trim();
  assert.is(Buffer.from(await store.objects.readBlob(own, 100)).toString(), 'only in the clone\n');
  await checkEveryObject(store, src);
  // Objects reachable through GIT_ALTERNATE_OBJECT_DIRECTORIES only.
  const empty = initRepo();
  store = await ObjectStore.open({ gitdir: join(empty, '.git'), env: { GIT_ALTERNATE_OBJECT_DIRECTORIES: `/nonexistent:${join(shared, '.git/objects')}` } });
  assert.is(Buffer.from(await store.objects.readBlob(own, 100)).toString(), 'only in the clone\n');
  assert.is(await store.objects.isQuarantined(own), false);
});

test('GIT_OBJECT_DIRECTORY / GIT_QUARANTINE_PATH make a quarantine, relative paths allowed', async () => {
  const repo = historyRepo();
  const incoming = join(repo, '.git', 'incoming');
  mkdirSync(incoming);
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'pushed\n', env: { GIT_OBJECT_DIRECTORY: incoming } }).trim();
  assert.ok(statSync(join(incoming, blob.slice(0, 2), blob.slice(2))).isFile());
  const plain = await ObjectStore.discover(repo);
  assert.is(plain.objects.hasObject(blob), false);
  const store = await ObjectStore.open({
    gitdir: join(repo, '.git'),
    env: { GIT_OBJECT_DIRECTORY: relative(process.cwd(), incoming), GIT_ALTERNATE_OBJECT_DIRECTORIES: join(repo, '.git/objects') },
  });
  assert.is(store.objects.hasQuarantine, true);
  assert.is(await store.objects.isQuarantined(blob), true);
  const head = git(repo, ['rev-parse', 'HEAD']).trim();
  assert.is(await store.objects.isQuarantined(head), false);
  assert.is(Buffer.from(await store.objects.readBlob(blob, 10)).toString(), 'pushed\n');
  // An object the push resent although the repository already had it is not new.
  const both = git(repo, ['hash-object', '-w', '--stdin'], { input: 'both\n' }).trim();
  git(repo, ['hash-object', '-w', '--stdin'], { input: 'both\n', env: { GIT_OBJECT_DIRECTORY: incoming } });
  assert.ok(statSync(join(incoming, both.slice(0, 2), both.slice(2))).isFile());
  assert.is(await store.objects.isQuarantined(both), false);
  assert.is(store.objects.hasObject(both), true);
});

test('a reftable repository is refused up front', async () => {
  const repo = initRepo();
  git(repo, ['config', 'core.repositoryformatversion', '1']);
  git(repo, ['config', 'extensions.refStorage', 'reftable']);
  const err = await rejects(ObjectStore.discover(repo), /stores its refs as reftable \(extensions.refStorage = reftable\)/);
  assert.instance(err, UnsupportedRepositoryError);
  assert.is(err.message, unsupportedRepositoryMessage(repo + '/.git', 'refStorage', 'reftable'));
});

test('a SHA-256 repository is refused up front with a clear message', async () => {
  const repo = tempDir();
  git(repo, ['init', '-q', '--object-format=sha256']);
  for (const open of [() => ObjectStore.discover(repo), () => ObjectStore.open({ gitdir: join(repo, '.git') })]) {
    try {
      await open();
      assert.unreachable('a sha256 repository must be refused');
    } catch (err) {
      assert.instance(err, GitReadError);
      assert.match((err as Error).message, /sha256/);
      assert.match((err as Error).message, /SHA-1 repositories only/);
    }
  }
});

async function rejects(p: Promise<unknown>, pattern: RegExp): Promise<GitReadError> {
  try {
    await p;
  } catch (err) {
    assert.instance(err, GitReadError, `expected a GitReadError, got ${String(err)}`);
    assert.match((err as Error).message, pattern);
    return err as GitReadError;
  }
  assert.unreachable(`expected a rejection matching ${pattern}`);
  throw new Error('unreachable');
}

test('read failures are GitReadErrors naming the oid', async () => {
  const repo = initRepo();
  const c = commit(repo, { 'a.txt': 'hello\n', 'b.txt': 'second file\n' });
  const store = await ObjectStore.discover(repo);
  const blob = git(repo, ['rev-parse', 'HEAD:a.txt']).trim();
  const missing = 'f'.repeat(40);
  await rejects(store.objects.readBlob(missing, 10), new RegExp(`${missing} is not in the repository`));
  await rejects(store.commits.read(missing), new RegExp(missing));
  assert.is(await store.objects.objectInfo(missing), null);
  await rejects(store.commits.read(blob), new RegExp(`${blob} is a blob, not a commit`));
  await rejects(store.trees.read(c), new RegExp(`${c} is a commit, not a tree`));
  await rejects(store.objects.readBlob('HEAD', 10), /not a full 40-hex object id/);
  const big = await rejects(store.objects.readBlob(blob, 3), new RegExp(`${blob} is 6 bytes, over the limit of 3`));
  assert.instance(big, BlobTooLargeError);
  assert.is((big as BlobTooLargeError).size, 6);
  assert.is((big as BlobTooLargeError).limit, 3);
  // A corrupt loose object.
  const other = git(repo, ['rev-parse', 'HEAD:b.txt']).trim();
  const file = join(repo, '.git/objects', other.slice(0, 2), other.slice(2));
  const { chmodSync } = await import('node:fs');
  chmodSync(file, 0o644);
  writeFileSync(file, Buffer.from('this is not zlib data at all'));
  const fresh = await ObjectStore.discover(repo);
  await rejects(fresh.objects.readBlob(other, 100), new RegExp(other));
  await rejects(fresh.objects.objectInfo(other), new RegExp(other));
  // Valid zlib, valid header, wrong content: only the SHA-1 check can tell.
  const third = git(repo, ['rev-parse', 'HEAD:a.txt']).trim();
  const thirdFile = join(repo, '.git/objects', third.slice(0, 2), third.slice(2));
  chmodSync(thirdFile, 0o644);
  writeFileSync(thirdFile, deflateSync(Buffer.from('blob 6\0HELLO\n')));
  const again = await ObjectStore.discover(repo);
  assert.equal(await again.objects.objectInfo(third), { type: 'blob', size: 6 }, 'the header alone looks fine');
  await rejects(again.objects.readBlob(third, 100), new RegExp(`${third}.*SHA`));
});

test('corrupt and truncated packs are GitReadErrors naming the oid', async () => {
  const repo = initRepo();
  const lines = Array.from({ length: 2000 }, (_, i) => `row ${i} ${(i * 7919) % 104729}`).join('\n');
  commit(repo, { 'big.txt': lines, 'small.txt': 'small\n' });
  git(repo, ['gc', '-q']);
  const packDir = join(repo, '.git/objects/pack');
  const pack = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.pack'))!);
  const objects = allObjects(repo);
  // Offsets as git records them, to aim the damage at one object.
  const verify = git(repo, ['verify-pack', '-v', pack.replace(/\.pack$/, '.idx')]);
  const offsetOf = (oid: string) => Number(new RegExp(`^${oid} \\w+ +\\d+ \\d+ (\\d+)`, 'm').exec(verify)![1]);
  const bigBlob = git(repo, ['rev-parse', 'HEAD:big.txt']).trim();
  const original = readFileSync(pack);
  // Flip bytes inside the big blob's compressed data.
  const damaged = Buffer.from(original);
  const at = offsetOf(bigBlob) + 40;
  for (let i = 0; i < 16; i++) damaged[at + i] = damaged[at + i]! ^ 0xff;
  const { chmodSync } = await import('node:fs');
  chmodSync(pack, 0o644);
  writeFileSync(pack, damaged);
  let store = await ObjectStore.discover(repo);
  await rejects(store.objects.readBlob(bigBlob, 1 << 20), new RegExp(bigBlob));
  store.close();
  // Truncate the pack in the middle of the last object.
  writeFileSync(pack, original);
  const last = objects.map((o) => ({ ...o, off: offsetOf(o.oid) })).sort((x, y) => y.off - x.off)[0]!;
  truncateSync(pack, last.off + 3);
  store = await ObjectStore.discover(repo);
  const read = last.type === 'blob' ? store.objects.readBlob(last.oid, 1 << 20) : last.type === 'tree' ? store.trees.read(last.oid) : store.commits.read(last.oid);
  await rejects(read, new RegExp(`${last.oid}.*(truncated|corrupt)`));
});

test('a pack larger than the blocks kept, with entries across block edges and over a block long, and an index over 64 KiB, reads as git reads it', async () => {
  // Blobs of random bytes (they do not compress, so they lie in the pack at their own size),
  // 40 bytes to 20 KiB, by a recorded seed: many entries cross an 8 KiB block edge, some are
  // longer than a block, and the pack is many times the 16 blocks a pack keeps.
  const repo = initRepo();
  let seed = 20261203;
  const next = () => (seed = (Math.imul(seed, 1103515245) + 12345) >>> 0);
  const blobs: Buffer[] = [];
  for (let i = 0; i < 3000; i++) {
    const size = i % 50 === 0 ? 9000 + (next() % 12000) : 40 + (next() % 400);
    const b = Buffer.allocUnsafe(size);
    for (let k = 0; k < size; k++) b[k] = next() >>> 24;
    blobs.push(b);
  }
  const input = Buffer.concat(blobs.flatMap((b) => [Buffer.from(`blob\ndata ${b.length}\n`), b, Buffer.from('\n')]));
  gitBuf(repo, ['fast-import', '--quiet'], { input });
  const packDir = join(repo, '.git', 'objects', 'pack');
  const idx = join(packDir, readdirSync(packDir).find((f) => f.endsWith('.idx'))!);
  assert.ok(statSync(idx).size > 64 * 1024, 'the index is read from the file, bucket by bucket');
  assert.ok(statSync(idx.replace(/\.idx$/, '.pack')).size > 40 * 8 * 1024, 'the pack is far larger than the blocks kept');
  const entries = git(repo, ['verify-pack', '-v', idx]).split('\n').map((l) => /^([0-9a-f]{40}) blob +(\d+) (\d+) (\d+)$/.exec(l)).filter((m) => m !== null);
  const across = entries.filter((m) => Math.floor(Number(m[4]) / 8192) !== Math.floor((Number(m[4]) + Number(m[3]) - 1) / 8192));
  assert.ok(across.length > 100, `${across.length} entries cross a block edge`);
  assert.ok(entries.some((m) => Number(m[3]) > 8192), 'some entries are longer than a block');
  const want = new Map([...catAll(repo)].map(([oid, { content }]) => [oid, content] as const));
  assert.is(want.size, entries.length);
  // Read in a shuffled order (blocks are dropped and read again), then once more.
  const order = [...want.keys()].sort((x, y) => ((next() & 1) === 0 ? x.localeCompare(y) : y.localeCompare(x)));
  for (let round = 0; round < 2; round++) {
    const store = await ObjectStore.discover(repo);
    for (const oid of order) assert.ok(Buffer.from(await store.objects.readBlob(oid, 1 << 20)).equals(want.get(oid)!), `blob ${oid}`);
    store.close();
    order.reverse();
  }
});

test('size before read: a large blob in a pack is measured, refused and never inflated', async () => {
  const repo = initRepo();
  const { randomBytes } = await import('node:crypto');
  const big = randomBytes(24 * 1024 * 1024);
  commit(repo, { 'witness.bin': big, 'small.json': '{"ok":true}\n' });
  git(repo, ['-c', 'pack.compression=1', 'gc', '-q']);
  const store = await ObjectStore.discover(repo);
  const bigOid = git(repo, ['rev-parse', 'HEAD:witness.bin']).trim();
  const smallOid = git(repo, ['rev-parse', 'HEAD:small.json']).trim();
  if (global.gc) global.gc();
  const before = process.memoryUsage().rss;
  const t0 = Date.now();
  assert.equal(await store.objects.objectInfo(bigOid), { type: 'blob', size: big.length });
  const err = await rejects(store.objects.readBlob(bigOid, 1024 * 1024), /over the limit/);
  assert.is((err as BlobTooLargeError).size, big.length);
  assert.is(Buffer.from(await store.objects.readBlob(smallOid, 1024)).toString(), '{"ok":true}\n');
  const grew = process.memoryUsage().rss - before;
  assert.ok(grew < 16 * 1024 * 1024, `reading the small file beside a 24 MiB blob grew RSS by ${grew} bytes`);
  assert.ok(Date.now() - t0 < 1000, 'measuring the big blob does not read it');
  assert.ok(Buffer.from(await store.objects.readBlob(bigOid, big.length)).equals(big), 'and it reads when allowed');
});

test('size limits on loose objects: the file inflated only up to the limit, the size still exact', async () => {
  const repo = initRepo();
  commit(repo, { 'a.txt': 'a\n' });
  const { createHash } = await import('node:crypto');
  /** Writes a loose object (`type size\0content`, as given) and returns its name. */
  const writeLoose = (wrapped: Buffer): string => {
    const oid = createHash('sha1').update(wrapped).digest('hex');
    mkdirSync(join(repo, '.git/objects', oid.slice(0, 2)), { recursive: true });
    writeFileSync(join(repo, '.git/objects', oid.slice(0, 2), oid.slice(2)), deflateSync(wrapped));
    return oid;
  };
  const wrap = (type: string, content: Buffer) => Buffer.concat([Buffer.from(`${type} ${content.length}\0`), content]);
  const mib = Buffer.alloc(1024 * 1024, 'x');
  const blob = writeLoose(wrap('blob', mib));
  assert.is(git(repo, ['cat-file', '-s', blob]).trim(), String(mib.length), 'git reads the crafted blob');
  const store = await ObjectStore.discover(repo);
  const refused = await rejects(store.objects.readBlob(blob, 1000), /over the limit of 1000 bytes/);
  assert.instance(refused, BlobTooLargeError);
  assert.is((refused as BlobTooLargeError).size, mib.length, 'the size from the header, though only the limit was inflated');
  assert.ok(Buffer.from(await store.objects.readBlob(blob, mib.length)).equals(mib), 'read whole within the limit');
  // A commit over 64 MiB is refused before it is parsed, named as a commit.
  const hugeCommit = writeLoose(wrap('commit', Buffer.concat([Buffer.from(`tree ${'4b825dc642cb6eb9a060e54bf8d69288fbee4904'}\n\n`), Buffer.alloc(MAX_NON_BLOB_BYTES, 'm')])));
  const tooLarge = await rejects(store.commits.read(hugeCommit), /^Commit [0-9a-f]{40} is \d+ bytes, over the limit of 67108864 bytes/);
  assert.instance(tooLarge, ObjectTooLargeError);
  assert.is((tooLarge as ObjectTooLargeError).size, MAX_NON_BLOB_BYTES + 47);
  // A blob over 64 MiB read without a blob limit (peeling an oid that names it) is read whole.
  const hugeBlob = writeLoose(wrap('blob', Buffer.alloc(MAX_NON_BLOB_BYTES + 10, 'b')));
  assert.equal((await store.commits.peel(hugeBlob)).type, 'blob');
  assert.is((await store.objects.read(hugeBlob)).content.length, MAX_NON_BLOB_BYTES + 10);
  // A header that says less than the file holds is corrupt, whether the limit is reached or not.
  const liar = createHash('sha1').update('anything').digest('hex');
  mkdirSync(join(repo, '.git/objects', liar.slice(0, 2)), { recursive: true });
  writeFileSync(join(repo, '.git/objects', liar.slice(0, 2), liar.slice(2)), deflateSync(Buffer.concat([Buffer.from('blob 5\0'), Buffer.alloc(5000, 'z')])));
  const fresh = await ObjectStore.discover(repo);
  await rejects(fresh.objects.readBlob(liar, 10), new RegExp(`${liar} .*has no valid object header`));
  await rejects(fresh.objects.readBlob(liar, 1_000_000), new RegExp(`${liar} .*has no valid object header`));
  store.close();
  fresh.close();
});

test('errors about pushed objects never print the quarantine directory', async () => {
  const repo = initRepo({ bare: true });
  const work = initRepo();
  const base = commit(work, { 'a.txt': 'base\n' });
  git(work, ['push', '-q', repo, `${base}:refs/heads/main`]);
  const quarantine = join(repo, 'objects', 'tmp_objdir-incoming-Qx7Abc');
  mkdirSync(join(quarantine, 'pack'), { recursive: true });
  // A loose object whose bytes are another object's (SHA-1 mismatch), one that does not inflate.
  const good = commit(work, { 'b.txt': 'pushed\n' });
  const goodBlob = git(work, ['rev-parse', `${good}:b.txt`]).trim();
  const liar = 'ab'.repeat(20);
  const garbage = 'cd'.repeat(20);
  for (const [oid, bytes] of [
    [liar, deflateSync(Buffer.from('blob 7\0pushed\n'))],
    [garbage, Buffer.from('not zlib at all')],
  ] as const) {
    mkdirSync(join(quarantine, oid.slice(0, 2)), { recursive: true });
    writeFileSync(join(quarantine, oid.slice(0, 2), oid.slice(2)), bytes);
  }
  // A pushed pack, truncated.
  const packed = commit(work, { 'c.txt': 'x'.repeat(5000) + '\n' });
  const packName = git(work, ['pack-objects', '-q', join(quarantine, 'pack', 'pack')], { input: `${packed}\n${git(work, ['rev-parse', `${packed}^{tree}`]).trim()}\n${git(work, ['rev-parse', `${packed}:c.txt`]).trim()}\n` }).trim();
  const packFile = join(quarantine, 'pack', `pack-${packName}.pack`);
  truncateSync(packFile, statSync(packFile).size - 200);
  const env = { GIT_QUARANTINE_PATH: quarantine, GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(repo, 'objects') };
  const store = await ObjectStore.open({ gitdir: repo, env });
  assert.ok(store.objects.hasQuarantine);
  const messages: string[] = [];
  const attempts: (() => Promise<unknown>)[] = [
    () => store.objects.readBlob(liar, 1 << 20),
    () => store.objects.readBlob(garbage, 1 << 20),
    () => store.objects.objectInfo(garbage),
    () => store.objects.readBlob(git(work, ['rev-parse', `${packed}:c.txt`]).trim(), 1 << 20),
    () => store.commits.read('ef'.repeat(20)),
    () => store.objects.readBlob(goodBlob, 1 << 20),
  ];
  for (const attempt of attempts) {
    try {
      await attempt();
      assert.unreachable('each read fails');
    } catch (err) {
      assert.instance(err, GitReadError, String(err));
      messages.push((err as Error).message);
    }
  }
  for (const m of messages) {
    assert.not.ok(m.includes(quarantine), m);
    assert.not.ok(m.includes('tmp_objdir'), m);
    assert.ok(m.includes(repo) || /[0-9a-f]{40}/.test(m), m);
  }
  if (process.env.SHOW_MESSAGES) console.log(messages);
  assert.match(messages[0]!, /SHA-1 check failed/);
  store.close();
});

test.run();
