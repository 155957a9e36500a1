// pyjson against CPython: every case is a JSON *text* (or raw bytes) given to both
// parsePyJson/dumpsCanonical and python3's json.loads/json.dumps(sort_keys, compact separators),
// batched into one python3 process per property.
import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import Ajv2020 from 'ajv/dist/2020';
import {
  dumpsCanonical,
  MAX_DEPTH,
  parsePyJson,
  PyJsonError,
  pyEquals,
  pyFloatRepr,
  toPlain,
  type PyValue,
} from '../../src/evidence/pyjson';
import { Oracle, askPython } from './py/oracle';
import { BYTE_ENCODINGS, encode, isWellFormed, utf16leBase64, type ByteEncoding } from './py/encode';

const SEED = 20261129;

// ---------------------------------------------------------------------------------------------
// Differential harness

type Doc = { mode: 'str'; text: string } | { mode: 'bytes'; bytes: Uint8Array };
type LoadsAnswer = { ok: true; dump: string; sha256: string } | { ok: false; type: string; msg: string };

const loadsOracle = new Oracle<Doc, LoadsAnswer>('pyjson_oracle.py', (d) =>
  d.mode === 'str'
    ? { op: 'loads', mode: 'str', data: utf16leBase64(d.text) }
    : { op: 'loads', mode: 'bytes', data: Buffer.from(d.bytes).toString('base64') },
);

function ours(doc: Doc): LoadsAnswer {
  try {
    const dump = dumpsCanonical(parsePyJson(doc.mode === 'str' ? doc.text : doc.bytes));
    return { ok: true, dump, sha256: createHash('sha256').update(dump, 'utf8').digest('hex') };
  } catch (e) {
    if (e instanceof PyJsonError) return { ok: false, type: 'PyJsonError', msg: e.message };
    throw e; // anything else is a crash, which the property reports
  }
}

function describe(doc: Doc): string {
  return doc.mode === 'str' ? `str ${JSON.stringify(doc.text)}` : `bytes ${Buffer.from(doc.bytes).toString('hex')}`;
}

/**
 * Same acceptance; when accepted, byte-identical dumps and digest; when rejected by the JSON
 * decoder, the same message (Python's "Expecting ',' delimiter: line 1 column 5 (char 4)").
 */
function agreesWithPython(doc: Doc): void {
  const py = loadsOracle.get(doc);
  const js = ours(doc);
  const where = describe(doc);
  if (py.ok !== js.ok) {
    assert.unreachable(`${where}: python ${JSON.stringify(py)} but receipt-gate ${JSON.stringify(js)}`);
  }
  if (py.ok && js.ok) {
    assert.is(js.dump, py.dump, where);
    assert.is(js.sha256, py.sha256, where);
  } else if (!py.ok && !js.ok && (py.type === 'JSONDecodeError' || py.type === 'UnicodeDecodeError')) {
    assert.is(js.msg, py.msg, where);
  }
}

/** agreesWithPython for a list of documents, asking Python once. */
function allAgreeWithPython(docs: Doc[]): void {
  loadsOracle.prefetch(docs);
  for (const doc of docs) agreesWithPython(doc);
}

function differential(name: string, arb: fc.Arbitrary<Doc>, numRuns: number): void {
  test(name, () => {
    // The same seed replays the same cases: fetch all of Python's answers in one process first.
    const cases = fc.sample(arb, { seed: SEED, numRuns });
    loadsOracle.prefetch(cases);
    fc.assert(
      fc.property(arb, (doc) => {
        agreesWithPython(doc);
      }),
      // No shrinking: each shrink step would ask python3 again; the failing case is printed as is.
      { seed: SEED, numRuns, endOnFailure: true },
    );
  });
}

// ---------------------------------------------------------------------------------------------
// JSON text generators

const ws = fc.array(fc.constantFrom(' ', '\t', '\n', '\r', '  '), { maxLength: 2 }).map((a) => a.join(''));

const hex4 = (n: number) => n.toString(16).padStart(4, '0');
const randomCase = (s: string) =>
  fc.array(fc.boolean(), { minLength: s.length, maxLength: s.length }).map((up) =>
    [...s].map((ch, i) => (up[i] ? ch.toUpperCase() : ch)).join(''),
  );

/** Pieces of a string body (between the quotes), as written in the JSON text. */
const escapePiece = fc.oneof(
  fc.constantFrom('\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t'),
  fc.integer({ min: 0, max: 0xffff }).chain((c) => randomCase(hex4(c)).map((h) => `\\u${h}`)),
  fc.integer({ min: 0, max: 0x1f }).map((c) => `\\u${hex4(c)}`),
  fc.constantFrom(
    '\\ud800',
    '\\udbff\\udfff',
    '\\ud83d\\ude00',
    '\\uD834\\uDD1E',
    '\\udc00',
    '\\ud800\\u0041',
    '\\ud800\\ud800\\udc00',
    '\\u007f',
    '\\u0080',
    '\\ue000',
    '\\uffff',
    '\\u0000',
  ),
);
const literalPiece = fc
  .string({ unit: 'binary', maxLength: 3 })
  .map((s) => s.replace(/["\\\u0000-\u001f]/g, ''));
const plainPiece = fc.constantFrom('a', 'Z', '0', ' ', 'é', '\u00ff', '\u0100', '\u07ff', '\u0800', '\ue000', '\uffff', '😀', '\u{10ffff}', '\u2028', '\u007f');

const stringBody = fc.array(fc.oneof(escapePiece, literalPiece, plainPiece), { maxLength: 6 }).map((a) => a.join(''));
const keyBody = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('a', 'b', '', '__proto__', 'constructor', 'toString', '\\u0061', 'é', '\\u00e9', '\\ud83d\\ude00', '😀', '\\ue000', '\ue000', '\\ud800', 'A', 'aa', 'seed', 'properties') },
  // keys without literal lone surrogates (see the "split pair" test for those)
  { weight: 2, arbitrary: stringBody.filter((s) => isWellFormed(s)) },
);

const boundaryFloats = [
  '1e16', '1E16', '1e15', '9999999999999998.0', '1234567890123456.0', '12345678901234567.0', '1e-4', '1e-5',
  '0.0001', '0.00001', '0.00009999999999999999', '1e400', '-1E400', '1e-400', '-0.0', '-0', '0', '-0e0', '0.0e-0',
  '2.5e-324', '5e-324', '4.9406564584124654e-324', '2.2250738585072014e-308', '2.225073858507201e-308',
  '1.7976931348623157e308', '1.7976931348623159e308', '0.1', '0.30000000000000004', '123.456e+2', '1E+2', '1e-07',
  '1.5e-07', '9007199254740993', '9007199254740993.0', '-9007199254740993', '18446744073709551616', '1e22', '1e21',
  '0.1000000000000000055511151231257827021181583404541015625', '100000000000000000000000.0',
];
const doubleText = fc
  .tuple(fc.double(), fc.integer({ min: 0, max: 3 }), fc.boolean())
  .map(([x, style, upper]) => {
    if (Number.isNaN(x)) return 'NaN';
    if (!Number.isFinite(x)) return x > 0 ? 'Infinity' : '-Infinity';
    let t = [String(x), x.toExponential(), x.toPrecision(17), pyFloatRepr(x)][style]!;
    if (Object.is(x, -0) && !t.startsWith('-')) t = '-' + t;
    t = t.replace(/^(-?)(\d+)e/, '$1$2.0e'); // keep it a JSON number either way
    return upper ? t.toUpperCase() : t;
  })
  .filter((t) => /^-?(0|[1-9]\d*)(\.\d+)?([eE][-+]?\d+)?$/.test(t) || /^-?(Infinity|NaN)$/i.test(t))
  .map((t) => t.replace(/INFINITY/, 'Infinity').replace(/NAN/, 'NaN'));
const digitsFloat = fc
  .tuple(
    fc.boolean(),
    fc.oneof(fc.constant('0'), fc.bigInt({ min: 1n, max: 10n ** 25n }).map(String)),
    fc.option(fc.stringMatching(/^\d{1,30}$/)),
    fc.option(fc.tuple(fc.constantFrom('e', 'E'), fc.constantFrom('', '+', '-'), fc.integer({ min: 0, max: 400 }))),
  )
  .map(([neg, int, frac, exp]) => `${neg ? '-' : ''}${int}${frac === null ? '' : '.' + frac}${exp === null ? '' : exp.join('')}`);
const bigIntText = fc.oneof(
  fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n }),
  fc.bigInt({ min: -(10n ** 400n), max: 10n ** 400n }),
).map(String);
const numberText = fc.oneof(fc.constantFrom(...boundaryFloats), doubleText, digitsFloat, bigIntText);

const scalarText = fc.oneof(
  fc.constantFrom('null', 'true', 'false', 'NaN', 'Infinity', '-Infinity'),
  numberText,
  stringBody.map((b) => `"${b}"`),
);

const { value: valueText } = fc.letrec<{ value: string; array: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, scalarText, tie('array'), tie('object')),
  array: fc
    .tuple(ws, fc.array(fc.tuple(tie('value'), ws, ws), { maxLength: 5 }))
    .map(([w, items]) => (items.length === 0 ? `[${w}]` : `[${items.map(([v, a, b]) => a + v + b).join(',')}]`)),
  object: fc
    .tuple(ws, fc.array(fc.tuple(ws, keyBody, ws, ws, tie('value'), ws), { maxLength: 5 }))
    .map(([w, members]) =>
      members.length === 0 ? `{${w}}` : `{${members.map(([a, k, b, c, v, d]) => `${a}"${k}"${b}:${c}${v}${d}`).join(',')}}`,
    ),
}));

const documentText = fc.tuple(ws, valueText, ws).map(([a, v, b]) => a + v + b);

/** A valid text, broken at one random place (or not broken at all, if the edit keeps it valid). */
const brokenText = fc
  .tuple(
    documentText,
    fc.nat(),
    fc.constantFrom('delete', 'insert', 'truncate', 'replace'),
    fc.constantFrom(',', ']', '}', '[', '{', ':', '"', '\\', 'x', '0', '-', '.', 'e', '+', '\u0001', '\u001f', '\ufeff', '\u00a0', '\f', '\v', ' ', '\\u12', '\\ud800\\u12G4', 'nul', 'Inf', '01', '1.', '.5', '1e', '-'),
  )
  .map(([text, at, edit, piece]) => {
    const i = text.length === 0 ? 0 : at % (text.length + 1);
    switch (edit) {
      case 'delete':
        return text.slice(0, i) + text.slice(i + 1);
      case 'insert':
        return text.slice(0, i) + piece + text.slice(i);
      case 'truncate':
        return text.slice(0, i);
      case 'replace':
        return text.slice(0, i) + piece + text.slice(i + 1);
    }
  });

const asBytes = (text: fc.Arbitrary<string>): fc.Arbitrary<Doc> =>
  fc.tuple(text, fc.constantFrom<ByteEncoding>(...BYTE_ENCODINGS)).map(([t, e]) => ({ mode: 'bytes', bytes: encode(t, e) }));
const asStr = (text: fc.Arbitrary<string>): fc.Arbitrary<Doc> => text.map((t) => ({ mode: 'str', text: t }));

// ---------------------------------------------------------------------------------------------
// Differential properties

differential('valid texts as str: same value, dumps byte-identical, same SHA-256', asStr(documentText), 2500);
differential('valid texts as bytes in UTF-8/16/32 with and without BOM', asBytes(documentText), 1500);
differential('broken texts as str: same acceptance and same error message', asStr(brokenText), 2500);
differential('broken texts as bytes', asBytes(brokenText), 1000);
differential(
  'raw bytes: same decoding (UTF-8 validity, surrogatepass, encoding detection)',
  fc
    .tuple(
      fc.array(fc.oneof(fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x22, 0x30, 0x5b, 0x5d, 0x20, 0x00, 0xed, 0xa0, 0xbf, 0x80, 0xc0, 0xc2, 0xe0, 0xf0, 0xf4, 0x90, 0x8f, 0xff, 0xfe, 0xef, 0xbb)), { maxLength: 12 }),
      fc.constantFrom([], [0x22], [0x5b], [0xef, 0xbb, 0xbf, 0x22], [0xff, 0xfe], [0xfe, 0xff], [0xff, 0xfe, 0, 0], [0, 0, 0xfe, 0xff]),
      fc.constantFrom([], [0x22], [0x5d]),
    )
    .map(([middle, head, tail]): Doc => ({ mode: 'bytes', bytes: Uint8Array.from([...head, ...middle, ...tail]) })),
  2500,
);

const unit16 = fc.oneof(
  fc.constantFrom(0x22, 0x31, 0x5b, 0x5d, 0x20, 0xd800, 0xdbff, 0xdc00, 0xdfff, 0xd83d, 0xde00, 0xfeff, 0xfffe, 0x00e9),
  fc.integer({ min: 0, max: 0xffff }),
);
differential(
  'UTF-16 and UTF-32 bytes with lone, paired and reversed surrogates, odd lengths',
  fc
    .tuple(
      fc.constantFrom('utf-16-le', 'utf-16-be', 'utf-32-le', 'utf-32-be'),
      fc.boolean(),
      fc.array(unit16, { maxLength: 6 }),
      fc.integer({ min: 0, max: 3 }),
      fc.oneof(fc.constant(0x11_0000), fc.integer({ min: 0, max: 0xffff_ffff })),
    )
    .map(([encoding, bom, units, cut, wild]): Doc => {
      const wide = encoding.startsWith('utf-32');
      const le = encoding.endsWith('le');
      const bytes: number[] = [];
      const put = (u: number) => {
        const width = wide ? 4 : 2;
        const be = Array.from({ length: width }, (_, i) => (u >>> (8 * (width - 1 - i))) & 0xff);
        bytes.push(...(le ? be.reverse() : be));
      };
      if (bom) put(0xfeff);
      put(0x22);
      units.forEach(put);
      if (wide && cut === 3) put(wild); // a code point that may be out of range
      put(0x22);
      return { mode: 'bytes', bytes: Uint8Array.from(cut === 1 || cut === 2 ? bytes.slice(0, bytes.length - cut) : bytes) };
    }),
  2000,
);

test('fixed cases: surrogates, BOMs, number edges, big ints at the 4300-digit limit', () => {
  const texts = [
    '"\\ud800"', '"\\udc00\\ud800"', '"\\ud800\\udc00"', '"\\ud800\\u00e9"', '"\\ud800\\', '"\\ud800\\u', '"\\ud800\\udc0"',
    '"\\ud800\\udc0"x', '"\\ud800\\uzzzz"', '"\\u12"', '"\\u123"', '"\\u1234', '"abc', '"', '"\\x"', '"\t"', '"\u007f"',
    '{"a":1,"a":2,"b":3,"a":4}', '{"__proto__":{"x":1},"constructor":2}', '{"😀":1,"\ue000":2,"\uffff":3,"\u{10000}":4}',
    '[1,]', '{"a":1,}', '{,}', '[,1]', '[1 2]', '{"a" 1}', '{"a":}', '{1:2}', "{'a':1}", '[', '{', ']', '', ' ', '\n\n  x',
    'nul', 'tru', 'NaNx', '-', '-x', '--1', '+1', '01', '00', '-01', '1.', '1.e5', '.5', '1e', '1e+', '1E-', '1e5.5',
    '0x10', '1_000', 'Infinityx', '-Infinity', '-NaN', 'infinity', '[-]', '[1e]', '[1.]', '1\u00a0', '\u00a01', '\f1',
    '\ufeff1', '\ufeff', '1 2', '"a" "b"', '{}{}', '[]]', 'null\u0000',
    '9'.repeat(4300), '-' + '9'.repeat(4300), '9'.repeat(4301), '-' + '9'.repeat(4301), `[${'1'.repeat(4301)}]`,
    '1' + '0'.repeat(4000) + '.5', '0.' + '0'.repeat(400) + '1', '1' + '0'.repeat(400) + 'e-400',
    '[' + '1.5,'.repeat(1000) + '2]',
  ];
  allAgreeWithPython(texts.flatMap((text): Doc[] => [{ mode: 'str', text }, { mode: 'bytes', bytes: encode(text, 'utf-8') }]));
  const rawBytes = [
    [0xef, 0xbb, 0xbf, 0x31], [0xef, 0xbb, 0xbf, 0xef, 0xbb, 0xbf, 0x31], [0xff, 0xfe, 0x31, 0x00], [0xfe, 0xff, 0x00, 0x31],
    [0x31, 0x00], [0x00, 0x31], [0x31, 0x00, 0x00, 0x00], [0x00, 0x00, 0x00, 0x31], [0x31], [0x31, 0x32, 0x33],
    [0x22, 0xed, 0xa0, 0x80, 0x22], [0x22, 0xed, 0xa0, 0x80, 0xed, 0xb0, 0x80, 0x22], [0x22, 0xc0, 0x80, 0x22],
    [0x22, 0xe0, 0x80, 0x80, 0x22], [0x22, 0xf4, 0x90, 0x80, 0x80, 0x22], [0x22, 0xf0, 0x8f, 0xbf, 0xbf, 0x22],
    [0x22, 0xe2, 0x82, 0x22], [0x22, 0xe2, 0x82], [0xff, 0xfe, 0x22, 0x00, 0x00, 0xd8, 0x22, 0x00],
    [0xff, 0xfe, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00, 0x00, 0xd8, 0x00, 0x00, 0x22, 0x00, 0x00, 0x00],
    [0xff, 0xfe, 0x00, 0x00, 0x00, 0x00, 0x11, 0x00], [0xff, 0xfe, 0x31], [0x31, 0x00, 0x32],
    [0xfe, 0xff, 0xfe, 0xff, 0x00, 0x31],
  ];
  allAgreeWithPython(rawBytes.map((bytes): Doc => ({ mode: 'bytes', bytes: Uint8Array.from(bytes) })));
});

test('runs of whitespace and plain string characters across the 64 Ki chunks of the native scan', () => {
  const K = 1 << 16;
  const texts: string[] = [];
  for (const n of [K - 2, K - 1, K, K + 1, 2 * K, 2 * K + 1]) {
    const run = 'a'.repeat(n);
    texts.push(`["${run}"]`, `["${run}\\n"]`, `["${run}\u0001"]`, `["${run}`, `{"${run}": 1}`, `[1${' \n\t\r'.repeat(n / 4 + 1).slice(0, n)}]`);
    texts.push(`[1${' '.repeat(n)}`, `${' '.repeat(n)}[]${' '.repeat(n)}`, `["é${run}"]`, `["${run}😀"]`, `["${run}\ud800"]`);
  }
  allAgreeWithPython(texts.flatMap((text): Doc[] => [{ mode: 'str', text }, { mode: 'bytes', bytes: encode(text, 'utf-8') }]));
});

test(`nesting: ${MAX_DEPTH} levels are read, deeper is a clean error, 100k levels do not crash`, () => {
  const nested = (n: number, open: string, close: string) => open.repeat(n) + close.repeat(n);
  allAgreeWithPython([
    { mode: 'str', text: nested(MAX_DEPTH, '[', ']') }, // Python reads it too
    { mode: 'str', text: '{"a":'.repeat(MAX_DEPTH - 1) + '{}' + '}'.repeat(MAX_DEPTH - 1) },
    { mode: 'str', text: nested(100_000, '[', ']') }, // both refuse
    { mode: 'str', text: '{"a":'.repeat(100_000) },
  ]);
  assert.throws(() => parsePyJson(nested(MAX_DEPTH + 1, '[', ']')), (e: unknown) => e instanceof PyJsonError && /nesting depth/.test(e.message));
  assert.throws(() => parsePyJson('['.repeat(1_000_000)), (e: unknown) => e instanceof PyJsonError);
});

test('a key that is a split surrogate pair is refused (Python keeps two characters); as a value it is exact', () => {
  // "\ud800" escaped, then U+DC00 written raw: two characters to Python, one to a JS string.
  const split = encode('"\\ud800\udc00"', 'utf-8');
  const value = parsePyJson(split);
  assert.equal(value, { t: 'str', v: '\ud800\udc00', splitPairs: [0] });
  agreesWithPython({ mode: 'bytes', bytes: split }); // dumps still byte-identical
  assert.not.ok(pyEquals(value, parsePyJson('"\\ud800\\udc00"')));
  assert.ok(pyEquals(value, parsePyJson(encode('"\\ud800\udc00"', 'utf-8'))));
  assert.throws(
    () => parsePyJson(encode('{"\\ud800\udc00":1}', 'utf-8')),
    (e: unknown) => e instanceof PyJsonError && /two characters/.test(e.message),
  );
});

// ---------------------------------------------------------------------------------------------
// repr(float), float(text), ==

test('pyFloatRepr = repr(float) for doubles across all exponents, subnormals and boundaries', () => {
  const special = [0, -0, 1e16, 1e-4, 1e-5, 9999999999999998, 1234567890123456, 1e15, 0.1, 5e-324, -5e-324,
    Number.MAX_VALUE, Number.MIN_VALUE, 2.2250738585072014e-308, 2 ** 53, 2 ** 53 + 2, 1 / 3, 123456789012345680000,
    0.00001234, 1.5e-7, 1e21, 1e22, 1e23, NaN, Infinity, -Infinity];
  // The doubles next to each boundary of the fixed/exponent switch, a few steps either way.
  const neighbours = [1e16, 1e-4, 1e-5, 1e15, 1e17, 1e21, 1e22, 0.001, 1].flatMap((p) => {
    const view = new DataView(new ArrayBuffer(8));
    view.setFloat64(0, p);
    const bits = view.getBigUint64(0);
    return [-3n, -2n, -1n, 1n, 2n, 3n].map((d) => {
      view.setBigUint64(0, bits + d);
      return view.getFloat64(0);
    });
  });
  const doubles = [...special, ...neighbours, ...fc.sample(fc.double(), { seed: SEED, numRuns: 6000 }),
    ...fc.sample(fc.double({ min: -1e-300, max: 1e-300 }), { seed: SEED, numRuns: 1000 }),
    ...fc.sample(fc.integer().map((i) => i / 1000), { seed: SEED, numRuns: 1000 }),
    ...fc.sample(fc.integer({ min: -1074, max: 1023 }).map((e) => 2 ** e), { seed: SEED, numRuns: 500 })];
  const bits = (x: number) => Buffer.from(new Float64Array([x]).buffer).reverse().toString('hex');
  const answers = askPython<{ repr: string }>('pyjson_oracle.py', doubles.map((x) => ({ op: 'repr', bits: bits(x) })));
  doubles.forEach((x, i) => assert.is(pyFloatRepr(x), answers[i]!.repr, `repr of ${bits(x)}`));
});

test('float literals parse to the same double as Python float() (correct rounding)', () => {
  const texts = [...boundaryFloats.filter((t) => /[.eE]/.test(t)),
    ...fc.sample(digitsFloat.filter((t) => /[.eE]/.test(t)), { seed: SEED, numRuns: 4000 }),
    ...fc.sample(fc.tuple(fc.stringMatching(/^[1-9]\d{15,40}$/), fc.integer({ min: -345, max: 310 })).map(([d, e]) => `${d}e${e}`), { seed: SEED, numRuns: 2000 }),
  ];
  const answers = askPython<{ bits: string }>('pyjson_oracle.py', texts.map((text) => ({ op: 'float', text })));
  texts.forEach((text, i) => {
    const v = parsePyJson(text);
    assert.is(v.t, 'float', text);
    const got = Buffer.from(new Float64Array([(v as { v: number }).v]).buffer).reverse().toString('hex');
    assert.is(got, answers[i]!.bits, text);
  });
});

test('pyEquals = Python == on json.loads values', () => {
  const atoms = ['1', '1.0', 'true', 'false', '0', '-0.0', '0.0', '2', '9007199254740993', '9007199254740992.0',
    '9007199254740992', 'NaN', 'Infinity', '1e400', 'null', '"1"', '"a"', '""', '[]', '{}', '[NaN]', '[1]', '[1.0]', '[true]',
    '{"a":1,"b":2}', '{"b":2.0,"a":true}', '{"a":1}', '{"a":[NaN]}', '[[1,{"x":null}]]', '[[1.0,{"x":null}]]',
    '"\\ud83d\\ude00"', '"😀"', '1e16', '10000000000000000', '10000000000000001', '[1,2]', '[2,1]'];
  const pairs = atoms.flatMap((a) => atoms.map((b) => [a, b] as const));
  const answers = askPython<{ eq: boolean }>('pyjson_oracle.py', pairs.map(([a, b]) => ({ op: 'eq', a, b })));
  pairs.forEach(([a, b], i) => assert.is(pyEquals(parsePyJson(a), parsePyJson(b)), answers[i]!.eq, `${a} == ${b}`));
});

// ---------------------------------------------------------------------------------------------
// Python's exact messages and positions, spelled out

test('error messages name the line, column and char as Python does', () => {
  const cases: Array<[string, string]> = [
    ['[1 2]', "Expecting ',' delimiter: line 1 column 4 (char 3)"],
    ['{\n  "a" 1}', "Expecting ':' delimiter: line 2 column 7 (char 8)"],
    ['[1,2] x', 'Extra data: line 1 column 7 (char 6)'],
    ['"\u0001"', 'Invalid control character at: line 1 column 2 (char 1)'],
    ['\ufeff{}', 'Unexpected UTF-8 BOM (decode using utf-8-sig): line 1 column 1 (char 0)'],
    ['"😀😀', 'Unterminated string starting at: line 1 column 1 (char 0)'],
    ['["😀", x]', 'Expecting value: line 1 column 7 (char 6)'],
  ];
  for (const [text, message] of cases) {
    assert.throws(() => parsePyJson(text), (e: unknown) => e instanceof PyJsonError && e.message === message, text);
  }
  allAgreeWithPython(cases.map(([text]): Doc => ({ mode: 'str', text })));
  const e = (() => {
    try {
      parsePyJson('{\n"a":\n  ]');
    } catch (err) {
      return err as PyJsonError;
    }
    throw new Error('expected an error');
  })();
  assert.equal([e.offset, e.line, e.column, e.reason], [9, 3, 3, 'Expecting value']);
});

// ---------------------------------------------------------------------------------------------
// toPlain

test('toPlain: __proto__ and constructor are own data properties, nothing is polluted, ajv sees them', () => {
  const plain = toPlain(
    parsePyJson('{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}},"n":9007199254740993,"s":9007199254740991,"f":1.0,"m":-0.0,"x":[NaN,null]}'),
  ) as Record<string, unknown>;
  assert.is(({} as Record<string, unknown>).polluted, undefined);
  assert.is(Object.getPrototypeOf(plain), Object.prototype);
  assert.equal(Object.keys(plain), ['__proto__', 'constructor', 'n', 's', 'f', 'm', 'x']);
  assert.equal(Object.getOwnPropertyDescriptor(plain, '__proto__')!.value, { polluted: true });
  assert.is(plain.n, 9007199254740993n);
  assert.is(plain.s, 9007199254740991);
  assert.is(plain.f, 1);
  assert.ok(Object.is(plain.m, -0));
  assert.ok(Number.isNaN((plain.x as unknown[])[0]));
  // ajv sees the key: a closed object rejects it, propertyNames checks it.
  const ajv = new Ajv2020({ strict: true });
  const closed = ajv.compile({ type: 'object', properties: { a: {} }, additionalProperties: false });
  assert.ok(closed(toPlain(parsePyJson('{"a":1}'))));
  assert.not.ok(closed(toPlain(parsePyJson('{"a":1,"__proto__":{}}'))));
  assert.not.ok(closed(toPlain(parsePyJson('{"constructor":1}'))));
  const names = ajv.compile({ type: 'object', propertyNames: { pattern: '^[a-z]+$' } });
  assert.ok(names(toPlain(parsePyJson('{"abc":1}'))));
  assert.not.ok(names(toPlain(parsePyJson('{"__proto__":1}'))));
});

test('dict keeps a duplicate key at its first position with the last value', () => {
  const v = parsePyJson('{"b":1,"a":2,"b":3}') as Extract<PyValue, { t: 'dict' }>;
  assert.equal([...v.v.keys()], ['b', 'a']);
  assert.equal(v.v.get('b'), { t: 'int', v: 3n });
});

test.run();
