// Python-exact JSON: `json.loads` and `json.dumps(obj, sort_keys=True, separators=(",", ":"))`
// as CPython 3.11 runs them.
//
// The property manifest's `manifest_sha256` is defined by what Python writes, for every document
// Python reads. `JSON.parse` cannot stand in: it loses integers beyond 2^53, the difference
// between `1` and `1.0`, the order Python keeps for duplicate keys, and treats `__proto__`
// specially. So this module scans the text itself, following CPython's `_json.c` scanner
// (same grammar, same error messages and positions), and writes Python's encoder output.
//
// Speed: an evidence file may be megabytes of numbers, and the run's deadline must hold inside
// one parse. The scanner walks the document's code points (a Uint32Array, for Python's
// positions) and takes text (numbers, strings without escapes) as slices of a string that holds
// the same code points truncated to 16 bits, so no character is copied one at a time; floats
// whose repr JavaScript already writes are not taken apart again.

import { isAscii } from 'node:buffer';
import { compareCodePoints } from '../code-points';
import { Deadline } from '../deadline';

/** Options of parsePyJson, dumpsCanonical and toPlain (a Deadline alone is taken as `{ deadline }`). */
export interface PyJsonOptions {
  /** Checked inside the loops (every value, every 64 Ki code points): throws DeadlineExceeded. */
  deadline?: Deadline;
}

function deadlineOf(options: PyJsonOptions | Deadline): Deadline | undefined {
  return options instanceof Deadline ? options : options.deadline;
}

/** A value as Python's `json.loads` returns it. */
export type PyValue =
  | { t: 'null' }
  | { t: 'bool'; v: boolean }
  | { t: 'int'; v: bigint }
  /** NaN and ±Infinity allowed: Python reads `NaN`, `Infinity`, `-Infinity` and `1e400`. */
  | { t: 'float'; v: number }
  /**
   * UTF-16 code units; lone surrogates allowed (Python reads `"\ud800"`). `splitPairs` lists the
   * code-unit indexes i where v[i], v[i+1] look like a surrogate pair but are two characters to
   * Python (`"\ud800"` escaped, then U+DC00 written raw); absent when there are none.
   */
  | { t: 'str'; v: string; splitPairs?: readonly number[] }
  | { t: 'list'; v: PyValue[] }
  /** Python dict semantics: a duplicate key keeps its first position and takes the last value. */
  | { t: 'dict'; v: Map<string, PyValue> };

/**
 * A document Python's `json.loads` rejects. `offset` is Python's index into the decoded text
 * (code points), `line` and `column` are 1-based as Python counts them; for bytes that do not
 * decode, `offset` is the byte position.
 */
export class PyJsonError extends Error {
  readonly offset: number;
  readonly line: number;
  readonly column: number;
  /** The message without the position suffix (Python's `JSONDecodeError.msg`). */
  readonly reason: string;

  constructor(reason: string, doc: ArrayLike<number>, offset: number, positioned = true) {
    const { line, column } = lineAndColumn(doc, offset);
    super(positioned ? `${reason}: line ${line} column ${column} (char ${offset})` : reason);
    this.name = 'PyJsonError';
    this.reason = reason;
    this.offset = offset;
    this.line = line;
    this.column = column;
  }
}

/** CPython's default limit on decimal digits when converting a string to an int (3.11+). */
export const INT_MAX_STR_DIGITS = 4300;

/**
 * Deepest nesting of arrays and objects accepted. CPython has no fixed limit: its scanner raises
 * RecursionError when it runs out of its default recursion limit of 1000 frames, about 995 levels
 * when called from a script's top level. Documents deeper than this are rejected here, as an
 * error and never by overflowing the JavaScript stack.
 */
export const MAX_DEPTH = 990;

function lineAndColumn(doc: ArrayLike<number>, offset: number): { line: number; column: number } {
  // JSONDecodeError: lineno = doc.count('\n', 0, pos) + 1; colno = pos - doc.rfind('\n', 0, pos)
  let line = 1;
  let lastNewline = -1;
  const end = Math.min(offset, doc.length);
  for (let i = 0; i < end; i++) {
    if (doc[i] === 0x0a) {
      line++;
      lastNewline = i;
    }
  }
  return { line, column: offset - lastNewline };
}

// ---------------------------------------------------------------------------------------------
// Decoding the input to code points, as json.loads does before scanning.

/**
 * `json.loads(bytes)`: `bytes.decode(json.detect_encoding(b), 'surrogatepass')`;
 * `json.loads(str)`: a leading U+FEFF is an error.
 */
function toCodePoints(input: Uint8Array | string, deadline: Deadline | undefined): Uint32Array {
  if (typeof input === 'string') {
    const cps = stringToCodePoints(input, deadline);
    if (cps.length > 0 && cps[0] === 0xfeff) {
      throw new PyJsonError('Unexpected UTF-8 BOM (decode using utf-8-sig)', cps, 0);
    }
    return cps;
  }
  return decodeBytes(input, deadline);
}

/** Every 64 Ki steps of a loop over the document: the deadline's clock is read. */
const CHECK_MASK = 0xffff;

/** A JS string's code points: valid surrogate pairs combine, lone surrogates stay. */
function stringToCodePoints(s: string, deadline: Deadline | undefined): Uint32Array {
  const out = new Uint32Array(s.length);
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    if ((i & CHECK_MASK) === 0) deadline?.check();
    const c = s.charCodeAt(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      const d = s.charCodeAt(i + 1);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out[n++] = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i++;
        continue;
      }
    }
    out[n++] = c;
  }
  return out.subarray(0, n);
}

type Encoding = 'utf-32' | 'utf-16' | 'utf-8-sig' | 'utf-16-be' | 'utf-32-be' | 'utf-16-le' | 'utf-32-le' | 'utf-8';

/** json.detect_encoding */
function detectEncoding(b: Uint8Array): Encoding {
  const starts = (...prefix: number[]) => prefix.length <= b.length && prefix.every((x, i) => b[i] === x);
  if (starts(0x00, 0x00, 0xfe, 0xff) || starts(0xff, 0xfe, 0x00, 0x00)) return 'utf-32';
  if (starts(0xfe, 0xff) || starts(0xff, 0xfe)) return 'utf-16';
  if (starts(0xef, 0xbb, 0xbf)) return 'utf-8-sig';
  if (b.length >= 4) {
    if (!b[0]) return b[1] ? 'utf-16-be' : 'utf-32-be';
    if (!b[1]) return b[2] || b[3] ? 'utf-16-le' : 'utf-32-le';
  } else if (b.length === 2) {
    if (!b[0]) return 'utf-16-be';
    if (!b[1]) return 'utf-16-le';
  }
  return 'utf-8';
}

function decodeError(codec: string, bytes: Uint8Array, start: number, end: number, why: string): PyJsonError {
  const what =
    end - start === 1
      ? `byte 0x${hex2(bytes[start]!)} in position ${start}`
      : `bytes in position ${start}-${end - 1}`;
  return new PyJsonError(`'${codec}' codec can't decode ${what}: ${why}`, bytes, start, false);
}

function hex2(x: number): string {
  return x.toString(16).padStart(2, '0');
}

function decodeBytes(b: Uint8Array, deadline: Deadline | undefined): Uint32Array {
  const encoding = detectEncoding(b);
  deadline?.check();
  switch (encoding) {
    case 'utf-8':
      return decodeUtf8(b, 0, 'utf-8', deadline);
    case 'utf-8-sig':
      return decodeUtf8(b.subarray(3), 0, 'utf-8', deadline); // positions count from after the BOM, as Python's do
    case 'utf-16': // the codec reads the BOM, then reports errors as the endian codec it chose
      return b[0] === 0xff ? decodeUtf16(b, 2, true, 'utf-16-le', deadline) : decodeUtf16(b, 2, false, 'utf-16-be', deadline);
    case 'utf-16-le':
      return decodeUtf16(b, 0, true, 'utf-16-le', deadline);
    case 'utf-16-be':
      return decodeUtf16(b, 0, false, 'utf-16-be', deadline);
    case 'utf-32':
      return b[0] === 0xff ? decodeUtf32(b, 4, true, 'utf-32-le', deadline) : decodeUtf32(b, 4, false, 'utf-32-be', deadline);
    case 'utf-32-le':
      return decodeUtf32(b, 0, true, 'utf-32-le', deadline);
    case 'utf-32-be':
      return decodeUtf32(b, 0, false, 'utf-32-be', deadline);
  }
}

/** CPython's strict UTF-8 decoder with the `surrogatepass` handler (encoded surrogates pass). */
function decodeUtf8(b: Uint8Array, start: number, codec: string, deadline: Deadline | undefined): Uint32Array {
  const out = new Uint32Array(b.length - start);
  let n = 0;
  let i = start;
  const cont = (k: number) => k < b.length && (b[k]! & 0xc0) === 0x80;
  while (i < b.length) {
    if ((n & CHECK_MASK) === 0) deadline?.check();
    const c = b[i]!;
    if (c < 0x80) {
      // A run of ASCII (at most 64 Ki), copied without the checks below.
      const stop = Math.min(b.length, i + CHECK_MASK);
      let j = i + 1;
      while (j < stop && b[j]! < 0x80) j++;
      if (j - i > 16) out.set(b.subarray(i, j), n);
      else for (let k = i; k < j; k++) out[n + k - i] = b[k]!;
      n += j - i;
      i = j;
      if (j === stop) deadline?.check();
      continue;
    }
    if (c < 0xc2 || c > 0xf4) throw decodeError(codec, b, i, i + 1, 'invalid start byte');
    if (c < 0xe0) {
      if (!cont(i + 1)) throw truncatedOrInvalid(codec, b, i, 1);
      out[n++] = ((c & 0x1f) << 6) | (b[i + 1]! & 0x3f);
      i += 2;
      continue;
    }
    if (c < 0xf0) {
      // E0 needs A0..BF (no overlong); ED A0..BF are surrogates, which surrogatepass lets through.
      const c1 = b[i + 1];
      const secondOk = c1 !== undefined && (c1 & 0xc0) === 0x80 && (c !== 0xe0 || c1 >= 0xa0);
      if (!secondOk) throw truncatedOrInvalid(codec, b, i, 1);
      // The strict decoder stops at ED A0..BF; the handler then takes the surrogate only when
      // all three bytes are there, else the strict decoder's error stands.
      const surrogate = c === 0xed && c1 >= 0xa0;
      if (surrogate && !cont(i + 2)) throw decodeError(codec, b, i, i + 1, 'invalid continuation byte');
      if (!cont(i + 2)) throw truncatedOrInvalid(codec, b, i, 2);
      out[n++] = ((c & 0x0f) << 12) | ((c1 & 0x3f) << 6) | (b[i + 2]! & 0x3f);
      i += 3;
      continue;
    }
    const c1 = b[i + 1];
    const secondOk =
      c1 !== undefined && (c1 & 0xc0) === 0x80 && (c !== 0xf0 || c1 >= 0x90) && (c !== 0xf4 || c1 <= 0x8f);
    if (!secondOk) throw truncatedOrInvalid(codec, b, i, 1);
    if (!cont(i + 2)) throw truncatedOrInvalid(codec, b, i, 2);
    if (!cont(i + 3)) throw truncatedOrInvalid(codec, b, i, 3);
    out[n++] = ((c & 0x07) << 18) | ((c1 & 0x3f) << 12) | ((b[i + 2]! & 0x3f) << 6) | (b[i + 3]! & 0x3f);
    i += 4;
  }
  return out.subarray(0, n);
}

function truncatedOrInvalid(codec: string, b: Uint8Array, start: number, valid: number): PyJsonError {
  const atEnd = start + valid >= b.length;
  return atEnd
    ? decodeError(codec, b, start, b.length, 'unexpected end of data')
    : decodeError(codec, b, start, start + valid, 'invalid continuation byte');
}

function decodeUtf16(
  b: Uint8Array,
  start: number,
  littleEndian: boolean,
  codec: string,
  deadline: Deadline | undefined,
): Uint32Array {
  const out = new Uint32Array(Math.ceil((b.length - start) / 2));
  let n = 0;
  const unit = (k: number) => (littleEndian ? b[k]! | (b[k + 1]! << 8) : (b[k]! << 8) | b[k + 1]!);
  let i = start;
  while (i + 1 < b.length) {
    if ((n & CHECK_MASK) === 0) deadline?.check();
    const c = unit(i);
    if (c >= 0xd800 && c <= 0xdbff && i + 3 < b.length) {
      const d = unit(i + 2);
      if (d >= 0xdc00 && d <= 0xdfff) {
        out[n++] = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00);
        i += 4;
        continue;
      }
    }
    out[n++] = c; // a lone surrogate passes (surrogatepass)
    i += 2;
  }
  if (i < b.length) throw decodeError(codec, b, i, b.length, 'truncated data');
  return out.subarray(0, n);
}

function decodeUtf32(
  b: Uint8Array,
  start: number,
  littleEndian: boolean,
  codec: string,
  deadline: Deadline | undefined,
): Uint32Array {
  const out = new Uint32Array(Math.floor((b.length - start) / 4));
  let n = 0;
  let i = start;
  for (; i + 3 < b.length; i += 4) {
    if ((n & CHECK_MASK) === 0) deadline?.check();
    const c = littleEndian
      ? (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0
      : ((b[i]! << 24) | (b[i + 1]! << 16) | (b[i + 2]! << 8) | b[i + 3]!) >>> 0;
    if (c > 0x10ffff) throw decodeError(codec, b, i, i + 4, 'code point not in range(0x110000)');
    out[n++] = c;
  }
  if (i < b.length) throw decodeError(codec, b, i, b.length, 'truncated data');
  return out.subarray(0, n);
}

// ---------------------------------------------------------------------------------------------
// The scanner: CPython's `_json.c` (scan_once_unicode, _parse_object_unicode,
// _parse_array_unicode, scanstring_unicode, _match_number_unicode) and json.decoder.decode.

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

function isWhitespace(c: number | undefined): boolean {
  return c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d;
}

function isDigit(c: number | undefined): boolean {
  return c !== undefined && c >= 0x30 && c <= 0x39;
}

/** Python's `StopIteration(idx)` inside the scanner: becomes "Expecting value" at idx. */
/** Python's StopIteration in its scanner: no value starts at `idx` (turned into PyJsonError
 * by parsePyJson, the only place that catches it). */
class ExpectingValue extends Error {
  constructor(readonly idx: number) {
    super('Expecting value');
    this.name = 'ExpectingValue';
  }
}

/** `json.loads(input)`. Throws PyJsonError for everything Python rejects. */
export function parsePyJson(input: Uint8Array | string, options: PyJsonOptions | Deadline = {}): PyValue {
  const deadline = deadlineOf(options);
  const { s, text, bmp } = decodeDocument(input, deadline);
  const scanner = new Scanner(s, text, deadline, bmp);
  let idx = scanner.skipWhitespace(0);
  let value: PyValue;
  try {
    value = scanner.scanOnce(idx, 0);
  } catch (e) {
    if (e instanceof ExpectingValue) throw new PyJsonError('Expecting value', s, e.idx);
    throw e;
  }
  idx = scanner.skipWhitespace(scanner.next);
  if (idx !== s.length) throw new PyJsonError('Extra data', s, idx);
  return value;
}

/** The document's code points, and the same as a string of one code unit each (see unitsText);
 * `bmp` when that string is the code points exactly (none above U+FFFF), as far as known. */
function decodeDocument(input: Uint8Array | string, deadline: Deadline | undefined): { s: Uint32Array; text: string; bmp: boolean } {
  if (typeof input !== 'string') {
    // The common case, ASCII bytes: copied, not decoded one byte at a time.
    const encoding = detectEncoding(input);
    const body = encoding === 'utf-8' ? input : encoding === 'utf-8-sig' ? input.subarray(3) : null;
    if (body !== null && isAscii(body)) {
      const s = new Uint32Array(body.length);
      for (let i = 0; i < body.length; i += CHECK_MASK + 1) {
        deadline?.check();
        s.set(body.subarray(i, i + CHECK_MASK + 1), i);
      }
      return { s, text: Buffer.from(body.buffer, body.byteOffset, body.length).toString('latin1'), bmp: true };
    }
    // Well-formed UTF-8 (no encoded surrogate, which only surrogatepass lets through): decoded
    // natively; anything else goes to decodeUtf8, which also finds Python's error.
    if (body !== null) {
      let decoded: string | null = null;
      try {
        decoded = STRICT_UTF8.decode(body);
      } catch {
        decoded = null;
      }
      if (decoded !== null) {
        deadline?.check();
        const s = stringToCodePoints(decoded, deadline);
        // As many code points as code units: no surrogate pair, so nothing above U+FFFF.
        const bmp = s.length === decoded.length;
        return { s, text: bmp ? decoded : unitsText(s), bmp };
      }
    }
  }
  const s = toCodePoints(input, deadline);
  deadline?.check();
  const bmp = typeof input === 'string' && s.length === input.length;
  return { s, text: bmp ? input : unitsText(s), bmp };
}

/**
 * The code points as a string of one code unit each (truncated to 16 bits): text[i] is s[i]
 * wherever s[i] is at most U+FFFF, so a slice of BMP-only code points is a slice of it.
 */
function unitsText(s: Uint32Array): string {
  const units = new Uint16Array(s); // ToUint16 of each code point
  if (LITTLE_ENDIAN) return Buffer.from(units.buffer, units.byteOffset, units.byteLength).toString('utf16le');
  const parts: string[] = [];
  for (let i = 0; i < units.length; i += 4096) parts.push(String.fromCharCode(...units.subarray(i, i + 4096)));
  return parts.join('');
}

/** Throws on malformed input; keeps a leading U+FEFF (the utf-8-sig BOM is already cut off). */
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Runs of whitespace, and of string characters that need no decoding (no quote, backslash,
 * control character or surrogate), at most RUN_CHUNK long: sticky, for Scanner's native paths. */
const RUN_CHUNK = CHECK_MASK + 1;
const WHITESPACE_RUN = /[ \t\n\r]{0,65536}/y;
const PLAIN_RUN = /[^"\\\x00-\x1f\ud800-\udfff]{0,65536}/y;

class Scanner {
  /** Index of the first code point after the value just scanned. */
  next = 0;

  constructor(
    private readonly s: Uint32Array,
    /** See unitsText. */
    private readonly text: string,
    private readonly deadline: Deadline | undefined,
    /** text[i] is s[i] for every i: runs are found in `text` by the regular expressions below. */
    private readonly bmp: boolean,
  ) {}

  skipWhitespace(idx: number): number {
    const s = this.s;
    if (idx >= s.length || !isWhitespace(s[idx])) return idx;
    if (this.bmp) {
      // Native, a chunk of at most 64 Ki code points at a time, the clock read between chunks.
      for (;;) {
        WHITESPACE_RUN.lastIndex = idx;
        WHITESPACE_RUN.test(this.text);
        const end = WHITESPACE_RUN.lastIndex;
        if (end - idx < RUN_CHUNK) return end;
        idx = end;
        this.deadline?.check();
      }
    }
    while (idx < s.length && isWhitespace(s[idx])) {
      idx++;
      if ((idx & CHECK_MASK) === 0) this.deadline?.check();
    }
    return idx;
  }

  private fail(msg: string, pos: number): never {
    throw new PyJsonError(msg, this.s, pos);
  }

  private matches(idx: number, word: string): boolean {
    if (idx + word.length > this.s.length) return false;
    for (let i = 0; i < word.length; i++) if (this.s[idx + i] !== word.charCodeAt(i)) return false;
    return true;
  }

  scanOnce(idx: number, depth: number): PyValue {
    const s = this.s;
    this.deadline?.tick();
    if (idx >= s.length) throw new ExpectingValue(idx);
    switch (s[idx]) {
      case QUOTE: {
        const value = this.scanString(idx + 1);
        const splitPairs = this.splitPairs;
        return splitPairs !== null ? { t: 'str', v: value, splitPairs } : { t: 'str', v: value };
      }
      case 0x7b /* { */:
        this.enter(idx, depth, 'object');
        return this.parseObject(idx + 1, depth + 1);
      case 0x5b /* [ */:
        this.enter(idx, depth, 'array');
        return this.parseArray(idx + 1, depth + 1);
      case 0x6e /* n */:
        if (this.matches(idx, 'null')) {
          this.next = idx + 4;
          return { t: 'null' };
        }
        break;
      case 0x74 /* t */:
        if (this.matches(idx, 'true')) {
          this.next = idx + 4;
          return { t: 'bool', v: true };
        }
        break;
      case 0x66 /* f */:
        if (this.matches(idx, 'false')) {
          this.next = idx + 5;
          return { t: 'bool', v: false };
        }
        break;
      case 0x4e /* N */:
        if (this.matches(idx, 'NaN')) {
          this.next = idx + 3;
          return { t: 'float', v: NaN };
        }
        break;
      case 0x49 /* I */:
        if (this.matches(idx, 'Infinity')) {
          this.next = idx + 8;
          return { t: 'float', v: Infinity };
        }
        break;
      case 0x2d /* - */:
        if (this.matches(idx, '-Infinity')) {
          this.next = idx + 9;
          return { t: 'float', v: -Infinity };
        }
        break;
    }
    return this.matchNumber(idx);
  }

  private enter(idx: number, depth: number, what: 'object' | 'array'): void {
    if (depth >= MAX_DEPTH) {
      this.fail(
        `maximum nesting depth (${MAX_DEPTH}) exceeded while decoding a JSON ${what} ` +
          '(CPython raises RecursionError near this depth)',
        idx,
      );
    }
  }

  private parseObject(idx: number, depth: number): PyValue {
    const s = this.s;
    const dict = new Map<string, PyValue>();
    idx = this.skipWhitespace(idx);
    if (idx >= s.length || s[idx] !== 0x7d /* } */) {
      for (;;) {
        if (idx >= s.length || s[idx] !== QUOTE) {
          this.fail('Expecting property name enclosed in double quotes', idx);
        }
        const key = this.scanString(idx + 1);
        if (this.fakePairAt >= 0) this.failFakePair(this.fakePairAt);
        idx = this.skipWhitespace(this.next);
        if (idx >= s.length || s[idx] !== 0x3a /* : */) this.fail("Expecting ':' delimiter", idx);
        idx = this.skipWhitespace(idx + 1);
        const value = this.scanOnce(idx, depth);
        dict.set(key, value); // Map.set keeps a known key's position: Python's dict does too
        idx = this.skipWhitespace(this.next);
        if (idx < s.length && s[idx] === 0x7d) break;
        if (idx >= s.length || s[idx] !== 0x2c /* , */) this.fail("Expecting ',' delimiter", idx);
        idx = this.skipWhitespace(idx + 1);
      }
    }
    this.next = idx + 1;
    return { t: 'dict', v: dict };
  }

  private parseArray(idx: number, depth: number): PyValue {
    const s = this.s;
    const list: PyValue[] = [];
    idx = this.skipWhitespace(idx);
    if (idx >= s.length || s[idx] !== 0x5d /* ] */) {
      for (;;) {
        list.push(this.scanOnce(idx, depth));
        idx = this.skipWhitespace(this.next);
        if (idx < s.length && s[idx] === 0x5d) break;
        if (idx >= s.length || s[idx] !== 0x2c) this.fail("Expecting ',' delimiter", idx);
        idx = this.skipWhitespace(idx + 1);
      }
    }
    this.next = idx + 1;
    return { t: 'list', v: list };
  }

  /**
   * Two separate code points, a high surrogate then a low one, are two characters to Python but
   * one character to a JavaScript string. Where that changes the result (a dict key: order and
   * identity of keys) the document is refused rather than read differently.
   */
  private failFakePair(pos: number): never {
    this.fail(
      'Unsupported string: a lone high surrogate followed by a lone low surrogate, which Python keeps ' +
        'as two characters (write the pair as one "\\uXXXX\\uXXXX" escape or as the character itself)',
      pos,
    );
  }

  /** Where the last string scanned has a "fake pair" (see failFakePair), or -1. */
  private fakePairAt = -1;
  /** The last string's splitPairs (see PyValue), null when there are none. */
  private splitPairs: number[] | null = null;

  /**
   * scanstring_unicode (strict). `end` is the index after the opening quote. Returns the string;
   * sets `next` to the index after the closing quote, and `fakePairAt` and `splitPairs`.
   */
  scanString(end: number): string {
    this.fakePairAt = -1;
    this.splitPairs = null;
    return this.scanPlainString(end) ?? this.scanEscapedString(end);
  }

  /** The fast path: the string when no escape, control character or surrogate comes before its
   * closing quote (sets `next`), else null. */
  private scanPlainString(end: number): string | null {
    if (this.bmp) return this.scanPlainRun(end);
    const s = this.s;
    let astralOnly = false;
    for (let i = end; i < s.length; i++) {
      const c = s[i]!;
      if (c === QUOTE) {
        this.next = i + 1;
        return astralOnly ? codePointsToString(s, end, i) : this.text.slice(end, i);
      }
      if (c === BACKSLASH || c <= 0x1f || (c >= 0xd800 && c <= 0xdfff)) return null;
      if (c > 0xffff) astralOnly = true;
      if ((i & CHECK_MASK) === 0) this.deadline?.check();
    }
    return null;
  }

  /** scanPlainString on a document whose text is its code points: the run of plain characters
   * found natively, at most 64 Ki code points at a time, the clock read between chunks. */
  private scanPlainRun(end: number): string | null {
    const text = this.text;
    let idx = end;
    for (;;) {
      PLAIN_RUN.lastIndex = idx;
      PLAIN_RUN.test(text);
      const stop = PLAIN_RUN.lastIndex;
      if (stop - idx < RUN_CHUNK) {
        if (stop >= text.length || text.charCodeAt(stop) !== QUOTE) return null; // an escape, a control character, a surrogate or the end
        this.next = stop + 1;
        return text.slice(end, stop);
      }
      idx = stop;
      this.deadline?.check();
    }
  }

  /** The general path: escapes decoded, split surrogate pairs tracked as Python sees them. */
  private scanEscapedString(end: number): string {
    const s = this.s;
    const len = s.length;
    const begin = end - 1;
    const units: number[] = [];
    const chunks: string[] = [];
    let lastWasHigh = false; // the previous code point written was a high surrogate
    let fakePairAt = -1;
    const splitPairs: number[] = [];
    let written = 0; // code units written so far
    const flush = () => {
      if (units.length > 0) chunks.push(String.fromCharCode(...units));
      units.length = 0;
    };
    const write = (c: number, at: number) => {
      if (c >= 0xdc00 && c <= 0xdfff && lastWasHigh) {
        if (fakePairAt < 0) fakePairAt = at;
        splitPairs.push(written - 1);
      }
      written += c > 0xffff ? 2 : 1;
      lastWasHigh = c >= 0xd800 && c <= 0xdbff;
      if (c > 0xffff) {
        c -= 0x10000;
        units.push(0xd800 + (c >> 10), 0xdc00 + (c & 0x3ff));
      } else {
        units.push(c);
      }
      if (units.length >= 4096) flush();
    };
    let escapes = 0;
    for (;;) {
      // Every 4096 escapes (8 Ki code points at least) the clock is read too.
      if ((++escapes & 0xfff) === 0) this.deadline?.check();
      // A run of literal characters up to the next quote or backslash.
      let next = end;
      let c = 0;
      let surrogates = false;
      let astral = 0;
      for (; next < len; next++) {
        c = s[next]!;
        if (c === QUOTE || c === BACKSLASH) break;
        if ((next & CHECK_MASK) === 0) this.deadline?.check();
        if (c <= 0x1f) this.fail('Invalid control character at', next);
        if (c >= 0xd800) {
          if (c <= 0xdfff) surrogates = true;
          else if (c > 0xffff) astral++;
        }
      }
      if (next > end) {
        if (surrogates) {
          for (let i = end; i < next; i++) write(s[i]!, i); // tracks split pairs
        } else {
          flush();
          chunks.push(astral > 0 ? codePointsToString(s, end, next) : this.text.slice(end, next));
          written += next - end + astral;
          lastWasHigh = false;
        }
      }
      if (next >= len) this.fail('Unterminated string starting at', begin);
      next++;
      if (c === QUOTE) {
        end = next;
        break;
      }
      if (next === len) this.fail('Unterminated string starting at', begin);
      c = s[next]!;
      if (c !== 0x75 /* u */) {
        end = next + 1;
        const simple = SIMPLE_ESCAPES.get(c);
        if (simple === undefined) this.fail('Invalid \\escape', end - 2);
        write(simple, end - 2);
      } else {
        next++;
        end = next + 4;
        if (end >= len) this.fail('Invalid \\uXXXX escape', next - 1);
        let code = this.hex4(next, end);
        const escapeAt = next - 2;
        // A high surrogate escape followed by a low surrogate escape is one character.
        if (code >= 0xd800 && code <= 0xdbff && end + 6 < len && s[end] === BACKSLASH && s[end + 1] === 0x75) {
          const low = this.hex4(end + 2, end + 6);
          if (low >= 0xdc00 && low <= 0xdfff) {
            code = 0x10000 + ((code - 0xd800) << 10) + (low - 0xdc00);
            end += 6;
          }
        }
        write(code, escapeAt);
      }
    }
    flush();
    this.next = end;
    this.fakePairAt = fakePairAt;
    this.splitPairs = splitPairs.length > 0 ? splitPairs : null;
    return chunks.join('');
  }

  private hex4(from: number, to: number): number {
    let code = 0;
    for (let i = from; i < to; i++) {
      const d = this.s[i]!;
      code <<= 4;
      if (d >= 0x30 && d <= 0x39) code |= d - 0x30;
      else if (d >= 0x61 && d <= 0x66) code |= d - 0x61 + 10;
      else if (d >= 0x41 && d <= 0x46) code |= d - 0x41 + 10;
      else this.fail('Invalid \\uXXXX escape', to - 5);
    }
    return code;
  }

  /** _match_number_unicode: `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][-+]?[0-9]+)?` */
  private matchNumber(start: number): PyValue {
    const s = this.s;
    let idx = start;
    if (s[idx] === 0x2d) {
      idx++;
      if (idx >= s.length) throw new ExpectingValue(start);
    }
    if (s[idx]! >= 0x31 && s[idx]! <= 0x39) {
      idx = this.digitsEnd(idx + 1);
    } else if (s[idx] === 0x30) {
      idx++;
    } else {
      throw new ExpectingValue(start);
    }
    let isFloat = false;
    if (s[idx] === 0x2e && isDigit(s[idx + 1])) {
      isFloat = true;
      idx = this.digitsEnd(idx + 2);
    }
    if (s[idx] === 0x65 || s[idx] === 0x45) {
      let e = idx + 1;
      if (s[e] === 0x2d || s[e] === 0x2b) e++;
      if (isDigit(s[e])) {
        isFloat = true;
        idx = this.digitsEnd(e);
      }
    }
    this.next = idx;
    if (isFloat) return { t: 'float', v: Number(this.text.slice(start, idx)) }; // correctly rounded, as float() is
    const negative = s[start] === 0x2d;
    const digits = idx - start - (negative ? 1 : 0);
    if (digits <= 15) {
      // Exact in a double: no string, no BigInt parse.
      let n = 0;
      for (let i = negative ? start + 1 : start; i < idx; i++) n = n * 10 + (s[i]! - 0x30);
      return { t: 'int', v: BigInt(negative ? -n : n) };
    }
    if (digits > INT_MAX_STR_DIGITS) {
      this.fail(
        `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion: ` +
          `value has ${digits} digits (CPython refuses such integers)`,
        start,
      );
    }
    return { t: 'int', v: BigInt(this.text.slice(start, idx)) };
  }

  /** The index after the run of ASCII digits starting at idx. */
  private digitsEnd(idx: number): number {
    const s = this.s;
    while (isDigit(s[idx])) {
      idx++;
      if ((idx & CHECK_MASK) === 0) this.deadline?.check();
    }
    return idx;
  }
}

/** The code points s[from..to) as a string, some of them above U+FFFF. */
function codePointsToString(s: Uint32Array, from: number, to: number): string {
  const parts: string[] = [];
  for (let i = from; i < to; i += 4096) parts.push(String.fromCodePoint(...s.subarray(i, Math.min(to, i + 4096))));
  return parts.join('');
}

const SIMPLE_ESCAPES = new Map<number, number>([
  [0x22, 0x22],
  [0x5c, 0x5c],
  [0x2f, 0x2f],
  [0x62, 0x08],
  [0x66, 0x0c],
  [0x6e, 0x0a],
  [0x72, 0x0d],
  [0x74, 0x09],
]);

// ---------------------------------------------------------------------------------------------
// The encoder: json.dumps(v, sort_keys=True, separators=(",", ":")), ensure_ascii and allow_nan
// left at their defaults.

/** `json.dumps(v, sort_keys=True, separators=(",", ":"))` */
export function dumpsCanonical(v: PyValue, options: PyJsonOptions | Deadline = {}): string {
  const out: string[] = [];
  encode(v, out, 0, deadlineOf(options));
  return out.join('');
}

function encode(v: PyValue, out: string[], depth: number, deadline: Deadline | undefined): void {
  if (depth > MAX_DEPTH + 8) throw new RangeError(`dumpsCanonical: value nested deeper than ${MAX_DEPTH + 8} levels`);
  deadline?.tick();
  switch (v.t) {
    case 'null':
      out.push('null');
      return;
    case 'bool':
      out.push(v.v ? 'true' : 'false');
      return;
    case 'int':
      out.push(intRepr(v.v));
      return;
    case 'float':
      out.push(floatStr(v.v));
      return;
    case 'str':
      out.push(asciiEscape(v.v, deadline));
      return;
    case 'list': {
      const items = v.v;
      out.push('[');
      for (let i = 0; i < items.length; i++) {
        if (i > 0) out.push(',');
        encode(items[i]!, out, depth + 1, deadline);
      }
      out.push(']');
      return;
    }
    case 'dict': {
      out.push('{');
      const keys = sortedKeys(v.v);
      for (let i = 0; i < keys.length; i++) {
        const key = keys[i]!;
        out.push(i > 0 ? ',' : '', asciiEscape(key, deadline), ':');
        encode(v.v.get(key)!, out, depth + 1, deadline);
      }
      out.push('}');
      return;
    }
  }
}

/** Below U+D800 UTF-16 order is code point order, and the default sort compares code units. */
const SURROGATE_OR_ABOVE = /[\ud800-\uffff]/;

/** The dict's keys in Python's `sorted` order (by code point). */
function sortedKeys(dict: Map<string, PyValue>): string[] {
  const keys = [...dict.keys()];
  if (keys.length < 2) return keys;
  return keys.some((k) => SURROGATE_OR_ABOVE.test(k)) ? keys.sort(compareCodePoints) : keys.sort();
}

function intRepr(x: bigint): string {
  const text = x.toString();
  const digits = text.length - (x < 0n ? 1 : 0);
  if (digits > INT_MAX_STR_DIGITS) {
    // int.__repr__ refuses too, so Python's dumps raises ValueError.
    throw new RangeError(
      `Exceeds the limit (${INT_MAX_STR_DIGITS} digits) for integer string conversion; ` +
        'Python cannot write this integer',
    );
  }
  return text;
}

/** json.encoder floatstr with allow_nan=True */
function floatStr(x: number): string {
  if (Number.isNaN(x)) return 'NaN';
  if (x === Infinity) return 'Infinity';
  if (x === -Infinity) return '-Infinity';
  return pyFloatRepr(x);
}

/** Anything but printable ASCII other than `"` and `\`. */
const NEEDS_ESCAPE = /[^\x20\x21\x23-\x5b\x5d-\x7e]/;
const NEEDS_ESCAPE_ALL = /[^\x20\x21\x23-\x5b\x5d-\x7e]/g;

const SHORT_ESCAPES: Record<string, string> = {
  '\\': '\\\\',
  '"': '\\"',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

/**
 * One UTF-16 code unit as _json.c writes it. Astral characters come out as their surrogate
 * pair, which is exactly the two code units JavaScript stores; lone surrogates as themselves.
 */
function escapeUnit(unit: string): string {
  return SHORT_ESCAPES[unit] ?? `\\u${unit.charCodeAt(0).toString(16).padStart(4, '0')}`;
}

/** ascii_escape_unicode of _json.c */
function asciiEscape(s: string, deadline: Deadline | undefined): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`;
  if (s.length <= CHECK_MASK) return `"${s.replace(NEEDS_ESCAPE_ALL, escapeUnit)}"`;
  // Code unit by code unit, so a long string may be cut anywhere; the clock is read between.
  const parts = ['"'];
  for (let i = 0; i < s.length; i += CHECK_MASK + 1) {
    deadline?.check();
    parts.push(s.slice(i, i + CHECK_MASK + 1).replace(NEEDS_ESCAPE_ALL, escapeUnit));
  }
  parts.push('"');
  return parts.join('');
}

/**
 * The shortest decimal digits that read back as x (finite, > 0), without leading or trailing
 * zeros, and the position of the decimal point: x = 0.<digits> × 10^decpt. Taken from
 * Number.prototype.toString, which the ECMAScript spec pins to the shortest round-trip digits
 * and, between two candidates, the one nearest x: what Python's repr (David Gay's dtoa, mode 0)
 * produces.
 */
function shortestDigits(x: number): { digits: string; decpt: number } {
  const [mantissa, exponentPart] = String(x).split('e') as [string, string | undefined];
  const [intPart, fracPart = ''] = mantissa.split('.') as [string, string | undefined];
  let digits = intPart + fracPart;
  let decpt = intPart.length + (exponentPart === undefined ? 0 : Number(exponentPart));
  const leadingZeros = /^0*/.exec(digits)![0].length;
  digits = digits.slice(leadingZeros).replace(/0+$/, '');
  decpt -= leadingZeros;
  return { digits, decpt };
}

/** `repr(float)` for a finite or non-finite double (`nan`, `inf`, `-inf` for the latter). */
export function pyFloatRepr(x: number): string {
  if (Number.isNaN(x)) return 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const magnitude = Math.abs(x);
  if (magnitude >= 1e-4 && magnitude < 1e16) {
    // Both write plain decimals here (JavaScript switches to exponents only below 1e-6 and from
    // 1e21), with the same shortest digits; Python adds ".0" to an integral value.
    const text = String(x);
    return text.includes('.') ? text : `${text}.0`;
  }
  const sign = x < 0 ? '-' : '';
  const { digits, decpt } = shortestDigits(Math.abs(x));
  const exponent = decpt - 1; // digits d1d2... mean 0.d1d2... × 10^decpt = d1.d2... × 10^exponent
  if (decpt <= -4 || decpt > 16) {
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    const expSign = exponent < 0 ? '-' : '+';
    return `${sign}${mantissa}e${expSign}${String(Math.abs(exponent)).padStart(2, '0')}`;
  }
  if (decpt <= 0) return `${sign}0.${'0'.repeat(-decpt)}${digits}`;
  if (decpt >= digits.length) return `${sign}${digits}${'0'.repeat(decpt - digits.length)}.0`;
  return `${sign}${digits.slice(0, decpt)}.${digits.slice(decpt)}`;
}

// ---------------------------------------------------------------------------------------------
// Conversions and comparison.

/**
 * A plain JavaScript value for schema validation: null, boolean, number (floats, and ints that
 * are safe integers), bigint (larger ints), string, array, object. Every object key, including
 * `__proto__` and `constructor`, is an own enumerable data property, so nothing is polluted and
 * a validator sees the key.
 */
export function toPlain(v: PyValue, options: PyJsonOptions | Deadline = {}): unknown {
  return plain(v, deadlineOf(options));
}

function plain(v: PyValue, deadline: Deadline | undefined): unknown {
  deadline?.tick();
  switch (v.t) {
    case 'null':
      return null;
    case 'bool':
    case 'float':
    case 'str':
      return v.v;
    case 'int': {
      const asNumber = Number(v.v);
      return Number.isSafeInteger(asNumber) ? asNumber : v.v;
    }
    case 'list': {
      const items = v.v;
      const out = new Array<unknown>(items.length);
      for (let i = 0; i < items.length; i++) out[i] = plain(items[i]!, deadline);
      return out;
    }
    case 'dict': {
      const obj: Record<string, unknown> = {};
      for (const [key, value] of v.v) {
        // An assignment makes an own, enumerable, writable member of every key but __proto__,
        // which would set the prototype instead.
        if (key === '__proto__') Object.defineProperty(obj, key, { value: plain(value, deadline), enumerable: true, writable: true, configurable: true });
        else obj[key] = plain(value, deadline);
      }
      return obj;
    }
  }
}

/**
 * Python's `a == b` on values `json.loads` returned: `1 == 1.0 == true`, `0 == -0.0 == false`,
 * big ints compared exactly with floats, dicts compared without regard to order. `json.loads`
 * returns one shared NaN object, and Python compares container items by identity first, so a NaN
 * inside a list or dict equals NaN; at the top level `NaN == NaN` is False, as in Python.
 */
export function pyEquals(a: PyValue, b: PyValue): boolean {
  return equals(a, b, false);
}

function equals(a: PyValue, b: PyValue, nested: boolean): boolean {
  if (nested && a.t === 'float' && b.t === 'float' && Number.isNaN(a.v) && Number.isNaN(b.v)) return true;
  const na = numeric(a);
  const nb = numeric(b);
  if (na !== null || nb !== null) {
    if (na === null || nb === null) return false;
    return numbersEqual(na, nb);
  }
  switch (a.t) {
    case 'null':
      return b.t === 'null';
    case 'str':
      return b.t === 'str' && a.v === b.v && sameSplitPairs(a.splitPairs, b.splitPairs);
    case 'list':
      return b.t === 'list' && a.v.length === b.v.length && a.v.every((x, i) => equals(x, b.v[i]!, true));
    case 'dict': {
      if (b.t !== 'dict' || a.v.size !== b.v.size) return false;
      for (const [key, value] of a.v) {
        const other = b.v.get(key);
        if (other === undefined || !equals(value, other, true)) return false;
      }
      return true;
    }
    default:
      return false;
  }
}

function sameSplitPairs(a: readonly number[] | undefined, b: readonly number[] | undefined): boolean {
  const x = a ?? [];
  const y = b ?? [];
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

/** bool is an int subclass in Python: True == 1. */
function numeric(v: PyValue): bigint | number | null {
  if (v.t === 'int') return v.v;
  if (v.t === 'bool') return v.v ? 1n : 0n;
  if (v.t === 'float') return v.v;
  return null;
}

function numbersEqual(a: bigint | number, b: bigint | number): boolean {
  if (typeof a === 'bigint' && typeof b === 'bigint') return a === b;
  if (typeof a === 'number' && typeof b === 'number') return a === b;
  const int = (typeof a === 'bigint' ? a : b) as bigint;
  const float = (typeof a === 'number' ? a : b) as number;
  if (!Number.isFinite(float) || !Number.isInteger(float)) return false;
  return BigInt(float) === int; // exact, as Python compares int with float
}
