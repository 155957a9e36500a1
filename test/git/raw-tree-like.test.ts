// RawTree.parseLike (a tree split with the help of a tree it shares most bytes with, as the diff
// reads the new side of a folder) against RawTree.parse of the same bytes, which the fsck and
// diff suites hold against git: every entry, the order verdict, git fsck's messages and the
// error for bytes git cannot read must be the same, whatever the edit. Random base trees
// (plain, ordered; some with a '.'-name, a directory that needs the look-back for a file of its
// name, or out of order, which parseLike leaves to parse) and random edits: a changed oid, mode
// or name, entries inserted in order or anywhere, deleted, duplicated, a file and a directory
// of one name, names git fsck reports ('.git', 'a/b', ''), a truncated or overwritten byte range.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { RawTree } from '../../src/git/raw-tree';
import { rawTree, reading } from './helpers';

type Entry = { mode: string; name: string; oid: string };

const isDir = (mode: string) => /^0*4\d{4}$/.test(mode);
const orderKey = (e: Entry) => Buffer.from(e.name + (isDir(e.mode) ? '/' : ''), 'latin1');
const sorted = (entries: Entry[]) => [...entries].sort((x, y) => Buffer.compare(orderKey(x), orderKey(y)));

const randomOid = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((b) => Buffer.from(b).toString('hex'));
// The null oid fsck reports, and oids that only begin like it.
const hexOid = fc.oneof({ weight: 8, arbitrary: randomOid }, { weight: 1, arbitrary: randomOid.map((o) => `00${o.slice(2)}`) }, { weight: 1, arbitrary: fc.constant('0'.repeat(40)) });
const plainName = fc.stringMatching(/^[a-fm0-9][a-z0-9._-]{0,9}$/);
const oddName = fc.constantFrom('.git', '.GIT', 'git~1', '.gitmodules', '.', '..', '', 'a/b', 'a\\b', 'foo', 'foo.bar', 'foo-bar', 'fo');
const anyName = fc.oneof({ weight: 4, arbitrary: plainName }, { weight: 1, arbitrary: oddName });
const plainMode = fc.constantFrom('100644', '100644', '100644', '40000', '100755');
const anyMode = fc.constantFrom('100644', '40000', '100755', '120000', '160000', '040000', '100664', '100600', '644');
const entryOf = (name: fc.Arbitrary<string>, mode: fc.Arbitrary<string>) => fc.record({ mode, name, oid: hexOid });

/** A base tree: usually plain and ordered (what parseLike derives from), sometimes not. */
const baseArb = fc
  .tuple(fc.uniqueArray(entryOf(plainName, plainMode), { minLength: 8, maxLength: 160, selector: (e) => e.name }), fc.array(entryOf(anyName, anyMode), { maxLength: 2 }), fc.boolean())
  .map(([plain, odd, shuffle]) => (shuffle ? [...sorted(plain), ...odd] : sorted([...plain, ...odd])));

type Edit =
  | { kind: 'oid'; at: number; oid: string }
  | { kind: 'mode'; at: number; mode: string }
  | { kind: 'name'; at: number; name: string }
  | { kind: 'insert'; at: number; entry: Entry; keepOrder: boolean }
  | { kind: 'delete'; at: number }
  | { kind: 'duplicate'; at: number };

const editArb: fc.Arbitrary<Edit> = fc.oneof(
  fc.record({ kind: fc.constant('oid' as const), at: fc.nat(), oid: hexOid }),
  fc.record({ kind: fc.constant('mode' as const), at: fc.nat(), mode: anyMode }),
  fc.record({ kind: fc.constant('name' as const), at: fc.nat(), name: anyName }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), entry: entryOf(anyName, anyMode), keepOrder: fc.boolean() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
);

function applyEdits(base: Entry[], edits: Edit[]): Entry[] {
  let out = base.map((e) => ({ ...e }));
  for (const e of edits) {
    if (out.length === 0) break;
    const at = e.at % out.length;
    if (e.kind === 'oid') out[at]!.oid = e.oid;
    else if (e.kind === 'mode') out[at]!.mode = e.mode;
    else if (e.kind === 'name') out[at]!.name = e.name;
    else if (e.kind === 'delete') out.splice(at, 1);
    else if (e.kind === 'duplicate') out.splice(at, 0, { ...out[at]! });
    else if (e.keepOrder) out = sorted([...out, e.entry]);
    else out.splice(at, 0, e.entry);
  }
  return out;
}

/** Bytes overwritten or cut: trees git cannot read, or reads differently. */
const damageArb = fc.option(fc.record({ at: fc.nat(), bytes: fc.uint8Array({ minLength: 0, maxLength: 4 }), cut: fc.boolean() }), { freq: 5 });

function damaged(buf: Buffer, d: { at: number; bytes: Uint8Array; cut: boolean } | null): Buffer {
  if (d === null || buf.length === 0) return buf;
  const at = d.at % buf.length;
  if (d.cut) return buf.subarray(0, at);
  const copy = Buffer.from(buf);
  copy.set(d.bytes.subarray(0, copy.length - at), at);
  return copy;
}

test('parseLike reads every edited tree exactly as parse does (seeded)', () => {
  let derivedFrom = 0;
  fc.assert(
    fc.property(baseArb, fc.array(editArb, { maxLength: 4 }), damageArb, (base, edits, damage) => {
      const baseTree = RawTree.parse('a'.repeat(40), rawTree(base));
      const bytes = damaged(rawTree(applyEdits(base, edits)), damage);
      const whole = reading(() => RawTree.parse('b'.repeat(40), bytes));
      const like = reading(() => RawTree.parseLike('b'.repeat(40), bytes, baseTree));
      assert.equal(like, whole);
      if (baseTree.ordered) derivedFrom++;
      // The derived tree serves as a base in turn (the next commit's folder).
      if (!('error' in (whole as object))) {
        const next = rawTree(applyEdits(applyEdits(base, edits), edits.slice().reverse()));
        const again = RawTree.parseLike('b'.repeat(40), bytes, baseTree);
        assert.equal(reading(() => RawTree.parseLike('c'.repeat(40), next, again)), reading(() => RawTree.parse('c'.repeat(40), next)));
      }
    }),
    { seed: 20261202, numRuns: 3000 },
  );
  assert.ok(derivedFrom > 1000, `ordered bases: ${derivedFrom}`);
});

test('differingFrom names exactly the entries whose bytes changed, and only between a tree and the tree it was split from, asked either way (seeded)', () => {
  let known = 0;
  // Half the cases change oids only of plain ordered trees (what the shortcut is for), half
  // any edit of any base.
  const oidEdit = fc.record({ kind: fc.constant('oid' as const), at: fc.nat(), oid: hexOid });
  const plainBase = fc.uniqueArray(fc.record({ mode: plainMode, name: plainName, oid: randomOid }), { minLength: 16, maxLength: 160, selector: (e) => e.name }).map(sorted);
  fc.assert(
    fc.property(fc.oneof(plainBase, baseArb), fc.oneof(fc.array(oidEdit, { maxLength: 4 }), fc.array(editArb, { maxLength: 4 })), (base, edits) => {
      const baseTree = RawTree.parse('a'.repeat(40), rawTree(base));
      const edited = applyEdits(base, edits);
      const bytes = rawTree(edited);
      let like: RawTree;
      try {
        like = RawTree.parseLike('b'.repeat(40), bytes, baseTree);
      } catch {
        return;
      }
      const differing = like.differingFrom(baseTree);
      // Asked either way round (a diff may split the old side from the new one).
      assert.equal(baseTree.differingFrom(like), differing);
      // Another tree with other bytes, or the same tree under another name: never.
      const other = RawTree.parse('c'.repeat(40), rawTree(base));
      assert.is(like.differingFrom(other), null);
      assert.is(other.differingFrom(like), null);
      assert.is(like.differingFrom(like), null);
      if (differing === null) return;
      known++;
      // Independently: the same number of entries, the same names and modes in order, and the
      // entries whose encoded bytes differ are exactly the listed ones.
      assert.is(edited.length, base.length);
      const encoded = (e: Entry) => rawTree([e]).toString('hex');
      const changed = base.flatMap((e, k) => (encoded(e) !== encoded(edited[k]!) ? [k] : []));
      assert.equal([...differing], changed);
      for (let k = 0; k < base.length; k++) {
        assert.is(edited[k]!.name, base[k]!.name);
        assert.is(edited[k]!.mode, base[k]!.mode);
      }
    }),
    { seed: 20261205, numRuns: 3000 },
  );
  assert.ok(known > 300, `trees split as oid changes only: ${known}`);
});

test('parseLike on names that share a prefix: a directory that sorts after files that extend its name, and a file of its name added or removed (seeded)', () => {
  // foo, foo-bar, foo.bar sort before the directory foo (as foo/): git's order check looks back
  // past them for a file named foo.
  const family = fc.constantFrom('foo', 'foo-bar', 'foo.bar', 'foo.a', 'fo', 'foo0', 'bar', 'bar.x', 'bar-y');
  const familyBase = fc
    .tuple(fc.uniqueArray(entryOf(plainName, plainMode), { minLength: 60, maxLength: 90, selector: (e) => e.name }), fc.uniqueArray(entryOf(family, fc.constantFrom('100644', '40000')), { maxLength: 6, selector: (e) => e.name }))
    .map(([plain, fam]) => sorted([...plain.filter((e) => !fam.some((f) => f.name === e.name)), ...fam]));
  const familyEdit: fc.Arbitrary<Edit> = fc.oneof(
    fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), entry: entryOf(family, fc.constantFrom('100644', '40000')), keepOrder: fc.constant(true) }),
    fc.record({ kind: fc.constant('name' as const), at: fc.nat(), name: family }),
    editArb,
  );
  fc.assert(
    fc.property(familyBase, fc.array(familyEdit, { minLength: 1, maxLength: 3 }), (base, edits) => {
      const baseTree = RawTree.parse('a'.repeat(40), rawTree(base));
      const bytes = rawTree(applyEdits(base, edits));
      assert.equal(reading(() => RawTree.parseLike('b'.repeat(40), bytes, baseTree)), reading(() => RawTree.parse('b'.repeat(40), bytes)));
    }),
    { seed: 20261203, numRuns: 3000 },
  );
});

test('parseLike on the edits a push makes to a wide folder: one oid, an added file, a removed one, a directory beside a file of its name', () => {
  const names = Array.from({ length: 300 }, (_, i) => `m${String(i).padStart(4, '0')}`);
  const oid = (k: number) => k.toString(16).padStart(40, '1');
  const base = names.map((name, k) => ({ mode: '40000', name, oid: oid(k) }));
  const baseTree = RawTree.parse('a'.repeat(40), rawTree(base));
  const cases: Entry[][] = [
    base.map((e, k) => (k === 150 ? { ...e, oid: oid(9999) } : e)),
    sorted([...base, { mode: '100644', name: 'm0150.txt', oid: oid(7) }]),
    base.filter((_, k) => k !== 0 && k !== 299),
    sorted([...base, { mode: '100644', name: 'm0150', oid: oid(8) }]), // a file and a directory named m0150
    sorted([...base, { mode: '100644', name: 'm0150.a', oid: oid(8) }, { mode: '100644', name: 'm0149', oid: oid(9) }]),
    [...base.slice(0, 200), { mode: '100644', name: 'aaa', oid: oid(3) }, ...base.slice(200)], // out of order
    base.map((e, k) => (k === 10 ? { ...e, name: '.git' } : e)),
    [],
  ];
  // A base where the directory foo follows foo.bar (ordered: no file foo); a file foo added
  // before foo.bar makes the pair foo.bar, foo/ a duplicate git's order check finds by looking
  // back, in bytes the two trees share.
  const withFoo = sorted([...base, { mode: '100644', name: 'foo.bar', oid: oid(5) }, { mode: '40000', name: 'foo', oid: oid(6) }]);
  const fooTree = RawTree.parse('a'.repeat(40), rawTree(withFoo));
  assert.ok(fooTree.ordered);
  const fileFoo = rawTree(sorted([...withFoo, { mode: '100644', name: 'foo', oid: oid(4) }]));
  assert.not.ok(RawTree.parse('b'.repeat(40), fileFoo).ordered);
  assert.equal(reading(() => RawTree.parseLike('b'.repeat(40), fileFoo, fooTree)), reading(() => RawTree.parse('b'.repeat(40), fileFoo)));
  for (const entries of cases) {
    const bytes = rawTree(entries);
    assert.equal(reading(() => RawTree.parseLike('b'.repeat(40), bytes, baseTree)), reading(() => RawTree.parse('b'.repeat(40), bytes)));
  }
});

test.run();
