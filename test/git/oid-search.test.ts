// src/git/oid-search.ts, the search the pack index, the commit-graph and the commit cache
// share, against a plain scan of the same table: sorted tables of random names (many sharing
// their first 32 bits, where the other words decide), rows of any stride with other bytes
// between them, any sub-range, and names asked in either case, present, absent, or not a name
// at all (39 or 41 digits, a non-hex digit anywhere). The bounds its first steps guess from are
// given right (the range's least and greatest first words, a fan-out bucket's), wrong, or not at
// all: only the number of rows read may differ.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { hexWord, searchOid } from '../../src/git/oid-search';

const nameArb = fc.oneof(
  fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => Buffer.from(b)),
  // The first word shared with a fixed prefix: only the later words tell them apart.
  fc.uint8Array({ minLength: 16, maxLength: 16 }).map((b) => Buffer.concat([Buffer.from('0badc0de', 'hex'), Buffer.from(b)])),
);

test('searchOid finds what a scan finds, in any range and stride (seeded)', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(nameArb, { maxLength: 400, selector: (b) => b.toString('hex') }),
      fc.nat({ max: 24 }),
      fc.nat({ max: 16 }),
      fc.nat(),
      fc.nat(),
      fc.array(fc.oneof(fc.nat(), nameArb.map((b) => b.toString('hex'))), { maxLength: 8 }),
      // Bounds that may be anything: inverted, too narrow, beyond the names.
      fc.tuple(fc.nat({ max: 0xffffffff }), fc.nat({ max: 0xffffffff })),
      (names, gap, base, a, b, asks, guess) => {
        const sorted = [...names].sort((x, y) => Buffer.compare(x, y));
        const stride = 20 + gap;
        const buf = Buffer.alloc(base + sorted.length * stride, 0xee);
        sorted.forEach((n, k) => n.copy(buf, base + k * stride));
        const lo = sorted.length === 0 ? 0 : a % (sorted.length + 1);
        const hi = lo + (sorted.length === 0 ? 0 : b % (sorted.length - lo + 1));
        const scan = (oid: string) => {
          if (!/^[0-9a-fA-F]{40}$/.test(oid)) return -1;
          for (let k = lo; k < hi; k++) if (sorted[k]!.toString('hex') === oid.toLowerCase()) return k;
          return -1;
        };
        const questions = asks.flatMap((q) => {
          const oid = typeof q === 'number' ? (sorted[q % Math.max(1, sorted.length)]?.toString('hex') ?? '0'.repeat(40)) : q;
          const at = typeof q === 'number' ? q % 40 : 7;
          return [oid, oid.toUpperCase(), oid.slice(0, 39), `${oid}0`, `${oid.slice(0, at)}g${oid.slice(at + 1)}`, `${oid.slice(0, at)}/${oid.slice(at + 1)}`];
        });
        const firstWord = (k: number) => sorted[k]!.readUInt32BE(0);
        const right = lo < hi ? [firstWord(lo), firstWord(hi - 1)] : [0, 0xffffffff];
        for (const oid of questions) {
          const want = scan(oid);
          assert.is(searchOid(buf, base, stride, lo, hi, oid), want, oid);
          if (oid.length !== 40) continue;
          const w0 = hexWord(oid, 0);
          assert.is(searchOid(buf, base, stride, lo, hi, oid, w0), want, `${oid} with its first word`);
          assert.is(searchOid(buf, base, stride, lo, hi, oid, w0, right[0], right[1]), want, `${oid} within the range's first words`);
          assert.is(searchOid(buf, base, stride, lo, hi, oid, w0, guess[0], guess[1]), want, `${oid} within bounds ${guess.join(', ')}`);
        }
      },
    ),
    { seed: 20261205, numRuns: 2000 },
  );
});

test('hexWord reads eight hex digits of either case, and -1 for anything else', () => {
  assert.is(hexWord('0badC0DE', 0), 0x0badc0de);
  assert.is(hexWord('xxffffffff', 2), 0xffffffff);
  assert.is(hexWord('0badc0dg', 0), -1);
  assert.is(hexWord('0badc0d\u0660', 0), -1);
  assert.is(hexWord('0badc0d', 0), -1);
});

test.run();
