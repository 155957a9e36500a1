// The commit cache file (src/git/history/commit-cache.ts) written over several saves: commits
// whose oids share their first 32 bits (ordered by the whole oid), a commit recorded twice or
// already in the file (written once), and every entry read back with its parents and date; a
// save of too few new entries leaves the file as it is.
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
    fc.property(fc.array(fc.array(entryArb, { maxLength: 40 }), { minLength: 1, maxLength: 6 }), (runs) => {
      const path = join(tempDir(), 'receipt-gate-cache', 'commit-index');
      const facts = new Map<string, { parents: string[]; time: number }>();
      /** What the file should hold: a run's new oids are written when they are at least a 64th
       * of the rows already there. */
      const want = new Map<string, { parents: string[]; time: number }>();
      for (const run of runs) {
        const cache = CommitCache.open(path);
        const fresh = new Map<string, { parents: string[]; time: number }>();
        for (const e of run) {
          // A commit's facts never change: the first record of an oid is the one kept.
          const c = facts.get(e.oid) ?? { parents: e.parents, time: e.time };
          facts.set(e.oid, c);
          cache.add(e.oid, c);
          cache.add(e.oid, c);
          if (!want.has(e.oid)) fresh.set(e.oid, c);
        }
        cache.save();
        if (fresh.size * 64 >= want.size) for (const [o, c] of fresh) want.set(o, c);
      }
      const cache = CommitCache.open(path);
      // open() reads a file only when its rows are strictly sorted and its checksum matches.
      assert.is(cache.size, want.size);
      for (const [oid, c] of want) assert.equal(cache.lookup(oid), c, oid);
    }),
    { seed: SEED, numRuns: 80 },
  );
});

test('a save of fewer new entries than a 64th of the rows leaves the file as it is; one of a 64th or more rewrites it', () => {
  const path = join(tempDir(), 'receipt-gate-cache', 'commit-index');
  const oid = (n: number) => n.toString(16).padStart(40, '0');
  const first = CommitCache.open(path);
  for (let n = 1; n <= 640; n++) first.add(oid(n), { parents: [oid(n + 1000)], time: n });
  first.save();
  assert.is(CommitCache.open(path).size, 640);
  const few = CommitCache.open(path);
  for (let n = 641; n <= 649; n++) few.add(oid(n), { parents: [], time: n });
  few.save();
  assert.is(CommitCache.open(path).size, 640, '9 new entries against 640 rows: not written');
  const enough = CommitCache.open(path);
  for (let n = 641; n <= 650; n++) enough.add(oid(n), { parents: [], time: n });
  enough.save();
  const after = CommitCache.open(path);
  assert.is(after.size, 650, '10 new entries: written');
  assert.equal(after.lookup(oid(650)), { parents: [], time: 650 });
  assert.equal(after.lookup(oid(7)), { parents: [oid(1007)], time: 7 });
});

test.run();
