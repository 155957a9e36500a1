// What `git fsck` finds in one tree object, decided as git's fsck.c `fsck_tree` decides it (git
// 2.39: fsck_tree, verify_ordered, and the .git/.gitmodules name checks of path.c and utf8.c).
//
// Every check runs on the raw bytes of the entry, with the mode as fsck sees it: the octal
// digits as written, kept to 16 bits (fsck_tree reads the mode into an `unsigned short`, so
// 1100644 is 100644 to fsck and to a checkout alike). `git fsck` reports each message id once
// per tree; here every entry that raises it is kept, for messages that name a path.

import type { FsckId } from './types';

/** One fsck message for a tree, with an entry (its index in the tree) that raises it. */
export interface TreeProblem {
  id: FsckId;
  entry: number;
}

/** The order in which `git fsck` prints a tree's messages (fsck_tree's report calls); the
 * symlink messages come first, while the entries are read. */
export const FSCK_REPORT_ORDER: readonly FsckId[] = [
  'gitmodulesSymlink',
  'gitattributesSymlink',
  'gitignoreSymlink',
  'mailmapSymlink',
  'nullSha1',
  'fullPathname',
  'emptyName',
  'hasDot',
  'hasDotdot',
  'hasDotgit',
  'zeroPaddedFilemode',
  'badFilemode',
  'duplicateEntries',
  'treeNotSorted',
];

const S_IFMT = 0o170000;
const S_IFLNK = 0o120000;
const S_IFDIR = 0o040000;

/** Modes fsck accepts without a message (non-strict fsck also accepts the legacy 100664, which
 * git's own first commits carry; `git fsck --strict` and receive.fsckObjects with strict do
 * not). */
function isStandardMode(mode16: number): boolean {
  return mode16 === 0o100755 || mode16 === 0o100644 || mode16 === 0o120000 || mode16 === 0o040000 || mode16 === 0o160000 || mode16 === 0o100664;
}

/**
 * The fsck messages of a tree whose entries are already split: entry `i` has its mode at
 * `starts[i]`..`spaces[i]`, its name at `spaces[i] + 1`..`nuls[i]`, its oid after `nuls[i]`;
 * `modes[i]` is the parsed mode (32 bits). `ordered`: the names are known to be strictly in
 * git's tree order with no file and directory sharing a name (RawTree.ordered), so fsck's
 * order check (treeNotSorted, duplicateEntries) has nothing to say and is skipped. Returns []
 * for a tree fsck accepts silently.
 */
export function fsckTree(buf: Uint8Array, starts: Int32Array, spaces: Int32Array, nuls: Int32Array, modes: Uint32Array, ordered = false, plainCount = 0): TreeProblem[] {
  // RawTree.parse counts the entries for which isPlainEntry holds while it splits them: in an
  // ordered tree of plain entries only, fsck has nothing to say.
  if (ordered && plainCount === starts.length) return [];
  const out: TreeProblem[] = [];
  const seen = new Set<string>(); // a name with two `\.git` parts is one problem
  const add = (id: FsckId, entry: number) => {
    const key = `${id} ${entry}`;
    if (seen.has(key)) return;
    seen.add(key);
    out.push({ id, entry });
  };
  const candidates: number[] = []; // verify_ordered's stack of file names a directory may repeat
  for (let i = 0; i < starts.length; i++) {
    const n0 = spaces[i]! + 1;
    const n1 = nuls[i]!;
    const mode16 = modes[i]! & 0xffff;
    if (ordered && isPlainEntry(buf, starts[i]!, n0, n1, mode16)) continue;
    if (isNullOid(buf, n1 + 1)) add('nullSha1', i);
    let slash = false;
    let backslash = false;
    for (let k = n0; k < n1; k++) {
      const c = buf[k]!;
      if (c === 0x2f) slash = true;
      else if (c === 0x5c) backslash = true;
    }
    if (slash) add('fullPathname', i);
    if (n1 === n0) add('emptyName', i);
    const c0 = buf[n0]!;
    // Every .git spelling starts with '.', 'g', 'G' or an HFS+-ignored code point (0xe2 or
    // 0xef as its first byte): the other names are settled by their first byte.
    const maybeGit = n1 > n0 && (c0 === 0x2e || c0 === 0x67 || c0 === 0x47 || c0 === 0xe2 || c0 === 0xef);
    if (maybeGit && n1 - n0 === 1 && c0 === 0x2e) add('hasDot', i);
    if (maybeGit && n1 - n0 === 2 && c0 === 0x2e && buf[n0 + 1] === 0x2e) add('hasDotdot', i);
    if (maybeGit && (isHfsDot(buf, n0, n1, GIT) || isNtfsDotgit(buf, n0, n1))) add('hasDotgit', i);
    if (buf[starts[i]!] === 0x30) add('zeroPaddedFilemode', i);
    const symlink = (mode16 & S_IFMT) === S_IFLNK;
    if (symlink) {
      if (isHfsDot(buf, n0, n1, GITMODULES) || isNtfsDot(buf, n0, n1, GITMODULES, 'gi7eba')) add('gitmodulesSymlink', i);
      if (isHfsDot(buf, n0, n1, GITATTRIBUTES) || isNtfsDot(buf, n0, n1, GITATTRIBUTES, 'gi7d29')) add('gitattributesSymlink', i);
      if (isHfsDot(buf, n0, n1, GITIGNORE) || isNtfsDot(buf, n0, n1, GITIGNORE, 'gi250a')) add('gitignoreSymlink', i);
      if (isHfsDot(buf, n0, n1, MAILMAP) || isNtfsDot(buf, n0, n1, MAILMAP, 'maba30')) add('mailmapSymlink', i);
    }
    // What follows each backslash is checked as a name of its own (Windows reads `\` as `/`).
    if (backslash) for (let b = indexOfByte(buf, 0x5c, n0, n1); b >= 0; b = indexOfByte(buf, 0x5c, b + 1, n1)) {
      if (isNtfsDotgit(buf, b + 1, n1)) add('hasDotgit', i);
      if (symlink && isNtfsDot(buf, b + 1, n1, GITMODULES, 'gi7eba')) add('gitmodulesSymlink', i);
    }
    if (!isStandardMode(mode16)) add('badFilemode', i);
    if (i > 0 && !ordered) {
      const order = verifyOrdered(buf, i - 1, i, spaces, nuls, modes, candidates);
      if (order === 'unordered') add('treeNotSorted', i);
      else if (order === 'duplicate') add('duplicateEntries', i);
    }
  }
  return out.sort((x, y) => FSCK_REPORT_ORDER.indexOf(x.id) - FSCK_REPORT_ORDER.indexOf(y.id) || x.entry - y.entry);
}

/**
 * True for an entry fsck has nothing to say about on its own, told by a quick look: a standard
 * mode other than a symlink's, not zero-padded, an oid that is not null, and a
 * name that is not empty, does not start with a byte any `.git`/`..` spelling starts with ('.',
 * 'g', 'G', 0xe2, 0xef) and holds neither '/' nor '\'. Every other entry gets the full checks.
 */
function isPlainEntry(buf: Uint8Array, start: number, n0: number, n1: number, mode16: number): boolean {
  if (!isPlainHead(buf, start, n0, n1, mode16)) return false;
  for (let k = n0; k < n1; k++) {
    const c = buf[k]!;
    if (c === 0x2f || c === 0x5c) return false;
  }
  return true;
}

/** isPlainEntry without the scan of the name for '/' and '\' (RawTree.parse scans the name
 * for its NUL anyway and looks for them in the same pass). */
export function isPlainHead(buf: Uint8Array, start: number, n0: number, n1: number, mode16: number): boolean {
  if (mode16 !== 0o100644 && mode16 !== 0o040000 && mode16 !== 0o100755 && mode16 !== 0o160000 && mode16 !== 0o100664) return false;
  if (buf[start] === 0x30 || n1 === n0 || (buf[n1 + 1] === 0 && isNullOid(buf, n1 + 1))) return false;
  const c0 = buf[n0]!;
  return !(c0 === 0x2e || c0 === 0x67 || c0 === 0x47 || c0 === 0xe2 || c0 === 0xef);
}

/** fsck.c verify_ordered for entries `p` (the previous one) and `c`. */
function verifyOrdered(
  buf: Uint8Array,
  p: number,
  c: number,
  spaces: Int32Array,
  nuls: Int32Array,
  modes: Uint32Array,
  candidates: number[],
): 'ordered' | 'unordered' | 'duplicate' {
  const a0 = spaces[p]! + 1;
  const aLen = nuls[p]! - a0;
  const b0 = spaces[c]! + 1;
  const bLen = nuls[c]! - b0;
  const len = Math.min(aLen, bLen);
  for (let k = 0; k < len; k++) {
    const d = buf[a0 + k]! - buf[b0 + k]!;
    if (d < 0) return 'ordered';
    if (d > 0) return 'unordered';
  }
  let c1 = aLen > len ? buf[a0 + len]! : 0;
  let c2 = bLen > len ? buf[b0 + len]! : 0;
  // git-write-tree once wrote a blob and a tree of the same name next to each other.
  if (c1 === 0 && c2 === 0) return 'duplicate';
  if (c1 === 0 && (modes[p]! & S_IFMT) === S_IFDIR) c1 = 0x2f;
  if (c2 === 0 && (modes[c]! & S_IFMT) === S_IFDIR) c2 = 0x2f;
  // A file `foo` and a directory `foo` need not be neighbours: `foo.bar` sorts between them
  // (the directory sorts as `foo/`). Files that may come back as a directory are stacked.
  if (c1 === 0 && lessThanSlash(c2)) {
    candidates.push(p);
  } else if (c2 === 0x2f && lessThanSlash(c1)) {
    for (;;) {
      const f = candidates.pop();
      if (f === undefined) break;
      const f0 = spaces[f]! + 1;
      const fLen = nuls[f]! - f0;
      if (fLen > bLen || !sameBytes(buf, f0, b0, fLen)) continue;
      if (fLen === bLen) return 'duplicate';
      if (lessThanSlash(buf[b0 + fLen]!)) {
        candidates.push(f);
        break;
      }
    }
  }
  return c1 < c2 ? 'ordered' : 'unordered';
}

const lessThanSlash = (c: number) => c > 0 && c < 0x2f;

function sameBytes(buf: Uint8Array, x: number, y: number, len: number): boolean {
  for (let k = 0; k < len; k++) if (buf[x + k] !== buf[y + k]) return false;
  return true;
}

function indexOfByte(buf: Uint8Array, byte: number, from: number, to: number): number {
  for (let k = from; k < to; k++) if (buf[k] === byte) return k;
  return -1;
}

function isNullOid(buf: Uint8Array, at: number): boolean {
  for (let k = 0; k < 20; k++) if (buf[at + k] !== 0) return false;
  return true;
}

const GIT = Buffer.from('git');
const GITMODULES = Buffer.from('gitmodules');
const GITATTRIBUTES = Buffer.from('gitattributes');
const GITIGNORE = Buffer.from('gitignore');
const MAILMAP = Buffer.from('mailmap');

/** Code points HFS+ ignores in a name (utf8.c next_hfs_char). */
function hfsIgnored(cp: number): boolean {
  return (cp >= 0x200c && cp <= 0x200f) || (cp >= 0x202a && cp <= 0x202e) || (cp >= 0x206a && cp <= 0x206f) || cp === 0xfeff;
}

/**
 * utf8.c is_hfs_dot_generic: `.` + needle, ASCII case-insensitively, with the code points HFS+
 * ignores skipped anywhere, and nothing after (or a `/`). As in git, a byte sequence that is
 * not UTF-8 reads as the end of the name.
 */
function isHfsDot(buf: Uint8Array, from: number, to: number, needle: Uint8Array): boolean {
  const at = { i: from };
  const next = (): number => {
    for (;;) {
      const cp = nextUtf8(buf, at, to);
      if (cp < 0) return 0;
      if (!hfsIgnored(cp)) return cp;
    }
  };
  if (next() !== 0x2e) return false;
  for (const n of needle) {
    const c = next();
    if (c > 127) return false;
    if (toLower(c) !== n) return false;
  }
  const c = next();
  return c === 0 || c === 0x2f;
}

/** The next code point at `at.i` (0 at the end of the name), or -1 where git's
 * pick_one_utf8_char finds no valid sequence. Advances `at.i`. */
function nextUtf8(buf: Uint8Array, at: { i: number }, to: number): number {
  const i = at.i;
  const byte = (k: number) => (i + k < to ? buf[i + k]! : 0);
  const s0 = byte(0);
  if (i >= to) return 0;
  if (s0 < 0x80) {
    at.i = i + 1;
    return s0;
  }
  const cont = (k: number) => (byte(k) & 0xc0) === 0x80;
  if ((s0 & 0xe0) === 0xc0) {
    if (!cont(1) || (s0 & 0xfe) === 0xc0) return -1;
    at.i = i + 2;
    return ((s0 & 0x1f) << 6) | (byte(1) & 0x3f);
  }
  if ((s0 & 0xf0) === 0xe0) {
    const s1 = byte(1);
    const s2 = byte(2);
    if (!cont(1) || !cont(2) || (s0 === 0xe0 && (s1 & 0xe0) === 0x80) || (s0 === 0xed && (s1 & 0xe0) === 0xa0) || (s0 === 0xef && s1 === 0xbf && (s2 & 0xfe) === 0xbe)) return -1;
    at.i = i + 3;
    return ((s0 & 0x0f) << 12) | ((s1 & 0x3f) << 6) | (s2 & 0x3f);
  }
  if ((s0 & 0xf8) === 0xf0) {
    const s1 = byte(1);
    if (!cont(1) || !cont(2) || !cont(3) || (s0 === 0xf0 && (s1 & 0xf0) === 0x80) || (s0 === 0xf4 && s1 > 0x8f) || s0 > 0xf4) return -1;
    at.i = i + 4;
    return ((s0 & 0x07) << 18) | ((s1 & 0x3f) << 12) | ((byte(2) & 0x3f) << 6) | (byte(3) & 0x3f);
  }
  return -1;
}

const toLower = (c: number) => (c >= 0x41 && c <= 0x5a ? c + 0x20 : c);

/** path.c is_ntfs_dotgit: `.git` or `git~1` (any case), then only dots and spaces up to the
 * end, a `/`, a `\` or a `:` (an NTFS stream). */
function isNtfsDotgit(buf: Uint8Array, from: number, to: number): boolean {
  const at = (k: number) => (from + k < to ? buf[from + k]! : 0);
  let k: number;
  const c0 = at(0);
  if (c0 === 0x2e) {
    if (toLower(at(1)) !== 0x67 || toLower(at(2)) !== 0x69 || toLower(at(3)) !== 0x74) return false;
    k = 4;
  } else if (toLower(c0) === 0x67) {
    if (toLower(at(1)) !== 0x69 || toLower(at(2)) !== 0x74 || at(3) !== 0x7e || at(4) !== 0x31) return false;
    k = 5;
  } else {
    return false;
  }
  for (;;) {
    const c = at(k++);
    if (c === 0 || c === 0x2f || c === 0x5c || c === 0x3a) return true;
    if (c !== 0x2e && c !== 0x20) return false;
  }
}

/** path.c is_ntfs_dot_generic: `.` + needle, its 8.3 short name (the needle's first six
 * characters, `~1` to `~4`) or the fall-back short name (`prefix` + `~` + digits), any ASCII
 * case, then only dots and spaces up to the end or a `:`. */
function isNtfsDot(buf: Uint8Array, from: number, to: number, needle: Uint8Array, prefix: string): boolean {
  const at = (k: number) => (from + k < to ? buf[from + k]! : 0);
  const onlySpacesAndPeriods = (k: number): boolean => {
    for (;;) {
      const c = at(k++);
      if (c === 0 || c === 0x3a) return true;
      if (c !== 0x20 && c !== 0x2e) return false;
    }
  };
  const caseEqual = (offset: number, len: number): boolean => {
    for (let k = 0; k < len; k++) if (toLower(at(offset + k)) !== needle[k]) return false;
    return true;
  };
  if (at(0) === 0x2e && caseEqual(1, needle.length)) return onlySpacesAndPeriods(needle.length + 1);
  if (caseEqual(0, 6) && at(6) === 0x7e && at(7) >= 0x31 && at(7) <= 0x34) return onlySpacesAndPeriods(8);
  let sawTilde = false;
  for (let k = 0; k < 8; k++) {
    const c = at(k);
    if (c === 0) return false;
    if (sawTilde) {
      if (c < 0x30 || c > 0x39) return false;
    } else if (c === 0x7e) {
      const d = at(++k);
      if (d < 0x31 || d > 0x39) return false;
      sawTilde = true;
    } else if (k >= 6) {
      return false;
    } else if (c & 0x80) {
      return false;
    } else if (toLower(c) !== prefix.charCodeAt(k)) {
      return false;
    }
  }
  return onlySpacesAndPeriods(8);
}
