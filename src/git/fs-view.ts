// The filesystem isomorphic-git sees.
//
// isomorphic-git only knows `<gitdir>/objects/xx/…` and `<gitdir>/objects/pack`; it has no
// notion of git's quarantine (pre-receive), of GIT_ALTERNATE_OBJECT_DIRECTORIES or of
// `objects/info/alternates` (`git clone --shared`). Its one extension point is the injected
// `fs`, so this view makes every object git could read look like a loose object under
// `<gitdir>/objects`:
//
//   - loose objects are served from the first object directory of the ordered list that has
//     them (quarantine → alternates from the environment → the repository's objects → each
//     directory's info/alternates, recursively);
//   - packed objects are read here (see pack.ts) and handed over as a loose object, so
//     isomorphic-git never loads a pack (the pack directory looks empty to it);
//   - every write fails; every promise method does its work synchronously (no thread-pool hop).

import { existsSync, readdirSync, readFileSync, statSync, openSync, readSync, closeSync } from 'node:fs';
import { isAbsolute, join, resolve } from 'node:path';
import { constants as zlibConstants, deflateSync, inflateSync } from 'node:zlib';
import type * as git from 'isomorphic-git';
import { BaseCache, PackFile, type PackedHeader } from './pack';
import { GitReadError, type ObjectType } from './types';

/** Bytes of rebuilt delta bases kept between reads. */
const BASE_CACHE_BYTES = 8 * 1024 * 1024;

const OID_RE = /^[0-9a-f]{40}$/;

/** REF_DELTA bases found in another pack (or loose) followed before giving up: such chains are
 * short in real repositories; a loop means corrupt packs. */
const MAX_CROSS_PACK_DEPTH = 64;

function crossPackLoop(oid: string): GitReadError {
  return new GitReadError(`Object ${oid} is a delta whose bases, across packs, form a chain too long or a loop; the packs are corrupt. Run \`git fsck\`.`, oid);
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

/** Object directories with their packs, and a read-only fs for isomorphic-git over them. */
export class ObjectsView {
  private packsByDir = new Map<string, PackFile[]>();
  private readonly bases = new BaseCache(BASE_CACHE_BYTES);
  /** Loose object names per fan-out directory (`<objects>/xx`); null: no such directory. */
  private readonly looseNames = new Map<string, Set<string> | null>();
  private readonly objectsPrefix: string;

  constructor(
    readonly gitdir: string,
    readonly dirs: ObjectDirectory[],
  ) {
    this.objectsPrefix = join(gitdir, 'objects') + '/';
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
        if (existsSync(packPath)) packs.push(new PackFile(packPath, join(packDir, name), this.bases));
      }
      this.packsByDir.set(dir.path, packs);
    }
    return packs;
  }

  /** True when the fan-out directory listing (read once per directory, as git's loose-object
   * cache does) names the object. */
  private listedLoose(dir: ObjectDirectory, oid: string): boolean {
    const key = `${dir.path}/${oid.slice(0, 2)}`;
    let names = this.looseNames.get(key);
    if (names === undefined) {
      try {
        names = new Set(readdirSync(key));
      } catch {
        names = null;
      }
      this.looseNames.set(key, names);
    }
    return names !== null && names.has(oid.slice(2));
  }

  /** Finds an object: loose objects first (in directory order), then packs. */
  locate(oid: string): ObjectLocation | null {
    if (!OID_RE.test(oid)) return null;
    for (const dir of this.dirs) {
      if (this.listedLoose(dir, oid)) return { where: 'loose', dir, file: join(dir.path, oid.slice(0, 2), oid.slice(2)) };
    }
    for (const dir of this.dirs) {
      for (const pack of this.packs(dir)) {
        const offset = pack.find(oid);
        if (offset !== null) return { where: 'pack', dir, pack, offset };
      }
    }
    // Written after its directory was listed.
    for (const dir of this.dirs) {
      const file = join(dir.path, oid.slice(0, 2), oid.slice(2));
      if (existsSync(file)) return { where: 'loose', dir, file };
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

  /** Type and size from the object's header, without inflating the object. Null: absent. */
  header(oid: string, depth = 0): PackedHeader | null {
    if (depth > MAX_CROSS_PACK_DEPTH) throw crossPackLoop(oid);
    const loc = this.locate(oid);
    if (!loc) return null;
    if (loc.where === 'loose') return looseHeader(oid, loc.file);
    return loc.pack.header(oid, loc.offset, (base) => this.header(base, depth + 1));
  }

  /** The full object (type and content), read without isomorphic-git. */
  readRaw(oid: string, depth = 0, located?: ObjectLocation): { type: ObjectType; data: Buffer } {
    if (depth > MAX_CROSS_PACK_DEPTH) throw crossPackLoop(oid);
    const loc = located ?? this.locate(oid);
    if (!loc) throw new GitReadError(`Object ${oid} is not in the repository.`, oid);
    if (loc.where === 'pack') return loc.pack.read(oid, loc.offset, (base) => this.readRaw(base, depth + 1));
    const wrapped = inflateLoose(oid, loc.file);
    const nul = wrapped.indexOf(0);
    const head = parseLooseHeader(oid, wrapped.subarray(0, nul < 0 ? wrapped.length : nul), loc.file);
    return { type: head.type, data: wrapped.subarray(nul + 1) };
  }

  /** A loose-object encoding of `oid` (zlib of `<type> <size>\0<content>`), as isomorphic-git
   * reads it from `objects/xx/…`, or null when the object is absent. */
  private looseBytes(oid: string): Buffer | null {
    const loc = this.locate(oid);
    if (!loc) return null;
    if (loc.where === 'loose') {
      try {
        return readFileSync(loc.file);
      } catch (err) {
        throw new GitReadError(`Cannot read object ${oid} (${loc.file}): ${(err as Error).message}.`, oid);
      }
    }
    const { type, data } = loc.pack.read(oid, loc.offset, (base) => this.readRaw(base));
    // Level 0 ("stored"): the bytes are only framed, not compressed; isomorphic-git inflates
    // them and checks the SHA-1 of the result against the oid.
    return deflateSync(Buffer.concat([Buffer.from(`${type} ${data.length}\0`, 'latin1'), data]), { level: 0 });
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

  /** The fs object handed to isomorphic-git: `{ promises }` with read-only methods. */
  fs(): git.PromiseFsClient {
    const readFile = async (path: string, opts?: unknown): Promise<Buffer | string> => {
      if (typeof path !== 'string') throw enoent(String(path));
      const encoding = typeof opts === 'string' ? opts : (opts as { encoding?: string } | undefined)?.encoding;
      const rel = this.objectPath(path);
      let buf: Buffer;
      if (rel !== null) {
        const m = /^([0-9a-f]{2})\/([0-9a-f]{38})$/.exec(rel);
        const bytes = m ? this.looseBytes(m[1]! + m[2]!) : null;
        if (!bytes) throw enoent(path);
        buf = bytes;
      } else {
        buf = readFileSync(path);
      }
      return encoding ? buf.toString(encoding as BufferEncoding) : buf;
    };
    // Only existence and the file/directory distinction matter to isomorphic-git: a virtual
    // loose object is reported with the stat of a real file (HEAD), the object and pack
    // directories with the stat of the git directory.
    const stat = async (path: string) => {
      const rel = this.objectPath(path);
      if (rel === '' || rel === 'pack') return statSync(this.gitdir);
      if (rel !== null) {
        const m = /^([0-9a-f]{2})\/([0-9a-f]{38})$/.exec(rel);
        if (m && this.locate(m[1]! + m[2]!)) return statSync(join(this.gitdir, 'HEAD'));
        throw enoent(path);
      }
      return statSync(path);
    };
    // Packs and fan-out directories list as empty: every object is reached by its full name.
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

function parseLooseHeader(oid: string, head: Buffer, file: string): PackedHeader {
  const m = /^(blob|tree|commit|tag) (0|[1-9][0-9]*)$/.exec(head.toString('latin1'));
  if (!m) throw new GitReadError(`Object ${oid} (${file}) has no valid loose-object header; the object is corrupt. Run \`git fsck\`.`, oid);
  return { type: m[1] as ObjectType, size: Number(m[2]) };
}

function inflateLoose(oid: string, file: string): Buffer {
  try {
    return inflateSync(readFileSync(file));
  } catch (err) {
    throw new GitReadError(`Object ${oid} (${file}) cannot be read or inflated: ${(err as Error).message}. Run \`git fsck\`.`, oid);
  }
}

/** Type and size of a loose object from the first bytes of its file. */
function looseHeader(oid: string, file: string): PackedHeader {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch (err) {
    throw new GitReadError(`Cannot open object ${oid} (${file}): ${(err as Error).message}.`, oid);
  }
  try {
    for (let take = 256; ; take *= 8) {
      const buf = Buffer.allocUnsafe(take);
      const n = readSync(fd, buf, 0, take, 0);
      let out: Buffer;
      try {
        out = inflateSync(buf.subarray(0, n), { finishFlush: zlibConstants.Z_SYNC_FLUSH });
      } catch (err) {
        throw new GitReadError(`Object ${oid} (${file}) does not inflate: ${(err as Error).message}. Run \`git fsck\`.`, oid);
      }
      const nul = out.indexOf(0);
      if (nul >= 0) return parseLooseHeader(oid, out.subarray(0, nul), file);
      if (n < take || out.length > 64) {
        throw new GitReadError(`Object ${oid} (${file}) has no valid loose-object header; the object is corrupt. Run \`git fsck\`.`, oid);
      }
    }
  } finally {
    closeSync(fd);
  }
}
