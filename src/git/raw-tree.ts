// Tree objects kept as their raw bytes, for comparing large trees quickly.
//
// A diff of two trees that share most entries (a wide directory where one file changed) only
// needs the entries that differ. A RawTree records where each entry starts, ends and where its
// name lies; two entries whose bytes (mode, name and oid) are identical are the same entry and
// are skipped without decoding the name or the oid. Only the entries that differ become
// TreeEntry objects (see parseTree for the rules, which the checks here repeat exactly).

import { decodePathBytes, kindOfMode } from './tree';
import { GitReadError, type TreeEntry } from './types';

export class RawTree {
  /** True when the entry names are strictly in git's tree order, so no name occurs twice. A
   * crafted tree that is not is still read, through the general (name-paired) comparison. */
  readonly ordered: boolean;

  private constructor(
    readonly oid: string,
    readonly buf: Buffer,
    /** Per entry: the offset of its mode, of the space before its name, of the NUL after it. */
    private readonly starts: Int32Array,
    private readonly spaces: Int32Array,
    private readonly nuls: Int32Array,
    ordered: boolean,
  ) {
    this.ordered = ordered;
  }

  get length(): number {
    return this.starts.length;
  }

  /** Parses the entry boundaries of a tree's content, with parseTree's checks and messages. */
  static parse(treeOid: string, content: Uint8Array): RawTree {
    const buf = Buffer.from(content.buffer, content.byteOffset, content.byteLength);
    const starts: number[] = [];
    const spaces: number[] = [];
    const nuls: number[] = [];
    let i = 0;
    while (i < buf.length) {
      const space = buf.indexOf(0x20, i);
      if (space < 0) throw malformed(treeOid, i, 'an entry has no mode');
      const nul = buf.indexOf(0, space + 1);
      if (nul < 0) throw malformed(treeOid, i, 'an entry name is not terminated');
      if (nul + 21 > buf.length) throw malformed(treeOid, i, 'an entry is truncated');
      if (!knownMode(buf, i, space)) {
        const mode = buf.toString('latin1', i, space);
        throw new GitReadError(
          `Tree ${treeOid} has an entry "${decodePathBytes(new Uint8Array(buf.subarray(space + 1, nul)))}" with mode ${JSON.stringify(mode)}, which git does not write; the tree is corrupt or crafted.`,
          treeOid,
        );
      }
      starts.push(i);
      spaces.push(space);
      nuls.push(nul);
      i = nul + 21;
    }
    const tree = new RawTree(treeOid, buf, Int32Array.from(starts), Int32Array.from(spaces), Int32Array.from(nuls), true);
    (tree as { ordered: boolean }).ordered = tree.checkOrdered();
    return tree;
  }

  /** True when entry `i` is a directory (mode 40000 or 040000). */
  isTree(i: number): boolean {
    const s = this.starts[i]!;
    const len = this.spaces[i]! - s;
    return (len === 5 && this.buf[s] === 0x34) || (len === 6 && this.buf[s] === 0x30 && this.buf[s + 1] === 0x34);
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

  /** Entry `i` decoded, exactly as parseTree returns it. */
  entry(i: number): TreeEntry {
    const s = this.starts[i]!;
    const space = this.spaces[i]!;
    const nul = this.nuls[i]!;
    const mode = this.buf.toString('latin1', s, space);
    const rawName = new Uint8Array(this.buf.subarray(space + 1, nul));
    return {
      mode: mode === '040000' ? '40000' : mode,
      kind: kindOfMode(mode)!,
      oid: this.buf.toString('hex', nul + 1, nul + 21),
      name: decodePathBytes(rawName),
      rawName,
    };
  }

  /** The first entry whose decoded name is exactly `name`, or null. Decodes only candidates:
   * a name that is well-formed UTF-8 without a backslash can only be the decoding of its own
   * UTF-8 bytes (see decodePathBytes), so the raw names are compared with those bytes (a
   * raw name starting with a byte order mark excepted, which the decoder drops). */
  find(name: string): TreeEntry | null {
    const bytes = Buffer.from(name, 'utf8');
    if (name.includes('\\') || bytes.toString('utf8') !== name) {
      for (let i = 0; i < this.length; i++) {
        const e = this.entry(i);
        if (e.name === name) return e;
      }
      return null;
    }
    const buf = this.buf;
    next: for (let i = 0; i < this.length; i++) {
      const n = this.spaces[i]! + 1;
      // TextDecoder drops a leading byte order mark, so such a name is compared decoded.
      if (buf[n] === 0xef && buf[n + 1] === 0xbb && buf[n + 2] === 0xbf && this.nuls[i]! - n >= 3) {
        const e = this.entry(i);
        if (e.name === name) return e;
        continue;
      }
      if (this.nuls[i]! - n !== bytes.length) continue;
      for (let k = 0; k < bytes.length; k++) if (buf[n + k] !== bytes[k]) continue next;
      return this.entry(i);
    }
    return null;
  }

  /** Every entry decoded (parseTree's result). */
  entries(): TreeEntry[] {
    const out: TreeEntry[] = [];
    for (let i = 0; i < this.length; i++) out.push(this.entry(i));
    return out;
  }

  private samePrefix(x: number, y: number, len: number): boolean {
    for (let k = 0; k < len; k++) if (this.buf[x + k] !== this.buf[y + k]) return false;
    return true;
  }

  /** Strictly increasing in tree order, and no file and directory sharing a name (which the
   * order allows: "a" sorts as "a\0", the directory "a" as "a/"). */
  private checkOrdered(): boolean {
    for (let i = 1; i < this.length; i++) {
      if (this.compareOrder(i - 1, this, i) >= 0) return false;
    }
    for (let i = 0; i < this.length; i++) {
      if (!this.isTree(i)) continue;
      // A file with the same name sorts before it, separated only by names that extend it
      // with a byte below '/'.
      const n = this.spaces[i]! + 1;
      const len = this.nuls[i]! - n;
      for (let k = i - 1; k >= 0; k--) {
        const kn = this.spaces[k]! + 1;
        const kLen = this.nuls[k]! - kn;
        if (kLen < len || !this.samePrefix(n, kn, len)) break;
        if (kLen === len) return false;
      }
    }
    return true;
  }
}

const MODES = ['100644', '100664', '100755', '120000', '160000', '40000', '040000'].map((m) => Buffer.from(m, 'latin1'));

/** True when the mode bytes are one kindOfMode knows (compared without making a string). */
function knownMode(buf: Buffer, start: number, end: number): boolean {
  const len = end - start;
  next: for (const mode of MODES) {
    if (mode.length !== len) continue;
    for (let k = 0; k < len; k++) if (buf[start + k] !== mode[k]) continue next;
    return true;
  }
  return false;
}

function malformed(treeOid: string, at: number, why: string): GitReadError {
  return new GitReadError(`Tree ${treeOid} is malformed at byte ${at}: ${why}.`, treeOid);
}
