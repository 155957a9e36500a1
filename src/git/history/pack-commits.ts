// Commits read in pack order, for the server's first walks on a repository (no commit cache yet:
// a history that arrived by `git fetch`, a mirror clone, a restore, or pushes refused after the
// hook). git writes a pack's commits first, newest first (pack-objects' write order), and a walk
// from the refs down to an old commit asks for them in about that order. Reading them one after
// the other through one zlib engine costs a fraction of looking each one up (the index searched,
// the entry found, the object kept in the store's caches): the walk takes its commits from here
// as it takes them from the commit cache.
//
// It never changes an answer. An entry's facts (parents, committer date) come from the commit
// object's own bytes through the one commit parser (parse/commit.ts), kept under the name the
// pack's index gives the entry at the offset asked (as the object store takes the repository's
// own packed objects: git checked their SHA-1 when the pack arrived) or, for an entry read on
// past it, under the SHA-1 of its bytes (`commit <size>\0<content>`, as git names it): they are
// the facts the object store would give for that oid, whatever else the pack holds. A commit is
// only asked for here once the pack's index places it in this pack, and the reading must arrive
// at exactly the offset the index gives. The packs are the repository's own and its alternates'
// (never the push's quarantine), so each commit read here was in the repository before the push. Anything unusual
// (an index or pack that cannot be read, a version this does not know, a stream that does not
// end where it should, a reading that does not arrive at the offset asked, a commit the parser
// refuses) ends that reading: the walk reads those commits one by one, as before. A deltified
// commit is skipped (read one by one). A reading stops at the first tree or blob: the commits
// are behind it.
//
// The reading goes on from a cursor: a question a little past a cursor (GAP) reads on from it,
// one far from every cursor starts a new one at the offset the index gives (a few are kept), so
// a walk that asks for commits in about pack order reads them in one run, and a question about
// a commit far away reads only around it (the walks do not ask here for the existing refs' tips,
// which lie all over a pack). At most CHUNK entries are read per question, so a walk's deadline
// is checked between chunks. The pack's bytes are read in windows the pack's cursors share (16
// KiB at first, doubling up to 1 MiB while the reading goes on in one direction): a pack
// written oldest first (git fast-import's order) is asked for backward, and a window is then read
// to end where the last one began, so the commits just below are read with it. The pack and its
// index stay open during a walk and are closed after it (release()); what was read stays.

import { closeSync, fstatSync, openSync, readdirSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { objectId } from '../object-id';
import { OBJ_COMMIT, OBJ_OFS_DELTA, OBJ_REF_DELTA, OBJ_TAG, PackIndex, deflateBound, readEntryHeader } from '../pack';
import { Inflater } from '../inflate';
import { parseCommit } from '../parse/commit';
import type { CachedCommit } from './commit-cache';

/** Entries read per question at most. */
const CHUNK = 2048;
/** Bytes a cursor reads from the pack at a time at most (more when one entry needs more), and
 * at first. */
const WINDOW = 1 << 20;
const FIRST_WINDOW = 16 << 10;
/** A question this many bytes or fewer past a cursor reads on from it (some eighty commits). */
const GAP = 16 << 10;
/** Cursors kept per pack. */
const MAX_CURSORS = 4;
/** Entries larger than this are not read here (a commit this large is read one by one). */
const MAX_ENTRY = 1 << 20;
/** Entries a reading goes on past (deltas and tags) or reads (commits). */
const SKIPPED_OR_READ = new Set([OBJ_COMMIT, OBJ_TAG, OBJ_OFS_DELTA, OBJ_REF_DELTA]);

/** A place a pack's reading has got to: the next entry's offset. */
interface Cursor {
  pos: number;
  ended: boolean;
  /** When it was last used (the least recently used one goes first). */
  used: number;
}

/** Bytes of the pack read at `at`. */
interface Window {
  at: number;
  bytes: Buffer;
  used: number;
}

/** Windows kept per pack (one per cursor). */
const MAX_WINDOWS = MAX_CURSORS;

/** One pack, read in order from the places walks ask about. */
class PackScan {
  /** The pack's size, once opened (-1 before). */
  private size = -1;
  /** The pack cannot be read here at all (an unreadable index, no pack header, a version this
   * does not know). */
  private bad = false;
  private readonly cursors: Cursor[] = [];
  private windows: Window[] = [];
  /** Bytes the next window read takes: small for a question far from everything read (a
   * ref's tip), doubling while the reading goes on next to what was read. */
  private windowBytes = FIRST_WINDOW;
  private stamp = 0;
  /** Where an entry is inflated (reused: a commit's facts are taken from it at once). */
  private scratch = Buffer.allocUnsafe(4096);
  /** The pack's file while a walk reads it (closed by release()). */
  private fd: number | null = null;
  /** Commits read and not asked for yet. */
  private readonly found = new Map<string, CachedCommit>();

  /** The pack's index, opened when asked and closed by release(). */
  private idx: PackIndex | null = null;

  constructor(
    private readonly idxPath: string,
    private readonly packPath: string,
    private readonly inflater: Inflater,
  ) {}

  /** The commit `oid` when a reading of this pack has passed over it and it was not asked for
   * yet (handed out once). */
  taken(oid: string): CachedCommit | undefined {
    const have = this.found.get(oid);
    if (have) this.found.delete(oid);
    return have;
  }

  /** Where the pack holds `oid`, or null (also when its index cannot be read: the pack is then
   * not read here at all). */
  find(oid: string): number | null {
    if (this.bad) return null;
    try {
      this.idx ??= PackIndex.load(this.idxPath);
      return this.idx.find(oid);
    } catch {
      this.bad = true;
      return null;
    }
  }

  /** Closes the index's and the pack's files (reopened by the next question); what was read
   * stays. */
  release(): void {
    this.idx?.close();
    this.idx = null;
    if (this.fd !== null) {
      try {
        closeSync(this.fd);
      } catch {
        // closing a file only read from: nothing to say
      }
      this.fd = null;
    }
  }

  /** The commit at `offset` (whose name is `oid`): read on from the cursor just below it, or
   * from a new cursor at `offset` (the index gives where an entry starts); undefined when it is
   * not read here (then it is read one by one). */
  commit(oid: string, offset: number): CachedCommit | undefined {
    if (this.bad) return undefined;
    let cur: Cursor | null = null;
    try {
      if (this.size < 0) this.open();
      if (this.bad) return undefined;
      cur = this.cursorFor(offset);
      for (let n = 0; n < CHUNK && !cur.ended && cur.pos < offset; n++) this.next(cur);
      // The entries read must lead to the one the index places at `offset`: one that starts
      // past it means this reading lost its way, and this cursor stops.
      if (cur.pos > offset) cur.ended = true;
      else if (cur.pos === offset && !cur.ended) return this.next(cur, oid);
    } catch {
      if (cur) cur.ended = true;
    }
    return this.taken(oid);
  }

  /** The cursor nearest below `offset` within GAP bytes, else a new one at `offset` (the least
   * recently used of MAX_CURSORS dropped): a walk that asks for commits in about pack order
   * reads on with one cursor, a question far from every cursor reads only around itself. */
  private cursorFor(offset: number): Cursor {
    let best: Cursor | null = null;
    // The slot a new cursor takes: an ended one, else the least recently used when all are kept.
    let slot = -1;
    const cursors = this.cursors;
    for (let k = 0; k < cursors.length; k++) {
      const c = cursors[k]!;
      if (c.ended) {
        slot = k;
        continue;
      }
      if (c.pos <= offset && offset - c.pos <= GAP && (best === null || c.pos > best.pos)) best = c;
    }
    if (best === null) {
      best = { pos: offset, ended: false, used: 0 };
      if (slot < 0 && cursors.length >= MAX_CURSORS) {
        slot = 0;
        for (let k = 1; k < cursors.length; k++) if (cursors[k]!.used < cursors[slot]!.used) slot = k;
      }
      if (slot < 0) cursors.push(best);
      else cursors[slot] = best;
    }
    best.used = ++this.stamp;
    return best;
  }

  /** Reads the entry at the cursor: a commit is recorded, a tag or delta passed over, a tree or
   * a blob ends the cursor. `asked` is the name the pack's index gives the entry at the cursor,
   * when the cursor stands at the offset the index gives for it: the commit is kept under that
   * name without hashing it again, as the object store takes the repository's own packed
   * objects (git checked each one's SHA-1 when its pack arrived, and the index is its list of
   * them); an entry read on past that one is kept under the SHA-1 of its bytes. */
  private next(cur: Cursor, asked?: string): CachedCommit | undefined {
    const start = cur.pos;
    const h = readEntryHeader(this.bytes(start, 32));
    // A tree or a blob ends the reading (the commits are behind it); a delta or a tag is passed over.
    if ('problem' in h || !SKIPPED_OR_READ.has(h.typeCode) || h.size > MAX_ENTRY) {
      cur.ended = true;
      return;
    }
    const { typeCode: type, size } = h;
    const head = this.bytes(start + h.length, deflateBound(size));
    if (this.scratch.length <= size) this.scratch = Buffer.allocUnsafe(Math.max(size + 1, this.scratch.length * 2));
    const taken = this.inflater.exactTaking(head, size, this.scratch);
    if (taken === null) {
      cur.ended = true;
      return;
    }
    cur.pos = start + h.length + taken.used;
    if (type !== OBJ_COMMIT) return;
    const oid = asked ?? objectId('commit', taken.data);
    const parsed = parseCommit(oid, taken.data);
    const facts = { parents: parsed.parents, time: parsed.committerTime };
    // The commit asked for is handed out at once; one read on past it waits to be asked.
    if (asked !== undefined) return facts;
    this.found.set(oid, facts);
    return undefined;
  }

  /** Up to `length` bytes at `at` (fewer at the end of the file), from a window read before or
   * a new one. A new window just below one read before (a walk asking backward, through a pack
   * written oldest first) ends where that one begins, so the entries below are read with it;
   * any other starts at `at`. Its size doubles while reads follow what was read (up to WINDOW),
   * and starts small again for a question far from it. */
  private bytes(at: number, length: number): Buffer {
    const end = Math.min(at + length, this.size);
    let above: Window | null = null;
    let near = false;
    for (const w of this.windows) {
      const wEnd = w.at + w.bytes.length;
      if (at >= w.at && end <= wEnd) {
        w.used = ++this.stamp;
        return w.bytes.subarray(at - w.at, end - w.at);
      }
      if (w.at > at && w.at - at <= this.windowBytes && (above === null || w.at < above.at)) above = w;
      if (at >= w.at && at <= wEnd + GAP) near = true;
    }
    this.windowBytes = above !== null || near ? Math.min(this.windowBytes * 2, WINDOW) : FIRST_WINDOW;
    let from = at;
    let to = Math.min(Math.max(at + this.windowBytes, end), this.size);
    if (above !== null) {
      to = Math.max(end, above.at);
      from = Math.max(0, Math.min(at, to - this.windowBytes));
    }
    const w: Window = { at: from, bytes: this.read(from, Math.max(to - from, 0)), used: ++this.stamp };
    if (this.windows.length >= MAX_WINDOWS) {
      const oldest = this.windows.reduce((a, b) => (a.used <= b.used ? a : b));
      this.windows = this.windows.filter((x) => x !== oldest);
    }
    this.windows.push(w);
    return w.bytes.subarray(at - from, Math.max(end - from, at - from));
  }

  private read(at: number, length: number): Buffer {
    const buf = Buffer.allocUnsafe(length);
    let got = 0;
    const fd = (this.fd ??= openSync(this.packPath, 'r'));
    while (got < buf.length) {
      const n = readSync(fd, buf, got, buf.length - got, at + got);
      if (n === 0) break;
      got += n;
    }
    return buf.subarray(0, got);
  }

  private open(): void {
    this.fd ??= openSync(this.packPath, 'r');
    this.size = fstatSync(this.fd).size;
    const head = this.read(0, 12);
    const version = head.length === 12 ? head.readUInt32BE(4) : 0;
    if (head.toString('latin1', 0, 4) !== 'PACK' || (version !== 2 && version !== 3)) this.bad = true;
  }
}

/** The commits of a repository's packs (`<objects>/pack` of its own object directory and of its
 * alternates), read in pack order as walks ask. */
export class PackCommits {
  private packs: PackScan[] | null = null;
  private readonly inflater = new Inflater();

  constructor(private readonly packDirs: readonly string[]) {}

  /** The commit's parents and date when a pack of the repository holds it and it is read here;
   * undefined otherwise (then it is read from its object). */
  lookup(oid: string): CachedCommit | undefined {
    const packs = (this.packs ??= this.open());
    // A commit a reading has already passed over (a pack written newest first, read on) needs
    // no search of the index.
    for (const scan of packs) {
      const read = scan.taken(oid);
      if (read) return read;
    }
    for (const scan of packs) {
      const offset = scan.find(oid);
      if (offset !== null) return scan.commit(oid, offset);
    }
    return undefined;
  }

  /** True when one of the repository's packs holds `oid` (the object is then in the
   * repository: a pack's index lists only what the pack holds). */
  has(oid: string): boolean {
    for (const scan of (this.packs ??= this.open())) if (scan.find(oid) !== null) return true;
    return false;
  }

  private open(): PackScan[] {
    const out: PackScan[] = [];
    for (const dir of this.packDirs) {
      let names: string[];
      try {
        names = readdirSync(dir).filter((n) => n.endsWith('.idx'));
      } catch {
        continue;
      }
      for (const name of names.sort()) out.push(new PackScan(join(dir, name), join(dir, name.slice(0, -4) + '.pack'), this.inflater));
    }
    return out;
  }

  /** Closes the packs' index files and the zlib engine (after each walk: nothing is held
   * between walks; the next question opens them again, and reading goes on where it stopped). */
  release(): void {
    for (const p of this.packs ?? []) p.release();
    this.inflater.close();
  }
}
