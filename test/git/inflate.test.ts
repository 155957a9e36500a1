// The shared inflate engine (src/git/inflate.ts) against node's own inflateSync, which reads
// what git's zlib reads: for every stream, `exact` answers the same bytes, or null where
// inflateSync would answer something else (an error, more or fewer bytes); a failure leaves the
// next stream read right. End to end, every pack read in test/git (store, differential, thin
// packs) goes through it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { constants, deflateRawSync, deflateSync, inflateSync } from 'node:zlib';
import { Inflater } from '../../src/git/inflate';

/** What pack.ts does with the engine's answer: inflateSync when it has none. */
function inflateEntry(inflater: Inflater, input: Buffer, size: number): { bytes: Buffer } | { error: string } {
  try {
    return { bytes: inflater.exact(input, size) ?? inflateSync(input, { maxOutputLength: Math.max(size, 1), chunkSize: Math.max(size, 64) }) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

/** inflateSync alone, as pack.ts read entries before the engine. */
function reference(input: Buffer, size: number): { bytes: Buffer } | { error: string } {
  try {
    return { bytes: inflateSync(input, { maxOutputLength: Math.max(size, 1), chunkSize: Math.max(size, 64) }) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

const content = fc.oneof(
  fc.uint8Array({ minLength: 0, maxLength: 300 }),
  // Compressible text, the usual tree or delta.
  fc.array(fc.constantFrom('100644 f', '40000 d', 'abc', '\0', '\n'), { maxLength: 400 }).map((xs) => new Uint8Array(Buffer.from(xs.join('')))),
  fc.integer({ min: 0, max: 70000 }).map((n) => new Uint8Array(n).fill(0x61)),
);

/** A stream, and what the caller says its size is, and how the bytes after it look. */
const cases = fc.record({
  data: content,
  level: fc.integer({ min: 0, max: 9 }),
  strategy: fc.constantFrom(constants.Z_DEFAULT_STRATEGY, constants.Z_FILTERED, constants.Z_HUFFMAN_ONLY, constants.Z_RLE, constants.Z_FIXED),
  // 0: the size the stream holds; otherwise the size said is off by this much.
  sizeOff: fc.oneof(fc.constant(0), fc.constant(0), fc.integer({ min: -3, max: 3 })),
  // What follows the stream in the pack (the next entries).
  trailer: fc.uint8Array({ maxLength: 40 }),
  // Damage: none, cut the stream short, or flip a byte.
  damage: fc.oneof(fc.constant({ kind: 'none' as const }), fc.record({ kind: fc.constant('cut' as const), at: fc.nat() }), fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), bits: fc.integer({ min: 1, max: 255 }) })),
});

test('exact answers what inflateSync answers, for whole, mis-sized, cut, damaged and followed streams (fast-check, seed 20261204)', () => {
  const inflater = new Inflater();
  let engineAnswered = 0;
  fc.assert(
    fc.property(cases, ({ data, level, strategy, sizeOff, trailer, damage }) => {
      let stream = deflateSync(data, { level, strategy });
      if (damage.kind === 'cut') stream = stream.subarray(0, damage.at % (stream.length + 1));
      if (damage.kind === 'flip') {
        stream = Buffer.from(stream);
        stream[damage.at % stream.length] ^= damage.bits;
      }
      const input = Buffer.concat([stream, trailer]);
      const size = Math.max(0, data.length + sizeOff);
      const want = reference(input, size);
      const got = inflateEntry(inflater, input, size);
      if ('bytes' in want && 'bytes' in got && inflater.exact(input, size) !== null) engineAnswered++;
      assert.equal(got, want);
    }),
    { seed: 20261204, numRuns: 4000 },
  );
  assert.ok(engineAnswered > 1000, `the engine answered ${engineAnswered} streams itself`);
  inflater.close();
});

test('after a stream that fails, and after close, the next stream is read right', () => {
  const inflater = new Inflater();
  const good = Buffer.from('100644 a\0'.repeat(50));
  const stream = deflateSync(good);
  assert.ok(inflater.exact(stream, good.length)!.equals(good));
  // Not a zlib stream at all; a raw deflate stream (no zlib header); one cut short.
  assert.is(inflater.exact(Buffer.from('not zlib at all'), 15), null);
  assert.ok(inflater.exact(stream, good.length)!.equals(good), 'after a bad header');
  assert.is(inflater.exact(deflateRawSync(good), good.length), null);
  assert.is(inflater.exact(stream.subarray(0, 10), good.length), null);
  assert.ok(inflater.exact(stream, good.length)!.equals(good), 'after a cut stream');
  // A size one short of the stream's, and one over: no answer, and no harm.
  assert.is(inflater.exact(stream, good.length - 1), null);
  assert.is(inflater.exact(stream, good.length + 1), null);
  assert.ok(inflater.exact(stream, good.length)!.equals(good), 'after a wrong size');
  inflater.close();
  assert.ok(inflater.exact(stream, good.length)!.equals(good), 'after close, a new engine');
  inflater.close();
});

/** What objects.ts does with a loose object's file: the engine with `room`, else inflateSync
 * (bounded when a bound is given). */
function inflateLoose(inflater: Inflater, input: Buffer, room: number, bound: number | undefined): { bytes: Buffer } | { error: string } {
  try {
    return { bytes: inflater.whole(input, room) ?? inflateSync(input, bound === undefined ? undefined : { maxOutputLength: bound }) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

function referenceLoose(input: Buffer, bound: number | undefined): { bytes: Buffer } | { error: string } {
  try {
    return { bytes: inflateSync(input, bound === undefined ? undefined : { maxOutputLength: bound }) };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

test('whole answers what inflateSync answers for a loose file: any room, any bound, cut, damaged and followed streams (fast-check, seed 20261205)', () => {
  const inflater = new Inflater();
  let engineAnswered = 0;
  fc.assert(
    fc.property(cases, fc.integer({ min: 0, max: 80000 }), fc.option(fc.integer({ min: 1, max: 80000 })), ({ data, level, strategy, trailer, damage }, roomSeed, boundSeed) => {
      let stream = deflateSync(data, { level, strategy });
      if (damage.kind === 'cut') stream = stream.subarray(0, damage.at % (stream.length + 1));
      if (damage.kind === 'flip') {
        stream = Buffer.from(stream);
        stream[damage.at % stream.length] ^= damage.bits;
      }
      // Half the files end with the stream, as git writes them.
      const input = roomSeed % 2 ? stream : Buffer.concat([stream, trailer]);
      const bound = boundSeed ?? undefined;
      // The room objects.ts gives: never more than the bound.
      const room = Math.min(bound ?? roomSeed, roomSeed);
      const want = referenceLoose(input, bound);
      const got = inflateLoose(inflater, input, room, bound);
      if ('bytes' in got && inflater.whole(input, room) !== null) engineAnswered++;
      assert.equal(got, want);
    }),
    { seed: 20261205, numRuns: 4000 },
  );
  assert.ok(engineAnswered > 400, `the engine answered ${engineAnswered} files itself`);
  inflater.close();
});

test('whole: no answer for a stream larger than the room, or with bytes after it; the next one is read right', () => {
  const inflater = new Inflater();
  const good = Buffer.from('tree 40\0'.repeat(30));
  const stream = deflateSync(good);
  assert.ok(inflater.whole(stream, good.length)!.equals(good));
  assert.is(inflater.whole(stream, good.length - 1), null);
  assert.is(inflater.whole(Buffer.concat([stream, Buffer.from('x')]), good.length * 2), null);
  assert.is(inflater.whole(stream.subarray(0, stream.length - 1), good.length * 2), null);
  assert.ok(inflater.whole(stream, good.length * 2)!.equals(good), 'after the refusals');
  assert.ok(inflater.exact(stream, good.length)!.equals(good), 'exact, after whole');
  inflater.close();
});

test.run();
