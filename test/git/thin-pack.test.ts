// A pack whose REF_DELTA bases are not in it: a thin pack, as `git pack-objects --thin` sends
// it, left thin (its .idx written here from gitformat-pack(5)), in a repository where the
// bases are loose objects and packed objects of another pack. The store rebuilds each object
// from the delta and a base read first (a loose base through isomorphic-git, checked like any
// object), and every object equals `git cat-file` of the same object.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ObjectStore } from '../../src/git/store';
import { commit } from './helpers';
import { cleanupTempDirs, git, gitBuf, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

function fanout(oids: string[]): Buffer {
  const buf = Buffer.alloc(1024);
  for (let b = 0; b < 256; b++) buf.writeUInt32BE(oids.filter((o) => parseInt(o.slice(0, 2), 16) <= b).length, b * 4);
  return buf;
}

function idxV2(objects: { oid: string; offset: number }[]): Buffer {
  const sorted = [...objects].sort((a, b) => (a.oid < b.oid ? -1 : 1));
  const names = Buffer.concat(sorted.map((o) => Buffer.from(o.oid, 'hex')));
  const small = Buffer.alloc(4 * sorted.length);
  sorted.forEach((o, i) => small.writeUInt32BE(o.offset, i * 4));
  const body = Buffer.concat([Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]), fanout(sorted.map((o) => o.oid)), names, Buffer.alloc(4 * sorted.length), small, Buffer.alloc(20)]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

test('a thin pack resolves against loose and packed bases', async () => {
  const work = initRepo();
  const text = (n: number) => Array.from({ length: 400 }, (_, i) => `line ${i} of a file that deltas well ${i % 7 === 0 ? n : ''}`).join('\n') + '\n';
  const c1 = commit(work, { 'a.txt': text(1), 'b.txt': text(10) });
  const c2 = commit(work, { 'a.txt': text(2), 'b.txt': text(20) });
  const thin = gitBuf(work, ['pack-objects', '--thin', '--stdout', '--revs', '-q'], { input: `${c2}\n^${c1}\n` });
  // Where the objects of the thin pack start: index a copy with --fix-thin (it appends the
  // bases after the original entries, whose offsets stay).
  const scratch = tempDir();
  const fixed = join(scratch, 'fixed.pack');
  git(work, ['index-pack', '--fix-thin', '--stdin', fixed], { input: thin });
  const baseA = git(work, ['rev-parse', `${c1}:a.txt`]).trim();
  const baseB = git(work, ['rev-parse', `${c1}:b.txt`]).trim();
  const c1Tree = git(work, ['rev-parse', `${c1}^{tree}`]).trim();
  const idxText = git(work, ['show-index'], { input: readFileSync(fixed.replace(/\.pack$/, '.idx')) });
  const all = idxText
    .trim()
    .split('\n')
    .map((l) => l.split(' '))
    .map(([offset, oid]) => ({ offset: Number(offset), oid: oid! }));
  const entries = all.filter((e) => e.offset < thin.length - 20);
  assert.ok(entries.length < all.length, 'the pack was thin: git appended bases to complete it');
  // Targets: c1's blobs loose (read through isomorphic-git) or in another pack; c1's tree and
  // commit packed; the thin pack holds c2.
  for (const placement of ['loose', 'packed'] as const) {
    const target = initRepo({ bare: true });
    if (placement === 'loose') {
      for (const blob of [baseA, baseB]) git(target, ['hash-object', '-w', '--stdin'], { input: gitBuf(work, ['cat-file', 'blob', blob]) });
    }
    const others = placement === 'loose' ? [c1, c1Tree] : [c1, c1Tree, baseA, baseB];
    git(target, ['index-pack', '--stdin'], { input: gitBuf(work, ['pack-objects', '--stdout', '-q'], { input: `${others.join('\n')}\n` }) });
    const packDir = join(target, 'objects', 'pack');
    mkdirSync(packDir, { recursive: true });
    writeFileSync(join(packDir, 'pack-thin.pack'), thin);
    writeFileSync(join(packDir, 'pack-thin.idx'), idxV2(entries));
    if (placement === 'loose') assert.ok(statSync(join(target, 'objects', baseB.slice(0, 2), baseB.slice(2))).isFile(), 'a base is loose');
    const store = await ObjectStore.open({ gitdir: target, env: {} });
    for (const { oid } of entries) {
      const type = git(work, ['cat-file', '-t', oid]).trim();
      const want = gitBuf(work, ['cat-file', type, oid]);
      if (type === 'blob') assert.ok(Buffer.from(await store.objects.readBlob(oid, 1 << 20)).equals(want), `${placement}: ${oid}`);
      else if (type === 'commit') assert.is((await store.commits.read(oid)).tree, git(work, ['rev-parse', `${oid}^{tree}`]).trim());
      else assert.is((await store.trees.read(oid)).length, git(work, ['ls-tree', oid]).trim().split('\n').length);
    }
    assert.ok(Buffer.from(await store.objects.readBlob(git(work, ['rev-parse', `${c2}:a.txt`]).trim(), 1 << 20)).equals(gitBuf(work, ['cat-file', 'blob', `${c2}:a.txt`])));
    store.close();
  }
});

test.run();
