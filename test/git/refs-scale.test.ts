// packed-refs at scale (src/git/packed-refs.ts): read once, indexed by line, single names by
// binary search when the file is sorted. Differential against git itself on repositories with
// thousands of packed refs whose names are bytes (not UTF-8), peeled tags, loose refs over
// packed ones, a symbolic ref, a namespace, in git's sorted layout and in an unsorted file
// without the `sorted` trait. fast-check draws the names; its seed is fixed (SEED) so a
// failure replays.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { checkRefnameFormat, namespacePrefix, RefReader } from '../../src/git/refs';
import { refNameFromLatin1, refNameLatin1 } from '../../src/git/refname';
import { refKindOf } from '../../src/run/ref-kind';
import { notCodePrefixes } from '../../src/server/receive';
import { cleanupTempDirs, gitBuf, gitValue, initRepo } from '../helpers/git';

test.after(cleanupTempDirs);

const SEED = 20261204;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

// One repository holds the objects; each case borrows them (alternates).
const objects = initRepo({ bare: true });
const commits = Array.from({ length: 24 }, (_, i) => gitValue(objects, ['commit-tree', EMPTY_TREE, '-m', `c${i}`]));
gitValue(objects, ['tag', '-a', '-m', 'annotated', 'annotated', commits[0]!]);
const TAG = gitValue(objects, ['rev-parse', 'refs/tags/annotated']);
gitValue(objects, ['update-ref', '-d', 'refs/tags/annotated']);

// Name components: ASCII and bytes 0x80-0xff alone (never UTF-8), as byte strings.
const BYTES = [...'abcdefxyz0189-_.', ...Array.from({ length: 8 }, (_, i) => String.fromCharCode(0x80 + i * 16 + 3))];
const component = fc.array(fc.constantFrom(...BYTES), { minLength: 1, maxLength: 6 }).map((cs) => cs.join(''));
const TOPS = ['heads', 'tags', 'pull', 'notes', 'remotes', 'receipt-gate', 'keep-around'];
// Every name has four components, so no name is a folder of another (loose files can override
// any of them). `ns` names live in the namespace refs/namespaces/ns/.
const refName = fc
  .tuple(fc.constantFrom(...TOPS, 'ns'), component, component)
  .map(([top, a, b]) => (top === 'ns' ? `refs/namespaces/ns/refs/heads/${a}/${b}` : `refs/${top}/${a}/${b}`))
  .filter((n) => checkRefnameFormat(n));

interface Case {
  names: string[];
  sorted: boolean;
  shuffle: number;
  loose: number[];
}

function writeCase(c: Case): { gitdir: string; symTarget: string } {
  const gitdir = initRepo({ bare: true });
  writeFileSync(join(gitdir, 'objects', 'info', 'alternates'), join(objects, 'objects') + '\n');
  const lines: string[][] = c.names.map((name, i) => {
    if (name.startsWith('refs/tags/') && i % 3 === 0) return [`${TAG} ${name}`, `^${commits[0]}`];
    return [`${commits[(i * 7) % commits.length]} ${name}`];
  });
  if (c.sorted) lines.sort((a, b) => Buffer.compare(Buffer.from(a[0]!.slice(41), 'latin1'), Buffer.from(b[0]!.slice(41), 'latin1')));
  else {
    let x = c.shuffle || 1;
    for (let i = lines.length - 1; i > 0; i--) {
      x = (x * 1103515245 + 12345) >>> 0;
      const j = x % (i + 1);
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
    }
  }
  const header = c.sorted ? '# pack-refs with: peeled fully-peeled sorted \n' : '# pack-refs with: peeled \n';
  writeFileSync(join(gitdir, 'packed-refs'), Buffer.from(header + lines.flat().join('\n') + '\n', 'latin1'));
  const looseFile = (name: string, content: string) => {
    const path = Buffer.concat([Buffer.from(gitdir + '/', 'utf8'), Buffer.from(name, 'latin1')]);
    mkdirSync(Buffer.from(dirname(path.toString('latin1')), 'latin1'), { recursive: true });
    writeFileSync(path, Buffer.from(content, 'latin1'));
  };
  // Loose refs over packed ones (another commit), one loose ref only, one symbolic ref.
  for (const i of c.loose) looseFile(c.names[i % c.names.length]!, `${commits[commits.length - 1 - (i % 5)]}\n`);
  looseFile('refs/heads/zz/only/loose', `${commits[3]}\n`);
  const symTarget = c.names[(c.loose[0] ?? 0) % c.names.length]!;
  looseFile('refs/heads/zz/sym/link', `ref: ${symTarget}\n`);
  // A dangling symbolic ref: git lists it nowhere, and it is no tip.
  looseFile('refs/heads/zz/sym/dangling', 'ref: refs/heads/zz/absent\n');
  return { gitdir, symTarget };
}

/** `git for-each-ref` as [name (byte string), oid] pairs, under `prefix`. */
function gitRefs(gitdir: string, prefix = 'refs/'): [string, string][] {
  const out = gitBuf(gitdir, ['for-each-ref', '--format=%(objectname) %(refname)', prefix]).toString('latin1');
  return out
    .split('\n')
    .filter(Boolean)
    .map((l) => [l.slice(41), l.slice(0, 40)]);
}

/** What `git cat-file --batch-check` resolves each name (bytes) to; null for missing. */
function gitResolve(gitdir: string, names: string[]): (string | null)[] {
  const out = gitBuf(gitdir, ['cat-file', '--batch-check=%(objectname)'], { input: Buffer.from(names.map((n) => n + '\n').join(''), 'latin1') }).toString('latin1');
  return out
    .split('\n')
    .slice(0, names.length)
    .map((l) => (l.endsWith(' missing') ? null : l));
}

const codeOids = (pairs: [string, string][], strip = '') =>
  [...new Set(pairs.filter(([name]) => refKindOf(refNameFromLatin1(name.slice(strip.length))).kind === 'code').map(([, oid]) => oid))].sort();

test('listing, single lookups, existing tips and peeled tags equal git on thousands of byte-named packed refs', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(refName, { minLength: 500, maxLength: 4000 }),
      fc.boolean(),
      fc.nat(),
      fc.array(fc.nat(), { minLength: 1, maxLength: 12 }),
      (names, sorted, shuffle, loose) => {
        const { gitdir } = writeCase({ names, sorted, shuffle, loose });
        const reader = new RefReader(gitdir, gitdir);
        const want = gitRefs(gitdir);
        const got = reader.entries().filter((e) => e.oid !== null).map((e) => [refNameLatin1(e.name), e.oid] as [string, string | null]);
        assert.equal(got, want, 'entries() lists what git for-each-ref lists, in its order');
        assert.equal([...reader.list()].map(([n, o]) => [refNameLatin1(n), o]), want, 'list() too');
        // Single names: present ones (packed, loose over packed, symbolic) and absent ones.
        const probe = [...names.filter((_, i) => i % 17 === 0), ...names.slice(0, 20).map((n) => n + 'q'), 'refs/heads/zz/sym/link', 'refs/heads/zz/only/loose'];
        const expected = gitResolve(gitdir, probe);
        probe.forEach((name, i) => {
          assert.is(reader.resolveExact(refNameFromLatin1(name)), expected[i], `resolveExact(${JSON.stringify(name)})`);
        });
        // The server's existing tips: the distinct oids of the code refs.
        assert.equal([...reader.distinctOids(notCodePrefixes('refs/replace/'))].sort(), codeOids(want), 'distinctOids = code refs of git for-each-ref');
        assert.is(reader.packedPeel(TAG), names.some((n, i) => n.startsWith('refs/tags/') && i % 3 === 0) ? commits[0] : undefined);
        // Inside the namespace: names relative to it, as git's receive-pack shows them.
        const ns = new RefReader(gitdir, gitdir, namespacePrefix('ns'));
        const nsPrefix = 'refs/namespaces/ns/';
        const nsWant = gitRefs(gitdir, nsPrefix).map(([n, o]) => [n.slice(nsPrefix.length), o]);
        assert.equal(
          ns.entries().filter((e) => e.oid !== null).map((e) => [refNameLatin1(e.name), e.oid]),
          nsWant,
          'a namespaced listing is git for-each-ref of the namespace, relative',
        );
        assert.equal([...ns.distinctOids(notCodePrefixes('refs/replace/'))].sort(), codeOids(gitRefs(gitdir, nsPrefix), nsPrefix));
      },
    ),
    { seed: SEED, numRuns: 6, endOnFailure: true },
  );
});

test('a file that says sorted but is not (or names a ref twice) is read line by line: the last line naming a ref wins', () => {
  const gitdir = initRepo({ bare: true });
  writeFileSync(join(gitdir, 'objects', 'info', 'alternates'), join(objects, 'objects') + '\n');
  const [a, b, c] = commits;
  writeFileSync(
    join(gitdir, 'packed-refs'),
    `# pack-refs with: peeled fully-peeled sorted \n${a} refs/heads/m\n${b} refs/heads/b\n${a} refs/heads/z\n${c} refs/heads/b\n`,
  );
  const reader = new RefReader(gitdir, gitdir);
  assert.is(reader.resolveExact('refs/heads/b'), c);
  assert.is(reader.resolveExact('refs/heads/m'), a);
  assert.is(reader.resolveExact('refs/heads/z'), a);
  assert.equal(
    reader.entries().map((e) => [e.name, e.oid]),
    [
      ['refs/heads/b', c],
      ['refs/heads/m', a],
      ['refs/heads/z', a],
    ],
  );
  assert.equal(reader.distinctOids([]).sort(), [a, c].sort());
});

test('notCodePrefixes leaves out exactly the refs refKindOf reads as not code', () => {
  const base = fc.constantFrom('refs/replace/', 'refs/heads/repl/', 'refs/odd/');
  fc.assert(
    fc.property(
      fc.tuple(fc.constantFrom('heads', 'tags', 'replace', 'remotes', 'namespaces', 'notes', 'receipt-gate', 'pull', 'odd', 'heads/repl'), component),
      base,
      ([top, rest], replaceBase) => {
        const name = refNameFromLatin1(`refs/${top}/${rest}`);
        const code = refKindOf(name, replaceBase).kind === 'code';
        assert.is(!notCodePrefixes(replaceBase).some((p) => name.startsWith(p)), code, name);
      },
    ),
    { seed: SEED, numRuns: 400 },
  );
});

test.run();
