// A pack the push brought, up to 32 MiB, is read whole at its first use (src/git/pack.ts,
// `wholeUpTo`); any other pack in blocks. Both ways give every object exactly as git does: a pack
// of a history with deltas (objects whole, OFS_DELTA chains, entries spanning blocks) is read
// object by object both ways and compared with `git cat-file`, and a truncated copy of it fails
// the same way both ways. Then through the store: a push's quarantine pack, every object.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readFileSync, readdirSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BaseCache, PackFile } from '../../src/git/pack';
import { Inflater } from '../../src/git/inflate';
import { ObjectStore } from '../../src/git/index';
import { cleanupTempDirs, git, gitBuf, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

/** A repository whose history has folders rewritten 40 times (trees and blobs as deltas),
 * repacked into one pack; its pack and index paths and every object with its offset. */
function packed(): { repo: string; pack: string; idx: string; objects: { oid: string; offset: number }[] } {
  const repo = initRepo();
  for (let i = 0; i < 40; i++) {
    for (let f = 0; f < 30; f++) {
      mkdirSync(join(repo, `d${f % 3}`), { recursive: true });
      writeFileSync(join(repo, `d${f % 3}`, `f${f}.txt`), `${'line of text\n'.repeat(200 + f)}${i % (f + 2)}\n`);
    }
    git(repo, ['add', '-A']);
    git(repo, ['commit', '-qm', `c${i}`]);
  }
  git(repo, ['repack', '-adq']);
  const dir = join(repo, '.git', 'objects', 'pack');
  const name = readdirSync(dir).find((n) => n.endsWith('.pack'))!.slice(0, -5);
  const idx = join(dir, `${name}.idx`);
  const objects = git(repo, ['show-index'], { input: readFileSync(idx) })
    .trim()
    .split('\n')
    .map((l) => {
      const [offset, oid] = l.split(' ');
      return { oid: oid!, offset: Number(offset) };
    });
  return { repo, pack: join(dir, `${name}.pack`), idx, objects };
}

function readAll(pack: string, idx: string, wholeUpTo: number, objects: { oid: string; offset: number }[]): Map<string, string> {
  const file = new PackFile(pack, idx, new BaseCache(1 << 20), new Inflater(), 'the pack', wholeUpTo);
  const out = new Map<string, string>();
  try {
    for (const { oid, offset } of objects) {
      try {
        const { type, data } = file.read(oid, offset, () => {
          throw new Error('no base outside the pack');
        });
        out.set(oid, `${type} ${data.toString('latin1')}`);
      } catch (err) {
        out.set(oid, `error: ${(err as Error).message}`);
      }
    }
  } finally {
    file.close();
  }
  return out;
}

test('a pack read whole and in blocks: every object as git reads it, and a truncated pack fails alike', () => {
  const { repo, pack, idx, objects } = packed();
  const deltas = git(repo, ['verify-pack', '-v', idx]).split('\n').filter((l) => / \d+ [0-9a-f]{40}$/.test(l.trim())).length;
  assert.ok(deltas > 100, `the pack holds deltas (${deltas})`);
  const whole = readAll(pack, idx, 1 << 30, objects);
  const blocks = readAll(pack, idx, 0, objects);
  for (const { oid } of objects) {
    const type = git(repo, ['cat-file', '-t', oid]).trim();
    const bytes = gitBuf(repo, ['cat-file', type, oid]).toString('latin1');
    assert.is(whole.get(oid), `${type} ${bytes}`, `${oid} read whole`);
    assert.is(blocks.get(oid), `${type} ${bytes}`, `${oid} read in blocks`);
  }
  // Cut: the objects past the cut cannot be read, with the same error both ways.
  const dir = tempDir('cut');
  const cutPack = join(dir, 'cut.pack');
  const cutIdx = join(dir, 'cut.idx');
  copyFileSync(pack, cutPack);
  copyFileSync(idx, cutIdx);
  truncateSync(cutPack, Math.floor(readFileSync(pack).length * 0.6));
  const wholeCut = readAll(cutPack, cutIdx, 1 << 30, objects);
  const blocksCut = readAll(cutPack, cutIdx, 0, objects);
  let failed = 0;
  for (const { oid } of objects) {
    assert.is(wholeCut.get(oid), blocksCut.get(oid), oid);
    if (wholeCut.get(oid)!.startsWith('error:')) failed++;
  }
  assert.ok(failed > 10 && failed < objects.length, `some objects are past the cut (${failed} of ${objects.length})`);
});

test('a push whose pack is in the quarantine: every object read through the store as git reads it', async () => {
  const { repo, pack, idx, objects } = packed();
  const bare = initRepo({ bare: true });
  const quarantine = join(bare, 'objects', 'tmp_objdir-incoming-Wh01e');
  mkdirSync(join(quarantine, 'pack'), { recursive: true });
  copyFileSync(pack, join(quarantine, 'pack', 'pushed.pack'));
  copyFileSync(idx, join(quarantine, 'pack', 'pushed.idx'));
  const env = { GIT_QUARANTINE_PATH: quarantine, GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(bare, 'objects') };
  const store = await ObjectStore.open({ gitdir: bare, env });
  try {
    for (const { oid } of objects) {
      const type = git(repo, ['cat-file', '-t', oid]).trim();
      const read = await store.objects.read(oid);
      assert.is(read.type, type, oid);
      assert.ok(Buffer.from(read.content).equals(gitBuf(repo, ['cat-file', type, oid])), oid);
      assert.ok(await store.objects.isQuarantined(oid), `${oid} is the push's`);
    }
  } finally {
    store.close();
  }
});

test.run();
