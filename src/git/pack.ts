// Reading objects out of git packfiles without loading the pack.
//
// isomorphic-git's own pack reader loads the whole .idx into strings, the whole .pack into
// memory (twice) and cannot address packs over 2 GiB. Here a pack is read the way git reads
// it: the .idx is read one fan-out bucket at a time, when first needed, and searched by
// binary search (an index of up to 64 KiB, such as a push's quarantine pack's, is read whole);
// an entry is read with positional reads (`readSync` at an offset) in aligned 8 KiB blocks, a
// few of them kept per pack, and inflated with node:zlib (one engine for all, inflate.ts).
// Deltas are resolved against a small, byte-bounded cache of bases. Memory grows with the
// objects read, never with the size of the pack.

import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
import type { Inflater } from './inflate';
import { GitReadError, type ObjectType } from './types';
import { hexWord, searchBucket } from './oid-search';

/** The object types of a pack entry's header (gitformat-pack(5)). */
export const OBJ_COMMIT = 1;
export const OBJ_TREE = 2;
export const OBJ_BLOB = 3;
export const OBJ_TAG = 4;
export const OBJ_OFS_DELTA = 6;
export const OBJ_REF_DELTA = 7;

const TYPE_NAMES: Record<number, ObjectType> = {
  [OBJ_COMMIT]: 'commit',
  [OBJ_TREE]: 'tree',
  [OBJ_BLOB]: 'blob',
  [OBJ_TAG]: 'tag',
};

/** Longest delta chain followed before the pack is declared corrupt (git's default depth is 50;
 * `--depth` can raise it, 4095 is git's own hard limit). */
const MAX_DELTA_DEPTH = 4096;

/** Bytes of an index file, read where asked (a file) or held (a buffer, in tests). */
interface IndexBytes {
  readonly size: number;
  read(at: number, length: number): Buffer;
  close(): void;
}

function bufferBytes(buf: Buffer): IndexBytes {
  return { size: buf.length, read: (at, length) => buf.subarray(at, at + length), close: () => {} };
}

/** What the administrator of a repository does about a file git's objects live in that cannot be
 * read (said in messages after the file's name, which is never an absolute path). */
export const UNREADABLE_FIX =
  "the repository's administrator must make the file readable by the user the server runs git as, or restore it (run `git fsck` in the repository; restore the pack from a backup, or fetch the objects again and repack)";

/** A sentence for an error of node:fs on an object file: its errno code, never its message
 * (which names the absolute path). */
export function unreadable(what: string, err: unknown, oid?: string): GitReadError {
  const code = (err as NodeJS.ErrnoException | null)?.code ?? 'error';
  return new GitReadError(`Cannot read ${what}: ${code}; ${UNREADABLE_FIX}.`, oid, true);
}

/** readSync, with a failure (EIO, EISDIR, ...) said as `unreadable`. */
function readOrSay(fd: number, buf: Buffer, offset: number, length: number, position: number, what: string, oid?: string): number {
  try {
    return readSync(fd, buf, offset, length, position);
  } catch (err) {
    throw unreadable(what, err, oid);
  }
}

/** An index file up to this size is read whole when opened (one read instead of one per fan-out
 * bucket: a push's quarantine index is a few kilobytes, and a lookup touches most buckets). */
const WHOLE_INDEX_BYTES = 64 * 1024;

/** Reads `length` bytes at `at` of `fd`, all of them or a GitReadError naming `label`. */
function readFully(fd: number, at: number, length: number, label: string): Buffer {
  const buf = Buffer.allocUnsafe(length);
  let done = 0;
  while (done < length) {
    const n = readOrSay(fd, buf, done, length - done, at + done, label);
    if (n === 0) throw new GitReadError(`${capitalise(label)} is truncated; run \`git fsck\` and repack the repository.`, undefined, true);
    done += n;
  }
  return buf;
}

function fileBytes(path: string, label: string): IndexBytes {
  let fd: number | null;
  let size: number;
  try {
    fd = openSync(path, 'r');
    size = fstatSync(fd).size;
  } catch (err) {
    throw unreadable(label, err);
  }
  if (size <= WHOLE_INDEX_BYTES) {
    try {
      return bufferBytes(readFully(fd, 0, size, label));
    } finally {
      closeSync(fd);
    }
  }
  return {
    size,
    read(at, length) {
      if (fd === null) throw new GitReadError(`${capitalise(label)} was read after the store closed.`, undefined, true);
      return readFully(fd, at, length, label);
    },
    close() {
      if (fd !== null) closeSync(fd);
      fd = null;
    },
  };
}

/**
 * A pack index (.idx, version 1 or 2). Only its header and fan-out table are read up front;
 * the names (and, for version 2, the offsets) of the objects whose first byte is b are read
 * the first time an object starting with b is looked up, and kept. A run that reads a few
 * objects of a large repository (git/git's index is 24 MB) reads a few pages of the index,
 * and one that reads everything reads it once, in 256 parts.
 */
export class PackIndex {
  readonly count: number;
  private readonly version: 1 | 2;
  private readonly fanoutAt: number;
  private readonly fanout: Buffer;
  private readonly namesAt: number;
  private readonly offsetsAt: number;
  private readonly largeOffsetsAt: number;
  private readonly bytes: IndexBytes;
  /** Per first byte: the bucket's names (v2) or whole entries (v1), read on first use. */
  private readonly nameBuckets: (Buffer | undefined)[] = new Array<Buffer | undefined>(256);
  private readonly offsetBuckets: (Buffer | undefined)[] = new Array<Buffer | undefined>(256);

  private readonly label: string;
  /** Bytes from one name to the next: 20 in v2, 24 in v1 (each name follows its offset). */
  private readonly stride: 20 | 24;
  /** Where a name starts in its entry: 0 in v2, 4 in v1. */
  private readonly skip: 0 | 4;

  constructor(
    readonly path: string,
    source: Buffer | IndexBytes,
    label = `the pack index ${path}`,
  ) {
    this.label = label;
    const bytes = Buffer.isBuffer(source) ? bufferBytes(source) : source;
    this.bytes = bytes;
    const tooShort = () => new GitReadError(`${capitalise(label)} is truncated; run \`git fsck\` and repack the repository.`, undefined, true);
    if (bytes.size < 8 + 1024) throw tooShort();
    const head = bytes.read(0, 8 + 1024);
    if (head.readUInt32BE(0) === 0xff744f63) {
      const version = head.readUInt32BE(4);
      if (version !== 2) {
        throw new GitReadError(`${capitalise(label)} has version ${version}; receipt-gate reads versions 1 and 2 (repack with a current git).`, undefined, true);
      }
      this.version = 2;
      this.fanoutAt = 8;
    } else {
      this.version = 1;
      this.fanoutAt = 0;
    }
    this.fanout = head.subarray(this.fanoutAt, this.fanoutAt + 1024);
    this.stride = this.version === 2 ? 20 : 24;
    this.skip = this.version === 2 ? 0 : 4;
    this.count = this.fanout.readUInt32BE(255 * 4);
    for (let b = 1; b < 256; b++) {
      if (this.fanout.readUInt32BE(b * 4) < this.fanout.readUInt32BE((b - 1) * 4)) {
        throw new GitReadError(`${capitalise(label)} has a fan-out table that goes down; the index is corrupt (run \`git index-pack\` again).`, undefined, true);
      }
    }
    if (this.version === 2) {
      this.namesAt = this.fanoutAt + 1024;
      const crcAt = this.namesAt + this.count * 20;
      this.offsetsAt = crcAt + this.count * 4;
      this.largeOffsetsAt = this.offsetsAt + this.count * 4;
      if (bytes.size < this.largeOffsetsAt + 40) throw tooShort();
    } else {
      this.namesAt = this.fanoutAt + 1024 + 4; // entries are <4-byte offset><20-byte name>
      this.offsetsAt = this.fanoutAt + 1024;
      this.largeOffsetsAt = 0;
      if (bytes.size < this.fanoutAt + 1024 + this.count * 24 + 40) throw tooShort();
    }
  }

  /** @param label how messages name the index (defaults to its path) */
  static load(path: string, label = `the pack index ${path}`): PackIndex {
    const bytes = fileBytes(path, label);
    try {
      return new PackIndex(path, bytes, label);
    } catch (err) {
      bytes.close();
      throw err;
    }
  }

  close(): void {
    this.bytes.close();
  }

  /** Entries [lo, hi) start with byte `first`. */
  private bucket(first: number): { lo: number; hi: number } {
    return { lo: first === 0 ? 0 : this.fanout.readUInt32BE((first - 1) * 4), hi: this.fanout.readUInt32BE(first * 4) };
  }

  /** The names of bucket `first` and the stride between them (20 in v2, 24 in v1, where the
   * name follows its 4-byte offset). */
  private names(first: number): { names: Buffer; stride: number; skip: number } {
    return { names: this.bucketNames(first), stride: this.stride, skip: this.skip };
  }

  /** The names of bucket `first` (v2) or its whole entries (v1), read on first use. */
  private bucketNames(first: number): Buffer {
    let names = this.nameBuckets[first];
    if (!names) {
      const { lo, hi } = this.bucket(first);
      const at = this.version === 2 ? this.namesAt + lo * 20 : this.offsetsAt + lo * 24;
      names = this.bytes.read(at, (hi - lo) * this.stride);
      this.nameBuckets[first] = names;
    }
    return names;
  }

  /** The oids that start with `prefix` (2 to 40 lowercase hex digits), at most `limit`: the
   * fan-out narrows to the first byte, a binary search finds the first candidate. */
  findPrefix(prefix: string, limit: number): string[] {
    const even = prefix.length % 2 === 0 ? prefix : prefix + '0';
    const key = Buffer.from(even, 'hex');
    const first = key[0]!;
    const { lo: start, hi: end } = this.bucket(first);
    const { names, stride, skip } = this.names(first);
    let lo = 0;
    let hi = end - start;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const at = mid * stride + skip;
      if (key.compare(names, at, at + key.length) > 0) lo = mid + 1;
      else hi = mid;
    }
    const out: string[] = [];
    for (let k = lo; k < end - start && out.length < limit; k++) {
      const at = k * stride + skip;
      const oid = names.toString('hex', at, at + 20);
      if (!oid.startsWith(prefix)) break;
      out.push(oid);
    }
    return out;
  }

  /** Byte offset of `oid`'s entry in the pack, or null when the pack does not hold it: the
   * fan-out table gives the bucket of names starting with `oid`'s first byte, a binary search
   * finds it there. The name is compared as five 32-bit words read in place (no Buffer made
   * for the key, no native compare per step): a lookup costs a few hundred nanoseconds. */
  find(oid: string): number | null {
    if (oid.length !== 40) return null;
    const w0 = hexWord(oid, 0);
    if (w0 < 0) return null;
    const first = w0 >>> 24;
    const start = first === 0 ? 0 : this.fanout.readUInt32BE((first - 1) * 4);
    const end = this.fanout.readUInt32BE(first * 4);
    if (start === end) return null;
    const k = searchBucket(this.bucketNames(first), this.skip, this.stride, 0, end - start, oid, w0);
    return k < 0 ? null : this.offsetIn(first, k);
  }

  /** The pack offset of entry `k` of bucket `first`; 64-bit offsets (packs over 2 GiB) come
   * from the large-offset table. Returned as a Number: exact up to 2^53 bytes. */
  private offsetIn(first: number, k: number): number {
    if (this.version === 1) return this.bucketNames(first).readUInt32BE(k * 24);
    let offsets = this.offsetBuckets[first];
    if (!offsets) {
      const { lo, hi } = this.bucket(first);
      offsets = this.bytes.read(this.offsetsAt + lo * 4, (hi - lo) * 4);
      this.offsetBuckets[first] = offsets;
    }
    const small = offsets.readUInt32BE(k * 4);
    if ((small & 0x80000000) === 0) return small;
    const at = this.largeOffsetsAt + (small & 0x7fffffff) * 8;
    if (at + 8 > this.bytes.size - 40) {
      throw new GitReadError(`${capitalise(this.label)} names a 64-bit offset outside its table; the index is corrupt (run \`git index-pack\` again).`, undefined, true);
    }
    const value = this.bytes.read(at, 8).readBigUInt64BE(0);
    if (value > BigInt(Number.MAX_SAFE_INTEGER)) {
      throw new GitReadError(`${capitalise(this.label)} holds an offset beyond 2^53 bytes; the index is corrupt.`, undefined, true);
    }
    return Number(value);
  }
}

export interface PackedHeader {
  /** Type of the entry itself (a delta entry reports the type of the object it rebuilds). */
  type: ObjectType;
  /** Size of the object once rebuilt (for a delta: the target size from the delta header). */
  size: number;
}

interface EntryHeader {
  typeCode: number;
  /** Size field of the entry: object size, or the size of the delta data. */
  size: number;
  /** Offset of the zlib stream. */
  dataAt: number;
  /** For OBJ_OFS_DELTA: absolute offset of the base entry. */
  baseOffset?: number;
  /** For OBJ_REF_DELTA: object name of the base. */
  baseOid?: string;
}

/** A pack entry's header as its bytes give it (gitformat-pack(5)): the type code, the size
 * field, how many bytes the header takes, and for a delta where its base is named (`back`
 * bytes before the entry for OFS_DELTA, the 20 bytes at `baseAt` for REF_DELTA). */
export interface RawEntryHeader {
  typeCode: number;
  size: number;
  length: number;
  back?: number;
  baseAt?: number;
}

/**
 * Reads the header at the start of `head` (the entry's first 32 bytes, fewer at the end of the
 * pack), or says why it cannot be read there. The one reading of entry headers: the object
 * store's (Pack) and the first push's reading of commits in pack order (history/pack-commits.ts).
 */
export function readEntryHeader(head: Uint8Array): RawEntryHeader | { problem: string } {
  let i = 0;
  let c = head[i++]!;
  const typeCode = (c >> 4) & 7;
  let size = c & 15;
  let shift = 4;
  while (c & 0x80) {
    if (i >= head.length) return { problem: 'its header runs past the end of the pack' };
    c = head[i++]!;
    size += (c & 0x7f) * 2 ** shift;
    shift += 7;
  }
  if (typeCode === OBJ_OFS_DELTA) {
    c = head[i++]!;
    let back = c & 0x7f;
    while (c & 0x80) {
      if (i >= head.length) return { problem: 'its delta offset runs past the end of the pack' };
      c = head[i++]!;
      back = (back + 1) * 128 + (c & 0x7f);
    }
    return { typeCode, size, length: i, back };
  }
  if (typeCode === OBJ_REF_DELTA) {
    if (i + 20 > head.length) return { problem: 'its delta base name is truncated' };
    return { typeCode, size, length: i + 20, baseAt: i };
  }
  return { typeCode, size, length: i };
}

/** Bytes a zlib stream of `size` bytes of output can take at most (zlib's deflateBound, and
 * some room: a stream that ends leaves what follows unread). */
export function deflateBound(size: number): number {
  return size + Math.ceil(size / 4096) + Math.ceil(size / 16384) + 64;
}

/** Look-up of an object anywhere in the repository, for REF_DELTA bases outside this pack. */
export type ExternalReader = (oid: string) => { type: ObjectType; data: Buffer };

/** A byte-bounded least-recently-used cache of delta bases, shared by all packs of a store.
 * An entry is keyed by its pack's number (`packKey`) and its offset in the pack: one number
 * (no string built and hashed per look-up), or a string for an offset or a pack number too
 * large to share a number exactly. */
export class BaseCache {
  private readonly entries = new Map<number | string, { type: ObjectType; data: Buffer }>();
  private bytes = 0;
  private packs = 0;

  constructor(private readonly limitBytes: number) {}

  /** A number of its own for each pack that shares the cache. */
  packKey(): number {
    return this.packs++;
  }

  /** The key of the entry at `offset` in pack `pack`. */
  static key(pack: number, offset: number): number | string {
    return offset < 0x100000000 && pack < 0x100000 ? pack * 0x100000000 + offset : `${pack}:${offset}`;
  }

  get(key: number | string): { type: ObjectType; data: Buffer } | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: number | string, value: { type: ObjectType; data: Buffer }): void {
    if (value.data.length > this.limitBytes / 4 || this.entries.has(key)) return;
    this.entries.set(key, value);
    this.bytes += value.data.length;
    if (this.bytes <= this.limitBytes) return;
    // Down to 90 % at once: each pass over the map from its start also passes the entries
    // deleted before (a Map keeps their places until it grows), so one entry out per set cost
    // a longer walk each time.
    for (const [k, v] of this.entries) {
      if (this.bytes <= this.limitBytes * 0.9) break;
      this.entries.delete(k);
      this.bytes -= v.data.length;
    }
  }
}

/** A pack is read in aligned blocks of this size: an entry's header and its data, and the
 * entries git wrote beside it (a folder's versions, a delta and its base), are most often one
 * read. */
const PACK_BLOCK_BYTES = 8 * 1024;
/** Blocks each pack keeps (128 KiB), the least recently used dropped first. */
const PACK_BLOCKS_KEPT = 16;

/** One .pack file with its index. The file descriptor is opened on first use. */
export class PackFile {
  private fd: number | null = null;
  /** The whole pack, when it was read whole (see wholeUpTo). */
  private whole: Buffer | null = null;
  private fileSize = 0;
  private index: PackIndex | null = null;
  /** Recently read blocks of the pack: slot k holds block blockNumbers[k] (-1: none), last
   * used at blockUses[k]. Slots in arrays, not a Map: a hit only stamps its slot (a Map moved
   * each hit to its end, which left a hole behind and made the map rebuild its table). */
  private readonly blockNumbers = new Float64Array(PACK_BLOCKS_KEPT).fill(-1);
  private readonly blockUses = new Float64Array(PACK_BLOCKS_KEPT);
  private readonly blockBytes: (Buffer | null)[] = new Array<Buffer | null>(PACK_BLOCKS_KEPT).fill(null);
  private blockClock = 0;

  /** How messages name this pack (never a quarantine path: see object-dirs.ts). */
  readonly label: string;
  /** This pack's number in the shared base cache. */
  private readonly baseKey: number;

  constructor(
    readonly packPath: string,
    readonly idxPath: string,
    private readonly bases: BaseCache,
    /** The store's inflate engine, shared by its packs (see inflate.ts). */
    private readonly inflater: Inflater,
    label?: string,
    /** A pack up to this size is read whole when first opened (0: never). */
    private readonly wholeUpTo = 0,
  ) {
    this.label = label ?? packPath;
    this.baseKey = bases.packKey();
  }

  private get idx(): PackIndex {
    if (!this.index) this.index = PackIndex.load(this.idxPath, `the index of ${this.label}`);
    return this.index;
  }

  find(oid: string): number | null {
    return this.idx.find(oid);
  }

  /** The oids of this pack that start with `prefix` (at least 2 lowercase hex digits), at most
   * `limit` of them. */
  findPrefix(prefix: string, limit: number): string[] {
    return this.idx.findPrefix(prefix, limit);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.blockNumbers.fill(-1);
    this.blockBytes.fill(null);
    this.whole = null;
    this.index?.close();
    this.index = null;
  }

  private open(oid: string): number {
    if (this.fd === null) {
      try {
        this.fd = openSync(this.packPath, 'r');
        this.fileSize = fstatSync(this.fd).size;
      } catch (err) {
        throw unreadable(`the pack ${this.label} (to read object ${oid})`, err, oid);
      }
      const head = Buffer.alloc(12);
      if (readOrSay(this.fd, head, 0, 12, 0, `the pack ${this.label} (to read object ${oid})`, oid) !== 12 || head.toString('latin1', 0, 4) !== 'PACK') {
        throw new GitReadError(`The pack ${this.label} does not start with a pack header; it is corrupt (object ${oid} cannot be read).`, oid, true);
      }
      // One read instead of one per block (and a block's buffer each time it is read again).
      if (this.fileSize <= this.wholeUpTo) this.whole = this.readRange(oid, this.fd, 0, this.fileSize);
    }
    return this.fd;
  }

  /** Reads up to `length` bytes at `position`, fewer at the end of the file. A range inside one
   * block comes from the block cache (read by the caller at once, never kept: blocks are
   * dropped least recently used first); a longer one is read where it is. */
  private readAt(oid: string, position: number, length: number): Buffer {
    const fd = this.open(oid);
    const end = Math.min(position + length, this.fileSize);
    if (position >= end) {
      throw new GitReadError(`Object ${oid} lies beyond the end of the pack ${this.label}; the pack is truncated.`, oid, true);
    }
    if (this.whole !== null) return this.whole.subarray(position, end);
    const block = Math.floor(position / PACK_BLOCK_BYTES);
    if (Math.floor((end - 1) / PACK_BLOCK_BYTES) === block) {
      const start = block * PACK_BLOCK_BYTES;
      const bytes = this.block(oid, fd, block, start);
      return bytes.subarray(position - start, end - start);
    }
    return this.readRange(oid, fd, position, end - position);
  }

  /** Block `block` of the pack (starting at byte `start`), from the cache or read now (into
   * the least recently used slot). */
  private block(oid: string, fd: number, block: number, start: number): Buffer {
    const numbers = this.blockNumbers;
    const uses = this.blockUses;
    let oldest = 0;
    for (let k = 0; k < PACK_BLOCKS_KEPT; k++) {
      if (numbers[k] === block) {
        uses[k] = ++this.blockClock;
        return this.blockBytes[k]!;
      }
      if (uses[k]! < uses[oldest]!) oldest = k;
    }
    const bytes = this.readRange(oid, fd, start, Math.min(PACK_BLOCK_BYTES, this.fileSize - start));
    numbers[oldest] = block;
    uses[oldest] = ++this.blockClock;
    this.blockBytes[oldest] = bytes;
    return bytes;
  }

  /** `length` bytes at `position`, fewer when the file ends sooner. */
  private readRange(oid: string, fd: number, position: number, length: number): Buffer {
    const buf = Buffer.allocUnsafe(length);
    let done = 0;
    while (done < buf.length) {
      const n = readOrSay(fd, buf, done, buf.length - done, position + done, `the pack ${this.label} (to read object ${oid})`, oid);
      if (n === 0) break;
      done += n;
    }
    return buf.subarray(0, done);
  }

  private entryHeader(oid: string, offset: number): EntryHeader {
    const head = this.readAt(oid, offset, 32);
    const h = readEntryHeader(head);
    if ('problem' in h) throw this.corrupt(oid, offset, h.problem);
    const { typeCode, size, length } = h;
    if (h.back !== undefined) {
      if (h.back <= 0 || h.back > offset) throw this.corrupt(oid, offset, 'its delta base lies outside the pack');
      return { typeCode, size, dataAt: offset + length, baseOffset: offset - h.back };
    }
    if (h.baseAt !== undefined) return { typeCode, size, dataAt: offset + length, baseOid: head.toString('hex', h.baseAt, h.baseAt + 20) };
    if (!TYPE_NAMES[typeCode]) throw this.corrupt(oid, offset, `its type code ${typeCode} is not a git object type`);
    return { typeCode, size, dataAt: offset + length };
  }

  private corrupt(oid: string, offset: number, why: string): GitReadError {
    return new GitReadError(`Object ${oid} in the pack ${this.label} (offset ${offset}) is corrupt: ${why}. Run \`git fsck\`.`, oid, true);
  }

  /** Inflates the zlib stream at `dataAt` that must yield exactly `size` bytes. */
  private inflateEntry(oid: string, entry: EntryHeader, offset: number): Buffer {
    // A deflate stream is never longer than its input plus ~0.03% and a few bytes of framing
    // (zlib's deflateBound); reading that much is enough, and zlib ignores what follows.
    const compressed = this.readAt(oid, entry.dataAt, deflateBound(entry.size));
    let out: Buffer;
    try {
      // The shared engine answers when the stream holds exactly `size` bytes. Otherwise
      // inflateSync says what is wrong; its output is one chunk of exactly the object's size
      // (zlib's default 16 KiB chunks would leave every small object kept in the caches
      // holding a 16 KiB allocation).
      out = this.inflater.exact(compressed, entry.size) ?? inflateSync(compressed, { maxOutputLength: Math.max(entry.size, 1), chunkSize: Math.max(entry.size, 64) });
    } catch (err) {
      throw this.corrupt(oid, offset, `its data does not inflate (${(err as Error).message})`);
    }
    if (out.length !== entry.size) {
      throw this.corrupt(oid, offset, `it inflates to ${out.length} bytes where its header says ${entry.size}`);
    }
    return out;
  }

  /** Inflates only the start of an entry's data (enough for a delta header): `want` bytes, or
   * the whole entry when it is shorter. Reads grow from 64 bytes but never past the entry's
   * deflate bound, so a short delta never reads on to the end of the pack. */
  private inflatePrefix(oid: string, entry: EntryHeader, want: number): Buffer {
    const need = Math.min(want, entry.size);
    const bound = entry.size + Math.ceil(entry.size / 4096) + Math.ceil(entry.size / 16384) + 64;
    for (let take = Math.min(64, bound); ; take = Math.min(take * 8, bound)) {
      const compressed = this.readAt(oid, entry.dataAt, take);
      let out: Buffer;
      try {
        out = inflateSync(compressed, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
      } catch (err) {
        throw new GitReadError(`Object ${oid} in the pack ${this.label} is corrupt: its data does not inflate (${(err as Error).message}).`, oid, true);
      }
      if (out.length >= need || compressed.length < take || take === bound) return out;
    }
  }

  /** Type and size of the object at `offset`, reading only entry headers (and the first bytes
   * of a delta to learn the target size). */
  header(oid: string, offset: number, external: (oid: string) => PackedHeader | null): PackedHeader {
    const first = this.entryHeader(oid, offset);
    let size = first.size;
    if (first.typeCode === OBJ_OFS_DELTA || first.typeCode === OBJ_REF_DELTA) {
      const prefix = this.inflatePrefix(oid, first, 20);
      const cursor = { at: 0 };
      readDeltaVarint(prefix, cursor, oid);
      size = readDeltaVarint(prefix, cursor, oid);
    }
    let entry = first;
    for (let depth = 0; ; depth++) {
      if (depth > MAX_DELTA_DEPTH) throw this.corrupt(oid, offset, 'its delta chain is too long or loops');
      if (entry.typeCode === OBJ_OFS_DELTA) {
        entry = this.entryHeader(oid, entry.baseOffset!);
      } else if (entry.typeCode === OBJ_REF_DELTA) {
        const baseOffset = this.find(entry.baseOid!);
        if (baseOffset !== null) {
          entry = this.entryHeader(oid, baseOffset);
        } else {
          const base = external(entry.baseOid!);
          if (!base) throw this.corrupt(oid, offset, `its delta base ${entry.baseOid} is missing`);
          return { type: base.type, size };
        }
      } else {
        return { type: TYPE_NAMES[entry.typeCode]!, size };
      }
    }
  }

  /**
   * Reads and rebuilds the object at `offset`. `check`, when given, is called with the
   * object's type and size as soon as both are known (from entry headers and the first
   * delta's header), before any base is inflated; it throws to refuse the object.
   */
  read(oid: string, offset: number, external: ExternalReader, check?: (type: ObjectType, size: number) => void): { type: ObjectType; data: Buffer } {
    // Follow the chain down to a full object (or a cached base), then apply deltas upwards.
    const chain: { offset: number; entry: EntryHeader }[] = [];
    let base: { type: ObjectType; data: Buffer } | undefined;
    let bottom: { offset: number; entry: EntryHeader } | undefined;
    let at = offset;
    for (let depth = 0; ; depth++) {
      if (depth > MAX_DELTA_DEPTH) throw this.corrupt(oid, offset, 'its delta chain is too long or loops');
      const cached = this.bases.get(BaseCache.key(this.baseKey, at));
      if (cached) {
        base = cached;
        break;
      }
      const entry = this.entryHeader(oid, at);
      if (entry.typeCode === OBJ_OFS_DELTA) {
        chain.push({ offset: at, entry });
        at = entry.baseOffset!;
      } else if (entry.typeCode === OBJ_REF_DELTA) {
        chain.push({ offset: at, entry });
        const inPack = this.find(entry.baseOid!);
        if (inPack !== null) {
          at = inPack;
        } else {
          base = external(entry.baseOid!);
          break;
        }
      } else {
        bottom = { offset: at, entry };
        break;
      }
    }
    const type = base ? base.type : TYPE_NAMES[bottom!.entry.typeCode]!;
    let top: Buffer | undefined;
    if (check) {
      let size: number;
      if (chain.length === 0) {
        size = base ? base.data.length : bottom!.entry.size;
      } else {
        top = this.inflateEntry(oid, chain[0]!.entry, chain[0]!.offset);
        const cursor = { at: 0 };
        readDeltaVarint(top, cursor, oid);
        size = readDeltaVarint(top, cursor, oid);
      }
      check(type, size);
    }
    if (!base) {
      base = { type, data: this.inflateEntry(oid, bottom!.entry, bottom!.offset) };
      if (chain.length > 0) this.bases.set(BaseCache.key(this.baseKey, bottom!.offset), base);
    }
    for (let i = chain.length - 1; i >= 0; i--) {
      const { offset: deltaAt, entry } = chain[i]!;
      const delta = i === 0 && top ? top : this.inflateEntry(oid, entry, deltaAt);
      base = { type: base.type, data: applyDelta(delta, base.data, oid) };
      // The object asked for is kept too: a pack's delta chains run from newer versions to
      // older ones, and a walk that reads older versions first asks for each one's delta
      // next, which would otherwise rebuild this object again from the base below it.
      this.bases.set(BaseCache.key(this.baseKey, deltaAt), base);
    }
    return base;
  }
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function readDeltaVarint(buf: Buffer, cursor: { at: number }, oid: string): number {
  let value = 0;
  let shift = 0;
  for (;;) {
    if (cursor.at >= buf.length) throw new GitReadError(`Object ${oid} has a truncated delta header; the pack is corrupt.`, oid, true);
    const c = buf[cursor.at++]!;
    value += (c & 0x7f) * 2 ** shift;
    shift += 7;
    if ((c & 0x80) === 0) return value;
  }
}

/** Objects rebuilt from deltas up to this size are cut from a shared block. */
const SLAB_ITEM_MAX = 16 * 1024;
const SLAB_BYTES = 64 * 1024;
let slab: Buffer | null = null;
let slabAt = 0;

/**
 * `size` bytes for an object rebuilt from a delta. Node gives a buffer over 4 KiB memory of its
 * own (a tree of a hundred entries is one), and a push of 10,000 commits rebuilds some 30,000
 * trees: each allocation, and collecting it, cost more than the copying. Up to 16 KiB they are
 * cut one after another from a shared 64 KiB block instead (as Buffer's own pool does for small
 * ones, from 8 KiB blocks); a block is freed once nothing holds a part of it, so an object the
 * caches keep holds at most 64 KiB (a block of 256 KiB measured no faster).
 */
function slabAlloc(size: number): Buffer {
  if (size > SLAB_ITEM_MAX) return Buffer.allocUnsafe(size);
  if (slab === null || slabAt + size > slab.length) {
    slab = Buffer.allocUnsafeSlow(SLAB_BYTES);
    slabAt = 0;
  }
  const out = slab.subarray(slabAt, slabAt + size);
  slabAt += (size + 7) & ~7;
  return out;
}

/** Applies a git delta (copy/insert instructions) to `base`. */
export function applyDelta(delta: Buffer, base: Buffer, oid: string): Buffer {
  const bad = (why: string) => new GitReadError(`Object ${oid} has a corrupt delta: ${why}. Run \`git fsck\`.`, oid, true);
  const cursor = { at: 0 };
  const baseSize = readDeltaVarint(delta, cursor, oid);
  if (baseSize !== base.length) throw bad(`it expects a base of ${baseSize} bytes, the base has ${base.length}`);
  const targetSize = readDeltaVarint(delta, cursor, oid);
  const out = slabAlloc(targetSize);
  let written = 0;
  let i = cursor.at;
  while (i < delta.length) {
    const op = delta[i++]!;
    if (op & 0x80) {
      let copyOffset = 0;
      let copySize = 0;
      for (let bit = 0; bit < 4; bit++) {
        if (op & (1 << bit)) {
          if (i >= delta.length) throw bad('a copy instruction is truncated');
          copyOffset += delta[i++]! * 2 ** (8 * bit);
        }
      }
      for (let bit = 0; bit < 3; bit++) {
        if (op & (0x10 << bit)) {
          if (i >= delta.length) throw bad('a copy instruction is truncated');
          copySize += delta[i++]! * 2 ** (8 * bit);
        }
      }
      if (copySize === 0) copySize = 0x10000;
      if (copyOffset + copySize > base.length || written + copySize > targetSize) throw bad('a copy reaches outside the base or the target');
      base.copy(out, written, copyOffset, copyOffset + copySize);
      written += copySize;
    } else if (op !== 0) {
      if (i + op > delta.length || written + op > targetSize) throw bad('an insert instruction is truncated');
      delta.copy(out, written, i, i + op);
      written += op;
      i += op;
    } else {
      throw bad('it contains the reserved instruction 0');
    }
  }
  if (written !== targetSize) throw bad(`it builds ${written} bytes where its header says ${targetSize}`);
  return out;
}
