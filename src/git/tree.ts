// Tree objects parsed from their raw bytes.
//
// isomorphic-git's tree parser throws for the whole tree on entries git accepts on push (mode
// 100664, names with `\`, `.git` in any case, names of only dots and spaces) and decodes names
// as UTF-8, so two different non-UTF-8 names can collapse into one. A gate must see every
// entry exactly as git stores it, so trees are parsed here.

import { GitReadError, type EntryKind, type TreeEntry } from './types';

const KIND_BY_MODE: Record<string, EntryKind> = {
  '100644': 'file',
  '100664': 'file', // legacy group-writable mode; git still reads it as a regular file
  '100755': 'exec',
  '120000': 'symlink',
  '160000': 'gitlink',
  '40000': 'tree',
  '040000': 'tree',
};

/** The kind of a tree entry from its mode, or null for a mode git does not write. */
export function kindOfMode(mode: string): EntryKind | null {
  return KIND_BY_MODE[mode] ?? null;
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

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
  for (const b of raw) if (b === 0x2f || b === 0x5c || b === 0) return true;
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

/** Parses the content of a tree object. Throws GitReadError naming the tree on any malformed
 * entry or unknown mode; never on odd names (those are reported, not refused, here). */
export function parseTree(treeOid: string, content: Uint8Array): TreeEntry[] {
  const entries: TreeEntry[] = [];
  const buf = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
  let i = 0;
  while (i < buf.length) {
    const space = buf.indexOf(0x20, i);
    if (space < 0) throw malformed(treeOid, i, 'an entry has no mode');
    const mode = buf.toString('latin1', i, space);
    const nul = buf.indexOf(0, space + 1);
    if (nul < 0) throw malformed(treeOid, i, 'an entry name is not terminated');
    if (nul + 21 > buf.length) throw malformed(treeOid, i, 'an entry is truncated');
    const rawName = new Uint8Array(buf.subarray(space + 1, nul));
    const kind = kindOfMode(mode);
    if (!kind) {
      throw new GitReadError(
        `Tree ${treeOid} has an entry "${decodePathBytes(rawName)}" with mode ${JSON.stringify(mode)}, which git does not write; the tree is corrupt or crafted.`,
        treeOid,
      );
    }
    entries.push({
      mode: mode === '040000' ? '40000' : mode,
      kind,
      oid: buf.toString('hex', nul + 1, nul + 21),
      name: decodePathBytes(rawName),
      rawName,
    });
    i = nul + 21;
  }
  return entries;
}

function malformed(treeOid: string, at: number, why: string): GitReadError {
  return new GitReadError(`Tree ${treeOid} is malformed at byte ${at}: ${why}.`, treeOid);
}
