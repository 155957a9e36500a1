// The object store: the one way receipt-gate reads git objects and refs.
//
// Where each object comes from, and who checks it:
//   - packed objects (the repository's, the alternates', a pushed pack) are read by pack.ts
//     directly: positional reads, node:zlib, delta resolution; nothing is re-encoded;
//   - loose objects (the quarantine's, the repository's, the alternates') are found and read
//     by isomorphic-git's `readObject`, over the fs view of fs-view.ts that serves every
//     object directory under `<gitdir>/objects`. It is asked for `format: 'deflated'`: the
//     file's bytes as stored, which node:zlib inflates here (isomorphic-git would inflate
//     them in JavaScript, several times slower, and check nothing for that format either);
//     the object header is read from the first inflated bytes, so a commit, tree or tag over
//     the size limit is refused before it is inflated whole;
//   - every object's SHA-1 is checked exactly once, here, with node:crypto, before it is
//     cached or parsed, so no object is hashed twice.
// Each object is then kept by oid (within a byte budget; large blobs are not kept), so an
// object is read once per run whatever asks for it. Commits, trees and tags are parsed here
// from their raw bytes, never by isomorphic-git's parsers. Every failure is a GitReadError
// whose message names the object and the repository, never the push's quarantine directory.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { inflateSync } from 'node:zlib';
import { readObject } from 'isomorphic-git';
import { LooseBaseNeeded, ObjectsView, looseHeaderOfPrefix, objectDirectories, parseLooseHeader, type ObjectLocation } from './fs-view';
import { RefReader, isValidRefName, namespacePrefix, type RawRef, type RefEntry, type ResolvedRef } from './refs';
import { RepositoryConfig } from './config';
import { quoteRefName } from '../quote';
import { RawTree } from './raw-tree';
import { GitReadError, type Commit, type ObjectType, type TreeEntry } from './types';
import { ObjectInvalidError, fsckCommit, parseCommit } from './parse/commit';
import { fsckTag, parseTag, type ParsedTag } from './parse/tag';
import type { ObjectMessage } from './parse/common';
import type { Deadline } from '../deadline';

export { GitReadError } from './types';
export { ObjectInvalidError } from './parse/commit';
export type { ObjectMessage } from './parse/common';
export { UnsupportedRepositoryError } from './config';
export type { RawRef, RefEntry, ResolvedRef } from './refs';

/** A blob was not read because it is larger than the caller's limit. */
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

/** Throws ObjectTooLargeError for a commit, tree or tag over MAX_NON_BLOB_BYTES. */
function refuseLarge(oid: string, type: ObjectType, size: number): void {
  if (type !== 'blob' && size > MAX_NON_BLOB_BYTES) {
    throw new ObjectTooLargeError(oid, size, MAX_NON_BLOB_BYTES, type === 'commit' ? 'Commit' : type === 'tag' ? 'Tag' : 'Tree');
  }
}

const OID_RE = /^[0-9a-f]{40}$/;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Bytes of checked objects kept by oid (content plus a per-object allowance). */
const OBJECT_CACHE_BYTES = 16 * 1024 * 1024;
/** Blobs larger than this are never kept (witnesses, generators: read once, hashed, dropped). */
const MAX_CACHED_BLOB_BYTES = 256 * 1024;
/** What each kept object costs beyond its content (Map entry, object headers, parsed form). */
const CACHE_ENTRY_OVERHEAD = 160;
/** Oids known to be trees, kept for `isKnownTree` (a set of strings, no content). */
const MAX_KNOWN_TREES = 200_000;
/** Parsed commits kept by oid (a few hundred bytes each), apart from the object budget. */
const MAX_COMMIT_RECORDS = 200_000;
/** Replace refs git follows for one lookup before it dies (MAXREPLACEDEPTH, replace-object.h). */
const MAX_REPLACE_DEPTH = 5;

/** A commit with what the walks need beyond the public shape. */
export interface CommitRecord extends Commit {
  /** Committer timestamp, seconds since the epoch. */
  committerTime: number;
}

/** A checked object as the cache keeps it, with its parsed form once someone asked for it. */
interface CachedObject {
  type: ObjectType;
  content: Uint8Array;
  commit?: CommitRecord;
  tag?: ParsedTag;
  tree?: RawTree;
  /** Bytes charged to the budget. */
  cost: number;
}

export class ObjectStore {
  readonly hasQuarantine: boolean;
  /** The on-disk prefix of GIT_NAMESPACE ('' for none); every ref name the store takes and
   * gives is inside it (see refs.ts). */
  readonly namespace: string;
  private readonly view: ObjectsView;
  private readonly refs: RefReader;
  private readonly fs: ReturnType<ObjectsView['fs']>;
  /** isomorphic-git's cache, shared by every call. */
  private readonly cache: object = {};
  /** Checked objects by oid, least recently used first. */
  private readonly objects = new Map<string, CachedObject>();
  private objectBytes = 0;
  private readonly knownTrees = new Set<string>();
  private readonly commits = new Map<string, CommitRecord>();
  private shallowSet: Set<string> | null = null;
  /** Replaced oid -> replacement oid, from the replace refs (null until first needed; empty
   * when replacement is off). */
  private replacements: Map<string, string> | null = null;
  /** Where replace refs live: GIT_REPLACE_REF_BASE, refs/replace/ by default. */
  readonly replaceRefBase: string;
  /** False with GIT_NO_REPLACE_OBJECTS set (to anything), as in git. */
  private readonly replaceEnabled: boolean;

  private constructor(
    readonly gitdir: string,
    /** Where objects, refs and config live (the main git directory of a linked worktree). */
    readonly commondir: string,
    private readonly config: RepositoryConfig,
    env: NodeJS.ProcessEnv,
  ) {
    const dirs = objectDirectories(commondir, env);
    this.hasQuarantine = dirs.some((d) => d.quarantine);
    this.view = new ObjectsView(commondir, dirs);
    this.fs = this.view.fs();
    this.namespace = namespacePrefix(env.GIT_NAMESPACE);
    this.refs = new RefReader(gitdir, commondir, this.namespace);
    const base = env.GIT_REPLACE_REF_BASE;
    this.replaceRefBase = base ? (base.endsWith('/') ? base : `${base}/`) : 'refs/replace/';
    this.replaceEnabled = env.GIT_NO_REPLACE_OBJECTS === undefined;
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
      for (const e of this.refBase(this.replaceRefBase)) {
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

  /** The refs under `base` (a folder of refs/; none for another base, which git would list
   * but no push of this gate can write outside refs/). */
  private refBase(base: string): RefEntry[] {
    return base.startsWith('refs/') ? this.refs.entries(base) : [];
  }

  /** True when replace refs are in force (the commit-graph is then not used, as in git). */
  async hasReplacements(): Promise<boolean> {
    return (await this.replaceMap()).size > 0;
  }

  /** The object git reads for `oid`: its replacement, followed as git follows it (at most
   * MAX_REPLACE_DEPTH replace refs), or `oid` itself. */
  private async lookupReplace(oid: string): Promise<string> {
    const map = this.replacements ?? (await this.replaceMap());
    if (map.size === 0) return oid;
    let current = oid;
    for (let depth = 0; depth < MAX_REPLACE_DEPTH; depth++) {
      const next = map.get(current);
      if (next === undefined) return current;
      current = next;
    }
    throw new GitReadError(`The replace refs for object ${oid} form a chain deeper than ${MAX_REPLACE_DEPTH} (or a loop); git dies on it too ("replace depth too high"). Repair them with \`git replace -d\`.`, oid);
  }

  /** Opens the repository whose git directory is `gitdir` (relative: against the cwd). The
   * environment supplies the quarantine and alternates (GIT_QUARANTINE_PATH,
   * GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES) and GIT_NAMESPACE. A repository
   * in the SHA-256 object format or with reftable refs is refused
   * (UnsupportedRepositoryError). */
  static async open(opts: { gitdir: string; env?: NodeJS.ProcessEnv }): Promise<ObjectStore> {
    const env = opts.env ?? process.env;
    const gitdir = resolve(opts.gitdir);
    if (!isGitDir(gitdir)) {
      throw new GitReadError(`${gitdir} is not a git directory (no HEAD, objects and refs); pass the repository's .git directory or a bare repository.`);
    }
    let commondir = gitdir;
    try {
      const rel = readFileSync(join(gitdir, 'commondir'), 'utf8').trim();
      if (rel) commondir = resolve(gitdir, rel);
    } catch {
      // not a linked worktree
    }
    const config = new RepositoryConfig(commondir);
    await config.refuseUnsupported(gitdir);
    return new ObjectStore(gitdir, commondir, config, env);
  }

  /** Finds the repository for `dir`: a work tree (or a directory inside one), a `.git`
   * directory, or a bare repository. GIT_DIR in `env` wins, as with git. */
  static async discover(dir: string, env: NodeJS.ProcessEnv = process.env): Promise<ObjectStore> {
    if (env.GIT_DIR) return ObjectStore.open({ gitdir: resolve(env.GIT_DIR), env });
    let current = resolve(dir);
    for (;;) {
      const dotgit = join(current, '.git');
      if (existsSync(dotgit)) {
        if (statSync(dotgit).isFile()) {
          const m = /^gitdir:\s*(.+)$/m.exec(readFileSync(dotgit, 'utf8'));
          if (!m) throw new GitReadError(`${dotgit} is a file without a "gitdir:" line; it does not point at a repository.`);
          const target = m[1]!.trim();
          return ObjectStore.open({ gitdir: isAbsolute(target) ? target : resolve(current, target), env });
        }
        return ObjectStore.open({ gitdir: dotgit, env });
      }
      if (isGitDir(current)) return ObjectStore.open({ gitdir: current, env });
      const parent = dirname(current);
      if (parent === current) break;
      current = parent;
    }
    throw new GitReadError(`No git repository at ${resolve(dir)} or any of its parents; run receipt-gate inside a clone or pass --repo.`);
  }

  /** Closes open pack files. The store is unusable afterwards. */
  close(): void {
    this.view.close();
  }

  private absent(oid: string, what = 'Object'): GitReadError {
    return new GitReadError(`${what} ${oid} is not in the repository${this.hasQuarantine ? ' nor in the push' : ''}.`, oid);
  }

  /** The checked object (cached by oid). The type must be `expected` when given. */
  private async readContent(requested: string, expected?: ObjectType): Promise<CachedObject> {
    if (!OID_RE.test(requested)) throw new GitReadError(`"${requested}" is not a full 40-hex object id.`, requested);
    // Every lookup goes through the replace refs, as git's does; the cache holds objects by
    // their own oid (a delta base is never replaced).
    const oid = await this.lookupReplace(requested);
    let hit = this.objects.get(oid);
    if (hit) {
      this.objects.delete(oid);
      this.objects.set(oid, hit);
    } else {
      hit = await this.readChecked(oid, 0, expected !== 'blob');
    }
    if (expected && hit.type !== expected) {
      const through = oid === requested ? '' : ` (read for ${requested} through a replace ref)`;
      throw new GitReadError(`Object ${oid}${through} is a ${hit.type}, not a ${expected}.`, requested);
    }
    return hit;
  }

  /**
   * Reads `oid` from where it lives, checks its SHA-1 and keeps it (budget permitting). With
   * `limited`, a commit, tree or tag over MAX_NON_BLOB_BYTES is refused (ObjectTooLargeError)
   * from its header, before it is inflated.
   */
  private async readChecked(oid: string, depth = 0, limited = false): Promise<CachedObject> {
    if (oid === EMPTY_TREE) return this.keep(oid, 'tree', new Uint8Array(0));
    const loc = this.view.locate(oid);
    if (!loc) throw this.absent(oid);
    const check = limited ? (t: ObjectType, size: number) => refuseLarge(oid, t, size) : undefined;
    let type: ObjectType;
    let content: Uint8Array;
    try {
      if (loc.where === 'pack') {
        ({ type, content } = await this.readPacked(oid, loc, depth, check));
      } else {
        ({ type, content } = await this.readLoose(oid, check));
      }
    } catch (err) {
      if (err instanceof GitReadError) throw this.scrubbed(err);
      throw err;
    }
    const sha = createHash('sha1').update(`${type} ${content.length}\0`, 'latin1').update(content).digest('hex');
    if (sha !== oid) {
      throw new GitReadError(`Object ${oid} in ${this.view.describe(loc, oid)} cannot be read (SHA-1 check failed: its content hashes to ${sha}); the object is corrupt. Run \`git fsck\`.`, oid, true);
    }
    return this.keep(oid, type, content);
  }

  /** How messages name a loose object's file (never by its absolute path). */
  private looseWhere(oid: string): string {
    const loc = this.view.locate(oid);
    return loc ? this.view.describe(loc, oid) : 'the repository';
  }

  /** A GitReadError whose message no longer names a quarantine path. */
  private scrubbed(err: GitReadError): GitReadError {
    const message = this.view.scrub(err.message);
    if (message === err.message) return err;
    const copy = new GitReadError(message, err.oid, err.damaged);
    return copy;
  }

  /** A packed object through pack.ts. A delta base that is a loose object is read first
   * (through isomorphic-git, checked like any object), then the delta is rebuilt again. */
  private async readPacked(
    oid: string,
    loc: Extract<ObjectLocation, { where: 'pack' }>,
    depth: number,
    check?: (type: ObjectType, size: number) => void,
  ): Promise<{ type: ObjectType; content: Uint8Array }> {
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
        const base = this.objects.get(err.oid) ?? (await this.readChecked(err.oid, depth + 1));
        bases.set(err.oid, { type: base.type, data: Buffer.from(base.content.buffer, base.content.byteOffset, base.content.byteLength) });
      }
    }
  }

  /** A loose object: found and read by isomorphic-git (`format: 'deflated'`), inflated by
   * node:zlib, its header checked here (and passed to `check` before the object is inflated
   * whole). */
  private async readLoose(oid: string, check?: (type: ObjectType, size: number) => void): Promise<{ type: ObjectType; content: Uint8Array }> {
    let deflated: Buffer;
    try {
      const result = await readObject({ fs: this.fs, gitdir: this.commondir, oid, format: 'deflated', cache: this.cache });
      const object = (result as { object: Uint8Array }).object;
      deflated = Buffer.from(object.buffer, object.byteOffset, object.byteLength);
    } catch (err) {
      if (err instanceof GitReadError) throw err;
      // isomorphic-git's InternalError wraps the cause in a paragraph addressed to its own
      // developers; keep the cause only.
      const e = err as { message?: string; data?: { message?: unknown } };
      const cause = typeof e.data?.message === 'string' ? e.data.message : (e.message ?? String(err));
      throw new GitReadError(`Object ${oid} in ${this.looseWhere(oid)} cannot be read (${this.view.scrub(cause).replace(/[.\s]+$/, '')}); the object is corrupt or unreadable. Run \`git fsck\`.`, oid, true);
    }
    if (check) {
      for (let take = 64; ; take *= 8) {
        const head = looseHeaderOfPrefix(oid, deflated.subarray(0, take), take >= deflated.length, this.looseWhere(oid));
        if (head) {
          check(head.type, head.size);
          break;
        }
      }
    }
    const corrupt = (why: string) => new GitReadError(`Object ${oid} in ${this.looseWhere(oid)} ${why}; the object is corrupt. Run \`git fsck\`.`, oid, true);
    let wrapped: Buffer;
    try {
      wrapped = inflateSync(deflated);
    } catch (err) {
      throw corrupt(`does not inflate (${(err as Error).message})`);
    }
    const nul = wrapped.indexOf(0);
    if (nul < 0) throw corrupt('has no valid object header');
    const { type, size } = parseLooseHeader(oid, wrapped.subarray(0, nul), this.gitdir);
    if (size !== wrapped.length - nul - 1) throw corrupt('has no valid object header');
    return { type, content: wrapped.subarray(nul + 1) };
  }

  /** Keeps a checked object within the byte budget (least recently used out first). */
  private keep(oid: string, type: ObjectType, content: Uint8Array): CachedObject {
    const entry: CachedObject = { type, content, cost: content.length + CACHE_ENTRY_OVERHEAD };
    if (type === 'tree') this.noteTree(oid);
    if (type === 'blob' && content.length > MAX_CACHED_BLOB_BYTES) return entry;
    this.objects.set(oid, entry);
    this.objectBytes += entry.cost;
    if (this.objectBytes > OBJECT_CACHE_BYTES) {
      for (const [key, old] of this.objects) {
        if (this.objectBytes <= OBJECT_CACHE_BYTES * 0.9) break;
        this.objects.delete(key);
        this.objectBytes -= old.cost;
      }
    }
    return entry;
  }

  private noteTree(oid: string): void {
    if (this.knownTrees.size >= MAX_KNOWN_TREES) this.knownTrees.clear();
    this.knownTrees.add(oid);
  }

  async readCommit(oid: string): Promise<Commit> {
    const c = await this.readCommitRecord(oid);
    return { oid: c.oid, tree: c.tree, parents: [...c.parents] };
  }

  /** The parsed commit with its committer time (cached: commits never change). */
  async readCommitRecord(oid: string): Promise<CommitRecord> {
    const kept = this.commits.get(oid);
    if (kept) return kept;
    const entry = await this.readContent(oid, 'commit');
    if (entry.commit && entry.commit.oid !== oid) {
      // The object is a replacement read for another oid: git names the commit by the oid
      // looked up, so the parsed form is made for it (not kept on the shared entry).
      const record = { ...entry.commit, oid };
      this.commits.set(oid, record);
      return record;
    }
    if (!entry.commit) {
      entry.commit = { oid, ...parseCommit(oid, entry.content) };
      const extra = 48 + 48 * entry.commit.parents.length;
      entry.cost += extra;
      if (this.objects.get(oid) === entry) this.objectBytes += extra;
    }
    // Parsed commits are kept apart from the byte-budgeted contents: a long range's trees
    // would otherwise push them out between the walk, the ordering and the diffs, and every
    // commit would be read and hashed again.
    if (this.commits.size >= MAX_COMMIT_RECORDS) this.commits.clear();
    this.commits.set(oid, entry.commit);
    return entry.commit;
  }

  /** The commit object's bytes as stored (header and message), checked against its oid: the
   * push log keeps each entry in its commit's message. */
  async readCommitBytes(oid: string): Promise<Uint8Array> {
    return (await this.readContent(oid, 'commit')).content;
  }

  async readTree(oid: string): Promise<TreeEntry[]> {
    return (await this.readRawTree(oid)).entries();
  }

  /** True when `oid` was read as a tree by this store (no need to ask its type again). */
  isKnownTree(oid: string): boolean {
    if (this.replacements !== null && this.replacements.size > 0) return false; // ask the replaced read
    return oid === EMPTY_TREE || this.knownTrees.has(oid);
  }

  /** The tree as raw entries, for comparisons that decode only what differs (cached by oid). */
  async readRawTree(oid: string): Promise<RawTree> {
    return this.rawTreeOf(oid, await this.readContent(oid, 'tree'));
  }

  private rawTreeOf(oid: string, entry: CachedObject): RawTree {
    if (!entry.tree) {
      entry.tree = RawTree.parse(oid, entry.content);
      // Four 32-bit arrays per entry, sized for the most entries the bytes could hold (see
      // RawTree.parse).
      const extra = Math.ceil(entry.content.length / 23) * 16;
      entry.cost += extra;
      if (this.objects.get(oid) === entry) this.objectBytes += extra;
    }
    return entry.tree;
  }

  /** The tree when `oid` is a tree (read and cached as readRawTree does), its type when it is
   * another object, null when it is absent: one read where asking the type first took two. */
  async treeOrType(oid: string): Promise<RawTree | ObjectType | null> {
    if (!OID_RE.test(oid)) throw new GitReadError(`"${oid}" is not a full 40-hex object id.`, oid);
    const real = await this.lookupReplace(oid);
    if (!this.objects.has(real) && real !== EMPTY_TREE && !this.view.locate(real)) return null;
    const entry = await this.readContent(oid);
    return entry.type === 'tree' ? this.rawTreeOf(oid, entry) : entry.type;
  }

  /** Reads a blob, refusing (BlobTooLargeError) before reading when it is over `maxBytes`. */
  async readBlob(oid: string, maxBytes: number): Promise<Uint8Array> {
    const cached = this.objects.get(await this.lookupReplace(oid));
    const info = cached ? { type: cached.type, size: cached.content.length } : await this.objectInfo(oid);
    if (!info) throw this.absent(oid, 'Blob');
    if (info.type !== 'blob') throw new GitReadError(`Object ${oid} is a ${info.type}, not a blob.`, oid);
    if (info.size > maxBytes) throw new BlobTooLargeError(oid, info.size, maxBytes);
    return (await this.readContent(oid, 'blob')).content;
  }

  /** Type and size from the object's header (loose header or pack entry), without reading the
   * object; null when the object is absent. */
  async objectInfo(requested: string): Promise<{ type: ObjectType; size: number } | null> {
    if (!OID_RE.test(requested)) throw new GitReadError(`"${requested}" is not a full 40-hex object id.`, requested);
    const oid = await this.lookupReplace(requested); // as git's oid_object_info does
    if (oid === EMPTY_TREE) return { type: 'tree', size: 0 };
    const cached = this.objects.get(oid);
    if (cached) return { type: cached.type, size: cached.content.length };
    try {
      return this.view.header(oid);
    } catch (err) {
      throw err instanceof GitReadError ? this.scrubbed(err) : err;
    }
  }

  async hasObject(oid: string): Promise<boolean> {
    return OID_RE.test(oid) && (oid === EMPTY_TREE || this.objects.has(oid) || this.view.locate(oid) !== null);
  }

  /** True when the push brought the object: it is in the quarantine and the repository did
   * not already hold it (a client may resend objects the server has). */
  async isQuarantined(oid: string): Promise<boolean> {
    if (!this.hasQuarantine) return false;
    return this.view.isNewInQuarantine(oid);
  }

  /**
   * Follows annotated tags to the object they name, whatever its type: a tag on a tree or a
   * blob peels to that tree or blob, without an exception. `oid` itself when it is no tag.
   * Each tag is read as git reads it (src/git/parse/tag.ts: the `object` line that opens it),
   * and the object it names must have the type its `type` line gives (ObjectInvalidError
   * otherwise: git refuses to peel such a tag). Chains of any depth are followed, as git
   * does (a chain cannot loop: each tag names an object that existed before it), with
   * `deadline` checked at each tag. `tags` lists the tags followed, outermost first.
   */
  async peel(oid: string, deadline?: Deadline): Promise<{ type: ObjectType; oid: string; tags: string[] }> {
    const tags: string[] = [];
    let current = oid;
    let expected: ObjectType | null = null;
    let via = '';
    for (;;) {
      deadline?.tick(64);
      let type: ObjectType = 'commit';
      let tag: ParsedTag | null = null;
      if (!this.commits.has(current)) {
        const entry = await this.readContent(current);
        type = entry.type;
        if (type === 'tag') tag = entry.tag ??= parseTag(current, entry.content);
      }
      if (expected !== null && type !== expected) {
        throw new ObjectInvalidError(
          `Tag ${via} names ${current} as a ${expected}, but that object is a ${type}: git refuses to read the tag too (bad tag pointer). The tag is malformed or crafted.`,
          via,
          'tag',
          [],
        );
      }
      if (tag === null) return { type, oid: current, tags };
      tags.push(current);
      via = current;
      expected = tag.type;
      current = tag.object;
    }
  }

  /** What `git fsck` prints for a commit or a tag (src/git/parse/): its messages in fsck's
   * order, an error last when there is one. [] for a tree or a blob. */
  async fsckMessages(oid: string): Promise<ObjectMessage[]> {
    const { type, content } = await this.readContent(oid);
    if (type === 'commit') return fsckCommit(content);
    if (type === 'tag') return fsckTag(content);
    return [];
  }

  /** Follows annotated tags down to the commit they name; a GitReadError when they name
   * something else. */
  async peelToCommit(oid: string, deadline?: Deadline): Promise<string> {
    const peeled = await this.peel(oid, deadline);
    if (peeled.type !== 'commit') {
      throw new GitReadError(`Object ${oid} is a ${peeled.type}${peeled.oid !== oid ? ` (through tag ${oid})` : ''}, not a commit.`, oid);
    }
    await this.readCommitRecord(peeled.oid); // a malformed commit fails here, not later
    return peeled.oid;
  }

  /** Resolves a name the way `git rev-parse` does: a full oid (when present), `HEAD`, a full
   * ref, or a short name (`main`, `v1`, `origin/main`, `origin`). Null when nothing matches.
   * Annotated tags resolve to the tag object; use peelToCommit for the commit. For revision
   * syntax (`main~2`, abbreviated oids, `@{u}`) see resolveRevision in revision.ts. */
  async resolveRef(name: string): Promise<string | null> {
    if (OID_RE.test(name)) return (await this.hasObject(name)) ? name : null;
    if (name === 'HEAD' || name === '@') return this.refs.resolveFull('HEAD');
    if (!isValidRefName(name)) return null;
    const full = this.refs.expand(name);
    return full ? this.refs.resolveFull(full) : null;
  }

  /** The oid the full ref `name` (a byte string) holds, through symbolic refs; null when it
   * does not exist. No short-name rules: `refs/heads/x` never finds `refs/tags/refs/heads/x`. */
  async resolveRefExact(name: string): Promise<string | null> {
    if (name !== 'HEAD' && !isValidRefName(name)) return null;
    return this.refs.resolveFull(name);
  }

  /** The full ref name a short name stands for by git's rev-parse rules (`main` →
   * refs/heads/main, tags first), before following symbolic refs; null when none exists. */
  async dwimRef(name: string): Promise<string | null> {
    if (name === 'HEAD') return this.refs.resolveFull('HEAD') !== null ? 'HEAD' : null;
    if (!isValidRefName(name)) return null;
    return this.refs.expand(name);
  }

  /** HEAD's target when HEAD is symbolic (e.g. refs/heads/main), null when detached. */
  async headTarget(): Promise<string | null> {
    return this.refs.headTarget();
  }

  /** Every ref under refs/ that resolves, full name -> oid (dangling symbolic refs left out). */
  async listRefs(): Promise<Map<string, string>> {
    return this.refs.list();
  }

  /** Every ref under refs/, sorted, with its oid (through symbolic refs; null when dangling)
   * and, for a symbolic ref, the ref its chain ends at (as `git for-each-ref` %(symref)). */
  async listRefEntries(): Promise<RefEntry[]> {
    return this.refs.entries();
  }

  /** One ref as stored, without following it: `{ oid }`, `{ symbolic }` or null. */
  async readRef(name: string): Promise<RawRef | null> {
    return this.refs.readRaw(name);
  }

  /** Where the chain of symbolic refs starting at `name` ends (`ref`) and its oid (null when
   * dangling); null when `name` does not exist. */
  async resolveSymbolic(name: string): Promise<ResolvedRef | null> {
    return this.refs.resolveSymbolic(name);
  }

  /** What packed-refs records an annotated tag peels to, without reading the tag. */
  packedPeel(oid: string): string | undefined {
    // packed-refs records what the stored tag names; with replace refs in force git reads
    // something else, so the hint is not used.
    if (this.replacements === null || this.replacements.size > 0) return undefined;
    return this.refs.packedPeel(oid);
  }

  /** The on-disk name of a ref given as the client sees it (inside GIT_NAMESPACE). */
  namespacedRef(name: string): string {
    if (this.namespace === '' || (name !== 'HEAD' && !name.startsWith('refs/'))) return name;
    return this.namespace + name;
  }

  /** A value of the repository's config (`branch.main.remote`), through isomorphic-git's
   * getConfig; null when unset. */
  async configValue(path: string): Promise<string | null> {
    return this.config.value(path);
  }

  /** Every value of a multi-valued config key (`remote.origin.fetch`), in file order. */
  async configValues(path: string): Promise<string[]> {
    return this.config.values(path);
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

  /** Commits whose parents git hides (a shallow clone's boundary). */
  async shallowCommits(): Promise<Set<string>> {
    if (!this.shallowSet) {
      this.shallowSet = new Set();
      try {
        for (const line of readFileSync(join(this.commondir, 'shallow'), 'utf8').split('\n')) {
          if (OID_RE.test(line.trim())) this.shallowSet.add(line.trim());
        }
      } catch {
        // not shallow
      }
    }
    return this.shallowSet;
  }

  /** The entry at an exact '/'-separated path below a tree, or null when absent. Paths are
   * compared with decoded names, exactly (case-sensitive, as git). */
  async entryAt(treeOid: string, path: string): Promise<TreeEntry | null> {
    const parts = path.split('/').filter((p) => p !== '');
    if (parts.length === 0) return null;
    let tree = treeOid;
    for (let i = 0; i < parts.length; i++) {
      const entry = (await this.readRawTree(tree)).find(parts[i]!);
      if (!entry) return null;
      if (i === parts.length - 1) return entry;
      if (entry.kind !== 'tree') return null;
      tree = entry.oid;
    }
    return null;
  }

  /** Every non-tree entry below `dir` (recursively), with its full path, sorted by path.
   * [] when `dir` is absent or not a directory; `dir` '' means the whole tree. Gitlinks are
   * listed but never read. */
  async listFiles(treeOid: string, dir: string): Promise<{ path: string; entry: TreeEntry }[]> {
    const prefix = dir.split('/').filter((p) => p !== '').join('/');
    let start = treeOid;
    if (prefix !== '') {
      const at = await this.entryAt(treeOid, prefix);
      if (!at || at.kind !== 'tree') return [];
      start = at.oid;
    }
    const out: { path: string; entry: TreeEntry }[] = [];
    const visit = async (tree: string, base: string) => {
      for (const entry of await this.readTree(tree)) {
        const path = base === '' ? entry.name : `${base}/${entry.name}`;
        if (entry.kind === 'tree') await visit(entry.oid, path);
        else out.push({ path, entry });
      }
    };
    await visit(start, prefix);
    return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  }

  /** The repository's own object directory, `<commondir>/objects` (not the quarantine, not an
   * alternate): where git keeps the commit-graph the walks read (src/git/commit-graph.ts). */
  objectsDirectory(): string {
    return join(this.commondir, 'objects');
  }
}

function isGitDir(dir: string): boolean {
  return existsSync(join(dir, 'HEAD')) && (existsSync(join(dir, 'objects')) || existsSync(join(dir, 'commondir')));
}
