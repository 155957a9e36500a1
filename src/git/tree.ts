// Tree objects parsed from their raw bytes.
//
// isomorphic-git's tree parser throws for the whole tree on entries git accepts on push (mode
// 100664, names with `\`, `.git` in any case, names of only dots and spaces) and decodes names
// as UTF-8, so two different non-UTF-8 names can collapse into one. A gate must see every
// entry exactly as git stores it, so trees are parsed here.

import type { EntryKind } from './types';

// Modes as git reads them (tree-walk.c get_mode and cache.h canon_mode). A mode is any run of
// octal digits; what a checkout makes of it depends only on its file-type bits.
const S_IFMT = 0o170000;
const S_IFREG = 0o100000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

/** git's get_mode: the octal digits of a mode, or null when there are none or one is not 0-7
 * (git refuses such a tree: "malformed mode in tree entry"). Wraps at 32 bits, as git's
 * unsigned int does. */
export function parseModeBytes(buf: Uint8Array, start: number, end: number): number | null {
  if (end <= start) return null;
  let mode = 0;
  for (let k = start; k < end; k++) {
    const d = buf[k]! - 0x30;
    if (d < 0 || d > 7) return null;
    mode = ((mode << 3) + d) >>> 0;
  }
  return mode;
}

/** True for a directory mode (S_ISDIR), the only bit git's tree order looks at. */
export function isDirMode(mode: number): boolean {
  return (mode & S_IFMT) === S_IFDIR;
}

/** The mode a checkout gives an entry (git's canon_mode): a regular file keeps only its
 * executable bit (100600 reads as 100644, 100775 as 100755, the legacy 100664 as 100644),
 * every symlink is 120000, every directory 40000, and anything else is a gitlink (160000). */
export function canonMode(mode: number): '100644' | '100755' | '120000' | '40000' | '160000' {
  switch (mode & S_IFMT) {
    case S_IFREG:
      return mode & 0o100 ? '100755' : '100644';
    case S_IFLNK:
      return '120000';
    case S_IFDIR:
      return '40000';
    default:
      return '160000';
  }
}

/** The kind of a tree entry from its mode as written (git's reading: see canonMode), or null
 * for a mode git cannot parse. */
export function kindOfMode(mode: string): EntryKind | null {
  const parsed = parseModeBytes(Buffer.from(mode, 'latin1'), 0, mode.length);
  return parsed === null ? null : kindOfCanonMode(canonMode(parsed));
}

/** The kind of an entry whose mode is already canonical (canonMode's result). */
export function kindOfCanonMode(mode: ReturnType<typeof canonMode>): EntryKind {
  // A switch, not a lookup table: keys like "100644" are array indices to V8 (a slow path).
  switch (mode) {
    case '100644':
      return 'file';
    case '100755':
      return 'exec';
    case '120000':
      return 'symlink';
    case '40000':
      return 'tree';
    default:
      return 'gitlink';
  }
}

// ignoreBOM: a name that starts with U+FEFF keeps it, so it never decodes like the name without.
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Decodes a path (or one name) from its raw bytes, for display and for glob matching.
 *
 * The rule:
 * - bytes that are valid UTF-8 are decoded as they are (no normalisation, no replacement);
 * - otherwise each byte that is not part of a well-formed UTF-8 sequence becomes the four
 *   characters `\xNN` (NN: two lowercase hex digits), the well-formed sequences around it are
 *   decoded as usual, and, so the escapes stay unambiguous, every literal backslash in such a
 *   name becomes `\\`.
 *
 * Two different names therefore never decode to the same string, except a valid UTF-8 name
 * that itself contains a backslash written like an escape (`a\xff` typed literally) and the
 * non-UTF-8 name it imitates. A name containing a backslash is always flagged unsafe (see
 * isUnsafeName), so such a pair can never pass the gate unnoticed. The raw bytes are kept on
 * every entry (`rawName`) and used to pair entries when trees are compared.
 */
export function decodePathBytes(bytes: Uint8Array): string {
  try {
    return utf8.decode(bytes);
  } catch {
    // fall through: invalid UTF-8
  }
  let out = '';
  let i = 0;
  while (i < bytes.length) {
    const len = utf8SequenceLength(bytes, i);
    if (len > 0) {
      const piece = utf8.decode(bytes.subarray(i, i + len));
      out += piece === '\\' ? '\\\\' : piece;
      i += len;
    } else {
      out += '\\x' + bytes[i]!.toString(16).padStart(2, '0');
      i += 1;
    }
  }
  return out;
}

/** Length of the well-formed UTF-8 sequence starting at `i`, or 0 when there is none. */
function utf8SequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c < 0x80) return 1;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if ((c >= 0xe1 && c <= 0xec) || c === 0xee || c === 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** Code points HFS+ ignores in names, so `.g\u200cit` is `.git` on a Mac (git's protectHFS). */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/**
 * True when one path segment could not be checked out safely: empty, `.`, `..`, `.git` in any
 * case (also with the trailing dots and spaces Windows strips, with the code points HFS+
 * ignores, as the NTFS stream `.git::$INDEX_ALLOCATION`, and as its 8.3 alias `git~1`), or
 * containing `/`, `\` or NUL. Judged on the raw bytes.
 */
export function isUnsafeName(raw: Uint8Array): boolean {
  if (raw.length === 0) return true;
  let ascii = true;
  for (let k = 0; k < raw.length; k++) {
    const b = raw[k]!;
    if (b === 0x2f || b === 0x5c || b === 0) return true;
    if (b >= 0x80) ascii = false;
  }
  // Every unsafe spelling starts with '.' or 'g' once the HFS+-ignored code points (all
  // non-ASCII) are gone: most names are settled without building a string.
  const first = raw[0]!;
  if (ascii && first !== 0x2e && first !== 0x67 && first !== 0x47) return false;
  const s = Buffer.from(raw).toString('utf8').replace(HFS_IGNORED, '');
  if (s === '.' || s === '..') return true;
  const lower = s.toLowerCase().replace(/[. ]+$/, '');
  return lower === '.git' || lower === 'git~1' || lower.startsWith('.git::');
}

/** True when any segment of a '/'-separated raw path (e.g. an index entry) is unsafe. */
export function isUnsafeRawPath(raw: Uint8Array): boolean {
  let start = 0;
  for (let i = 0; i <= raw.length; i++) {
    if (i === raw.length || raw[i] === 0x2f) {
      if (isUnsafeName(raw.subarray(start, i))) return true;
      start = i + 1;
    }
  }
  return false;
}
