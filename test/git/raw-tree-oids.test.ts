// RawTree.parseLike's shortcut for a folder whose bytes differ from its base only inside
// entries' oids (the common commit: files or subfolders changed, none added, removed or
// renamed): the derived tree takes the base's entry offsets without splitting. Against
// RawTree.parse of the same bytes, which test/git/raw-tree-like.test.ts and the fsck and diff
// suites hold against git: every entry, the order verdict and git fsck's messages must be the
// same. Edits: oids changed (random, beginning with zero bytes, the null oid fsck reports),
// bytes overwritten at random places of equal length (a mode or a name changed in place, which
// the shortcut must refuse), and the derived tree used as the next base.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { RawTree } from '../../src/git/raw-tree';
import { rawTree, reading } from './helpers';

type Entry = { mode: string; name: string; oid: string };
const isDir = (mode: string) => mode === '40000';
const orderKey = (e: Entry) => Buffer.from(e.name + (isDir(e.mode) ? '/' : ''), 'latin1');
const sorted = (entries: Entry[]) => [...entries].sort((x, y) => Buffer.compare(orderKey(x), orderKey(y)));

const randomOid = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => Buffer.from(b).toString('hex'));
const hexOid = fc.oneof({ weight: 6, arbitrary: randomOid }, { weight: 1, arbitrary: randomOid.map((o) => `0000${o.slice(4)}`) }, { weight: 1, arbitrary: fc.constant('0'.repeat(40)) });
const name = fc.stringMatching(/^[a-fm0-9][a-z0-9._-]{0,9}$/);
const mode = fc.constantFrom('100644', '100644', '40000', '100755');
const baseArb = fc.uniqueArray(fc.record({ mode, name, oid: randomOid }), { minLength: 16, maxLength: 200, selector: (e) => e.name }).map(sorted);
const oidEdits = fc.array(fc.record({ at: fc.nat(), oid: hexOid }), { minLength: 0, maxLength: 5 });
/** Bytes overwritten in place (the length kept): anywhere, or none. */
const overwrite = fc.option(fc.record({ at: fc.nat(), bytes: fc.uint8Array({ minLength: 1, maxLength: 3 }) }), { freq: 3 });

test('a folder whose oids changed reads exactly as parse reads it, and serves as the next base (seeded)', () => {
  let oidsOnly = 0;
  fc.assert(
    fc.property(baseArb, oidEdits, overwrite, oidEdits, (base, edits, damage, later) => {
      const baseTree = RawTree.parse('a'.repeat(40), rawTree(base));
      const next = base.map((e) => ({ ...e }));
      for (const e of edits) next[e.at % next.length]!.oid = e.oid;
      let bytes = rawTree(next);
      if (damage) {
        bytes = Buffer.from(bytes);
        bytes.set(damage.bytes.subarray(0, bytes.length - (damage.at % bytes.length)), damage.at % bytes.length);
      } else {
        oidsOnly++;
      }
      const derived = reading(() => RawTree.parseLike('b'.repeat(40), bytes, baseTree));
      assert.equal(derived, reading(() => RawTree.parse('b'.repeat(40), bytes)));
      if (!('error' in (derived as object))) {
        // The derived tree as the base of the next version of the folder.
        const again = RawTree.parseLike('b'.repeat(40), bytes, baseTree);
        const third = next.map((e) => ({ ...e }));
        for (const e of later) third[e.at % third.length]!.oid = e.oid;
        const thirdBytes = rawTree(third);
        assert.equal(reading(() => RawTree.parseLike('c'.repeat(40), thirdBytes, again)), reading(() => RawTree.parse('c'.repeat(40), thirdBytes)));
      }
    }),
    { seed: 20261204, numRuns: 3000 },
  );
  assert.ok(oidsOnly > 800, `oid-only edits: ${oidsOnly}`);
});

test.run();
