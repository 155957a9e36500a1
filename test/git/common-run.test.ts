// commonRun (src/git/raw-tree.ts), the native compare behind parseLike and copyRun, against a
// byte-by-byte count: random buffers, offsets and lengths (either side longer), alike or with
// the first difference anywhere, including within the last 64 bytes and at the first byte
// (fast-check seed 20261205); and every place of the first difference for lengths up to 700 and
// at each point the halving meets for longer ones.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { commonRun } from '../../src/git/raw-tree';

function naive(a: Buffer, at: number, b: Buffer, bt: number): number {
  let n = 0;
  while (at + n < a.length && bt + n < b.length && a[at + n] === b[bt + n]) n++;
  return n;
}

test('commonRun counts what a byte-by-byte walk counts', () => {
  const seen = { alike: 0, late: 0, first: 0 };
  fc.assert(
    fc.property(
      fc.uint8Array({ maxLength: 9000 }),
      fc.nat(200),
      fc.nat(200),
      fc.integer({ min: -300, max: 300 }),
      fc.option(fc.nat(), { nil: undefined }),
      (bytes, at, bt, grow, diffAt) => {
        const base = Buffer.from(bytes);
        const a = Buffer.concat([Buffer.alloc(at, 7), base]);
        const tail = grow >= 0 ? Buffer.concat([base, Buffer.alloc(grow, 3)]) : base.subarray(0, Math.max(0, base.length + grow));
        const b = Buffer.concat([Buffer.alloc(bt, 9), tail]);
        if (diffAt !== undefined && tail.length > 0) b[bt + (diffAt % tail.length)] ^= 0x5a;
        const want = naive(a, at, b, bt);
        assert.is(commonRun(a, at, b, bt), want, `at ${at}, bt ${bt}, grow ${grow}, diff ${diffAt}`);
        if (want === Math.min(a.length - at, b.length - bt)) seen.alike++;
        else if (want === 0) seen.first++;
        else if (Math.min(a.length - at, b.length - bt) - want < 64) seen.late++;
      },
    ),
    { seed: 20261205, numRuns: 3000 },
  );
  assert.ok(seen.alike > 100 && seen.first > 5 && seen.late > 20, JSON.stringify(seen));
  // Offsets at or past the end.
  const x = Buffer.from('abc');
  assert.is(commonRun(x, 3, x, 0), 0);
  assert.is(commonRun(x, 0, x, 3), 0);
});

test('every place of the first difference, for every length up to 700 and for longer ones at the halving points', () => {
  for (let n = 1; n <= 700; n++) {
    const a = Buffer.alloc(n, 0x61);
    for (let d = 0; d < n; d++) {
      const b = Buffer.from(a);
      b[d] = 0x62;
      if (commonRun(a, 0, b, 0) !== d) assert.unreachable(`length ${n}, first difference at ${d}: ${commonRun(a, 0, b, 0)}`);
    }
    assert.is(commonRun(a, 0, Buffer.from(a), 0), n);
  }
  for (const n of [7486, 8192, 40_000]) {
    const a = Buffer.alloc(n, 0x30);
    // Each midpoint the halving can meet, and the bytes around it.
    const points = new Set<number>();
    const halve = (lo: number, hi: number) => {
      if (hi - lo <= 64) return;
      const mid = (lo + hi) >>> 1;
      for (const p of [mid - 1, mid, mid + 1]) if (p >= 0 && p < n) points.add(p);
      halve(lo, mid);
      halve(mid, hi);
    };
    halve(0, n);
    for (const d of points) {
      const b = Buffer.from(a);
      b[d] = 0x31;
      if (commonRun(a, 0, b, 0) !== d) assert.unreachable(`length ${n}, first difference at ${d}: ${commonRun(a, 0, b, 0)}`);
    }
  }
});

test.run();
