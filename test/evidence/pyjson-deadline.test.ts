// The deadline inside pyjson: parse, dump and toPlain read the run's clock inside their loops
// (at least once per 64 Ki code points of any construct, and every 256 values), so a document
// that would take seconds stops with DeadlineExceeded when time is up, whatever its shape. The
// clock here is a counter (no wall time): each test counts how often it is read, or moves it
// past the deadline after a given number of reads.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Deadline, DeadlineExceeded } from '../../src/deadline';
import { dumpsCanonical, parsePyJson, toPlain, type PyValue } from '../../src/evidence/pyjson';
import { encode } from './py/encode';

const K = 1 << 16;
const N = 16 * K; // code points of each long construct

/** A deadline that never passes and counts how often its clock is read. */
function counting(): { deadline: Deadline; reads: () => number } {
  let reads = 0;
  const deadline = new Deadline(Number.POSITIVE_INFINITY, 1000, () => {
    reads++;
    return 0;
  });
  return { deadline, reads: () => reads };
}

/** A deadline that passes at the clock's `n`-th read. */
function passingAfter(n: number): Deadline {
  let reads = 0;
  return new Deadline(n, 100, () => ++reads);
}

const constructs: [string, () => string | Uint8Array][] = [
  ['one long ASCII string', () => `["${'a'.repeat(N)}"]`],
  ['one long string with escapes', () => `["${'\\n'.repeat(N / 2)}"]`],
  ['one long non-ASCII string (UTF-8 bytes)', () => Buffer.from(`["${'é'.repeat(N)}"]`, 'utf8')],
  ['one long astral string (UTF-8 bytes)', () => Buffer.from(`["${'😀'.repeat(N)}"]`, 'utf8')],
  ['a long whitespace run', () => `[1${' '.repeat(N)}]`],
  ['a float with a long fraction', () => `[0.${'7'.repeat(N)}]`],
  ['many small values', () => `[${'1,'.repeat(N / 2)}1]`],
  ['UTF-16 bytes', () => encode(`["${'u'.repeat(N)}"]`, 'utf-16-le')],
  ['UTF-32 bytes', () => encode(`["${'u'.repeat(N)}"]`, 'utf-32-be')],
];

for (const [name, make] of constructs) {
  test(`parse reads the clock while decoding and while scanning: ${name}`, () => {
    const doc = make();
    const { deadline, reads } = counting();
    const value = parsePyJson(doc, { deadline });
    // Decoding and scanning each read it at least every 64 Ki code points.
    assert.ok(reads() >= 2 * (N / K) - 2, `${reads()} reads for ${N} code points`);
    assert.is(dumpsCanonical(value), dumpsCanonical(parsePyJson(doc)), 'the deadline changes nothing else');
    // And when it passes halfway, the parse stops with DeadlineExceeded.
    assert.throws(() => parsePyJson(doc, { deadline: passingAfter(Math.ceil(reads() / 2)) }), (e: unknown) => e instanceof DeadlineExceeded);
  });
}

test('dump reads the clock inside long strings and every 256 values', () => {
  const long: PyValue = { t: 'list', v: [{ t: 'str', v: 'é'.repeat(N) }] };
  const a = counting();
  assert.is(dumpsCanonical(long, { deadline: a.deadline }), dumpsCanonical(long));
  assert.ok(a.reads() >= N / K, `${a.reads()} reads for a string of ${N}`);

  const many: PyValue = { t: 'list', v: Array.from({ length: 256 * 64 }, (_, i) => ({ t: 'int', v: BigInt(i) })) };
  const b = counting();
  dumpsCanonical(many, { deadline: b.deadline });
  assert.ok(b.reads() >= 64, `${b.reads()} reads for ${256 * 64} values`);
  assert.throws(() => dumpsCanonical(many, { deadline: passingAfter(10) }), (e: unknown) => e instanceof DeadlineExceeded);
});

test('a Deadline given alone is taken as { deadline }', () => {
  const doc = `[${'1,'.repeat(N / 2)}1]`;
  const value = parsePyJson(doc);
  assert.throws(() => parsePyJson(doc, passingAfter(2)), (e: unknown) => e instanceof DeadlineExceeded);
  assert.throws(() => dumpsCanonical(value, passingAfter(2)), (e: unknown) => e instanceof DeadlineExceeded);
  assert.throws(() => toPlain(value, passingAfter(2)), (e: unknown) => e instanceof DeadlineExceeded);
  const c = counting();
  assert.is(dumpsCanonical(parsePyJson(doc, c.deadline)), dumpsCanonical(value));
  assert.ok(c.reads() > 0);
});

test('toPlain reads the clock every 256 values', () => {
  const many = parsePyJson(`{"k":[${'{"a":[1.5,2,"x"]},'.repeat(5000)}null]}`);
  const c = counting();
  assert.equal(toPlain(many, { deadline: c.deadline }), toPlain(many));
  assert.ok(c.reads() >= (5000 * 5) / 256 - 1, `${c.reads()} reads`);
  assert.throws(() => toPlain(many, { deadline: passingAfter(3) }), (e: unknown) => e instanceof DeadlineExceeded);
});

test('a 13.5 MB manifest stops with DeadlineExceeded, not a syntax error, when time runs out', () => {
  const rows: string[] = [];
  for (let i = 0; rows.length * 80 < 13.5e6; i++) rows.push(`    {"name": "prop_${i}", "bound": "n ≤ ${1000 + i}", "weight": ${i / 7}}`);
  const manifest = Buffer.from(`{\n  "seed": 20260925,\n  "properties": [\n${rows.join(',\n')}\n  ]\n}\n`, 'utf8');
  assert.ok(manifest.length > 13e6, `${manifest.length} bytes`);
  const { deadline, reads } = counting();
  const value = parsePyJson(manifest, { deadline });
  assert.ok(reads() > 1000, `${reads()} reads`);
  for (const at of [1, Math.floor(reads() / 2)]) {
    assert.throws(() => parsePyJson(manifest, { deadline: passingAfter(at) }), (e: unknown) => e instanceof DeadlineExceeded, `passing at read ${at}`);
  }
  assert.ok(dumpsCanonical(value).length > 10e6);
});

test.run();
