// The object database: every git object receipt-gate reads is found, read, checked and kept
// here, once.
//
//   - find: object-dirs.ts locates the object in the ordered object directories (quarantine,
//     alternates, the repository's own objects): a loose file or a pack entry;
//   - read: a packed object through pack.ts (positional reads, node:zlib, delta resolution); a
//     loose object by reading its file once and inflating it once with node:zlib, bounded by
//     the caller's size limit, so an object over the limit is refused without being inflated
//     past it;
//   - verify: the SHA-1 of `<type> <size>\0<content>`, with node:crypto, once per object
//     read, before it is kept or parsed; during a push, only for the objects in the push's
//     quarantine (the repository's own were checked by git when they arrived);
//   - cache: checked objects by oid within a byte budget (large blobs are not kept), with
//     their parsed forms once someone asked for them (a raw tree here; commits and tags in
//     commits.ts).
// Replace refs (refs/replace/) redirect every lookup, as in git.
//
// isomorphic-git does not read objects. Its `readObject` would locate a loose file a second
// time through an fs shim (stat, then read) after this module located it (it must: a loose
// object may sit in the quarantine, an alternate or the repository's own objects, and a
// packed one must never reach isomorphic-git, which loads a pack whole); it builds a
// FileSystem and discovers the git directory on every call, inflates in JavaScript, and
// checks no SHA-1 for the raw formats. Reading the file and inflating it here is the same
// bytes, once. isomorphic-git reads the config (config.ts) and writes notes (notes.ts).
//
// Every failure is a GitReadError whose message names the object and the repository, never
// the push's quarantine directory.

import { objectId } from './object-id';
import { join } from 'node:path';
import { inflateSync } from 'node:zlib';
import { LooseBaseNeeded, ObjectsView, looseHeaderOfPrefix, parseLooseHeader, type LooseLocation, type ObjectDirectory, type ObjectLocation, type PackedLocation } from './object-dirs';
import type { RepositoryConfig } from './config';
import type { RefReader } from './refs';
import { quoteRefName } from '../quote';
import { RawTree } from './raw-tree';
import { GitReadError, type CommitRecord, type ObjectType } from './types';
import type { ParsedTag } from './parse/tag';
import { isOid } from '../types';


/** The most a loose object is inflated into by the store's engine in one go (larger ones: inflateSync). */
const LOOSE_ROOM_MAX = 1 << 20;
/** An object was not read because it is larger than a limit (the engine: LIMIT_EXCEEDED). */
export class ObjectTooLargeError extends GitReadError {
  constructor(
    oid: string,
    readonly size: number,
    readonly limit: number,
    what = 'Object',
  ) {
    super(`${what} ${oid} is ${size} bytes, over the limit of ${limit} bytes; it was not read.`, oid);
    this.name = 'ObjectTooLargeError';
  }
}

/** A blob was not read because it is larger than the caller's limit. */
export class BlobTooLargeError extends ObjectTooLargeError {
  constructor(oid: string, size: number, limit: number) {
    super(oid, size, limit, 'Blob');
    this.name = 'BlobTooLargeError';
  }
}

/** Commits, tags and trees larger than this are not read (a 100 MB commit message would
 * otherwise be inflated whole, past any deadline, before its header could be parsed). No
 * real history comes near it: git.git's largest commit is a few kilobytes. */
export const MAX_NON_BLOB_BYTES = 64 * 1024 * 1024;

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Bytes of checked objects kept by oid (content plus a per-object allowance). */
const OBJECT_CACHE_BYTES = 16 * 1024 * 1024;
/** Blobs larger than this are never kept (witnesses, generators: read once, hashed, dropped). */
const MAX_CACHED_BLOB_BYTES = 256 * 1024;
/** What each kept object costs beyond its content (Map entry, object headers, parsed form). */
const CACHE_ENTRY_OVERHEAD = 160;
/** Oids known to be trees, kept for `isKnownTree` (a set of strings, no content). */
const MAX_KNOWN_TREES = 200_000;
/** Headers objectInfo learnt without reading the object, kept for the read that follows. */
const MAX_KNOWN_HEADERS = 4096;
/** Replace refs git follows for one lookup before it dies (MAXREPLACEDEPTH, replace-object.h). */
const MAX_REPLACE_DEPTH = 5;
/** The longest loose object header, `<type> <size>\0` (`commit ` and 16 digits, a NUL). */
const MAX_LOOSE_HEADER = 32;

/** A checked object as the cache keeps it, with its parsed form once someone asked for it. */
export interface StoredObject {
  readonly type: ObjectType;
  readonly content: Uint8Array;
  commit?: CommitRecord;
  tag?: ParsedTag;
  tree?: RawTree;
  /** Bytes charged to the budget. */
  cost: number;
  /** Read again since it was kept or last passed over by the cache's eviction (see keep). */
  hot: boolean;
}

/** What a read asks for. */
interface ReadRequest {
  /** The type the object must have. */
  expected?: ObjectType;
  /** The largest blob accepted (readBlob's `maxBytes`); commits, trees and tags are limited to
   * MAX_NON_BLOB_BYTES. */
  maxBlob?: number;
  /** How the message for an absent object names it ('Object' by default). */
  what?: string;
}

export class ObjectDatabase {
  readonly hasQuarantine: boolean;
  /** The repository's own object directory, `<commondir>/objects` (not the quarantine, not an
   * alternate): where git keeps the commit-graph the walks read (src/git/commit-graph.ts). */
  readonly ownDirectory: string;
  /** Where replace refs live: GIT_REPLACE_REF_BASE, refs/replace/ by default. */
  readonly replaceRefBase: string;
  private readonly view: ObjectsView;
  /** Checked objects by oid, least recently used first. */
  private readonly objects = new Map<string, StoredObject>();
  private objectBytes = 0;
  private readonly knownTrees = new Set<string>();
  /** The object isInQuarantineNow found last, and where. */
  private lastQuarantined: { oid: string; loc: ObjectLocation } | null = null;
  /** Headers objectInfo read, with where the object lives, for the read that follows. */
  private readonly headers = new Map<string, { type: ObjectType; size: number; loc: ObjectLocation }>();
  /** Replaced oid -> replacement oid, from the replace refs (null until first needed; empty
   * when replacement is off). */
  private replacements: Map<string, string> | null = null;
  /** False with GIT_NO_REPLACE_OBJECTS set (to anything), as in git. */
  private readonly replaceEnabled: boolean;

  /**
   * @param commondir where the repository's own objects live
   * @param dirs the object directories in the order git reads them (objectDirectories)
   * @param refs where the replace refs are read
   * @param config whether replace refs are used (core.useReplaceRefs)
   */
  constructor(
    commondir: string,
    dirs: ObjectDirectory[],
    private readonly refs: RefReader,
    private readonly config: RepositoryConfig,
    env: NodeJS.ProcessEnv,
  ) {
    this.hasQuarantine = dirs.some((d) => d.quarantine);
    this.view = new ObjectsView(commondir, dirs);
    this.ownDirectory = join(commondir, 'objects');
    const base = env.GIT_REPLACE_REF_BASE;
    this.replaceRefBase = base ? (base.endsWith('/') ? base : `${base}/`) : 'refs/replace/';
    this.replaceEnabled = env.GIT_NO_REPLACE_OBJECTS === undefined;
  }

  /** Closes open pack files. The database is unusable afterwards. */
  close(): void {
    this.view.close();
  }

  /**
   * The replace refs in force, as git's replace-object.c reads them: every ref under
   * `replaceRefBase` (inside GIT_NAMESPACE: the namespace's own, the ones its clones get) whose
   * name after the base starts with 40 hex digits replaces that object with the object the ref
   * names. Off with GIT_NO_REPLACE_OBJECTS or core.useReplaceRefs=false. Two refs replacing one
   * object make git die ("duplicate replace ref"): a GitReadError here too.
   */
  private async replaceMap(): Promise<Map<string, string>> {
    if (this.replacements) return this.replacements;
    const map = new Map<string, string>();
    const use = this.replaceEnabled ? await this.config.value('core.useReplaceRefs') : 'false';
    if (use === null || !/^(false|no|off|0)$/i.test(use.trim())) {
      // Only a folder of refs/ is listed: git would list another base too, but no push of this
      // gate can write outside refs/.
      const entries = this.replaceRefBase.startsWith('refs/') ? this.refs.entries(this.replaceRefBase) : [];
      for (const e of entries) {
        if (!e.name.startsWith(this.replaceRefBase) || e.oid === null) continue;
        const hex = e.name.slice(this.replaceRefBase.length, this.replaceRefBase.length + 40);
        if (!/^[0-9a-fA-F]{40}$/.test(hex)) continue; // git warns "bad replace ref name" and skips it
        const original = hex.toLowerCase();
        if (map.has(original)) throw new GitReadError(`Two replace refs replace the object ${original} (one is ${quoteRefName(e.name)}); git refuses to read the repository ("duplicate replace ref"). Delete one with \`git replace -d\`.`, original);
        map.set(original, e.oid);
      }
    }
    this.replacements = map;
    return map;
  }

  /** True when replace refs are in force (the commit-graph is then not used, as in git). */
  async hasReplacements(): Promise<boolean> {
    return (await this.replaceMap()).size > 0;
  }

  /** True once the replace refs were read and none is in force: what other sources record
   * about an object (packed-refs' peeled tags) then describes the object git reads. */
  knownUnreplaced(): boolean {
    return this.replacements !== null && this.replacements.size === 0;
  }

  /** The object git reads for `oid`: its replacement, followed as git follows it (at most
   * MAX_REPLACE_DEPTH replace refs), or `oid` itself. */
  private async lookupReplace(oid: string): Promise<string> {
    return this.replaced(this.replacements ?? (await this.replaceMap()), oid);
  }

  /** lookupReplace with the replace refs read. */
  private replaced(map: Map<string, string>, oid: string): string {
    if (map.size === 0) return oid;
    let current = oid;
    for (let depth = 0; depth < MAX_REPLACE_DEPTH; depth++) {
      const next = map.get(current);
      if (next === undefined) return current;
      current = next;
    }
    throw new GitReadError(`The replace refs for object ${oid} form a chain deeper than ${MAX_REPLACE_DEPTH} (or a loop); git dies on it too ("replace depth too high"). Repair them with \`git replace -d\`.`, oid);
  }

  private absent(oid: string, what = 'Object'): GitReadError {
    return new GitReadError(`${what} ${oid} is not in the repository${this.hasQuarantine ? ' nor in the push' : ''}.`, oid);
  }

  /** The checked object (cached by oid). The type must be `expected` when given. Commits,
   * trees and tags over MAX_NON_BLOB_BYTES are refused (ObjectTooLargeError). */
  async read(requested: string, expected?: ObjectType): Promise<StoredObject> {
    return (await this.readRequested(requested, { expected }, false))!;
  }

  /**
   * Reads the replace refs (once): after it, the `...Now` reads answer synchronously. Every
   * read of an object is synchronous underneath (positional reads, zlib's sync calls); only
   * the replace refs need the config, which is read asynchronously. A walk over many objects
   * (a tree diff) calls this once and then reads without a promise per object.
   */
  async ready(): Promise<void> {
    if (this.replacements === null) await this.replaceMap();
  }

  /** `read`, synchronously: only after `ready()`. */
  readNow(requested: string, expected?: ObjectType): StoredObject {
    return this.readRequestedNow(requested, { expected }, false)!;
  }

  /** The object, or null when it is absent (with `orNull`). */
  private async readRequested(requested: string, request: ReadRequest, orNull: boolean): Promise<StoredObject | null> {
    if (this.replacements === null) await this.replaceMap();
    return this.readRequestedNow(requested, request, orNull);
  }

  /** readRequested with the replace refs read. */
  private readRequestedNow(requested: string, request: ReadRequest, orNull: boolean): StoredObject | null {
    const map = this.replacements;
    if (map === null) throw new Error('ObjectDatabase: a synchronous read before ready()');
    // Every lookup goes through the replace refs, as git's does; the cache holds objects by
    // their own oid (a delta base is never replaced). The cache holds full oids only, so a
    // name is checked for its form when the cache does not have it.
    const oid = map.size === 0 ? requested : this.replaced(map, requested);
    const { expected, maxBlob } = request;
    let hit = this.objects.get(oid);
    if (hit) {
      hit.hot = true;
    } else {
      if (!isOid(requested)) throw new GitReadError(`"${requested}" is not a full 40-hex object id.`, requested);
      if (oid === EMPTY_TREE) {
        hit = this.keep(oid, 'tree', new Uint8Array(0));
      } else {
        // `requested` was checked above; a replace ref's target is checked again.
        const last = this.lastQuarantined;
        const loc = this.headers.get(oid)?.loc ?? (last !== null && last.oid === oid ? last.loc : oid === requested ? this.view.locateOid(oid) : this.view.locate(oid));
        if (!loc) {
          if (orNull) return null;
          throw request.what === undefined ? this.absent(oid) : this.absent(requested, request.what);
        }
        const refuse = (type: ObjectType, size: number) => {
          if (expected === 'blob' && type !== 'blob') throw new GitReadError(`Object ${requested} is a ${type}, not a blob.`, requested);
          refuseLarge(oid, type, size, maxBlob);
        };
        // A loose object is inflated no further than the largest object the read accepts.
        const bound = (expected === 'blob' && maxBlob !== undefined ? maxBlob : MAX_NON_BLOB_BYTES) + MAX_LOOSE_HEADER;
        hit = this.readChecked(oid, loc, 0, refuse, bound);
      }
    }
    if (expected && hit.type !== expected) {
      const through = oid === requested ? '' : ` (read for ${requested} through a replace ref)`;
      throw new GitReadError(`Object ${oid}${through} is a ${hit.type}, not a ${expected}.`, requested);
    }
    return hit;
  }

  /**
   * Reads `oid` from where it was located, checks its SHA-1 and keeps it (budget
   * permitting). `refuse`, when given, sees the type and size as soon as they are known
   * (before a packed object is inflated; a loose one is inflated to `bound` bytes at most)
   * and throws to refuse the object.
   *
   * During a push (a quarantine is open) only the objects the push brought are checked: an
   * object of the repository's own directories (or its alternates) was checked by git when it
   * arrived, and git reads it without checking again. The push's objects are located in the
   * quarantine first, so an object the client sent again is checked too.
   */
  private readChecked(oid: string, loc: ObjectLocation, depth: number, refuse?: (type: ObjectType, size: number) => void, bound?: number): StoredObject {
    let read: { type: ObjectType; content: Uint8Array };
    try {
      read = loc.where === 'pack' ? this.readPacked(oid, loc, depth, refuse) : this.readLoose(oid, loc, refuse, bound);
    } catch (err) {
      throw this.scrubbedAny(err);
    }
    return this.checked(oid, loc, read.type, read.content);
  }

  /** The object read from `loc`, its SHA-1 checked (see readChecked), kept. */
  private checked(oid: string, loc: ObjectLocation, type: ObjectType, content: Uint8Array): StoredObject {
    if (this.hasQuarantine && !loc.dir.quarantine) return this.keep(oid, type, content);
    const sha = objectId(type, content);
    if (sha !== oid) {
      throw new GitReadError(`Object ${oid} in ${this.view.describe(loc, oid)} cannot be read (SHA-1 check failed: its content hashes to ${sha}); the object is corrupt. Run \`git fsck\`.`, oid, true);
    }
    return this.keep(oid, type, content);
  }

  /** `err` scrubbed when it is a GitReadError, else as it is. */
  private scrubbedAny(err: unknown): unknown {
    return err instanceof GitReadError ? this.scrubbed(err) : err;
  }

  /** A GitReadError whose message no longer names a quarantine path. */
  private scrubbed(err: GitReadError): GitReadError {
    const message = this.view.scrub(err.message);
    if (message === err.message) return err;
    return new GitReadError(message, err.oid, err.damaged);
  }

  /** A packed object through pack.ts; when a delta base is a loose object, that base is read
   * first (readWithLooseBases). */
  private readPacked(oid: string, loc: PackedLocation, depth: number, check?: (type: ObjectType, size: number) => void): { type: ObjectType; content: Uint8Array } {
    try {
      const { type, data } = this.view.readPacked(oid, loc, () => undefined, check);
      return { type, content: data };
    } catch (err) {
      if (err instanceof LooseBaseNeeded) return this.readWithLooseBases(oid, loc, depth, check);
      throw err;
    }
  }

  /** A packed object whose delta chain reaches loose objects: each such base is read first
   * (checked like any object), then the delta is rebuilt again. */
  private readWithLooseBases(oid: string, loc: PackedLocation, depth: number, check?: (type: ObjectType, size: number) => void): { type: ObjectType; content: Uint8Array } {
    const bases = new Map<string, { type: ObjectType; data: Buffer }>();
    for (;;) {
      try {
        const { type, data } = this.view.readPacked(oid, loc, (base) => bases.get(base), check);
        return { type, content: data };
      } catch (err) {
        if (!(err instanceof LooseBaseNeeded) || bases.has(err.oid) || depth > 8) {
          if (err instanceof LooseBaseNeeded) throw new GitReadError(`Object ${oid} is a delta whose bases form a loop; the repository is corrupt. Run \`git fsck\`.`, oid, true);
          throw err;
        }
        const at = this.objects.get(err.oid) ? null : this.view.locate(err.oid);
        const base = this.objects.get(err.oid) ?? (at ? this.readChecked(err.oid, at, depth + 1) : null);
        if (!base) throw this.absent(err.oid);
        bases.set(err.oid, { type: base.type, data: Buffer.from(base.content.buffer, base.content.byteOffset, base.content.byteLength) });
      }
    }
  }

  /**
   * A loose object: its file read once, inflated once (node:zlib), its header checked. The
   * inflation stops at `bound` bytes (the largest object the read accepts, with its header);
   * only an object that reaches it has its header inflated again from the file's first bytes,
   * to say how large it is (or, for a blob larger than the bound that the read accepts, to
   * inflate it whole).
   */
  private readLoose(oid: string, loc: LooseLocation, refuse?: (type: ObjectType, size: number) => void, bound?: number): { type: ObjectType; content: Uint8Array } {
    const deflated = this.view.looseBytes(oid, loc);
    const where = this.view.describe(loc, oid);
    const corrupt = (why: string) => new GitReadError(`Object ${oid} in ${where} ${why}; the object is corrupt. Run \`git fsck\`.`, oid, true);
    let wrapped: Buffer;
    try {
      // The store's zlib engine first (no stream set up per object), with room for what the
      // file most likely holds; anything else is inflateSync's, as before.
      const room = Math.min(bound ?? LOOSE_ROOM_MAX, LOOSE_ROOM_MAX, deflated.length * 8 + 512);
      wrapped = this.view.inflater.whole(deflated, room) ?? inflateSync(deflated, bound === undefined ? undefined : { maxOutputLength: bound });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ERR_BUFFER_TOO_LARGE') throw corrupt(`does not inflate (${(err as Error).message})`);
      const head = headerOfLoose(oid, deflated, where);
      refuse?.(head.type, head.size);
      // Accepted: a blob larger than the bound, read without a blob limit.
      if (head.size + MAX_LOOSE_HEADER <= bound!) throw corrupt('has no valid object header');
      try {
        wrapped = inflateSync(deflated);
      } catch (again) {
        throw corrupt(`does not inflate (${(again as Error).message})`);
      }
    }
    const nul = wrapped.indexOf(0);
    if (nul < 0 || nul >= MAX_LOOSE_HEADER) throw corrupt('has no valid object header');
    const { type, size } = parseLooseHeader(oid, wrapped.subarray(0, nul), where);
    refuse?.(type, size);
    if (size !== wrapped.length - nul - 1) throw corrupt('has no valid object header');
    return { type, content: wrapped.subarray(nul + 1) };
  }

  /**
   * Keeps a checked object within the byte budget. Over it, objects go out oldest kept first,
   * down to 90 % of it, except that one read again since it was kept (or since the last
   * eviction passed it) is passed over once and kept as if new (a second chance, as a clock
   * cache does): a hit only marks the object, where moving it to the map's end on every read
   * left a hole behind each time and made the map rebuild its table (thousands of entries)
   * every few thousand reads.
   */
  private keep(oid: string, type: ObjectType, content: Uint8Array): StoredObject {
    const entry: StoredObject = { type, content, cost: content.length + CACHE_ENTRY_OVERHEAD, hot: false };
    if (this.headers.size > 0) this.headers.delete(oid);
    if (type === 'blob' && content.length > MAX_CACHED_BLOB_BYTES) return entry;
    this.objects.set(oid, entry);
    this.objectBytes += entry.cost;
    if (this.objectBytes > OBJECT_CACHE_BYTES) {
      for (const [key, old] of this.objects) {
        if (this.objectBytes <= OBJECT_CACHE_BYTES * 0.9) break;
        this.objects.delete(key);
        if (old.hot) {
          // Kept as if new (met again at the end of this pass, and let go then if still needed).
          old.hot = false;
          this.objects.set(key, old);
        } else {
          this.objectBytes -= old.cost;
        }
      }
    }
    return entry;
  }

  /** Charges `bytes` more to a kept object (the parsed form a reader attached to it). */
  charge(oid: string, entry: StoredObject, bytes: number): void {
    entry.cost += bytes;
    if (this.objects.get(oid) === entry) this.objectBytes += bytes;
  }

  /** Notes that `oid` was read as a tree (diff.ts notes the top trees it asks the type of:
   * a tree the cache let go is then still known, without noting every tree read). */
  noteTree(oid: string): void {
    if (this.knownTrees.size >= MAX_KNOWN_TREES) this.knownTrees.clear();
    this.knownTrees.add(oid);
  }

  /** True when `oid` is known to be a tree (in the cache as one, or noted): no need to ask its
   * type again. */
  isKnownTree(oid: string): boolean {
    if (this.replacements !== null && this.replacements.size > 0) return false; // ask the replaced read
    return oid === EMPTY_TREE || this.objects.get(oid)?.type === 'tree' || this.knownTrees.has(oid);
  }

  /** The tree as raw entries, for comparisons that decode only what differs (cached by oid).
   * `like`: a tree it probably shares most bytes with (the same folder on the other side of a
   * diff), to split it from (RawTree.parseLike: the same RawTree, sooner). */
  async readRawTree(oid: string, like?: RawTree | null): Promise<RawTree> {
    return this.rawTreeOf(oid, await this.read(oid, 'tree'), like);
  }

  /** `readRawTree`, synchronously: only after `ready()`. */
  readRawTreeNow(oid: string, like?: RawTree | null): RawTree {
    return this.rawTreeOf(oid, this.readNow(oid, 'tree'), like);
  }

  /** The tree as raw entries when it was read and split already (in the cache, marked as read
   * again there, as readNow marks it), else null; reads nothing. Null too until `ready()` and
   * while replace refs are in force: readRawTreeNow reads through them. */
  cachedRawTree(oid: string): RawTree | null {
    if (this.replacements === null || this.replacements.size > 0) return null;
    const hit = this.objects.get(oid);
    if (hit === undefined || hit.tree === undefined) return null;
    hit.hot = true;
    return hit.tree;
  }

  private rawTreeOf(oid: string, entry: StoredObject, like?: RawTree | null): RawTree {
    if (!entry.tree) {
      entry.tree = like ? RawTree.parseLike(oid, entry.content, like) : RawTree.parse(oid, entry.content);
      // Four 32-bit numbers per entry (see RawTree.parse).
      this.charge(oid, entry, entry.tree.length * 16);
    }
    return entry.tree;
  }

  /** The type of the object `oid` names, read (and cached) whole, null when it is absent: a tree
   * is not split into entries yet, so the reader that compares it can split it from the tree
   * it resembles (readRawTree's `like`). */
  async typeOrNull(oid: string): Promise<ObjectType | null> {
    return (await this.readRequested(oid, {}, true))?.type ?? null;
  }

  /** `typeOrNull`, synchronously: only after `ready()`. */
  typeOrNullNow(oid: string): ObjectType | null {
    return this.readRequestedNow(oid, {}, true)?.type ?? null;
  }

  /** Reads a blob, refusing (BlobTooLargeError) when it is over `maxBytes`: a packed blob from
   * its entry headers before it is inflated, a loose one by inflating no further than the
   * limit. A header objectInfo learnt is not read again. */
  async readBlob(oid: string, maxBytes: number): Promise<Uint8Array> {
    const real = await this.lookupReplace(oid);
    const known = this.objects.get(real) ?? this.headers.get(real);
    if (known) {
      const info = 'content' in known ? { type: known.type, size: known.content.length } : { type: known.type, size: known.size };
      if (info.type !== 'blob') throw new GitReadError(`Object ${oid} is a ${info.type}, not a blob.`, oid);
      if (info.size > maxBytes) throw new BlobTooLargeError(oid, info.size, maxBytes);
    }
    return (await this.readRequested(oid, { expected: 'blob', maxBlob: maxBytes, what: 'Blob' }, false))!.content;
  }

  /** Type and size from the object's header (loose header or pack entry), without reading the
   * object; null when the object is absent. */
  async objectInfo(requested: string): Promise<{ type: ObjectType; size: number } | null> {
    if (!isOid(requested)) throw new GitReadError(`"${requested}" is not a full 40-hex object id.`, requested);
    const oid = await this.lookupReplace(requested); // as git's oid_object_info does
    if (oid === EMPTY_TREE) return { type: 'tree', size: 0 };
    const cached = this.objects.get(oid);
    if (cached) return { type: cached.type, size: cached.content.length };
    const known = this.headers.get(oid);
    if (known) return { type: known.type, size: known.size };
    const loc = this.view.locate(oid);
    if (!loc) return null;
    let info: { type: ObjectType; size: number };
    try {
      info = this.view.headerAt(oid, loc);
    } catch (err) {
      throw err instanceof GitReadError ? this.scrubbed(err) : err;
    }
    if (this.headers.size >= MAX_KNOWN_HEADERS) this.headers.clear();
    this.headers.set(oid, { ...info, loc });
    return info;
  }

  /** True when the repository (or the push) holds the object. */
  hasObject(oid: string): boolean {
    return isOid(oid) && (oid === EMPTY_TREE || this.objects.has(oid) || this.view.locateOid(oid) !== null);
  }

  /** True when the push brought the object: it is in the quarantine and the repository did
   * not already hold it (a client may resend objects the server has). */
  async isQuarantined(oid: string): Promise<boolean> {
    return this.isQuarantinedNow(oid);
  }

  /** `isQuarantined`, synchronously (the directories' listings are read with synchronous calls). */
  isQuarantinedNow(oid: string): boolean {
    if (!this.hasQuarantine) return false;
    return this.view.isNewInQuarantine(oid);
  }

  /** True when the object is in the push's quarantine, whether or not the repository held
   * it too (isQuarantinedNow says whether the push brought it). */
  isInQuarantineNow(oid: string): boolean {
    if (!this.hasQuarantine) return false;
    const loc = this.view.quarantineLocation(oid);
    // A walk reads the object next: it is read from there, not looked up again (and is
    // checked, as an object of the quarantine is).
    if (loc !== null) this.lastQuarantined = { oid, loc };
    return loc !== null;
  }

  /** Full oids of the objects (in every object directory: loose and packed) that start with
   * `prefix` (4 to 40 lowercase hex digits), sorted, at most `limit`. */
  async findAbbreviated(prefix: string, limit = 16): Promise<string[]> {
    if (!/^[0-9a-f]{4,40}$/.test(prefix)) throw new GitReadError(`"${prefix}" is not an abbreviated object id (4 to 40 hex digits).`);
    const found = new Set<string>();
    for (const oid of this.view.looseInFanout(prefix.slice(0, 2))) if (oid.startsWith(prefix)) found.add(oid);
    for (const pack of this.view.allPacks()) for (const oid of pack.findPrefix(prefix, limit + 1)) found.add(oid);
    if (EMPTY_TREE.startsWith(prefix)) found.add(EMPTY_TREE);
    return [...found].sort().slice(0, limit);
  }
}

/** Throws for an object over its limit: a commit, tree or tag over MAX_NON_BLOB_BYTES
 * (ObjectTooLargeError), a blob over `maxBlob` when given (BlobTooLargeError). */
function refuseLarge(oid: string, type: ObjectType, size: number, maxBlob?: number): void {
  if (type === 'blob') {
    if (maxBlob !== undefined && size > maxBlob) throw new BlobTooLargeError(oid, size, maxBlob);
  } else if (size > MAX_NON_BLOB_BYTES) {
    throw new ObjectTooLargeError(oid, size, MAX_NON_BLOB_BYTES, type === 'commit' ? 'Commit' : type === 'tag' ? 'Tag' : 'Tree');
  }
}

/** The header of a loose object from the first bytes of its (deflated) file. */
function headerOfLoose(oid: string, deflated: Buffer, where: string): { type: ObjectType; size: number } {
  for (let take = 64; ; take *= 8) {
    const head = looseHeaderOfPrefix(oid, deflated.subarray(0, take), take >= deflated.length, where);
    if (head) return head;
  }
}
