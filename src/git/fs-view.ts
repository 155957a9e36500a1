// The filesystem isomorphic-git sees.
//
// isomorphic-git only knows `<gitdir>/objects/xx/…` and `<gitdir>/objects/pack`; it has no
// notion of git's quarantine (pre-receive), of GIT_ALTERNATE_OBJECT_DIRECTORIES or of
// `objects/info/alternates` (`git clone --shared`). Its one extension point is the injected
// `fs`, so this view shows it the loose objects of every object directory git would read:
//
//   - `<gitdir>/objects/xx/…` is the loose file of the first object directory of the ordered
//     list that has it (quarantine → alternates from the environment → the repository's
//     objects → each directory's info/alternates, recursively), served byte for byte;
//   - `objects/pack` lists as empty: packed objects are read by pack.ts directly (the store
//     asks `locate` first), never by isomorphic-git, which would load a pack whole;
//   - every other path is the real file (config, refs), read synchronously;
//   - every write fails; every promise method does its work synchronously (no thread-pool hop).
//
// The view checks no SHA-1 and re-encodes nothing: the store checks every object once.

import { existsSync, readdirSync, readFileSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { constants as zlibConstants, inflateSync } from 'node:zlib';
import type * as git from 'isomorphic-git';
import { BaseCache, PackFile, unreadable, type PackedHeader } from './pack';
import { GitReadError, type ObjectType } from './types';

/** Bytes of rebuilt delta bases kept between reads. */
const BASE_CACHE_BYTES = 8 * 1024 * 1024;

const OID_RE = /^[0-9a-f]{40}$/;

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
  let text: string;
  try {
    text = readFileSync(join(objectsDir, 'info', 'alternates'), 'utf8');
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

/** isomorphic-git probes paths that do not exist on every call and only looks at `code`:
 * the error is made without capturing a stack trace, which would cost more than the read. */
function enoent(path: string): NodeJS.ErrnoException {
  const limit = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const err: NodeJS.ErrnoException = new Error(`ENOENT: no such file or directory, '${path}'`);
  Error.stackTraceLimit = limit;
  err.code = 'ENOENT';
  return err;
}

function erofs(path: string): NodeJS.ErrnoException {
  const err: NodeJS.ErrnoException = new Error(`EROFS: receipt-gate never writes to a repository ('${path}')`);
  err.code = 'EROFS';
  return err;
}

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

/** Object directories with their packs, and a read-only fs for isomorphic-git over them. */
export class ObjectsView {
  private packsByDir = new Map<string, PackFile[]>();
  private readonly bases = new BaseCache(BASE_CACHE_BYTES);
  /** Loose object names per fan-out directory (`<objects>/xx`); null: no such directory. */
  private readonly looseNames = new Map<string, Set<string> | null>();
  private readonly objectsPrefix: string;
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
    this.objectsPrefix = join(gitdir, 'objects') + '/';
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
        names = readdirSync(packDir);
      } catch {
        names = [];
      }
      for (const name of names.sort()) {
        if (!name.endsWith('.idx')) continue;
        const packPath = join(packDir, name.slice(0, -4) + '.pack');
        const label = this.packLabel(dir, `${name.slice(0, -4)}.pack`);
        if (existsSync(packPath)) packs.push(new PackFile(packPath, join(packDir, name), this.bases, label));
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

  private fanoutNames(dir: ObjectDirectory, fanout: string): Set<string> | null {
    const key = `${dir.path}/${fanout}`;
    let names = this.looseNames.get(key);
    if (names === undefined) {
      try {
        names = new Set(readdirSync(key));
      } catch {
        names = null;
      }
      this.looseNames.set(key, names);
    }
    return names;
  }

  /** True when the fan-out directory listing (read once per directory, as git's loose-object
   * cache does) names the object. */
  private listedLoose(dir: ObjectDirectory, oid: string): boolean {
    const names = this.fanoutNames(dir, oid.slice(0, 2));
    return names !== null && names.has(oid.slice(2));
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
    if (!OID_RE.test(oid)) return null;
    const loose = this.looseFile(oid);
    if (loose) return { where: 'loose', ...loose };
    for (const dir of this.dirs) {
      for (const pack of this.packs(dir)) {
        const offset = pack.find(oid);
        if (offset !== null) return { where: 'pack', dir, pack, offset };
      }
    }
    // Written after its directory was listed.
    for (const dir of this.dirs) {
      const file = join(dir.path, oid.slice(0, 2), oid.slice(2));
      if (existsSync(file)) {
        this.looseNames.delete(`${dir.path}/${oid.slice(0, 2)}`);
        return { where: 'loose', dir, file };
      }
    }
    return null;
  }

  /** True when the object is in a quarantine directory and in no other object directory: the
   * push brought it and the repository did not hold it before. */
  isNewInQuarantine(oid: string): boolean {
    if (!OID_RE.test(oid)) return false;
    let inQuarantine = false;
    for (const dir of this.dirs) {
      const here = existsSync(join(dir.path, oid.slice(0, 2), oid.slice(2))) || this.packs(dir).some((p) => p.find(oid) !== null);
      if (here && !dir.quarantine) return false;
      if (here) inQuarantine = true;
    }
    return inQuarantine;
  }

  /** Type and size from the object's header, without reading the object: the first bytes of
   * a loose file (isomorphic-git can only read one whole), or the pack entry headers. */
  header(oid: string, depth = 0): PackedHeader | null {
    if (depth > MAX_CROSS_PACK_DEPTH) throw crossPackLoop(oid);
    const loc = this.locate(oid);
    if (!loc) return null;
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
  }

  private objectPath(path: string): string | null {
    const normal = resolve(path);
    if (normal + '/' === this.objectsPrefix) return '';
    return normal.startsWith(this.objectsPrefix) ? normal.slice(this.objectsPrefix.length) : null;
  }

  /** The loose file `objects/xx/yyyy…` names, in the first directory that has it. */
  private looseFor(rel: string): { dir: ObjectDirectory; file: string } | null {
    const m = /^([0-9a-f]{2})\/([0-9a-f]{38})$/.exec(rel);
    return m ? this.looseFile(m[1]! + m[2]!) : null;
  }

  /** The fs object handed to isomorphic-git: `{ promises }` with read-only methods. */
  fs(): git.PromiseFsClient {
    const readFile = async (path: string, opts?: unknown): Promise<Buffer | string> => {
      if (typeof path !== 'string') throw enoent(String(path));
      const encoding = typeof opts === 'string' ? opts : (opts as { encoding?: string } | undefined)?.encoding;
      const rel = this.objectPath(path);
      let file = path;
      if (rel !== null) {
        const loose = this.looseFor(rel);
        if (!loose) throw enoent(path);
        file = loose.file;
      }
      let buf: Buffer;
      try {
        buf = readFileSync(file);
      } catch (err) {
        // A loose object that cannot be read: said without its absolute path.
        if (rel !== null) throw unreadable(`object ${rel.replace('/', '')} (loose, in ${this.label(this.looseFor(rel)!.dir)})`, err, rel.replace('/', ''));
        throw err;
      }
      return encoding ? buf.toString(encoding as BufferEncoding) : buf;
    };
    // Only existence and the file/directory distinction matter to isomorphic-git: the object
    // and pack directories have the stat of the git directory.
    const stat = async (path: string) => {
      const rel = this.objectPath(path);
      if (rel === '' || rel === 'pack') return statSync(this.gitdir);
      if (rel !== null) {
        const loose = this.looseFor(rel);
        if (loose) return statSync(loose.file);
        throw enoent(path);
      }
      return statSync(path);
    };
    // Packs and fan-out directories list as empty: every loose object is reached by its name.
    const readdir = async (path: string) => {
      const rel = this.objectPath(path);
      if (rel === 'pack' || (rel !== null && rel !== '')) return [];
      return readdirSync(path);
    };
    const refuse = async (path: string) => {
      throw erofs(String(path));
    };
    const promises = {
      readFile,
      stat,
      lstat: stat,
      readdir,
      readlink: refuse,
      writeFile: refuse,
      mkdir: refuse,
      rmdir: refuse,
      unlink: refuse,
      symlink: refuse,
      rm: refuse,
    };
    return { promises };
  }
}

/** A read-only, synchronous-underneath fs for isomorphic-git over the real files (config,
 * refs): for reads that need no object directories. */
export function plainReadOnlyFs(): git.PromiseFsClient {
  const readFile = async (path: string, opts?: unknown): Promise<Buffer | string> => {
    const encoding = typeof opts === 'string' ? opts : (opts as { encoding?: string } | undefined)?.encoding;
    let buf: Buffer;
    try {
      buf = readFileSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw enoent(path);
      throw err;
    }
    return encoding ? buf.toString(encoding as BufferEncoding) : buf;
  };
  const stat = async (path: string) => {
    try {
      return statSync(path);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw enoent(path);
      throw err;
    }
  };
  const refuse = async (path: string) => {
    throw erofs(String(path));
  };
  const readdir = async (path: string) => readdirSync(path);
  const promises = { readFile, stat, lstat: stat, readdir, readlink: refuse, writeFile: refuse, mkdir: refuse, rmdir: refuse, unlink: refuse, symlink: refuse, rm: refuse };
  return { promises };
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
