// What git's commit and tag readers share (git 2.39): parse_oid_hex (hex.c), the header check
// of fsck.c (verify_headers), fsck_ident, and strtoumax as parse_timestamp uses it.
//
// Every reader here works on the object's bytes, as git does on its buffer: git keeps a NUL
// after each object it reads, so a byte past the end reads as 0 here too.

/** The message ids git fsck gives commits and tags (fsck.h, camel-cased as fsck prints them),
 * with the severity git 2.39 gives each by default. IGNORE ids (extraHeaderEntry) are never
 * reported, as in git. */
export const OBJECT_MSG_SEVERITY = {
  nulInHeader: 'error', // FATAL, reported as an error
  unterminatedHeader: 'error', // FATAL, reported as an error
  badDate: 'error',
  badDateOverflow: 'error',
  badEmail: 'error',
  badName: 'error',
  badObjectSha1: 'error',
  badParentSha1: 'error',
  badTimezone: 'error',
  badTreeSha1: 'error',
  badType: 'error',
  missingAuthor: 'error',
  missingCommitter: 'error',
  missingEmail: 'error',
  missingNameBeforeEmail: 'error',
  missingObject: 'error',
  missingSpaceBeforeDate: 'error',
  missingSpaceBeforeEmail: 'error',
  missingTag: 'error',
  missingTagEntry: 'error',
  missingTree: 'error',
  missingType: 'error',
  missingTypeEntry: 'error',
  multipleAuthors: 'error',
  zeroPaddedDate: 'error',
  nulInCommit: 'warning', // WARN
  badTagName: 'warning', // INFO, reported as a warning
  missingTaggerEntry: 'warning', // INFO, reported as a warning
} as const;

export type ObjectMsgId = keyof typeof OBJECT_MSG_SEVERITY;

/** One message git fsck prints for a commit or a tag: its id, its severity and git's text. */
export interface ObjectMessage {
  id: ObjectMsgId;
  severity: 'error' | 'warning';
  text: string;
}

export function message(id: ObjectMsgId, text: string): ObjectMessage {
  return { id, severity: OBJECT_MSG_SEVERITY[id], text };
}

/** hexval of hex.c: 0-15 for a hex digit of either case, -1 for any other byte. */
const HEXVAL = new Int8Array(256).fill(-1);
for (let c = 0; c < 10; c++) HEXVAL[0x30 + c] = c;
for (let c = 0; c < 6; c++) {
  HEXVAL[0x41 + c] = 10 + c;
  HEXVAL[0x61 + c] = 10 + c;
}

/** True when oidAt would find an oid at `at` (no string built: fsck only asks). */
export function isOidAt(buf: Uint8Array, at: number): boolean {
  if (at + 40 > buf.length) return false;
  for (let k = at; k < at + 40; k++) if (HEXVAL[buf[k]!]! < 0) return false;
  return true;
}

/** parse_oid_hex: the 40 hex digits (either case) at `at`, as a lower-case oid; null when
 * any of them is not a hex digit (or the buffer ends first). */
export function oidAt(buf: Uint8Array, at: number): string | null {
  if (at + 40 > buf.length) return null;
  let upper = false;
  for (let k = at; k < at + 40; k++) {
    const c = buf[k]!;
    if (HEXVAL[c]! < 0) return null;
    if (c < 0x61 && c > 0x39) upper = true;
  }
  const hex = asBuffer(buf).toString('latin1', at, at + 40);
  return upper ? hex.toLowerCase() : hex;
}

/** `buf` as a Buffer (the store's contents already are one). */
export const asBuffer = (buf: Uint8Array): Buffer => (Buffer.isBuffer(buf) ? buf : Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength));

/** The byte at `i`, 0 past the end (git's buffers end with a NUL). */
export const byteAt = (buf: Uint8Array, i: number): number => (i < buf.length ? buf[i]! : 0);

/** True when the bytes at `at` are `prefix` (skip_prefix / starts_with). */
export function startsWith(buf: Uint8Array, at: number, prefix: Uint8Array): boolean {
  if (at + prefix.length > buf.length) return false;
  for (let k = 0; k < prefix.length; k++) if (buf[at + k] !== prefix[k]) return false;
  return true;
}

/** Index of `byte` at or after `from` (strchr on git's NUL-terminated buffer stops at a NUL:
 * `stopAtNul`), or -1. */
export function indexOf(buf: Uint8Array, byte: number, from: number, stopAtNul = false): number {
  for (let k = from; k < buf.length; k++) {
    const c = buf[k]!;
    if (c === byte) return k;
    if (stopAtNul && c === 0) return -1;
  }
  return -1;
}

/** fsck.c verify_headers: no NUL before the blank line that ends the header, and a header
 * that ends with LF when there is no body. */
export function verifyHeaders(buf: Uint8Array): ObjectMessage | null {
  const b = asBuffer(buf);
  const size = b.length;
  // The loop of verify_headers, with native searches: the first blank line ends the header,
  // and a NUL before it is the error.
  const blank = b.indexOf(LFLF);
  const nul = b.indexOf(0);
  if (nul >= 0 && (blank < 0 || nul < blank)) return message('nulInHeader', `unterminated header: NUL at offset ${nul}`);
  if (blank >= 0) return null;
  if (size > 0 && b[size - 1] === 0x0a) return null;
  return message('unterminatedHeader', 'unterminated header');
}

const LFLF = Buffer.from('\n\n');

const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d);
const isDigit = (c: number) => c >= 0x30 && c <= 0x39;
const TWO_64 = 2n ** 64n;
const MAX_U64 = TWO_64 - 1n;
const TWO_63 = 2n ** 63n;

/**
 * strtoumax(p, &end, 10) over git's NUL-terminated buffer: leading white space, an optional
 * sign, decimal digits. `value` is the uintmax_t result as a number (exact below 2^53; a '-'
 * wraps it modulo 2^64, an overflow gives UINTMAX_MAX), `signed63` whether time_t reads it as
 * negative or it overflowed (date_overflows), `end` where the digits end (`at` when there were
 * none). Up to 15 digits without a '-' (every real date) take no BigInt.
 */
export function strtoumax(buf: Uint8Array, at: number): { value: number; overflows: boolean; end: number } {
  let i = at;
  while (isSpace(byteAt(buf, i))) i++;
  let negative = false;
  const sign = byteAt(buf, i);
  if (sign === 0x2b || sign === 0x2d) {
    negative = sign === 0x2d;
    i++;
  }
  const first = i;
  let small = 0;
  while (i - first < 15 && isDigit(byteAt(buf, i))) small = small * 10 + (buf[i++]! - 0x30);
  if (i === first) return { value: 0, overflows: false, end: at };
  if (!isDigit(byteAt(buf, i)) && (!negative || small === 0)) return { value: small, overflows: false, end: i };
  let value = BigInt(small);
  let overflow = false;
  for (; isDigit(byteAt(buf, i)); i++) {
    value = value * 10n + BigInt(buf[i]! - 0x30);
    if (value > MAX_U64) overflow = true;
  }
  if (overflow) value = MAX_U64;
  else if (negative && value !== 0n) value = TWO_64 - value;
  return { value: Number(value), overflows: value >= TWO_63, end: i };
}

/** strcspn(p, "<>\n") from `at` over git's NUL-terminated buffer: the index of the first '<',
 * '>', LF or end. */
function cspanAngleLf(buf: Uint8Array, at: number): number {
  const len = buf.length;
  let i = at;
  for (; i < len; i++) {
    const c = buf[i]!;
    if (c === 0x3c || c === 0x3e || c === 0x0a || c === 0) return i;
  }
  return i;
}

const identFailure = (id: ObjectMsgId, what: string, next: number) => ({ problem: message(id, `invalid author/committer line - ${what}`), next });

/**
 * fsck.c fsck_ident for the ident at `at` (just after "author ", "committer " or "tagger "):
 * the message it reports (all of them are errors) or null, and where the next line starts.
 * Called only on a header verify_headers accepted, so the line holds no NUL and ends with LF.
 */
export function fsckIdent(buf: Uint8Array, at: number): { problem: ObjectMessage | null; next: number } {
  const lf = asBuffer(buf).indexOf(0x0a, at);
  const next = lf < 0 ? buf.length : lf + 1;
  let p = at;
  if (byteAt(buf, p) === 0x3c) return identFailure('missingNameBeforeEmail', 'missing space before email', next);
  p = cspanAngleLf(buf, p);
  if (byteAt(buf, p) === 0x3e) return identFailure('badName', 'bad name', next);
  if (byteAt(buf, p) !== 0x3c) return identFailure('missingEmail', 'missing email', next);
  if (byteAt(buf, p - 1) !== 0x20) return identFailure('missingSpaceBeforeEmail', 'missing space before email', next);
  p = cspanAngleLf(buf, p + 1);
  if (byteAt(buf, p) !== 0x3e) return identFailure('badEmail', 'bad email', next);
  p++;
  if (byteAt(buf, p) !== 0x20) return identFailure('missingSpaceBeforeDate', 'missing space before date', next);
  p++;
  if (byteAt(buf, p) === 0x30 && byteAt(buf, p + 1) !== 0x20) return identFailure('zeroPaddedDate', 'zero-padded date', next);
  const { overflows, end } = strtoumax(buf, p);
  // date_overflows: UINTMAX_MAX, or a value time_t (signed) reads as negative.
  if (overflows) return identFailure('badDateOverflow', 'date causes integer overflow', next);
  if (end === p || byteAt(buf, end) !== 0x20) return identFailure('badDate', 'bad date', next);
  p = end + 1;
  const s = byteAt(buf, p);
  if ((s !== 0x2b && s !== 0x2d) || !isDigit(byteAt(buf, p + 1)) || !isDigit(byteAt(buf, p + 2)) || !isDigit(byteAt(buf, p + 3)) || !isDigit(byteAt(buf, p + 4)) || byteAt(buf, p + 5) !== 0x0a) {
    return identFailure('badTimezone', 'bad time zone', next);
  }
  return { problem: null, next };
}

export const ascii = (s: string): Uint8Array => Buffer.from(s, 'latin1');
