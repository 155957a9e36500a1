// `packed-refs` as bytes: read once, every line checked once, indexed by line without building
// a string per ref. A server with 1,000,000 refs (a forge's refs/pull/*) pays one pass over the
// file per push; single names (HEAD's branch, the base branch, one ref's old value) are then
// found by binary search, as git's packed backend finds them, when the file is sorted.
//
// Sorted: git writes packed-refs sorted by the names' bytes and says so in its first line
// (`# pack-refs with: peeled fully-peeled sorted `). A file is taken as sorted only when it says
// so AND its names are strictly ascending (checked in the same pass); otherwise (an older or
// hand-written file, a duplicate name) every lookup scans the lines and the last line naming a
// ref wins, as before.

import { GitReadError } from './types';
import { isOid } from '../types';

/** 1 for the bytes of a lowercase hex digit. */
const HEX = (() => {
  const t = new Uint8Array(256);
  for (const c of '0123456789abcdef') t[c.charCodeAt(0)] = 1;
  return t;
})();

/** Bytes JS's \s matches in a byte string (one character per byte): the first byte of a name
 * may not be one of them (the line pattern is /^([0-9a-f]{40}) (\S.*)$/). */
const SPACE = (() => {
  const t = new Uint8Array(256);
  for (const c of [0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x20, 0xa0]) t[c] = 1;
  return t;
})();

export class PackedRefsFile {
  /** Where each ref line starts (its oid), in file order; the name starts 41 bytes later. */
  private readonly starts: Float64Array | Uint32Array;
  /** Where each ref line's name ends (its newline, or the end of the file). */
  private readonly ends: Float64Array | Uint32Array;
  /** How many ref lines (peel and comment lines not counted). */
  readonly count: number;
  /** True when the file says `sorted` and its names are strictly ascending by bytes. */
  readonly sorted: boolean;
  /** Annotated tag oid -> the oid it peels to, from the `^` lines. */
  readonly peeled = new Map<string, string>();

  /**
   * Checks every line; throws GitReadError naming `file` on a malformed one (whatever is then
   * looked up). `buf` is the file's bytes (empty for no file).
   */
  constructor(
    private readonly buf: Buffer,
    file: string,
  ) {
    const big = buf.length > 0xfffffff0;
    let cap = 1024;
    let starts: Float64Array | Uint32Array = big ? new Float64Array(cap) : new Uint32Array(cap);
    let ends: Float64Array | Uint32Array = big ? new Float64Array(cap) : new Uint32Array(cap);
    let count = 0;
    let claimsSorted = false;
    let ascending = true;
    const hasCR = buf.indexOf(0x0d) >= 0;
    let lastStart = -1;
    for (let start = 0; start < buf.length; ) {
      let end = buf.indexOf(0x0a, start);
      if (end < 0) end = buf.length;
      const s = start;
      start = end + 1;
      if (end === s) continue;
      const first = buf[s]!;
      if (first === 0x23 /* # */) {
        if (s === 0 && buf.toString('latin1', 0, Math.min(end, 17)) === '# pack-refs with:') {
          claimsSorted = buf.toString('latin1', 17, end).split(' ').includes('sorted');
        }
        continue;
      }
      if (first === 0x5e /* ^ */) {
        const oid = buf.toString('latin1', s + 1, end).trim();
        if (isOid(oid) && lastStart >= 0) this.peeled.set(buf.toString('latin1', lastStart, lastStart + 40), oid);
        continue;
      }
      if (!wellFormed(buf, s, end, hasCR)) {
        throw new GitReadError(`${file} has a malformed line ${JSON.stringify(buf.toString('latin1', s, end))}; run \`git pack-refs\` to rewrite it.`);
      }
      if (ascending && count > 0 && compareBytes(buf, starts[count - 1]! + 41, ends[count - 1]!, buf, s + 41, end) >= 0) ascending = false;
      if (count === cap) {
        cap *= 2;
        const ns = big ? new Float64Array(cap) : new Uint32Array(cap);
        const ne = big ? new Float64Array(cap) : new Uint32Array(cap);
        ns.set(starts);
        ne.set(ends);
        starts = ns;
        ends = ne;
      }
      starts[count] = s;
      ends[count] = end;
      count++;
      lastStart = s;
    }
    this.starts = starts;
    this.ends = ends;
    this.count = count;
    this.sorted = claimsSorted && ascending;
  }

  /** The name of ref line `i`, as a byte string. */
  nameAt(i: number): string {
    return this.buf.toString('latin1', this.starts[i]! + 41, this.ends[i]!);
  }

  /** The oid of ref line `i`. */
  oidAt(i: number): string {
    const s = this.starts[i]!;
    return this.buf.toString('latin1', s, s + 40);
  }

  /** True when the name of ref line `i` starts with `prefix` (bytes). */
  nameStartsWith(i: number, prefix: Buffer): boolean {
    const s = this.starts[i]! + 41;
    if (this.ends[i]! - s < prefix.length) return false;
    for (let k = 0; k < prefix.length; k++) if (this.buf[s + k] !== prefix[k]) return false;
    return true;
  }

  /** The ref line naming `name` (a byte string): the only one in a sorted file (binary
   * search), the last one otherwise; -1 when none does. */
  find(name: string): number {
    const needle = Buffer.from(name, 'latin1');
    if (this.sorted) {
      let lo = 0;
      let hi = this.count;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        const c = compareBytes(this.buf, this.starts[mid]! + 41, this.ends[mid]!, needle, 0, needle.length);
        if (c === 0) return mid;
        if (c < 0) lo = mid + 1;
        else hi = mid;
      }
      return -1;
    }
    for (let i = this.count - 1; i >= 0; i--) {
      const s = this.starts[i]! + 41;
      if (this.ends[i]! - s === needle.length && compareBytes(this.buf, s, this.ends[i]!, needle, 0, needle.length) === 0) return i;
    }
    return -1;
  }

  /** The ref lines whose names start with `prefix` (a byte string): one range [from, to) of a
   * sorted file; in an unsorted file, [0, count) (the caller checks each name). */
  range(prefix: string): [number, number] {
    if (!this.sorted) return [0, this.count];
    const p = Buffer.from(prefix, 'latin1');
    let lo = 0;
    let hi = this.count;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compareBytes(this.buf, this.starts[mid]! + 41, this.ends[mid]!, p, 0, p.length) < 0) lo = mid + 1;
      else hi = mid;
    }
    // The names starting with the prefix are one block from `lo`: its end by binary search too.
    let to = this.count;
    let at = lo;
    while (at < to) {
      const mid = (at + to) >>> 1;
      if (this.nameStartsWith(mid, p)) at = mid + 1;
      else to = mid;
    }
    return [lo, at];
  }

  /**
   * The distinct oids of the ref lines in `segments` (ranges [from, to) of line numbers) less
   * the lines in `skip`, each oid made a string once: lines are grouped by their oid's bytes in
   * a hash table of line numbers, so a million refs on a few thousand commits build a few
   * thousand strings.
   */
  distinctOids(segments: readonly (readonly [number, number])[], skip: ReadonlySet<number>): string[] {
    const out: string[] = [];
    let n = 0;
    for (const [from, to] of segments) n += Math.max(0, to - from);
    let size = 1024;
    while (size < n * 2) size *= 2;
    const mask = size - 1;
    const slots = new Int32Array(size); // line + 1, 0 for empty
    const buf = this.buf;
    const starts = this.starts;
    for (const [from, to] of segments) {
      for (let i = from; i < to; i++) {
        if (skip.size !== 0 && skip.has(i)) continue;
        const s = starts[i]!;
        // The oid's first 7 hex digits are uniform: they are the hash.
        let h = 0;
        for (let k = 0; k < 7; k++) {
          const c = buf[s + k]!;
          h = (h << 4) | (c <= 0x39 ? c - 0x30 : c - 0x57);
        }
        for (let at = h & mask; ; at = (at + 1) & mask) {
          const slot = slots[at]!;
          if (slot === 0) {
            slots[at] = i + 1;
            out.push(buf.toString('latin1', s, s + 40));
            break;
          }
          const o = starts[slot - 1]!;
          let k = 0;
          while (k < 40 && buf[s + k] === buf[o + k]) k++;
          if (k === 40) break;
        }
      }
    }
    return out;
  }
}

/** `<40 lowercase hex> <name>` where the name's first byte is not whitespace and no byte is a
 * carriage return: what /^([0-9a-f]{40}) (\S.*)$/ accepts on a byte string. */
function wellFormed(buf: Buffer, s: number, end: number, hasCR: boolean): boolean {
  if (end - s < 42 || buf[s + 40] !== 0x20 || SPACE[buf[s + 41]!] === 1) return false;
  for (let k = s; k < s + 40; k++) if (HEX[buf[k]!] !== 1) return false;
  if (hasCR) for (let k = s + 41; k < end; k++) if (buf[k] === 0x0d) return false;
  return true;
}

/** Byte order of a[aFrom, aTo) and b[bFrom, bTo), as memcmp and then length order it. */
function compareBytes(a: Buffer, aFrom: number, aTo: number, b: Buffer, bFrom: number, bTo: number): number {
  const la = aTo - aFrom;
  const lb = bTo - bFrom;
  const n = la < lb ? la : lb;
  for (let k = 0; k < n; k++) {
    const d = a[aFrom + k]! - b[bFrom + k]!;
    if (d !== 0) return d;
  }
  return la - lb;
}
