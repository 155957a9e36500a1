// pyjson on large documents against CPython: the shortcuts taken for speed (text sliced out of
// the document, floats written by JavaScript where Python writes the same, ASCII copied in
// bulk, a default sort where code-unit and code-point order agree, escapes written in 64 Ki
// slices) must give Python's bytes on documents big enough to take every one of them, and on
// their edges: a run crossing a 64 Ki boundary, astral characters beside lone surrogates,
// keys above U+D800, floats at 1e-4 and 1e16, ints of 15, 16 and 4300 digits.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { dumpsCanonical, parsePyJson, PyJsonError, toPlain } from '../../src/evidence/pyjson';
import { askPython } from './py/oracle';
import { encode, utf16leBase64 } from './py/encode';

const SEED = 20261201;

type Answer = { ok: true; dump: string; sha256: string } | { ok: false; type: string; msg: string };

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

function ours(doc: string | Uint8Array): Answer {
  try {
    const dump = dumpsCanonical(parsePyJson(doc));
    return { ok: true, dump, sha256: sha256(dump) };
  } catch (e) {
    if (e instanceof PyJsonError) return { ok: false, type: 'PyJsonError', msg: e.message };
    throw e;
  }
}

/** Each document given to both as bytes (and as str when `asStr`), answers compared exactly. */
function sameAsPython(docs: { name: string; text: string; bytes?: Uint8Array }[]): void {
  const requests = docs.flatMap((d) => [
    { op: 'loads', mode: 'bytes', data: Buffer.from(d.bytes ?? Buffer.from(d.text, 'utf8')).toString('base64') },
    { op: 'loads', mode: 'str', data: utf16leBase64(d.text) },
  ]);
  const answers = askPython<Answer>('pyjson_oracle.py', requests);
  docs.forEach((d, i) => {
    for (const [k, input] of [[0, d.bytes ?? Buffer.from(d.text, 'utf8')], [1, d.text]] as const) {
      const py = answers[2 * i + k]!;
      const js = ours(input);
      const where = `${d.name} as ${k === 0 ? 'bytes' : 'str'}`;
      assert.is(js.ok, py.ok, `${where}: python ${JSON.stringify(py).slice(0, 300)}, ours ${JSON.stringify(js).slice(0, 300)}`);
      if (py.ok && js.ok) {
        assert.is(js.sha256, py.sha256, where);
        assert.ok(js.dump === py.dump, `${where}: dumps differ`);
      } else if (!py.ok && !js.ok && py.type === 'JSONDecodeError') {
        assert.is(js.msg, py.msg, where);
      }
    }
  });
}

test('canada.json-like documents (deep arrays of doubles) and a manifest of about 1 MiB', () => {
  const rng = fc.sample(fc.tuple(fc.double({ min: -180, max: 180, noNaN: true }), fc.double({ min: -90, max: 90, noNaN: true })), { seed: SEED, numRuns: 40000 });
  const rings: string[] = [];
  for (let i = 0; i < rng.length; i += 500) {
    rings.push(`[${rng.slice(i, i + 500).map(([a, b], j) => (j % 3 === 0 ? `[${a.toFixed(15)}, ${b.toFixed(15)}]` : `[${a},${b}]`)).join(',\n ')}]`);
  }
  const canada = `{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Canada"},"geometry":{"type":"Polygon","coordinates":[${rings.join(',')}]}}]}`;
  assert.ok(canada.length > 1_000_000, `canada-like is ${canada.length} bytes`);

  const properties = [];
  for (let i = 0; i < 9000; i++) {
    properties.push({ name: `prop_${i}`, bound: i % 5 === 0 ? `n ≤ ${i} 𝔼[x] "größer"\t\\` : `n <= ${i}`, weight: i / 7, big: 10n ** BigInt(i % 40) });
  }
  const manifest = JSON.stringify({ seed: 20260925, properties }, (_k, v) => (typeof v === 'bigint' ? `@@${v}@@` : v), 1).replace(/"@@(\d+)@@"/g, '$1');
  assert.ok(manifest.length > 1_000_000, `manifest is ${manifest.length} bytes`);
  sameAsPython([
    { name: 'canada-like', text: canada },
    { name: 'manifest-like', text: manifest },
  ]);
});

test('edges of the shortcuts: 64 Ki boundaries, astral and lone surrogates, key order above U+D800, float and int edges', () => {
  const K = 1 << 16;
  const docs: { name: string; text: string; bytes?: Uint8Array }[] = [];
  // Strings and whitespace that cross the 64 Ki boundaries where the deadline is read.
  for (const n of [K - 2, K - 1, K, K + 1, 3 * K + 7]) {
    docs.push({ name: `ascii string of ${n}`, text: `["${'a'.repeat(n)}"]` });
    docs.push({ name: `escaped string of ${n}`, text: `["${'é\\n"'.repeat(Math.ceil(n / 3))}"]` });
    docs.push({ name: `whitespace run of ${n}`, text: `[1,${' '.repeat(n)}2]` });
    docs.push({ name: `astral string of ${n}`, text: `["${'😀x'.repeat(Math.ceil(n / 3))}"]` });
    docs.push({ name: `float of ${n} digits`, text: `[0.${'1'.repeat(n)}, 1${'0'.repeat(n % 300)}.5]` });
  }
  // A lone surrogate escape next to raw astral text, and a document that is ASCII but for one byte at the end.
  docs.push({ name: 'lone surrogate beside astral', text: `["\\ud800😀", "😀\\udfff", "\\ud83d\\ude00", "${'z'.repeat(K)}\\udbff"]` });
  docs.push({ name: 'ASCII but the last byte', text: `["${'q'.repeat(2 * K)}", "ÿ"]` });
  docs.push({ name: 'bytes: an encoded lone surrogate (surrogatepass) after 64 Ki of ASCII', text: '', bytes: Uint8Array.from([...Buffer.from(`["${'q'.repeat(K)}`), 0xed, 0xa0, 0x80, 0x22, 0x5d]) });
  // Keys sorted by code point: U+E000..U+FFFF sort before astral characters in code-unit order only.
  docs.push({ name: 'keys around the surrogates', text: `{"\uffff":1,"😀":2,"\ue000":3,"\ud7ff":4,"a":5,"":6,"\\ud800":7,"A":8}` });
  docs.push({ name: 'keys below U+D800 only', text: `{"b":1,"a":2,"é":3,"ab":4,"\u0100":5,"\u00ff":6,"B":7}` });
  // Float repr edges of the JavaScript shortcut, and ints around the 15-digit shortcut.
  const floats = [
    '1e-4', '0.0001', '0.00010000000000000002', '9.999999999999999e-5', '1e16', '9999999999999998', '9999999999999998.0', '1e15',
    '123456789012345.6', '5e-324', '-0.0', '-1e-4', '-9999999999999998.0', '1e21', '1e-7', '1.5', '100.0', '1e2', '-0', '0',
  ];
  const ints = ['999999999999999', '1000000000000000', '-999999999999999', '-1000000000000000', '9007199254740993', '-0', '0', `1${'0'.repeat(4299)}`, `-${'9'.repeat(4300)}`, '1' + '0'.repeat(4300)];
  docs.push({ name: 'float edges', text: `[${floats.join(',')}]` });
  docs.push({ name: 'int edges', text: `[${ints.join(',')}]` });
  docs.push({ name: 'int over the limit', text: `[${'9'.repeat(4301)}]` });
  // The same documents in UTF-16: not ASCII, so the code-point path builds the text.
  docs.push({ name: 'UTF-16 document', text: '', bytes: encode(`{"k":["${'w'.repeat(K + 3)}", 1.5, 12345678901234567890]}`, 'utf-16-le') });
  sameAsPython(docs.map((d) => (d.text === '' ? { ...d, text: Buffer.from(d.bytes!).toString('latin1') } : d)).filter((d) => d.bytes || d.text));
});

test('toPlain of a large document keeps every value (numbers, big ints as bigint, keys in order)', () => {
  const text = `{"z":[${Array.from({ length: 50000 }, (_, i) => (i % 2 ? `${i}.5` : `${10n ** 20n + BigInt(i)}`)).join(',')}],"a":{"__proto__":1}}`;
  const plain = toPlain(parsePyJson(text)) as { z: unknown[]; a: Record<string, unknown> };
  assert.equal(Object.keys(plain), ['z', 'a']);
  assert.is(plain.z.length, 50000);
  assert.is(plain.z[1], 1.5);
  assert.is(plain.z[2], 10n ** 20n + 2n);
  assert.ok(Object.prototype.hasOwnProperty.call(plain.a, '__proto__'));
});

test.run();
