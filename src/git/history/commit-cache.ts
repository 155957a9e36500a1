// The server's commit cache: `$GIT_DIR/receipt-gate-cache/commit-index`, a file receipt-gate owns
// that holds, for repository commits a walk has read, what the walks use of them (parents and
// committer date), so that the next push walks those commits without inflating them again.
//
// It never changes an answer. An entry is a fact about the commit object its oid names, and a
// commit object cannot change without changing its oid: an entry written once stays true for as
// long as that object exists, whatever refs move, packs are repacked or objects pruned (an entry
// for a pruned commit is simply never asked for: the walks only ask about commits they reach
// from refs or from parents the object store holds, and check each cached parent is present as
// they do for a parent read from the object). The file is used whole or not at all: a wrong
// magic, length or trailing SHA-1 (a torn or corrupt file) means it is ignored and rewritten.
// It is not used where git itself would not read commits as stored: a shallow repository, or
// replace refs in force (commit-index.ts decides both, as for the commit-graph).
//
// Written after the server's new-commits walk and after each merge-base and ancestry walk that
// follows on the same store, with the commits they read from objects and the repository
// already held (never the push's own: a refused push's objects are gone), merged with the
// entries already there, to a temporary file renamed into place, so a reader sees the old file
// or the new one; two pushes writing at once lose one push's additions, nothing else. Fewer new
// entries than a 64th of the file's rows are not worth rewriting it for (they are read again
// next time). A repository that cannot be written (read-only, full disk) is walked as without
// the file.
//
// Layout, big-endian: "RGCI", version 1, count; `count` rows sorted by oid of
// oid (20) | committer date (float64) | first parent index (u32) | parent count (u32);
// the parents' oids (20 each); the SHA-1 of everything before it.

import { closeSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, writeSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { createHash, randomBytes } from 'node:crypto';
import { isOid } from '../../types';
import { searchOid } from '../oid-search';

const MAGIC = 0x52474349; // "RGCI"
const VERSION = 1;
const HEADER = 12;
const ROW = 36;
const HASH_LEN = 20;
/** A cache larger than this is neither read nor written (about 10 million commits). */
const MAX_BYTES = 1 << 29;

/** What the walks use of a commit. */
export interface CachedCommit {
  parents: readonly string[];
  time: number;
}

/** The record of commit-graph files checked whole (commit-graph.ts), beside the cache. */
export function verifiedGraphsPath(objectsDir: string): string {
  return join(dirname(commitCachePath(objectsDir)), 'commit-graph-verified');
}

/** The cache file's path for a repository whose own object directory is `objectsDir`. */
export function commitCachePath(objectsDir: string): string {
  // Not under `receipt-gate/`: that folder's presence turns the push log on (pushlog/server-state.ts).
  return join(dirname(objectsDir), 'receipt-gate-cache', 'commit-index');
}

export class CommitCache {
  private count: number;
  /** Commits read from objects during this run, to add when the walk is done: their oids,
   * dates and parents, kept flat (no object per commit). */
  private addedOids: string[] = [];
  private addedTimes: number[] = [];
  private addedFirst: number[] = [];
  private addedParents: string[] = [];

  private constructor(
    readonly path: string,
    private buf: Buffer,
  ) {
    this.count = buf.length === 0 ? 0 : buf.readUInt32BE(8);
  }

  /** The cache at `path`: its entries when the file is whole, else an empty cache (rewritten
   * on save). */
  static open(path: string): CommitCache {
    return new CommitCache(path, readWhole(path) ?? Buffer.alloc(0));
  }

  /** Entries the file holds (as opened, or as last saved). */
  get size(): number {
    return this.count;
  }

  /** The cached commit, or undefined. */
  lookup(oid: string): CachedCommit | undefined {
    if (this.count === 0 || !isOid(oid)) return undefined;
    const row = this.row(oid);
    if (row < 0) return undefined;
    const { buf } = this;
    const at = HEADER + row * ROW;
    const time = buf.readDoubleBE(at + HASH_LEN);
    const first = buf.readUInt32BE(at + HASH_LEN + 8);
    const n = buf.readUInt32BE(at + HASH_LEN + 12);
    const base = HEADER + this.count * ROW;
    const parents: string[] = [];
    for (let i = 0; i < n; i++) parents.push(buf.toString('hex', base + (first + i) * HASH_LEN, base + (first + i + 1) * HASH_LEN));
    return { parents, time };
  }

  /** Records a repository commit read from its object (oids as the commit parser gives them:
   * 40 lower-case hex), for save(); one the file already lists, or one recorded twice, is
   * written once. */
  add(oid: string, commit: CachedCommit): void {
    this.addedOids.push(oid);
    this.addedTimes.push(commit.time);
    this.addedFirst.push(this.addedParents.length);
    for (const p of commit.parents) this.addedParents.push(p);
  }

  /** Commits add() recorded that save() would write (before duplicates are dropped). */
  get pending(): number {
    return this.addedOids.length;
  }

  /** Writes the file with the new entries merged in (the old rows copied as bytes), unless they
   * are fewer than a 64th of the rows it holds; a failure to write leaves the old file. */
  save(): void {
    const n = this.addedOids.length;
    if (n === 0) return;
    const { addedOids: oids, addedTimes: times, addedFirst: firsts, addedParents: parentOids } = this;
    this.addedOids = [];
    this.addedTimes = [];
    this.addedFirst = [];
    this.addedParents = [];
    const parentEnd = (i: number) => (i + 1 < n ? firsts[i + 1]! : parentOids.length);
    // The new rows, sorted by oid (lower-case hex sorts as the bytes do), each once, and none
    // the file already lists.
    const order = sortedByOid(oids);
    const added: number[] = [];
    for (const i of order) if ((added.length === 0 || oids[added[added.length - 1]!] !== oids[i]) && this.row(oids[i]!) < 0) added.push(i);
    // A few commits more are not worth rewriting a large file for (the whole file is copied
    // and hashed again): they are read from their objects again next time.
    if (added.length === 0 || added.length * 64 < this.count) return;
    const { buf, count } = this;
    const oldBase = HEADER + count * ROW;
    const oldParents = count === 0 ? 0 : (buf.length - HASH_LEN - oldBase) / HASH_LEN;
    const total = count + added.length;
    let parentCount = oldParents;
    for (const i of added) parentCount += parentEnd(i) - firsts[i]!;
    const size = HEADER + total * ROW + parentCount * HASH_LEN + HASH_LEN;
    if (size > MAX_BYTES) return;
    const out = Buffer.allocUnsafe(size);
    out.writeUInt32BE(MAGIC, 0);
    out.writeUInt32BE(VERSION, 4);
    out.writeUInt32BE(total, 8);
    const base = HEADER + total * ROW;
    let next = 0;
    let r = 0;
    let k = 0;
    for (let row = 0; row < total; row++) {
      const at = HEADER + row * ROW;
      // Both sides are sorted: the new row is written first into place, then compared in
      // place with the old row (bytes), and the smaller kept (buf.compare is below 0 when the
      // old row sorts first).
      let takeOld = k >= added.length;
      if (!takeOld) {
        writeHex(oids[added[k]!]!, out, at);
        takeOld = r < count && buf.compare(out, at, at + HASH_LEN, HEADER + r * ROW, HEADER + r * ROW + HASH_LEN) < 0;
      }
      if (takeOld) {
        const from = HEADER + r * ROW;
        buf.copy(out, at, from, from + HASH_LEN + 8);
        const first = buf.readUInt32BE(from + HASH_LEN + 8);
        const np = buf.readUInt32BE(from + HASH_LEN + 12);
        out.writeUInt32BE(next, at + HASH_LEN + 8);
        out.writeUInt32BE(np, at + HASH_LEN + 12);
        buf.copy(out, base + next * HASH_LEN, oldBase + first * HASH_LEN, oldBase + (first + np) * HASH_LEN);
        next += np;
        r++;
      } else {
        const i = added[k++]!;
        out.writeDoubleBE(times[i]!, at + HASH_LEN);
        out.writeUInt32BE(next, at + HASH_LEN + 8);
        out.writeUInt32BE(parentEnd(i) - firsts[i]!, at + HASH_LEN + 12);
        for (let p = firsts[i]!; p < parentEnd(i); p++) writeHex(parentOids[p]!, out, base + next++ * HASH_LEN);
      }
    }
    createHash('sha1').update(out.subarray(0, size - HASH_LEN)).digest().copy(out, size - HASH_LEN);
    this.buf = out;
    this.count = total;
    const tmp = `${this.path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
    try {
      mkdirSync(dirname(this.path), { recursive: true });
      const fd = openSync(tmp, 'wx', 0o644);
      try {
        writeSync(fd, out);
      } finally {
        closeSync(fd);
      }
      renameSync(tmp, this.path);
    } catch {
      rmSync(tmp, { force: true });
    }
  }

  /** The row of `oid`, or -1 (oid-search.ts). */
  private row(oid: string): number {
    return this.count === 0 ? -1 : searchOid(this.buf, HEADER, ROW, 0, this.count, oid);
  }
}

/** Indexes of `oids` (40 lower-case hex each) in oid order, equal oids in index order: a
 * native sort of numbers (each oid's first 32 bits above its index), then the oids that share
 * those bits ordered by the whole oid. */
function sortedByOid(oids: readonly string[]): number[] {
  const n = oids.length;
  const byWhole = (x: number, y: number) => (oids[x]! < oids[y]! ? -1 : oids[x]! > oids[y]! ? 1 : x - y);
  if (n >= 2 ** 21) return Array.from({ length: n }, (_, i) => i).sort(byWhole);
  const keys = new Float64Array(n);
  for (let i = 0; i < n; i++) keys[i] = Number.parseInt(oids[i]!.slice(0, 8), 16) * 2 ** 21 + i;
  keys.sort();
  const order: number[] = new Array<number>(n);
  for (let i = 0; i < n; i++) order[i] = keys[i]! % 2 ** 21;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    const head = Math.floor(keys[i]! / 2 ** 21);
    while (j < n && Math.floor(keys[j]! / 2 ** 21) === head) j++;
    if (j - i > 1) {
      const run = order.slice(i, j).sort(byWhole);
      for (let k = i; k < j; k++) order[k] = run[k - i]!;
    }
    i = j;
  }
  return order;
}

/** 40 lower-case hex digits written as 20 bytes at `at`. Buffer#write's native decoding: a
 * loop in JavaScript costs twice as much in a hook's short life, where it is run a few tens of
 * thousands of times and barely compiled. */
function writeHex(hex: string, out: Buffer, at: number): void {
  out.write(hex, at, HASH_LEN, 'hex');
}

/** The file's bytes when it is whole (magic, version, length, rows sorted, parents in bounds,
 * checksum), else null. */
function readWhole(path: string): Buffer | null {
  let buf: Buffer;
  try {
    buf = readFileSync(path);
  } catch {
    return null;
  }
  if (buf.length < HEADER + HASH_LEN || buf.length > MAX_BYTES) return null;
  if (buf.readUInt32BE(0) !== MAGIC || buf.readUInt32BE(4) !== VERSION) return null;
  const count = buf.readUInt32BE(8);
  const base = HEADER + count * ROW;
  if (base + HASH_LEN > buf.length || (buf.length - HASH_LEN - base) % HASH_LEN !== 0) return null;
  const parents = (buf.length - HASH_LEN - base) / HASH_LEN;
  const sum = createHash('sha1').update(buf.subarray(0, buf.length - HASH_LEN)).digest();
  if (!sum.equals(buf.subarray(buf.length - HASH_LEN))) return null;
  for (let r = 0; r < count; r++) {
    const at = HEADER + r * ROW;
    if (r > 0 && buf.compare(buf, at - ROW, at - ROW + HASH_LEN, at, at + HASH_LEN) <= 0) return null;
    const first = buf.readUInt32BE(at + HASH_LEN + 8);
    const n = buf.readUInt32BE(at + HASH_LEN + 12);
    if (first + n > parents || !Number.isFinite(buf.readDoubleBE(at + HASH_LEN))) return null;
  }
  return buf;
}
