// The object directories a repository reads from, and where each object lives in them.
//
// git reads objects from an ordered list of object directories: during pre-receive the push's
// quarantine first (GIT_QUARANTINE_PATH, GIT_OBJECT_DIRECTORY), then the alternates from the
// environment (GIT_ALTERNATE_OBJECT_DIRECTORIES), the repository's own `objects`, and each
// directory's `info/alternates`, recursively (`git clone --shared`, GitHub Enterprise's
// relative alternates). `ObjectsView` finds an object in that list once: a loose file (each
// object directory's fan-out directories are listed once, as git's loose-object cache does,
// so an absent object costs no failed open) or an entry of a pack (pack.ts: the .idx searched
// in place, one entry read and inflated). It reads the bytes where it found them; it checks
// no SHA-1 and re-encodes nothing: the object database (objects.ts) checks every object once.
//
// Messages name object directories and packs by what they are ("the pushed objects",
// "objects/pack/pack-….pack", "an alternate object directory"), never by absolute path.

import { existsSync, readdirSync, readFileSync, openSync, readSync, closeSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
import { Inflater } from './inflate';
import { BaseCache, PackFile, unreadable, type PackedHeader } from './pack';
import { GitReadError, type ObjectType } from './types';
import { isOid } from '../types';

/** Bytes of rebuilt delta bases kept between reads. */
const BASE_CACHE_BYTES = 8 * 1024 * 1024;
/** A pack the push brought up to this size is read whole at its first use (pack.ts): a push's
 * diffs read most of its pack, in an order of their own. */
const WHOLE_PUSHED_PACK_BYTES = 32 * 1024 * 1024;
/** The value of each hex digit's character code (lowercase, as oids are written), by code. */
const HEX_DIGIT = (() => {
  const t = new Uint8Array(128);
  for (let i = 0; i < 10; i++) t[0x30 + i] = i;
  for (let i = 0; i < 6; i++) t[0x61 + i] = t[0x41 + i] = 10 + i;
  return t;
})();


/** REF_DELTA bases found in another pack (or loose) followed before giving up: such chains are
 * short in real repositories; a loop means corrupt packs. */
const MAX_CROSS_PACK_DEPTH = 64;

function crossPackLoop(oid: string): GitReadError {
  return new GitReadError(`Object ${oid} is a delta whose bases, across packs, form a chain too long or a loop; the packs are corrupt. Run \`git fsck\`.`, oid, true);
}

export interface ObjectDirectory {
  /** Absolute path of an `objects` directory. */
  path: string;
  /** True for the push's quarantine (objects the push brought). */
  quarantine: boolean;
}

/** The ordered list of object directories a repository reads from. */
export function objectDirectories(gitdir: string, env: NodeJS.ProcessEnv, cwd = process.cwd()): ObjectDirectory[] {
  const out: ObjectDirectory[] = [];
  const seen = new Set<string>();
  const add = (dir: string, quarantine: boolean, depth: number) => {
    const abs = resolve(dir);
    if (seen.has(abs)) return;
    seen.add(abs);
    if (!existsSync(abs)) return;
    out.push({ path: abs, quarantine });
    if (depth >= 5) return; // git stops following alternates at depth 5 too
    for (const alt of readAlternates(abs)) add(isAbsolute(alt) ? alt : resolve(abs, alt), false, depth + 1);
  };
  const nonEmpty = (v: string | undefined) => (v !== undefined && v !== '' ? v : undefined);
  const quarantine = nonEmpty(env.GIT_QUARANTINE_PATH);
  const objectDir = nonEmpty(env.GIT_OBJECT_DIRECTORY);
  if (quarantine) add(resolve(cwd, quarantine), true, 0);
  if (objectDir) {
    const abs = resolve(cwd, objectDir);
    add(abs, abs !== resolve(gitdir, 'objects'), 0);
  }
  for (const alt of (nonEmpty(env.GIT_ALTERNATE_OBJECT_DIRECTORIES) ?? '').split(':')) {
    if (alt) add(resolve(cwd, alt), false, 0);
  }
  add(join(gitdir, 'objects'), false, 0);
  return out;
}

function readAlternates(objectsDir: string): string[] {
  const file = join(objectsDir, 'info', 'alternates');
  let text: string;
  try {
    // Most object directories have none: existsSync says so without an error being built.
    if (!existsSync(file)) return [];
    text = readFileSync(file, 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .map((line) => line.replace(/\r$/, ''))
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => (line.startsWith('"') && line.endsWith('"') ? line.slice(1, -1) : line));
}

/** Where an object lives. */
export type ObjectLocation =
  | { where: 'loose'; dir: ObjectDirectory; file: string }
  | { where: 'pack'; dir: ObjectDirectory; pack: PackFile; offset: number };

/** Thrown while a packed delta is rebuilt whose base is a loose object the caller has not read
 * yet: the store reads that object (through isomorphic-git, SHA-1 checked) and tries again. */
export class LooseBaseNeeded extends Error {
  constructor(readonly oid: string) {
    super(`the delta base ${oid} is a loose object`);
    this.name = 'LooseBaseNeeded';
  }
}

/** A packed location, as `locate` returns it. */
export type PackedLocation = Extract<ObjectLocation, { where: 'pack' }>;
/** A loose location, as `locate` returns it. */
export type LooseLocation = Extract<ObjectLocation, { where: 'loose' }>;

/** Object directories with their packs: where each object lives, and its bytes. */
export class ObjectsView {
  private packsByDir = new Map<string, PackFile[]>();
  private readonly bases = new BaseCache(BASE_CACHE_BYTES);
  readonly inflater = new Inflater();
  /** Per object directory, the names in it (its fan-out directories), listed on first use. */
  private readonly fanouts = new Map<string, Set<string>>();
  /** Loose object names per fan-out directory (`<objects>/xx`); null: no such directory. */
  private readonly looseNames = new Map<string, Set<string> | null>();
  /** looseNames of each object directory by fan-out number (0-255), filled as listed. */
  private readonly looseTables = new Map<ObjectDirectory, (Set<string> | null | undefined)[]>();
  /** Quarantine paths, longest first, as they may appear in a message (see `scrub`). */
  private readonly quarantinePaths: string[];
  /** The repository's own objects directory. */
  private readonly ownObjects: string;
  /** Every object directory and the repository, longest first (see `scrub`). */
  private readonly serverPaths: string[];

  constructor(
    readonly gitdir: string,
    readonly dirs: ObjectDirectory[],
  ) {
    this.ownObjects = resolve(gitdir, 'objects');
    this.serverPaths = [...new Set([...dirs.map((d) => d.path), resolve(gitdir)])].sort((a, b) => b.length - a.length);
    this.quarantinePaths = dirs
      .filter((d) => d.quarantine)
      .map((d) => d.path)
      .sort((a, b) => b.length - a.length);
  }

  /** How messages name an object directory, never by its absolute path (docs/contract.md §6: messages do
   * not print the server's quarantine directory; a pusher is not shown where the server keeps
   * its repositories either): "the pushed objects" (the quarantine), "objects" (the
   * repository's own), or "an alternate object directory". */
  label(dir: ObjectDirectory): string {
    if (dir.quarantine) return 'the pushed objects';
    return dir.path === this.ownObjects ? 'objects' : 'an alternate object directory';
  }

  /** How messages name a pack file of `dir`: `objects/pack/pack-<hash>.pack`, with the
   * directory it lies in unless it is the repository's own. */
  private packLabel(dir: ObjectDirectory, packName: string): string {
    if (dir.quarantine) return `${packName} of the pushed objects`;
    return dir.path === this.ownObjects ? `objects/pack/${packName}` : `objects/pack/${packName} of an alternate object directory`;
  }

  /** How messages name where an object lives: its pack, or its loose file. */
  describe(loc: ObjectLocation, oid: string): string {
    if (loc.where === 'pack') return `the pack ${loc.pack.label}`;
    const file = `objects/${oid.slice(0, 2)}/${oid.slice(2)}`;
    return loc.dir.path === this.ownObjects ? file : `${file} of ${this.label(loc.dir)}`;
  }

  /** `text` with every quarantine path replaced by "the pushed objects": for messages that
   * come from elsewhere (isomorphic-git, node:fs) and may quote a path. */
  scrub(text: string): string {
    let out = text;
    for (const path of this.quarantinePaths) out = out.split(path).join('the pushed objects');
    out = out.replace(/[^\s'"()]*tmp_objdir-incoming-[^\s'"()]*/g, 'the pushed objects');
    // Any other object directory, or the repository itself (node:fs names the file it failed on).
    for (const path of this.serverPaths) {
      if (out.includes(path)) {
        const dir = this.dirs.find((d) => d.path === path);
        out = out.split(path).join(dir ? this.label(dir) : 'the repository');
      }
    }
    return out;
  }

  private packs(dir: ObjectDirectory): PackFile[] {
    let packs = this.packsByDir.get(dir.path);
    if (!packs) {
      packs = [];
      const packDir = join(dir.path, 'pack');
      let names: string[] = [];
      try {
        // A loose quarantine has no pack directory.
        if (existsSync(packDir)) names = readdirSync(packDir);
      } catch {
        names = [];
      }
      for (const name of names.sort()) {
        if (!name.endsWith('.idx')) continue;
        const packPath = join(packDir, name.slice(0, -4) + '.pack');
        const label = this.packLabel(dir, `${name.slice(0, -4)}.pack`);
        if (existsSync(packPath)) packs.push(new PackFile(packPath, join(packDir, name), this.bases, this.inflater, label, dir.quarantine ? WHOLE_PUSHED_PACK_BYTES : 0));
      }
      this.packsByDir.set(dir.path, packs);
    }
    return packs;
  }

  /** Every pack of every object directory, in directory order (for abbreviated oids). */
  allPacks(): PackFile[] {
    return this.dirs.flatMap((d) => this.packs(d));
  }

  /** Loose object names (38 hex digits after the fan-out) of the fan-out directory `xx` in
   * every object directory, for abbreviated oids. */
  looseInFanout(fanout: string): string[] {
    const out: string[] = [];
    for (const dir of this.dirs) {
      const names = this.fanoutNames(dir, fanout);
      if (names) for (const n of names) if (/^[0-9a-f]{38}$/.test(n)) out.push(fanout + n);
    }
    return out;
  }

  /** The loose names (38 hex digits) of `<dir>/<fanout>`, listed once; null when the fan-out
   * directory does not exist. Which fan-out directories exist is itself listed once per object
   * directory, so a quarantine holding a few objects costs one listing, not a failed listing
   * per fan-out. */
  private fanoutNames(dir: ObjectDirectory, fanout: string): Set<string> | null {
    const key = `${dir.path}/${fanout}`;
    let names = this.looseNames.get(key);
    if (names === undefined) {
      let present = this.fanouts.get(dir.path);
      if (!present) {
        try {
          present = new Set(readdirSync(dir.path));
        } catch {
          present = new Set();
        }
        this.fanouts.set(dir.path, present);
      }
      names = null;
      if (present.has(fanout)) {
        try {
          names = new Set(readdirSync(key));
        } catch {
          names = null;
        }
      }
      this.looseNames.set(key, names);
    }
    return names;
  }

  /** True when the fan-out directory listing (read once per directory, as git's loose-object
   * cache does) names the object. */
  private listedLoose(dir: ObjectDirectory, oid: string): boolean {
    // fanoutNames by the fan-out's number, per directory: no key string per look-up.
    let table = this.looseTables.get(dir);
    if (!table) this.looseTables.set(dir, (table = new Array<Set<string> | null | undefined>(256)));
    const fanout = (HEX_DIGIT[oid.charCodeAt(0) & 0x7f]! << 4) | HEX_DIGIT[oid.charCodeAt(1) & 0x7f]!;
    let names = table[fanout];
    if (names === undefined) names = table[fanout] = this.fanoutNames(dir, oid.slice(0, 2));
    return names !== null && names.size > 0 && names.has(oid.slice(2));
  }

  /** The first directory holding `oid` as a loose file (listed, or written since). */
  private looseFile(oid: string): { dir: ObjectDirectory; file: string } | null {
    for (const dir of this.dirs) {
      if (this.listedLoose(dir, oid)) return { dir, file: join(dir.path, oid.slice(0, 2), oid.slice(2)) };
    }
    return null;
  }

  /** Finds an object: loose objects first (in directory order), then packs. */
  locate(oid: string): ObjectLocation | null {
    return isOid(oid) ? this.locateOid(oid) : null;
  }

  /** `locate` for a full lowercase oid the caller checked. */
  locateOid(oid: string): ObjectLocation | null {
    const loose = this.looseFile(oid);
    if (loose) return { where: 'loose', ...loose };
    for (const dir of this.dirs) {
      for (const pack of this.packs(dir)) {
        const offset = pack.find(oid);
        if (offset !== null) return { where: 'pack', dir, pack, offset };
      }
    }
    // Written after its directory was listed (a note receipt-gate wrote, a concurrent push):
    // existsSync reports an absent file without building an error.
    for (const dir of this.dirs) {
      const file = join(dir.path, oid.slice(0, 2), oid.slice(2));
      if (existsSync(file)) {
        this.fanouts.delete(dir.path);
        this.looseNames.delete(`${dir.path}/${oid.slice(0, 2)}`);
        this.looseTables.delete(dir);
        return { where: 'loose', dir, file };
      }
    }
    return null;
  }

  /** True when the object is in a quarantine directory and in no other object directory: the
   * push brought it and the repository did not hold it before. Each directory is asked through
   * its listings (read once, shared with `locate`): an object the repository received after
   * they were read counts as pushed, so it is checked rather than trusted. */
  isNewInQuarantine(oid: string): boolean {
    if (!isOid(oid)) return false;
    let inQuarantine = false;
    for (const dir of this.dirs) {
      const here = this.listedLoose(dir, oid) || this.packs(dir).some((p) => p.find(oid) !== null);
      if (here && !dir.quarantine) return false;
      if (here) inQuarantine = true;
    }
    return inQuarantine;
  }

  /** Where a quarantine directory holds the object, whether or not another directory holds
   * it too (asked through the quarantine's listings only); null when none does. */
  quarantineLocation(oid: string): ObjectLocation | null {
    if (!isOid(oid)) return null;
    for (const dir of this.dirs) {
      if (!dir.quarantine) continue;
      if (this.listedLoose(dir, oid)) return { where: 'loose', dir, file: join(dir.path, oid.slice(0, 2), oid.slice(2)) };
      for (const pack of this.packs(dir)) {
        const offset = pack.find(oid);
        if (offset !== null) return { where: 'pack', dir, pack, offset };
      }
    }
    return null;
  }

  /** Type and size from the object's header, without reading the object: the first bytes of
   * a loose file, or the pack entry headers. */
  header(oid: string, depth = 0): PackedHeader | null {
    const loc = this.locate(oid);
    return loc ? this.headerAt(oid, loc, depth) : null;
  }

  /** `header` for an object already located. */
  headerAt(oid: string, loc: ObjectLocation, depth = 0): PackedHeader {
    if (depth > MAX_CROSS_PACK_DEPTH) throw crossPackLoop(oid);
    if (loc.where === 'loose') return looseHeader(oid, loc.file, this.label(loc.dir));
    return loc.pack.header(oid, loc.offset, (base) => this.header(base, depth + 1));
  }

  /** Rebuilds a packed object with pack.ts (no SHA-1 check: the store checks it). A REF_DELTA
   * base in another pack is rebuilt the same way; one that is a loose object comes from
   * `looseBase`, or LooseBaseNeeded is thrown so the caller can read it first. */
  readPacked(
    oid: string,
    loc: PackedLocation,
    looseBase: (oid: string) => { type: ObjectType; data: Buffer } | undefined,
    check?: (type: ObjectType, size: number) => void,
    depth = 0,
  ): { type: ObjectType; data: Buffer } {
    if (depth > MAX_CROSS_PACK_DEPTH) throw crossPackLoop(oid);
    return loc.pack.read(oid, loc.offset, (base) => {
      const at = this.locate(base);
      if (!at) throw new GitReadError(`Object ${oid} is a delta against ${base}, which is not in the repository; the pack is incomplete. Run \`git fsck\`.`, oid, true);
      if (at.where === 'pack') return this.readPacked(base, at, looseBase, undefined, depth + 1);
      const hit = looseBase(base);
      if (hit) return hit;
      throw new LooseBaseNeeded(base);
    }, check);
  }

  close(): void {
    for (const packs of this.packsByDir.values()) for (const p of packs) p.close();
    this.packsByDir.clear();
    this.inflater.close();
  }

  /** The bytes of a loose file as stored (deflated), read once. A failure is said without
   * the file's absolute path. */
  looseBytes(oid: string, loc: LooseLocation): Buffer {
    try {
      return readFileSync(loc.file);
    } catch (err) {
      throw unreadable(`object ${oid} (loose, in ${this.label(loc.dir)})`, err, oid);
    }
  }
}

/** A loose object's header (`<type> <size>`, without its NUL). */
export function parseLooseHeader(oid: string, head: Buffer, where: string): PackedHeader {
  const m = /^(blob|tree|commit|tag) (0|[1-9][0-9]*)$/.exec(head.toString('latin1'));
  if (!m) throw new GitReadError(`Object ${oid} (loose, in ${where}) has no valid object header; the object is corrupt. Run \`git fsck\`.`, oid, true);
  return { type: m[1] as ObjectType, size: Number(m[2]) };
}

/** Type and size of a loose object from the first bytes of its file. */
function looseHeader(oid: string, file: string, where: string): PackedHeader {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw unreadable(`object ${oid} (loose, in ${where})`, err, oid);
  }
  try {
    for (let take = 256; ; take *= 8) {
      const buf = Buffer.allocUnsafe(take);
      let n: number;
      try {
        n = readSync(fd, buf, 0, take, 0);
      } catch (err) {
        throw unreadable(`object ${oid} (loose, in ${where})`, err, oid);
      }
      const found = looseHeaderOfPrefix(oid, buf.subarray(0, n), n < take, where);
      if (found) return found;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * The header of a loose object from the first bytes of its deflated file (`whole`: they are
 * all of it), or null when more bytes are needed: a few dozen inflated bytes hold it, unless a
 * block's code tables are long. A GitReadError when the bytes do not inflate or hold no header.
 */
export function looseHeaderOfPrefix(oid: string, prefix: Buffer, whole: boolean, where: string): PackedHeader | null {
  let out: Buffer;
  try {
    out = inflateSync(prefix, { finishFlush: zlibConstants.Z_SYNC_FLUSH });
  } catch (err) {
    throw new GitReadError(`Object ${oid} (loose, in ${where}) does not inflate: ${(err as Error).message}. Run \`git fsck\`.`, oid, true);
  }
  const nul = out.indexOf(0);
  if (nul >= 0) return parseLooseHeader(oid, out.subarray(0, nul), where);
  if (whole || out.length > 64) {
    throw new GitReadError(`Object ${oid} (loose, in ${where}) has no valid object header; the object is corrupt. Run \`git fsck\`.`, oid, true);
  }
  return null;
}
