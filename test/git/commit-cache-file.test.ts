// The commit cache file (src/git/history/commit-cache.ts) written over several saves: commits
// whose oids share their first 32 bits (ordered by the whole oid), a commit recorded twice or
// already in the file (written once), and every entry read back with its parents and date.
// Oids are drawn by fast-check (seed recorded).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { join } from 'node:path';
import { CommitCache } from '../../src/git/history/commit-cache';
import { cleanupTempDirs, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

export const SEED = 20261205;

const hex = (n: number, len: number) => n.toString(16).padStart(len, '0').slice(-len);
/** Oids from a few shared 32-bit heads, so that ties on the first word are common. */
const oidArb = fc.tuple(fc.integer({ min: 0, max: 3 }), fc.nat(), fc.nat(), fc.nat(), fc.nat()).map(([h, a, b, c, d]) => [0xdeadbeef, 0, 0xffffffff, 0x00000001][h]!.toString(16).padStart(8, '0') + hex(a, 8) + hex(b, 8) + hex(c, 8) + hex(d, 8));
const entryArb = fc.record({ oid: oidArb, parents: fc.array(oidArb, { maxLength: 3 }), time: fc.oneof(fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.constant(0)) });

test('entries saved over several runs, oids sharing their first word, duplicates: all read back, the file whole and sorted', () => {
  fc.assert(
    fc.property(fc.array(fc.array(entryArb, { maxLength: 40 }), { minLength: 1, maxLength: 4 }), (runs) => {
      const path = join(tempDir(), 'receipt-gate-cache', 'commit-index');
      const want = new Map<string, { parents: string[]; time: number }>();
      for (const run of runs) {
        const cache = CommitCache.open(path);
        for (const e of run) {
          // A commit's facts never change: the first record of an oid is the one kept.
          const c = want.get(e.oid) ?? { parents: e.parents, time: e.time };
          cache.add(e.oid, c);
          cache.add(e.oid, c);
          want.set(e.oid, c);
        }
        cache.save();
      }
      const cache = CommitCache.open(path);
      // open() reads a file only when its rows are strictly sorted and its checksum matches.
      assert.is(cache.size, want.size);
      for (const [oid, c] of want) assert.equal(cache.lookup(oid), c, oid);
    }),
    { seed: SEED, numRuns: 60 },
  );
});

test.run();
