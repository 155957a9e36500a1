// Finding a 40-hex object name in a sorted table of 20-byte names, the one search the pack
// index, the commit-graph and the server's commit cache share (a few guessed steps, then
// bisection: see searchOid). The name is compared as five 32-bit words read in place (no Buffer
// made for the key, no native compare per step): the first word settles almost every step, and
// the other four are parsed once, when a step first meets a row whose first word matches.

/** The value of each hex digit's character code (either case), -1 for any other. */
const HEX_VALUE = (() => {
  const t = new Int8Array(128).fill(-1);
  for (let i = 0; i < 10; i++) t[0x30 + i] = i;
  for (let i = 0; i < 6; i++) t[0x61 + i] = t[0x41 + i] = 10 + i;
  return t;
})();

/** The 32-bit word the hex digits `at`..`at+8` of `oid` spell, -1 when one is no hex digit. */
export function hexWord(oid: string, at: number): number {
  let v = 0;
  for (let i = at; i < at + 8; i++) {
    const c = oid.charCodeAt(i);
    const d = c < 128 ? HEX_VALUE[c]! : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** Steps of a search that guess the row from the name (see searchOid) before it bisects. */
const GUESSES = 3;

/**
 * The row `k` in [lo, hi) whose 20 bytes at `base + k * stride` in `buf` spell `oid`, or -1.
 * The rows must be sorted by those bytes. `oid` is 40 hex digits (either case); anything else
 * is found nowhere. `w0`, when the caller already has it, is hexWord(oid, 0).
 *
 * Object names are spread evenly, so the first steps guess where the name lies from the first
 * 32-bit words bounding the range (`low` and `high`, the least and the greatest first word the
 * rows of [lo, hi) can have: a fan-out bucket's, or the whole range), as interpolation search
 * does, and the search bisects from there: about 4 rows read in a bucket of 4,000 instead of
 * 12. Any row a step reads halves nothing but still narrows the range, so the answer is the
 * bisection's whatever the rows hold.
 */
export function searchOid(buf: Buffer, base: number, stride: number, lo: number, hi: number, oid: string, w0 = oid.length === 40 ? hexWord(oid, 0) : -1, low = 0, high = 0xffffffff): number {
  if (w0 < 0 || oid.length !== 40) return -1;
  let w1 = -1;
  let w2 = -1;
  let w3 = -1;
  let w4 = -1;
  for (let step = 0; lo < hi; step++) {
    let mid: number;
    if (step < GUESSES && hi - lo > 16 && w0 >= low && w0 <= high) {
      mid = lo + Math.floor(((w0 - low) / (high - low + 1)) * (hi - lo));
      if (mid >= hi) mid = hi - 1;
    } else {
      mid = (lo + hi) >>> 1;
    }
    const at = base + mid * stride;
    let v = buf.readUInt32BE(at);
    const first = v;
    let key = w0;
    if (v === key) {
      if (w1 < 0) {
        w1 = hexWord(oid, 8);
        w2 = hexWord(oid, 16);
        w3 = hexWord(oid, 24);
        w4 = hexWord(oid, 32);
        if (w1 < 0 || w2 < 0 || w3 < 0 || w4 < 0) return -1;
      }
      v = buf.readUInt32BE(at + 4);
      key = w1;
      if (v === key) {
        v = buf.readUInt32BE(at + 8);
        key = w2;
        if (v === key) {
          v = buf.readUInt32BE(at + 12);
          key = w3;
          if (v === key) {
            v = buf.readUInt32BE(at + 16);
            key = w4;
            if (v === key) return mid;
          }
        }
      }
    }
    if (key < v) {
      hi = mid;
      high = first;
    } else {
      lo = mid + 1;
      low = first;
    }
  }
  return -1;
}

/** searchOid over the rows of one fan-out bucket (a pack index's, a commit-graph's): every row
 * there starts with the name's first byte, which bounds the first words its guesses use. */
export function searchBucket(buf: Buffer, base: number, stride: number, lo: number, hi: number, oid: string, w0: number): number {
  const first = w0 >>> 24;
  return searchOid(buf, base, stride, lo, hi, oid, w0, (first << 24) >>> 0, ((first << 24) | 0xffffff) >>> 0);
}
