// The .idx reader on crafted indexes: 64-bit offsets (packs over 2 GiB, too slow to build in
// the suite; see test/git/manual/large-pack.sh for the real check) and version 1 indexes.
// The layout is written here from gitformat-pack(5), independently of the reader, and the
// real-index case is checked against `git show-index`.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PackIndex, applyDelta } from '../../src/git/pack';
import { GitReadError } from '../../src/git/types';
import { commit } from './helpers';
import { cleanupTempDirs, git, initRepo } from '../helpers/git';

test.after(cleanupTempDirs);

function fanout(oids: string[]): Buffer {
  const buf = Buffer.alloc(1024);
  for (let b = 0; b < 256; b++) buf.writeUInt32BE(oids.filter((o) => parseInt(o.slice(0, 2), 16) <= b).length, b * 4);
  return buf;
}

/** An idx v2 for `objects` (sorted by oid), offsets given as bigint. */
function idxV2(objects: { oid: string; offset: bigint }[]): Buffer {
  const sorted = [...objects].sort((a, b) => (a.oid < b.oid ? -1 : 1));
  const names = Buffer.concat(sorted.map((o) => Buffer.from(o.oid, 'hex')));
  const crcs = Buffer.alloc(4 * sorted.length);
  const small = Buffer.alloc(4 * sorted.length);
  const large: Buffer[] = [];
  sorted.forEach((o, i) => {
    if (o.offset < 0x80000000n) {
      small.writeUInt32BE(Number(o.offset), i * 4);
    } else {
      small.writeUInt32BE((0x80000000 | large.length) >>> 0, i * 4);
      const b = Buffer.alloc(8);
      b.writeBigUInt64BE(o.offset);
      large.push(b);
    }
  });
  const body = Buffer.concat([Buffer.from([0xff, 0x74, 0x4f, 0x63, 0, 0, 0, 2]), fanout(sorted.map((o) => o.oid)), names, crcs, small, ...large, Buffer.alloc(20)]);
  return Buffer.concat([body, createHash('sha1').update(body).digest()]);
}

const oid = (seed: string) => createHash('sha1').update(seed).digest('hex');

test('64-bit offsets come from the large-offset table, exactly', () => {
  const objects = [
    { oid: oid('a'), offset: 12n },
    { oid: oid('b'), offset: 0x80000000n + 5n },
    { oid: oid('c'), offset: 5_000_000_000n },
    { oid: oid('d'), offset: 0x7fffffffn },
    { oid: oid('e'), offset: 2n ** 40n + 3n },
  ];
  const idx = new PackIndex('/crafted.idx', idxV2(objects));
  assert.is(idx.count, objects.length);
  for (const o of objects) assert.is(idx.find(o.oid), Number(o.offset), o.oid);
  assert.is(idx.find(oid('absent')), null);
  assert.is(idx.find('00'.repeat(20)), null);
  assert.is(idx.find('ff'.repeat(20)), null);
});

test('a large offset pointing outside its table is a GitReadError', () => {
  const buf = idxV2([{ oid: oid('a'), offset: 5_000_000_000n }]);
  // Point the entry at large-offset slot 7, which does not exist.
  const smallAt = 8 + 1024 + 20 + 4;
  buf.writeUInt32BE((0x80000000 | 7) >>> 0, smallAt);
  const idx = new PackIndex('/crafted.idx', buf);
  assert.throws(() => idx.find(oid('a')), (err: unknown) => err instanceof GitReadError && /outside its table/.test((err as Error).message));
  assert.throws(() => new PackIndex('/short.idx', buf.subarray(0, 500)), (err: unknown) => err instanceof GitReadError && /truncated/.test((err as Error).message));
});

test('a fan-out table that goes down is a GitReadError, before any bucket is read', () => {
  const objects = [{ oid: 'aa'.repeat(20), offset: 12n }, { oid: 'bb'.repeat(20), offset: 40n }];
  const buf = idxV2(objects);
  // Entry 0xab of the fan-out says 2 objects sort at or below 0xab; make 0xac say 0.
  buf.writeUInt32BE(0, 8 + 0xac * 4);
  assert.throws(() => new PackIndex('/crafted.idx', buf), (err: unknown) => err instanceof GitReadError && /fan-out table that goes down/.test((err as Error).message));
});

test('version 1 indexes are read too', () => {
  const objects = [
    { oid: oid('x'), offset: 12 },
    { oid: oid('y'), offset: 4000 },
  ].sort((a, b) => (a.oid < b.oid ? -1 : 1));
  const entries = Buffer.concat(
    objects.map((o) => {
      const b = Buffer.alloc(24);
      b.writeUInt32BE(o.offset, 0);
      Buffer.from(o.oid, 'hex').copy(b, 4);
      return b;
    }),
  );
  const idx = new PackIndex('/v1.idx', Buffer.concat([fanout(objects.map((o) => o.oid)), entries, Buffer.alloc(40)]));
  for (const o of objects) assert.is(idx.find(o.oid), o.offset);
  assert.is(idx.find(oid('z')), null);
});

test('a real index agrees with git show-index, entry by entry', () => {
  const repo = initRepo();
  for (let i = 0; i < 60; i++) commit(repo, { [`f${i}`]: `content ${i}\n` });
  git(repo, ['gc', '-q']);
  const dir = join(repo, '.git/objects/pack');
  const path = join(dir, readdirSync(dir).find((f) => f.endsWith('.idx'))!);
  const idx = PackIndex.load(path);
  const lines = git(repo, ['show-index'], { input: readFileSync(path) }).trim().split('\n');
  assert.is(idx.count, lines.length);
  for (const line of lines) {
    const [offset, name] = line.split(' ');
    assert.is(idx.find(name!), Number(offset), name);
  }
});

test('lookups of names the index does not hold, and of malformed names, find nothing; upper-case hex finds the name (fast-check, seed 20261202)', () => {
  const repo = initRepo();
  for (let i = 0; i < 40; i++) commit(repo, { [`f${i}`]: `content ${i}\n` });
  git(repo, ['gc', '-q']);
  const dir = join(repo, '.git/objects/pack');
  const path = join(dir, readdirSync(dir).find((f) => f.endsWith('.idx'))!);
  const idx = PackIndex.load(path);
  const listed = new Map(
    git(repo, ['show-index'], { input: readFileSync(path) })
      .trim()
      .split('\n')
      .map((line) => line.split(' '))
      .map(([offset, name]) => [name!, Number(offset)] as const),
  );
  const names = [...listed.keys()];
  // Names next to a listed one (same first bytes: the same bucket, the same first word) and
  // random names; each found exactly when git lists it.
  const near = fc.tuple(fc.constantFrom(...names), fc.integer({ min: 8, max: 39 }), fc.integer({ min: 0, max: 15 })).map(([n, at, d]) => n.slice(0, at) + d.toString(16) + n.slice(at + 1));
  const random = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => Buffer.from(b).toString('hex'));
  fc.assert(
    fc.property(fc.oneof(near, random), (name) => {
      assert.is(idx.find(name), listed.get(name) ?? null, name);
    }),
    { seed: 20261202, numRuns: 2000 },
  );
  for (const name of names.slice(0, 10)) {
    assert.is(idx.find(name.toUpperCase()), listed.get(name)!, 'hex in either case, as before');
    assert.is(idx.find(name.slice(0, 39)), null);
    assert.is(idx.find(name + '0'), null);
    assert.is(idx.find(name.slice(0, 30) + 'g' + name.slice(31)), null, 'a non-hex digit in a later word');
    assert.is(idx.find('x' + name.slice(1)), null, 'a non-hex digit in the first word');
  }
  idx.close();
});

test('applyDelta: copy and insert instructions, and corrupt deltas', () => {
  const base = Buffer.from('0123456789abcdef');
  // base size 16, target size 9: copy 4 bytes at offset 2, insert "XYZ", copy 2 at offset 14.
  const delta = Buffer.from([16, 9, 0x80 | 0x01 | 0x10, 2, 4, 3, 0x58, 0x59, 0x5a, 0x80 | 0x01 | 0x10, 14, 2]);
  assert.is(applyDelta(delta, base, 'x').toString(), '2345XYZef');
  assert.throws(() => applyDelta(Buffer.from([15, 1, 1, 0x41]), base, 'deadbeef'), (e: unknown) => e instanceof GitReadError && /deadbeef/.test((e as Error).message));
  assert.throws(() => applyDelta(Buffer.from([16, 4, 0x80 | 0x01 | 0x10, 14, 4]), base, 'x'), /outside the base/);
  assert.throws(() => applyDelta(Buffer.from([16, 4, 0]), base, 'x'), /reserved instruction/);
});

test.run();
