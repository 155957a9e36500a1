// The folded key (src/paths.ts): full case folding from Unicode's CaseFolding.txt (C and F),
// NFC, HFS+ ignorables, Win32 trailing dots/spaces and NTFS streams. Differential against
// python3's str.casefold() (full case folding, statuses C and F) on every code point assigned
// in python's Unicode version, and on random strings.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { caseFold, foldKey, foldSegment, samePath } from '../../src/paths';

const SEED = 20261201;

function python(script: string, input = ''): string {
  return execFileSync('python3', ['-c', script], { input, encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
}

// Python's reading of canonical caseless folding: NFC(casefold(NFD(s))).
const PY_FOLD = `
import sys, json, unicodedata as u
def fold(s): return u.normalize('NFC', u.normalize('NFD', s).casefold())
`;

const HFS_IGNORED = (cp: number) => (cp >= 0x200c && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x206a && cp <= 0x206f) || cp === 0xfeff;

test('aliases that must fold together', () => {
  const same: [string, string][] = [
    ['Fixtures/X.json', 'fixtures/x.json'],
    ['\u017ftrasse', 'strasse'], // ſ (long s), status C
    ['\ufb01xtures', 'fixtures'], // ﬁ ligature, status F
    ['stra\u00dfe', 'strasse'], // ß, status F
    ['STRASSE', 'stra\u1e9ee'], // capital sharp s ẞ, status F
    ['donne\u0301es', 'donn\u00e9es'], // NFD and NFC
    ['DONN\u00c9ES', 'donn\u00e9es'],
    ['\u212bngstrom', '\u00e5ngstrom'], // Å ANGSTROM SIGN
    ['\u212a', 'k'], // KELVIN SIGN
    ['\u03a3', '\u03c3'],
    ['\u03c2', '\u03c3'], // final sigma folds to sigma
    ['fix\u200ctures', 'fixtures'], // HFS+ ignorables
    ['fix\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u206a\u206f\ufefftures', 'fixtures'],
    ['fixtures./x', 'fixtures/x'], // Win32 drops trailing dots and spaces
    ['fixtures . . /x', 'fixtures/x'],
    ['freeze.json.', 'freeze.json'],
    ['freeze.json::$DATA', 'freeze.json'], // NTFS streams
    ['fixtures::$INDEX_ALLOCATION/x', 'fixtures/x'],
    ['freeze.json:evil', 'freeze.json'],
    ['freeze.json. :x', 'freeze.json'],
    ['\u0130', 'i\u0307'], // İ full folding (F), not the Turkic T
    ['\u0345', '\u03b9'], // combining ypogegrammeni
  ];
  for (const [a, b] of same) {
    assert.is(foldKey(a), foldKey(b), `${JSON.stringify(a)} ~ ${JSON.stringify(b)}`);
    assert.ok(samePath(a, b));
  }
});

test('what must stay apart: dotless i, fullwidth letters, compatibility forms', () => {
  const apart: [string, string][] = [
    ['f\u0131xtures', 'fixtures'], // ı dotless i: status T is not applied
    ['I', '\u0131'],
    ['\uff46ixtures', 'fixtures'], // ｆ fullwidth: no NFKC
    ['\uff26IXTURES', 'fixtures'],
    ['\u2460', '1'], // ① circled digit
    ['\u00b2', '2'],
    ['fix tures', 'fixtures'], // inner space is kept
    ['fix.tures', 'fixtures'],
    ['fixtures/x', 'fixtures/x/'],
  ];
  for (const [a, b] of apart) assert.is.not(foldKey(a), foldKey(b), `${JSON.stringify(a)} vs ${JSON.stringify(b)}`);
});

test('segments are folded one by one', () => {
  assert.is(foldKey('A./B::$DATA/C '), 'a/b/c');
  assert.is(foldKey('a:b/c'), 'a/c');
  assert.is(foldSegment('X. . '), 'x');
  assert.is(foldKey(''), '');
});

test('case folding agrees with python3 str.casefold() on every code point assigned in its Unicode version', () => {
  const out = python(
    PY_FOLD +
      `
rows = []
for cp in range(0x110000):
    c = chr(cp)
    if u.category(c) in ('Cn', 'Cs'): continue
    rows.append([cp, fold(c)])
print(u.unidata_version)
print(json.dumps(rows))
`,
  );
  const [version, body] = out.split('\n');
  const rows = JSON.parse(body!) as [number, string][];
  assert.ok(rows.length > 140_000, `${rows.length} code points from Unicode ${version}`);
  const differ: string[] = [];
  let changed = 0;
  for (const [cp, expected] of rows) {
    if (HFS_IGNORED(cp)) {
      assert.is(caseFold(String.fromCodePoint(cp)), '', cp.toString(16));
      continue;
    }
    const got = caseFold(String.fromCodePoint(cp));
    if (got !== String.fromCodePoint(cp)) changed++;
    if (got !== expected) differ.push(`U+${cp.toString(16)}: ${JSON.stringify(got)} != ${JSON.stringify(expected)}`);
  }
  assert.equal(differ, [], differ.slice(0, 20).join('\n'));
  assert.ok(changed > 1400, `only ${changed} code points fold`);
});

// Code points assigned in Unicode 14 (python's), without surrogates or the HFS+ ignorables.
const assigned14: number[] = JSON.parse(
  python(PY_FOLD + `print(json.dumps([cp for cp in range(0x110000) if u.category(chr(cp)) not in ('Cn', 'Cs')]))`),
).filter((cp: number) => !HFS_IGNORED(cp));
const anyAssigned14 = fc.integer({ min: 0, max: assigned14.length - 1 }).map((i) => assigned14[i]!);

test('case folding agrees with python3 on random strings (combining marks included)', () => {
  // Bias towards letters with case and combining marks, where folding and normalization interact.
  const interesting = [0x41, 0x5a, 0xc5, 0xdf, 0x130, 0x131, 0x149, 0x17f, 0x1f0, 0x300, 0x301, 0x307, 0x30c, 0x323, 0x345, 0x390, 0x3a3, 0x1e9e, 0x1f80, 0x1fb3, 0x212b, 0xfb01, 0xac00, 0x1100, 0x1161, 0x11a8];
  const cp = fc.oneof(fc.constantFrom(...interesting), anyAssigned14);
  const samples = fc.sample(fc.array(cp, { minLength: 1, maxLength: 8 }), { seed: SEED, numRuns: 3000 }).map((cps) => String.fromCodePoint(...cps));
  const expected = JSON.parse(python(PY_FOLD + `print(json.dumps([fold(s) for s in json.load(sys.stdin)]))`, JSON.stringify(samples))) as string[];
  samples.forEach((s, i) => assert.is(caseFold(s), expected[i], JSON.stringify(s)));
});

test('the key is idempotent: foldKey(foldKey(x)) = foldKey(x), on every single code point and on random paths', () => {
  for (let cp = 0; cp < 0x110000; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const s = String.fromCodePoint(cp);
    const once = foldKey(s);
    if (foldKey(once) !== once) assert.unreachable(`U+${cp.toString(16)}`);
  }
  const char = fc.oneof(
    fc.constantFrom('/', '.', ' ', ':', '$', 'A', 'a', 'I', '\u0131', '\u0130', '\u00df', '\u0345', '\u0301', '\u200c', '\ufeff', '\u1e9e', '\ufb01', '~', '1'),
    anyAssigned14.map((c) => String.fromCodePoint(c)),
  );
  fc.assert(
    fc.property(fc.array(char, { maxLength: 20 }), (chars) => {
      const once = foldKey(chars.join(''));
      return foldKey(once) === once;
    }),
    { seed: SEED, numRuns: 5000 },
  );
});

test.run();
