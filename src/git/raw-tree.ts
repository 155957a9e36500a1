// Tree objects kept as their raw bytes, read as git reads them.
//
// A diff of two trees that share most entries (a wide directory where one file changed) only
// needs the entries that differ. A RawTree records where each entry starts, ends and where its
// name lies; two entries whose bytes (mode, name and oid) are identical are the same entry and
// are skipped without decoding the name or the oid. Only the entries that differ become
// TreeEntry objects.
//
// Reading rules (git 2.39, tree-walk.c and fsck.c):
// - A tree git cannot split into entries (no space after the mode, a mode that is not octal
//   digits, a name without its NUL, a truncated oid) is a GitReadError: git refuses it too.
// - Any octal mode is read; the entry gets the mode a checkout gives it (canonMode: 100600 is
//   100644, 040000 is 40000, 100664 is 100644). What git fsck says about the tree (a mode it
//   calls bad or zero-padded, entries out of order, a name listed twice, `.git`, ...) is kept
//   in `problems`, never thrown: the gate reports it as an unsafe path instead, except for
//   what git only warns about and reads as an ordinary entry (`unsafeProblems`: a zero-padded
//   mode such as git 1.x's `040000` is the directory it names).
// - One entry per name: when a crafted tree lists a name twice, the entry is the first one.
//   git itself does not agree with itself here: `git show REV:path`, `git cat-file -p
//   REV:path` and `git rev-parse REV:path` (get_tree_entry) read the first copy, while
//   `git read-tree` and `git checkout` write every copy into the index in turn and keep the
//   last, and `git diff-tree` pairs the copies with the other tree's entries in order. The
//   first copy is the one git names by path; every tree with a second copy is a
//   duplicateEntries problem, so a push that brings one is refused whichever copy a reader
//   takes. RawTree.find, RawTree.entries and the diff all take the first copy.
// - Unlike get_tree_entry, find() also finds a name that sits out of git's order (get_tree_entry
//   stops at the first name that sorts after the one it looks for; a checkout still writes it).

import { fsckTree, isPlainHead, type TreeProblem } from './fsck';
import { canonMode, decodePathBytes, isDirMode, isUnsafeName, kindOfCanonMode } from './tree';
import { GitReadError, type EntryKind, type FsckId, type TreeEntry } from './types';

export type { TreeProblem } from './fsck';

/** fsck messages about a tree that git only warns about and that change nothing a reader or a
 * checkout sees. */
const READ_AS_ORDINARY: ReadonlySet<FsckId> = new Set<FsckId>(['zeroPaddedFilemode']);

export class RawTree {
  private fsck: readonly TreeProblem[] | null = null;
  private unsafe: readonly TreeProblem[] | null = null;
  /** Indices of the entries that repeat an earlier entry's name (null: none; undefined: not
   * looked for yet). */
  private repeatSet: Set<number> | null | undefined = undefined;
  /** Set by parseLike when this tree is `base` with only entries' oids changed: the base's oid
   * (not the base: a chain of versions would keep each other alive), and the indices
   * (ascending) of the entries whose bytes differ from the base's. */
  private sameShapeAs: { base: string; differing: number[] } | null = null;

  private constructor(
    readonly oid: string,
    readonly buf: Buffer,
    /** Per entry: the offset of its mode, of the space before its name, of the NUL after it. */
    private readonly starts: Int32Array,
    private readonly spaces: Int32Array,
    private readonly nuls: Int32Array,
    /** Per entry: its mode as written, parsed (git's get_mode). */
    private readonly modes: Uint32Array,
    /** True when the entry names are strictly in git's tree order, so no name occurs twice
     * (not even as a file and a directory). Such trees are walked side by side by the diff. */
    readonly ordered: boolean,
    /** How many entries fsck has something to say about on their own (not fsck.ts isPlainEntry). */
    private readonly nonPlain: number,
    /** How many directories needed the order check's look-back for a file of the same name. */
    private readonly lookbacks: number,
  ) {}

  private get repeats(): Set<number> | null {
    if (this.repeatSet === undefined) this.repeatSet = this.ordered ? null : this.findRepeats();
    return this.repeatSet;
  }

  /** What git fsck reports for this tree: each message id (in fsck's order) with every entry
   * that raises it ([] for a tree fsck accepts silently). Computed when first asked: the diff
   * asks only of trees on the side under test, not of the base's. */
  get problems(): readonly TreeProblem[] {
    return (this.fsck ??= fsckTree(this.buf, this.starts, this.spaces, this.nuls, this.modes, this.ordered, this.starts.length - this.nonPlain));
  }

  /** The problems that make an entry unsafe for the gate: every fsck message but those git
   * only warns about and reads as an ordinary entry (zeroPaddedFilemode: git 1.x wrote
   * `040000`; git reads the entry as the directory it is, and so does the gate). */
  get unsafeProblems(): readonly TreeProblem[] {
    if (this.unsafe === null) {
      const all = this.problems;
      this.unsafe = all.some((p) => READ_AS_ORDINARY.has(p.id)) ? all.filter((p) => !READ_AS_ORDINARY.has(p.id)) : all;
    }
    return this.unsafe;
  }

  get length(): number {
    return this.starts.length;
  }

  /** Splits a tree's content into entries. Throws GitReadError naming the tree when git could
   * not read it either; never for a mode, an order or a name git reads. Whether the entries
   * are in git's order is decided in the same pass, against the entry before. */
  static parse(treeOid: string, content: Uint8Array): RawTree {
    const buf = asBuffer(content);
    return RawTree.of(treeOid, buf, splitEntries(treeOid, buf, null));
  }

  /**
   * The same RawTree as `parse(treeOid, content)`, split with the help of `base`, a tree the
   * content is likely to share most bytes with (the same folder in the parent commit). Where an
   * entry of this tree has the bytes of one of the base's, the bytes that follow it alike in
   * both trees hold the base's next entries, which are taken as they are (an entry is read from
   * its own bytes only); only the entries around what changed are split and checked. Used when
   * the base is ordered, every entry of it is plain to fsck, and no directory of it needed
   * fsck's look-back for a file of the same name: then each pair of neighbours taken from the
   * base was judged there exactly as it would be here. Otherwise (and for small trees) the
   * content is parsed whole.
   */
  static parseLike(treeOid: string, content: Uint8Array, base: RawTree): RawTree {
    if (base.length < DERIVE_MIN_ENTRIES || !base.ordered || base.nonPlain !== 0 || base.lookbacks !== 0) return RawTree.parse(treeOid, content);
    const buf = asBuffer(content);
    // The common case, a folder where only files' or subfolders' contents changed: the bytes
    // differ only inside entries' oids, so the entries lie where the base's lie, with the same
    // names and modes. The base's offsets are this tree's, and what was learnt of the base's
    // names and modes (in order, plain, no look-back) holds here; an oid only matters to fsck
    // when it is null (checked for each oid that differs).
    const differing = buf.length === base.buf.length ? base.differsInOidsOnly(buf) : null;
    if (differing !== null) {
      const tree = new RawTree(treeOid, buf, base.starts, base.spaces, base.nuls, base.modes, true, 0, 0);
      tree.sameShapeAs = { base: base.oid, differing };
      return tree;
    }
    return RawTree.of(treeOid, buf, splitEntries(treeOid, buf, base));
  }

  /** When `buf` (as long as this tree's bytes) differs from them only inside entries' oids,
   * and none of the oids that differ is the null oid: the indices of the entries that differ
   * (ascending); else null. Found by comparing runs of bytes natively: the cost grows with the
   * number of entries that differ, not with the tree. */
  private differsInOidsOnly(buf: Buffer): number[] | null {
    const len = buf.length;
    const differing: number[] = [];
    let at = 0;
    while (at < len) {
      at += commonRun(this.buf, at, buf, at);
      if (at >= len) return differing;
      // The entry holding the first byte that differs: the last one starting at or before it.
      let lo = 0;
      let hi = this.starts.length;
      while (hi - lo > 1) {
        const mid = (lo + hi) >>> 1;
        if (this.starts[mid]! <= at) lo = mid;
        else hi = mid;
      }
      const oid = this.nuls[lo]! + 1;
      if (at < oid || at >= oid + 20 || isNullOidAt(buf, oid)) return null;
      differing.push(lo);
      at = oid + 20;
    }
    return differing;
  }

  /** The entries whose bytes differ from `other`'s at the same index, ascending, when one of
   * the two trees was split from a tree with the other's oid (so its bytes) as one with the
   * same names and modes (parseLike: only oids changed); null when neither was. */
  differingFrom(other: RawTree): readonly number[] | null {
    if (other.buf.length !== this.buf.length) return null;
    const mine = this.sameShapeAs;
    if (mine !== null && mine.base === other.oid) return mine.differing;
    const theirs = other.sameShapeAs;
    return theirs !== null && theirs.base === this.oid ? theirs.differing : null;
  }

  /** The tree from a split: its entries' offsets and modes copied, exactly as many as it has,
   * into one array of its own (the split's arrays are reused by the next split). */
  private static of(treeOid: string, buf: Buffer, split: Split): RawTree {
    const n = split.n;
    // One buffer, four views made on it (a view of an array made first costs more).
    const bytes = new ArrayBuffer(16 * n);
    const starts = new Int32Array(bytes, 0, n);
    const spaces = new Int32Array(bytes, 4 * n, n);
    const nuls = new Int32Array(bytes, 8 * n, n);
    const modes = new Uint32Array(bytes, 12 * n, n);
    starts.set(split.starts.subarray(0, n));
    spaces.set(split.spaces.subarray(0, n));
    nuls.set(split.nuls.subarray(0, n));
    modes.set(split.modes.subarray(0, n));
    return new RawTree(treeOid, buf, starts, spaces, nuls, modes, split.ordered, split.nonPlain, split.lookbacks);
  }

  /** The index of this tree's entry that starts at byte `offset` and has the bytes `buf`
   * holds at `at`, or -1. */
  sameEntryAt(buf: Buffer, at: number, offset: number): number {
    let lo = 0;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const start = this.starts[mid]!;
      if (start === offset) {
        const end = this.nuls[mid]! + 21;
        return at + (end - start) <= buf.length && this.buf.compare(buf, at, at + (end - start), start, end) === 0 ? mid : -1;
      }
      if (start < offset) lo = mid + 1;
      else hi = mid;
    }
    return -1;
  }

  /** Copies into `split` (from its entry `n` on) this tree's entries from `first` on that lie
   * wholly in the bytes `buf` holds alike from `at` (this tree's from `at - shift`), moved by
   * `shift`; how many. */
  copyRun(first: number, buf: Buffer, at: number, shift: number, split: Split, n: number): number {
    if (first >= this.starts.length) return 0;
    const from = this.starts[first]!;
    const end = from + commonRun(this.buf, from, buf, at);
    // The entries [first, last) end by `end`.
    let lo = first;
    let hi = this.starts.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.nuls[mid]! + 21 <= end) lo = mid + 1;
      else hi = mid;
    }
    const count = lo - first;
    if (count === 0) return 0;
    const move = (to: Int32Array, src: Int32Array) => {
      to.set(src.subarray(first, lo), n);
      if (shift !== 0) for (let t = n; t < n + count; t++) to[t]! += shift;
    };
    move(split.starts, this.starts);
    move(split.spaces, this.spaces);
    move(split.nuls, this.nuls);
    split.modes.set(this.modes.subarray(first, lo), n);
    return count;
  }

  /** True when entry `i` is a directory (S_ISDIR of its mode: 40000, 040000, 40755, ...). */
  isTree(i: number): boolean {
    return isDirMode(this.modes[i]!);
  }

  /** The mode of entry `i` exactly as written in the tree (e.g. "100664", "040000"). */
  rawMode(i: number): string {
    return this.buf.toString('latin1', this.starts[i]!, this.spaces[i]!);
  }

  /** False for an entry that repeats the name of an earlier entry: not an entry of the tree as
   * it is read (see the reading rules above). */
  isFirstOfName(i: number): boolean {
    return this.repeats === null || !this.repeats.has(i);
  }

  /** The message ids git fsck prints for this tree, in its order. */
  fsckIds(): FsckId[] {
    return [...new Set(this.problems.map((p) => p.id))];
  }

  /** True when entry `i` of this tree and entry `j` of `other` have identical bytes. */
  sameEntry(i: number, other: RawTree, j: number): boolean {
    const a0 = this.starts[i]!;
    const a1 = this.nuls[i]! + 21;
    const b0 = other.starts[j]!;
    const b1 = other.nuls[j]! + 21;
    if (a1 - a0 !== b1 - b0) return false;
    // From the end: the oid differs first when anything does.
    const a = this.buf;
    const b = other.buf;
    for (let k = a1 - a0 - 1; k >= 0; k--) if (a[a0 + k] !== b[b0 + k]) return false;
    return true;
  }

  /**
   * How many entries, from entry `i` of this tree and entry `j` of `other` on, are identical
   * in both, up to `max`. Runs of entries are compared as byte ranges (one memcmp each, in
   * doubling then halving steps), so a wide directory where one name changed costs a few
   * dozen comparisons, not one per entry. Entries are self-delimiting, so two byte-identical
   * ranges that both start at an entry hold the same entries.
   */
  sameRun(i: number, other: RawTree, j: number, max: number): number {
    // Entries i+from .. i+to-1 of this tree against j+from .. j+to-1 of the other. Each step
    // compares only the entries not yet known to be the same, so the bytes compared are about
    // twice the run's length, whatever its length.
    const same = (from: number, to: number) => {
      const a0 = this.starts[i + from]!;
      const a1 = this.nuls[i + to - 1]! + 21;
      const b0 = other.starts[j + from]!;
      const b1 = other.nuls[j + to - 1]! + 21;
      return a1 - a0 === b1 - b0 && this.buf.compare(other.buf, b0, b1, a0, a1) === 0;
    };
    if (max <= 0 || !this.sameEntry(i, other, j)) return 0;
    // The rest of both trees first: after a tree's last change, one comparison ends the walk.
    if (max === 1 || same(1, max)) return max;
    let lo = 1; // the first `lo` entries are the same
    let hi = max; // ... and the first `hi` are not
    for (let n = 2; n < max; n *= 2) {
      if (!same(lo, n)) {
        hi = n;
        break;
      }
      lo = n;
    }
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (same(lo, mid)) lo = mid;
      else hi = mid;
    }
    return lo;
  }

  /** git's tree order (base_name_compare): names compared bytewise, a directory's name as if
   * followed by '/'. Negative when entry `i` of this tree sorts before entry `j` of `other`. */
  compareOrder(i: number, other: RawTree, j: number): number {
    const an = this.spaces[i]! + 1;
    const aLen = this.nuls[i]! - an;
    const bn = other.spaces[j]! + 1;
    const bLen = other.nuls[j]! - bn;
    const common = Math.min(aLen, bLen);
    const a = this.buf;
    const b = other.buf;
    for (let k = 0; k < common; k++) {
      const d = a[an + k]! - b[bn + k]!;
      if (d !== 0) return d;
    }
    const ac = aLen > common ? this.buf[an + common]! : this.isTree(i) ? 0x2f : 0;
    const bc = bLen > common ? other.buf[bn + common]! : other.isTree(j) ? 0x2f : 0;
    return ac - bc;
  }

  /** The raw name bytes of entry `i` as a latin1 string (a lossless key for pairing). */
  nameKey(i: number): string {
    return this.buf.toString('latin1', this.spaces[i]! + 1, this.nuls[i]!);
  }

  /** The raw name bytes of entry `i` (a view of the tree's bytes, not a copy). */
  rawName(i: number): Uint8Array {
    return new Uint8Array(this.buf.buffer, this.buf.byteOffset + this.spaces[i]! + 1, this.nuls[i]! - this.spaces[i]! - 1);
  }

  /** The decoded name of entry `i` (decodePathBytes; an ASCII name is its bytes). */
  name(i: number): string {
    const n0 = this.spaces[i]! + 1;
    const n1 = this.nuls[i]!;
    const buf = this.buf;
    for (let k = n0; k < n1; k++) if (buf[k]! >= 0x80) return decodePathBytes(this.rawName(i));
    return buf.toString('latin1', n0, n1);
  }

  /** Mode (as a checkout gives it), kind and oid of entry `i`, without decoding its name. */
  side(i: number): { mode: string; kind: EntryKind; oid: string } {
    const mode = canonMode(this.modes[i]!);
    const nul = this.nuls[i]!;
    return { mode, kind: kindOfCanonMode(mode), oid: this.buf.toString('hex', nul + 1, nul + 21) };
  }

  /** isUnsafeName of entry `i`'s name, without a copy or a view for the common names. */
  hasUnsafeName(i: number): boolean {
    const n0 = this.spaces[i]! + 1;
    const n1 = this.nuls[i]!;
    if (n1 === n0) return true;
    const buf = this.buf;
    const c0 = buf[n0]!;
    // The same shortcut as isUnsafeName: an ASCII name not starting with '.' or 'g' is safe
    // unless it holds '/' or '\' (NUL cannot occur: it ends the name).
    if (c0 === 0x2e || c0 === 0x67 || c0 === 0x47) return isUnsafeName(this.rawName(i));
    for (let k = n0; k < n1; k++) {
      const c = buf[k]!;
      if (c >= 0x80) return isUnsafeName(this.rawName(i));
      if (c === 0x2f || c === 0x5c) return true;
    }
    return false;
  }

  /** Entry `i` decoded, with the mode a checkout gives it. */
  entry(i: number): TreeEntry {
    const nul = this.nuls[i]!;
    const mode = canonMode(this.modes[i]!);
    const rawName = this.rawName(i);
    return {
      mode,
      kind: kindOfCanonMode(mode),
      oid: this.buf.toString('hex', nul + 1, nul + 21),
      name: this.name(i),
      rawName,
    };
  }

  /** The entry whose decoded name is exactly `name` (the first one, when a crafted tree lists
   * the name twice), or null. Decodes only candidates: a name that is well-formed UTF-8
   * without a backslash can only be the decoding of its own UTF-8 bytes (see
   * decodePathBytes), so the raw names are compared with those bytes. */
  find(name: string): TreeEntry | null {
    const buf = this.buf;
    if (isPlainAscii(name)) {
      // Its UTF-8 bytes are its char codes: compared without encoding the name.
      next: for (let i = 0; i < this.length; i++) {
        const n = this.spaces[i]! + 1;
        if (this.nuls[i]! - n !== name.length) continue;
        for (let k = 0; k < name.length; k++) if (buf[n + k] !== name.charCodeAt(k)) continue next;
        return this.entry(i);
      }
      return null;
    }
    const bytes = Buffer.from(name, 'utf8');
    if (name.includes('\\') || bytes.toString('utf8') !== name) {
      for (let i = 0; i < this.length; i++) {
        const e = this.entry(i);
        if (e.name === name) return e;
      }
      return null;
    }
    next: for (let i = 0; i < this.length; i++) {
      const n = this.spaces[i]! + 1;
      if (this.nuls[i]! - n !== bytes.length) continue;
      for (let k = 0; k < bytes.length; k++) if (buf[n + k] !== bytes[k]) continue next;
      return this.entry(i);
    }
    return null;
  }

  /** Every entry decoded, in the tree's order, one per name (the first copy of a name). */
  entries(): TreeEntry[] {
    const out: TreeEntry[] = [];
    for (let i = 0; i < this.length; i++) if (this.isFirstOfName(i)) out.push(this.entry(i));
    return out;
  }

  private findRepeats(): Set<number> | null {
    const seen = new Set<string>();
    const repeats = new Set<number>();
    for (let i = 0; i < this.length; i++) {
      const key = this.nameKey(i);
      if (seen.has(key)) repeats.add(i);
      else seen.add(key);
    }
    return repeats.size > 0 ? repeats : null;
  }
}

/** Trees with fewer entries are parsed whole (RawTree.parseLike): below this, finding where the
 * trees part costs about what splitting every entry does. */
const DERIVE_MIN_ENTRIES = 16;

function asBuffer(content: Uint8Array): Buffer {
  return Buffer.isBuffer(content) ? content : Buffer.from(content.buffer, content.byteOffset, content.byteLength);
}

/** The entries split so far, and what was learnt of them. */
interface Split {
  starts: Int32Array;
  spaces: Int32Array;
  nuls: Int32Array;
  modes: Uint32Array;
  n: number;
  ordered: boolean;
  nonPlain: number;
  lookbacks: number;
}

/**
 * Splits the entries of `buf`. With `like` (a base RawTree.parseLike accepts): an entry whose
 * bytes are those of one of the base's entries is split as usual, and then the base entries
 * that follow it in bytes both trees continue with alike are copied, not split.
 */
function splitEntries(treeOid: string, buf: Buffer, like: RawTree | null): Split {
  const len = buf.length;
  // The shortest entry is 23 bytes (a one-digit mode, a space, an empty name, NUL, oid).
  const most = Math.ceil(len / 23);
  const split = scratchSplit(most);
  const { starts, spaces, nuls, modes } = split;
  let n = 0;
  let i = 0;
  let ordered = true;
  let nonPlain = 0;
  let lookbacks = 0;
  // Where this tree's bytes are the base's: this offset minus the base's. The last one seen,
  // and the one that holds when the trees differ in one place only.
  let shift = 0;
  const overall = like === null ? 0 : len - like.buf.length;
  // The name of the entry before (its start, length and whether it is a directory).
  let p0 = 0;
  let pLen = -1;
  let pDir = false;
  while (i < len) {
    // The base entry this entry is, byte for byte (-1: none, or no base).
    let same = -1;
    if (like !== null) {
      same = like.sameEntryAt(buf, i, i - shift);
      if (same < 0 && overall !== shift) {
        same = like.sameEntryAt(buf, i, i - overall);
        if (same >= 0) shift = overall;
      }
    }
    // The mode's octal digits up to the space; anything else is read again by entryError,
    // which says what is wrong exactly as git would.
    let mode = 0;
    let space = i;
    if (buf[i] === 0x31 && buf[i + 1] === 0x30 && buf[i + 2] === 0x30 && buf[i + 3] === 0x36 && buf[i + 4] === 0x34 && buf[i + 5] === 0x34 && buf[i + 6] === 0x20) {
      // "100644 ", the mode of nearly every entry: what the loop below reads, without it.
      mode = 0o100644;
      space = i + 6;
    } else {
      for (; space < len; space++) {
        const d = buf[space]! - 0x30;
        if (d < 0 || d > 7) break;
        mode = ((mode << 3) + d) >>> 0;
      }
    }
    if (space === i || space >= len || buf[space] !== 0x20) throw entryError(treeOid, buf, i);
    // The name up to its NUL, noting a '/' or '\\' on the way (fsck's isPlainEntry).
    let nul = space + 1;
    let separator = false;
    for (; nul < len; nul++) {
      const c = buf[nul]!;
      if (c === 0) break;
      if (c === 0x2f || c === 0x5c) separator = true;
    }
    if (nul + 21 > len) throw entryError(treeOid, buf, i);
    if (separator || !isPlainHead(buf, i, space + 1, nul, mode & 0xffff)) nonPlain++;
    starts[n] = i;
    spaces[n] = space;
    nuls[n] = nul;
    modes[n] = mode;
    n++;
    i = nul + 21;
    const n0 = space + 1;
    const nLen = nul - n0;
    const dir = isDirMode(mode);
    if (ordered && pLen >= 0) {
      // git's tree order (compareOrder) against the entry before.
      const common = pLen < nLen ? pLen : nLen;
      let k = 0;
      while (k < common && buf[p0 + k] === buf[n0 + k]) k++;
      if (k < common) {
        if (buf[p0 + k]! > buf[n0 + k]!) ordered = false;
      } else {
        const pc = pLen > common ? buf[p0 + common]! : pDir ? 0x2f : 0;
        const nc = nLen > common ? buf[n0 + common]! : dir ? 0x2f : 0;
        if (pc >= nc) ordered = false;
        // A directory whose name begins the entry before's: a file of the same name may sort
        // before it, separated only by names that extend it with a byte below '/'.
        else if (dir && nLen === common) {
          lookbacks++;
          ordered = !fileNamed(buf, starts, spaces, nuls, n - 2, n0, nLen);
        }
      }
    }
    p0 = n0;
    pLen = nLen;
    pDir = dir;
    if (same >= 0) {
      // The base's entries after `same`, as far as both trees go on alike: copied.
      const taken = like!.copyRun(same + 1, buf, i, shift, split, n);
      if (taken > 0) {
        n += taken;
        i = nuls[n - 1]! + 21;
        p0 = spaces[n - 1]! + 1;
        pLen = nuls[n - 1]! - p0;
        pDir = isDirMode(modes[n - 1]!);
      }
    }
  }
  split.n = n;
  split.ordered = ordered;
  split.nonPlain = nonPlain;
  split.lookbacks = lookbacks;
  return split;
}

/** True when the 20 bytes at `at` are all zero (the null oid). */
function isNullOidAt(buf: Buffer, at: number): boolean {
  for (let k = 0; k < 20; k++) if (buf[at + k] !== 0) return false;
  return true;
}

/** How many bytes `a` from `at` and `b` from `bt` go on alike, compared natively: the whole
 * rest at once (two versions of a folder are mostly alike), else halves of the range the first
 * difference lies in, down to 64 bytes, then byte by byte. A tree of 7,500 bytes with one entry
 * changed takes nine comparisons, where growing windows took twenty. */
export function commonRun(a: Buffer, at: number, b: Buffer, bt: number): number {
  const max = Math.min(a.length - at, b.length - bt);
  if (max <= 0) return 0;
  if (a.compare(b, bt, bt + max, at, at + max) === 0) return max;
  // The first difference lies in [eq, end): [0, eq) is alike.
  let eq = 0;
  let end = max;
  while (end - eq > 64) {
    const mid = (eq + end) >>> 1;
    if (a.compare(b, bt + eq, bt + mid, at + eq, at + mid) === 0) eq = mid;
    else end = mid;
  }
  while (eq < end && a[at + eq] === b[bt + eq]) eq++;
  return eq;
}

/** The arrays every split fills (splitEntries runs to its end without yielding, and RawTree.of
 * copies what it needs), grown to the largest tree split so far. */
let scratch: Split | null = null;

/** The scratch split, emptied, with room for `most` entries. */
function scratchSplit(most: number): Split {
  if (scratch === null || scratch.starts.length < most) {
    const room = Math.max(most, 1024);
    scratch = { starts: new Int32Array(room), spaces: new Int32Array(room), nuls: new Int32Array(room), modes: new Uint32Array(room), n: 0, ordered: true, nonPlain: 0, lookbacks: 0 };
  }
  scratch.n = 0;
  scratch.ordered = true;
  scratch.nonPlain = 0;
  scratch.lookbacks = 0;
  return scratch;
}

/** Every entry of a tree's content, as RawTree.entries reads them. */
export function parseTree(treeOid: string, content: Uint8Array): TreeEntry[] {
  return RawTree.parse(treeOid, content).entries();
}

/** True for a name of ASCII characters other than the backslash. */
function isPlainAscii(name: string): boolean {
  for (let k = 0; k < name.length; k++) {
    const c = name.charCodeAt(k);
    if (c >= 0x80 || c === 0x5c) return false;
  }
  return true;
}

/** True when one of entries `last`, `last - 1`, ... (walking back while each name begins with
 * the `len` bytes at `name`) is named exactly those bytes. */
function fileNamed(buf: Buffer, starts: Int32Array, spaces: Int32Array, nuls: Int32Array, last: number, name: number, len: number): boolean {
  for (let k = last; k >= 0; k--) {
    const kn = spaces[k]! + 1;
    const kLen = nuls[k]! - kn;
    if (kLen < len || buf.compare(buf, name, name + len, kn, kn + len) !== 0) return false;
    if (kLen === len) return true;
  }
  return false;
}

/** Why git cannot split the entry at `at` into mode, name and oid (the first reason git finds). */
function entryError(treeOid: string, buf: Buffer, at: number): GitReadError {
  const space = buf.indexOf(0x20, at);
  if (space < 0) return malformed(treeOid, at, 'an entry has no mode');
  const nul = buf.indexOf(0, space + 1);
  if (nul < 0) return malformed(treeOid, at, 'an entry name is not terminated');
  if (nul + 21 > buf.length) return malformed(treeOid, at, 'an entry is truncated');
  return new GitReadError(
    `Tree ${treeOid} has an entry "${decodePathBytes(new Uint8Array(buf.subarray(space + 1, nul)))}" with mode ${JSON.stringify(buf.toString('latin1', at, space))}, which is not an octal mode; git cannot read the tree either (it is corrupt or crafted).`,
    treeOid,
  );
}

function malformed(treeOid: string, at: number, why: string): GitReadError {
  return new GitReadError(`Tree ${treeOid} is malformed at byte ${at}: ${why}.`, treeOid);
}
