// The raw-tree reading and diff (identical entries skipped without decoding) against
// independent answers: `git ls-tree` and `git rev-parse TREE:name` for the entries (first copy
// of a name, the mode git reads), the name-paired comparison of every decoded entry (the
// algorithm the side-by-side walk replaced, kept here as the reference) on random trees,
// crafted ones included (unsorted, duplicate names, a file and a directory sharing a name, odd
// modes), and `git diff-tree -r` on trees git itself writes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { ObjectStore, decodePathBytes, diffTrees, isUnsafeName } from '../../src/git/index';
import { fsckTree } from '../../src/git/fsck';
import { RawTree } from '../../src/git/raw-tree';
import type { PathChange, TreeEntry } from '../../src/git/types';
import { rawTree } from './helpers';
import { cleanupTempDirs, git, gitBuf, initRepo } from '../helpers/git';

test.after(cleanupTempDirs);

type Spec = { name: string; mode: string; sub?: Spec[] };

/** Writes a loose object in git's format (zlib of `<type> <size>\0<content>`). */
function writeLoose(repo: string, type: string, content: Buffer): string {
  const framed = Buffer.concat([Buffer.from(`${type} ${content.length}\0`, 'latin1'), content]);
  const oid = createHash('sha1').update(framed).digest('hex');
  const dir = join(repo, '.git/objects', oid.slice(0, 2));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, oid.slice(2)), deflateSync(framed));
  return oid;
}

const isDir = (mode: string) => /^0*4\d{4}$/.test(mode);
const gitOrderKey = (e: { name: string; mode: string }) => Buffer.from(e.name + (isDir(e.mode) ? '/' : '\0'), 'latin1');

function writeTree(repo: string, specs: Spec[], blobs: string[], sorted: boolean): string {
  const entries = specs.map((s, k) => ({
    mode: s.mode,
    name: Buffer.from(s.name, 'latin1'),
    oid: isDir(s.mode) ? writeTree(repo, s.sub ?? [], blobs, sorted) : blobs[(s.name.length + k) % blobs.length]!,
    key: gitOrderKey(s),
  }));
  if (sorted) entries.sort((x, y) => Buffer.compare(x.key, y.key));
  return writeLoose(repo, 'tree', rawTree(entries));
}

/** The comparison the raw diff replaced: every entry decoded, paired by raw name. */
async function referenceDiff(store: ObjectStore, a: string | null, b: string | null): Promise<PathChange[]> {
  const out: PathChange[] = [];
  const side = (e: TreeEntry) => ({ mode: e.mode, kind: e.kind, oid: e.oid });
  const fileKind = (k: string) => k === 'file' || k === 'exec';
  const walk = async (a: string | null, b: string | null, prefix: string, pu: boolean): Promise<void> => {
    const before = new Map<string, TreeEntry>();
    const after = new Map<string, TreeEntry>();
    // readTree gives one entry per name (the first copy), which the map must not reorder.
    if (a !== null) for (const e of await store.trees.read(a)) before.set(Buffer.from(e.rawName).toString('latin1'), e);
    if (b !== null) for (const e of await store.trees.read(b)) after.set(Buffer.from(e.rawName).toString('latin1'), e);
    for (const key of new Set([...before.keys(), ...after.keys()])) {
      const ea = before.get(key);
      const eb = after.get(key);
      const e = (ea ?? eb)!;
      const path = prefix === '' ? e.name : `${prefix}/${e.name}`;
      const unsafe = pu || isUnsafeName(e.rawName);
      if (ea && eb && ea.oid === eb.oid && ea.mode === eb.mode) continue;
      if (ea && eb && ea.kind === 'tree' && eb.kind === 'tree') await walk(ea.oid, eb.oid, path, unsafe);
      else if (!eb) {
        if (ea!.kind === 'tree') await walk(ea!.oid, null, path, unsafe);
        else out.push({ path, change: 'delete', before: side(ea!), unsafe });
      } else if (!ea) {
        if (eb.kind === 'tree') await walk(null, eb.oid, path, unsafe);
        else out.push({ path, change: 'add', after: side(eb), unsafe });
      }
      else {
        const change = ea.kind === eb.kind ? 'modify' : fileKind(ea.kind) && fileKind(eb.kind) ? 'mode' : 'type';
        out.push({ path, change, before: side(ea), after: side(eb), unsafe });
        if (ea.kind === 'tree') await walk(ea.oid, null, path, unsafe);
        if (eb.kind === 'tree') await walk(null, eb.oid, path, unsafe);
      }
    }
  };
  if (a !== b) await walk(a, b, '', false);
  return out.sort((x, y) => (x.path < y.path ? -1 : x.path > y.path ? 1 : 0));
}

// Names chosen so that git's order and plain byte order disagree ("a" vs "a.b" vs "a/").
const NAMES = ['a', 'a.b', 'a!', 'a0', 'b', '.git', 'z\xff', 'a-'];
const MODES = ['100644', '100664', '100755', '120000', '40000', '040000', '100600', '100700', '40755'];

const specArb: fc.Arbitrary<Spec[]> = fc.letrec<{ list: Spec[]; entry: Spec }>((tie) => ({
  list: fc.array(tie('entry'), { maxLength: 6 }),
  entry: fc.record({
    name: fc.constantFrom(...NAMES),
    mode: fc.constantFrom(...MODES),
    sub: fc.oneof({ depthSize: 'small', withCrossShrink: true }, fc.constant([] as Spec[]), tie('list')),
  }),
})).list;

/** `git ls-tree -z` of a tree: mode (as git reads it), oid and raw name, in the tree's order. */
function lsTree(repo: string, tree: string): { mode: string; oid: string; key: string }[] {
  return gitBuf(repo, ['ls-tree', '-z', tree])
    .toString('latin1')
    .split('\0')
    .filter(Boolean)
    .map((l) => {
      const tab = l.indexOf('\t');
      const [mode, , oid] = l.slice(0, tab).split(' ');
      return { mode: mode!.replace(/^0+/, ''), oid: oid!, key: l.slice(tab + 1) };
    });
}

const onlyFirstCopies = <T extends { key: string }>(list: T[]) => list.filter((e, k) => list.findIndex((f) => f.key === e.key) === k);

test('RawTree entries are git ls-tree\'s, one per name (the first copy, as git rev-parse TREE:name reads it)', async () => {
  const repo = initRepo();
  const blobs = ['one\n', 'two\n', 'three\n'].map((t) => writeLoose(repo, 'blob', Buffer.from(t)));
  const store = await ObjectStore.discover(repo);
  let repeated = 0;
  await fc.assert(
    fc.asyncProperty(specArb, fc.boolean(), async (spec, sorted) => {
      const oid = writeTree(repo, spec, blobs, sorted);
      const raw = await store.objects.readRawTree(oid);
      const listed = lsTree(repo, oid);
      if (onlyFirstCopies(listed).length < listed.length) repeated++;
      const mine = raw.entries().map((e) => ({ mode: e.mode, oid: e.oid, key: Buffer.from(e.rawName).toString('latin1') }));
      assert.equal(mine, onlyFirstCopies(listed));
      // git's lookup by name stops at the first name sorting after it, so it is asked only
      // about trees in git's order (names given as UTF-8 arguments: ASCII ones).
      if (!raw.fsckIds().includes('treeNotSorted')) {
        for (const e of onlyFirstCopies(listed).filter((x) => /^[\x20-\x7e]+$/.test(x.key))) {
          assert.is(raw.find(e.key)?.oid, git(repo, ['rev-parse', `${oid}:${e.key}`]).trim(), `rev-parse ${oid}:${e.key}`);
        }
      }
    }),
    { seed: 20261201, numRuns: 100 },
  );
  assert.ok(repeated > 10, `names listed twice were exercised (${repeated})`);
});

test('the raw diff reports every change the name-paired diff reports, and adds only unsafe entries git fsck names', async () => {
  const repo = initRepo();
  const blobs = ['one\n', 'two\n', 'three\n'].map((t) => writeLoose(repo, 'blob', Buffer.from(t)));
  const store = await ObjectStore.discover(repo);
  let ordered = 0;
  let clean = 0;
  let extra = 0;
  const strip = (c: PathChange) => ({ path: c.path, change: c.change, before: c.before, after: c.after });
  await fc.assert(
    fc.asyncProperty(specArb, specArb, fc.boolean(), fc.boolean(), async (sa, sb, sortA, sortB) => {
      const a = writeTree(repo, sa, blobs, sortA);
      const b = writeTree(repo, sb, blobs, sortB);
      for (const oid of [a, b]) if ((await store.objects.readRawTree(oid)).ordered) ordered++;
      for (const [x, y] of [
        [a, b],
        [b, a],
      ] as const) {
        const got = await diffTrees(store, x, y);
        const want = await referenceDiff(store, x, y);
        // Every change of the reference, with its unsafe flag at least as strict.
        for (const c of want) {
          const hit = got.find((g) => g.path === c.path && JSON.stringify(strip(g)) === JSON.stringify(strip(c)));
          assert.ok(hit, `${c.change} ${c.path} is reported`);
          if (c.unsafe) assert.ok(hit!.unsafe, `${c.path} stays unsafe`);
        }
        // Anything more is an unsafe record whose reason names git fsck's id.
        const more = got.filter((g) => !want.some((c) => JSON.stringify(strip(g)) === JSON.stringify(strip(c))));
        for (const g of more) {
          assert.ok(g.unsafe && /\(git fsck: \w+\)/.test(g.unsafeReason ?? ''), `extra record ${JSON.stringify(g)}`);
          extra++;
        }
        if (more.length === 0 && got.length === want.length) clean++;
        for (const g of got) if (g.unsafe) assert.ok(g.after || g.before, 'an unsafe record names a side');
      }
    }),
    { seed: 20261201, numRuns: 150 },
  );
  assert.ok(ordered > 50, `enough ordered trees exercise the side-by-side walk (${ordered})`);
  assert.ok(clean > 20 && extra > 20, `both plain and flagged diffs were exercised (${clean}, ${extra})`);
});

test('RawTree.ordered is false for unsorted trees and for a file and directory sharing a name', () => {
  const oid = 'ab'.repeat(20);
  const tree = (entries: { mode: string; name: string }[]) => RawTree.parse('t', rawTree(entries.map((e) => ({ ...e, oid }))));
  assert.ok(tree([{ mode: '100644', name: 'a' }, { mode: '40000', name: 'a-' }, { mode: '100644', name: 'a.b' }]).ordered);
  assert.ok(tree([{ mode: '100644', name: 'a.b' }, { mode: '40000', name: 'a' }]).ordered, 'the directory a sorts as a/');
  assert.not.ok(tree([{ mode: '40000', name: 'a' }, { mode: '100644', name: 'a.b' }]).ordered);
  assert.not.ok(tree([{ mode: '100644', name: 'b' }, { mode: '100644', name: 'a' }]).ordered);
  assert.not.ok(tree([{ mode: '100644', name: 'a' }, { mode: '100644', name: 'a' }]).ordered);
  assert.not.ok(tree([{ mode: '100644', name: 'a' }, { mode: '100644', name: 'a!' }, { mode: '40000', name: 'a' }]).ordered);
  assert.not.ok(tree([{ mode: '100644', name: 'a' }, { mode: '040000', name: 'a' }]).ordered);
});

test('the raw diff of trees git writes equals git diff-tree -r', async () => {
  const repo = initRepo();
  const store = await ObjectStore.discover(repo);
  await fc.assert(
    fc.asyncProperty(
      fc.uniqueArray(fc.tuple(fc.constantFrom('d1', 'd1/x', 'd2', 'a', 'a.b', 'a-c'), fc.constantFrom('f', 'f.txt', 'g'), fc.constantFrom('1', '2', '3')), {
        maxLength: 10,
        selector: (t) => t[0] + '/' + t[1],
      }),
      fc.uniqueArray(fc.tuple(fc.constantFrom('d1', 'd1/x', 'd2', 'a', 'a.b', 'a-c'), fc.constantFrom('f', 'f.txt', 'g'), fc.constantFrom('1', '2', '3')), {
        maxLength: 10,
        selector: (t) => t[0] + '/' + t[1],
      }),
      async (fa, fb) => {
        const treeOf = (files: [string, string, string][]) => {
          const index = join(repo, '.git', 'index-' + Math.random().toString(36).slice(2));
          const env = { GIT_INDEX_FILE: index };
          for (const [dir, name, content] of files) {
            const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: content + '\n' }).trim();
            git(repo, ['update-index', '--add', '--cacheinfo', `100644,${blob},${dir}/${name}`], { env });
          }
          return git(repo, ['write-tree'], { env }).trim();
        };
        const a = treeOf(fa);
        const b = treeOf(fb);
        const expected = git(repo, ['diff-tree', '-r', '--name-status', a, b])
          .split('\n')
          .filter(Boolean)
          .map((l) => `${l[0]}\t${l.slice(2)}`);
        const letter = { add: 'A', delete: 'D', modify: 'M', mode: 'M', type: 'T' } as const;
        const actual = (await diffTrees(store, a, b)).map((c) => `${letter[c.change]}\t${c.path}`);
        assert.equal(actual, expected);
      },
    ),
    { seed: 20261129, numRuns: 25 },
  );
});

test('RawTree.sameRun counts the identical entries that sameEntry, one by one, counts', () => {
  const entryArb = fc.record({
    mode: fc.constantFrom('100644', '100755', '40000', '120000'),
    name: fc.constantFrom('a', 'b', 'ab', 'a.b', 'c', 'dd', 'e-e', 'zz'),
    oid: fc.constantFrom('11'.repeat(20), '22'.repeat(20), '33'.repeat(20)),
  });
  fc.assert(
    fc.property(fc.array(entryArb, { maxLength: 40 }), fc.array(fc.tuple(fc.nat(), entryArb), { maxLength: 4 }), fc.nat(), fc.nat(), (entries, edits, i0, j0) => {
      const other = [...entries];
      for (const [at, e] of edits) if (other.length > 0) other[at % other.length] = e;
      const a = RawTree.parse('a'.repeat(40), rawTree(entries));
      const b = RawTree.parse('b'.repeat(40), rawTree(other));
      if (a.length === 0 || b.length === 0) return;
      const i = i0 % a.length;
      const j = j0 % b.length;
      const max = Math.min(a.length - i, b.length - j);
      let expected = 0;
      while (expected < max && a.sameEntry(i + expected, b, j + expected)) expected++;
      assert.is(a.sameRun(i, b, j, max), expected);
      assert.is(a.sameRun(i, b, j, Math.min(max, 3)), Math.min(expected, 3));
    }),
    { seed: 20261201, numRuns: 2000 },
  );
});

test('RawTree.find equals the first entry with that decoded name, odd names included', () => {
  const oids = ['01', '02', '03', '04', '05', '06', '07', '08'].map((b) => b.repeat(20));
  const names: Buffer[] = [
    Buffer.from('a'),
    Buffer.from('\ufeffa', 'utf8'), // keeps its byte order mark: not "a"
    Buffer.from([0x61, 0xff]),
    Buffer.from('a\\xff'),
    Buffer.from('caf\u00e9', 'utf8'),
    Buffer.from('a'),
    Buffer.from('\ufeff', 'utf8'),
    Buffer.from('b'),
  ];
  fc.assert(
    fc.property(fc.shuffledSubarray([0, 1, 2, 3, 4, 5, 6, 7]), (order) => {
      const raw = rawTree(order.map((k) => ({ mode: '100644', name: names[k]!, oid: oids[k]! })));
      const tree = RawTree.parse('t', raw);
      const entries = order.map((k) => ({ k, name: decodePathBytes(names[k]!) }));
      for (const query of ['a', 'a\\xff', 'caf\u00e9', 'b', '', 'c', '\ufeffa', 'a\ud800']) {
        const first = entries.find((e) => e.name === query);
        assert.is(tree.find(query)?.oid ?? null, first ? oids[first.k]! : null, JSON.stringify(query));
      }
    }),
    { seed: 20261129, numRuns: 200 },
  );
});


// RawTree.parse decides the order in the same pass as it splits the entries, and fsck skips its
// order check for an ordered tree (looking at the other entries only when a quick look finds
// something): both against their definitions, on random trees of names that share prefixes
// and hold the bytes the order and fsck care about ('!' and '-' below '/', '.', 'g', '/', '\').
test('RawTree.ordered and the fsck of an ordered tree agree with their definitions', () => {
  const oids = ['ab'.repeat(20), '00'.repeat(20)];
  const nameArb = fc.array(fc.constantFrom('a', '!', '-', '.', 'g', '/', '\\', '\u00e9'), { maxLength: 4 }).map((cs) => cs.join(''));
  const entryArb = fc.record({ name: nameArb, mode: fc.constantFrom('100644', '40000', '040000', '100755', '120000', '160000', '100664', '100600'), oid: fc.constantFrom(...oids) });
  // git's base_name_compare: the common length bytewise, then one byte each (a directory's
  // name as if followed by '/'), nothing after.
  const byOrder = (x: { name: string; mode: string }, y: { name: string; mode: string }) => {
    const a = Buffer.from(x.name);
    const b = Buffer.from(y.name);
    const len = Math.min(a.length, b.length);
    const d = Buffer.compare(a.subarray(0, len), b.subarray(0, len));
    if (d !== 0) return d;
    const c1 = a.length > len ? a[len]! : isDir(x.mode) ? 0x2f : 0;
    const c2 = b.length > len ? b[len]! : isDir(y.mode) ? 0x2f : 0;
    return c1 - c2;
  };
  let orderedSeen = 0;
  let flaggedSeen = 0;
  fc.assert(
    fc.property(fc.array(entryArb, { maxLength: 8 }), fc.boolean(), (list, sort) => {
      const entries = sort ? [...list].sort(byOrder) : list;
      const t = RawTree.parse('t', rawTree(entries));
      // Strictly increasing in tree order, and no file and directory of one name anywhere.
      const increasing = entries.every((e, k) => k === 0 || byOrder(entries[k - 1]!, e) < 0);
      const names = entries.map((e) => e.name);
      const expected = increasing && new Set(names).size === names.length;
      assert.is(t.ordered, expected, JSON.stringify(entries));
      if (!t.ordered) return;
      orderedSeen++;
      // The same messages as the full check, order check included, gives.
      const split = { starts: [] as number[], spaces: [] as number[], nuls: [] as number[], modes: [] as number[] };
      let at = 0;
      for (const e of entries) {
        const name = Buffer.from(e.name);
        split.starts.push(at);
        split.spaces.push(at + e.mode.length);
        split.nuls.push(at + e.mode.length + 1 + name.length);
        split.modes.push(parseInt(e.mode, 8));
        at += e.mode.length + 1 + name.length + 21;
      }
      const full = fsckTree(rawTree(entries), Int32Array.from(split.starts), Int32Array.from(split.spaces), Int32Array.from(split.nuls), Uint32Array.from(split.modes), false);
      assert.equal(t.problems, full, JSON.stringify(entries));
      if (full.length > 0) flaggedSeen++;
    }),
    { seed: 20261202, numRuns: 3000 },
  );
  assert.ok(orderedSeen > 500 && flaggedSeen > 100, `ordered trees with and without fsck messages were exercised (${orderedSeen}, ${flaggedSeen})`);
});

test.run();
