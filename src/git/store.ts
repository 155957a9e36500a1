// The object store: the one way receipt-gate reads git objects and refs.
//
// Every object is read through isomorphic-git (`readObject`, one shared cache) and its SHA-1
// checked against the oid, over the fs view of fs-view.ts: that view
// serves the quarantine, the alternates and the packs (read in place, handed over as loose
// objects), so isomorphic-git never loads a pack. Commits, trees and tags are parsed here
// from their raw bytes, never by isomorphic-git's parsers. Every failure is a GitReadError
// whose message names the object.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { readObject } from 'isomorphic-git';
import { ObjectsView, objectDirectories } from './fs-view';
import { RefReader, isValidRefName } from './refs';
import { RawTree } from './raw-tree';
import { GitReadError, type Commit, type ObjectType, type TreeEntry } from './types';

export { GitReadError } from './types';

/** A blob was not read because it is larger than the caller's limit. */
export class BlobTooLargeError extends GitReadError {
  constructor(
    oid: string,
    readonly size: number,
    readonly limit: number,
  ) {
    super(`Blob ${oid} is ${size} bytes, over the limit of ${limit} bytes; it was not read.`, oid);
    this.name = 'BlobTooLargeError';
  }
}

const OID_RE = /^[0-9a-f]{40}$/;
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
/** Parsed commits kept for repeated walks (about 200 bytes each); the cache starts over when full. */
const MAX_CACHED_COMMITS = 100_000;
/** Bytes of raw trees kept for repeated diffs (a commit's tree is its child's parent tree). */
const MAX_CACHED_TREE_BYTES = 8 * 1024 * 1024;

/** A commit with what the walks need beyond the public shape. */
export interface CommitRecord extends Commit {
  /** Committer timestamp, seconds since the epoch. */
  committerTime: number;
}

export class ObjectStore {
  readonly hasQuarantine: boolean;
  private readonly view: ObjectsView;
  private readonly refs: RefReader;
  private readonly fs: ReturnType<ObjectsView['fs']>;
  /** isomorphic-git's cache, shared by every call. */
  private readonly cache: object = {};
  private readonly commits = new Map<string, CommitRecord>();
  private readonly trees = new Map<string, RawTree>();
  private treeBytes = 0;
  private readonly knownTrees = new Set<string>();
  private shallowSet: Set<string> | null = null;

  private constructor(
    readonly gitdir: string,
    private readonly commondir: string,
    env: NodeJS.ProcessEnv,
  ) {
    const dirs = objectDirectories(commondir, env);
    this.hasQuarantine = dirs.some((d) => d.quarantine);
    this.view = new ObjectsView(commondir, dirs);
    this.fs = this.view.fs();
    this.refs = new RefReader(gitdir, commondir);
  }

  /** Opens the repository whose git directory is `gitdir` (relative: against the cwd). The
   * environment supplies the quarantine and alternates (GIT_QUARANTINE_PATH,
   * GIT_OBJECT_DIRECTORY, GIT_ALTERNATE_OBJECT_DIRECTORIES). */
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
    refuseUnsupportedFormat(commondir);
    return new ObjectStore(gitdir, commondir, env);
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

  /** Reads an object through isomorphic-git (which finds and inflates it), then checks it:
   * its SHA-1 must be its oid (a corrupt or substituted object is refused) and its type the
   * expected one. The SHA-1 is computed here with node:crypto, synchronously: isomorphic-git's
   * own check goes through WebCrypto, one thread-pool round trip per object. */
  private async readContent(oid: string, expected?: ObjectType): Promise<{ type: ObjectType; content: Uint8Array }> {
    if (!OID_RE.test(oid)) throw new GitReadError(`"${oid}" is not a full 40-hex object id.`, oid);
    if (!this.view.locate(oid)) {
      throw new GitReadError(`Object ${oid} is not in the repository${this.hasQuarantine ? ' nor in the push' : ''}.`, oid);
    }
    let wrapped: Buffer;
    try {
      const result = await readObject({ fs: this.fs, gitdir: this.commondir, oid, format: 'wrapped', cache: this.cache });
      wrapped = Buffer.from((result as { object: Uint8Array }).object);
    } catch (err) {
      if (err instanceof GitReadError) throw err;
      // isomorphic-git's InternalError wraps the cause in a paragraph addressed to its own
      // developers; keep the cause only.
      const e = err as { message?: string; data?: { message?: unknown } };
      const cause = typeof e.data?.message === 'string' ? e.data.message : (e.message ?? String(err));
      throw new GitReadError(`Object ${oid} cannot be read (${cause.replace(/[.\s]+$/, '')}); the object is corrupt or unreadable. Run \`git fsck\`.`, oid);
    }
    const sha = createHash('sha1').update(wrapped).digest('hex');
    if (sha !== oid) {
      throw new GitReadError(`Object ${oid} cannot be read (SHA-1 check failed: its content hashes to ${sha}); the object is corrupt or unreadable. Run \`git fsck\`.`, oid);
    }
    const nul = wrapped.indexOf(0);
    const m = nul < 0 ? null : /^(blob|tree|commit|tag) (0|[1-9][0-9]*)$/.exec(wrapped.toString('latin1', 0, nul));
    if (!m || Number(m[2]) !== wrapped.length - nul - 1) {
      throw new GitReadError(`Object ${oid} has no valid object header; the object is corrupt. Run \`git fsck\`.`, oid);
    }
    const type = m[1] as ObjectType;
    if (expected && type !== expected) {
      throw new GitReadError(`Object ${oid} is a ${type}, not a ${expected}.`, oid);
    }
    return { type, content: wrapped.subarray(nul + 1) };
  }

  async readCommit(oid: string): Promise<Commit> {
    const c = await this.readCommitRecord(oid);
    return { oid: c.oid, tree: c.tree, parents: [...c.parents] };
  }

  /** The parsed commit with its committer time (cached: commits never change). */
  async readCommitRecord(oid: string): Promise<CommitRecord> {
    const hit = this.commits.get(oid);
    if (hit) return hit;
    const { content } = await this.readContent(oid, 'commit');
    const record = parseCommit(oid, content);
    if (this.commits.size >= MAX_CACHED_COMMITS) this.commits.clear();
    this.commits.set(oid, record);
    return record;
  }

  async readTree(oid: string): Promise<TreeEntry[]> {
    return (await this.readRawTree(oid)).entries();
  }

  /** True when `oid` was read as a tree by this store (no need to ask its type again). */
  isKnownTree(oid: string): boolean {
    return oid === EMPTY_TREE || this.knownTrees.has(oid);
  }

  /** The tree as raw entries, for comparisons that decode only what differs (cached by oid,
   * least recently used out first). */
  async readRawTree(oid: string): Promise<RawTree> {
    const hit = this.trees.get(oid);
    if (hit) {
      this.trees.delete(oid);
      this.trees.set(oid, hit);
      return hit;
    }
    const tree = oid === EMPTY_TREE ? RawTree.parse(oid, new Uint8Array(0)) : RawTree.parse(oid, (await this.readContent(oid, 'tree')).content);
    this.remember(tree);
    return tree;
  }

  /** The tree when `oid` is a tree (read and cached as readRawTree does), its type when it is
   * another object, null when it is absent: one read where asking the type first took two. */
  async treeOrType(oid: string): Promise<RawTree | ObjectType | null> {
    if (this.isKnownTree(oid)) return this.readRawTree(oid);
    if (!OID_RE.test(oid)) throw new GitReadError(`"${oid}" is not a full 40-hex object id.`, oid);
    if (!this.view.locate(oid)) return null;
    const { type, content } = await this.readContent(oid);
    if (type !== 'tree') return type;
    const tree = RawTree.parse(oid, content);
    this.remember(tree);
    return tree;
  }

  private remember(tree: RawTree): void {
    const oid = tree.oid;
    this.trees.set(oid, tree);
    if (this.knownTrees.size >= MAX_CACHED_COMMITS) this.knownTrees.clear();
    this.knownTrees.add(oid);
    this.treeBytes += tree.buf.length + 64;
    for (const [key, old] of this.trees) {
      if (this.treeBytes <= MAX_CACHED_TREE_BYTES) break;
      this.trees.delete(key);
      this.treeBytes -= old.buf.length + 64;
    }
  }

  /** Reads a blob, refusing (BlobTooLargeError) before reading when it is over `maxBytes`. */
  async readBlob(oid: string, maxBytes: number): Promise<Uint8Array> {
    const info = await this.objectInfo(oid);
    if (!info) throw new GitReadError(`Blob ${oid} is not in the repository${this.hasQuarantine ? ' nor in the push' : ''}.`, oid);
    if (info.type !== 'blob') throw new GitReadError(`Object ${oid} is a ${info.type}, not a blob.`, oid);
    if (info.size > maxBytes) throw new BlobTooLargeError(oid, info.size, maxBytes);
    const { content } = await this.readContent(oid, 'blob');
    return content;
  }

  /** Type and size from the object's header (loose header or pack entry), without reading the
   * object; null when the object is absent. */
  async objectInfo(oid: string): Promise<{ type: ObjectType; size: number } | null> {
    if (!OID_RE.test(oid)) throw new GitReadError(`"${oid}" is not a full 40-hex object id.`, oid);
    if (oid === EMPTY_TREE) return { type: 'tree', size: 0 };
    return this.view.header(oid);
  }

  async hasObject(oid: string): Promise<boolean> {
    return OID_RE.test(oid) && (oid === EMPTY_TREE || this.view.locate(oid) !== null);
  }

  /** True when the push brought the object: it is in the quarantine and the repository did
   * not already hold it (a client may resend objects the server has). */
  async isQuarantined(oid: string): Promise<boolean> {
    if (!this.hasQuarantine) return false;
    return this.view.isNewInQuarantine(oid);
  }

  /** Follows annotated tags down to the commit they name. */
  async peelToCommit(oid: string): Promise<string> {
    let current = oid;
    for (let depth = 0; depth < 32; depth++) {
      const { type, content } = await this.readContent(current);
      if (type === 'commit') {
        parseCommit(current, content); // a malformed commit fails here, not later
        return current;
      }
      if (type !== 'tag') throw new GitReadError(`Object ${oid} is a ${type}${current !== oid ? ` (through tag ${oid})` : ''}, not a commit.`, oid);
      const m = /^object ([0-9a-f]{40})$/m.exec(Buffer.from(content).toString('latin1').split('\n\n')[0]!);
      if (!m) throw new GitReadError(`Tag ${current} has no "object" line; the tag is corrupt.`, current);
      current = m[1]!;
    }
    throw new GitReadError(`Tag ${oid} is a chain of more than 32 tags; receipt-gate does not follow it.`, oid);
  }

  /** Follows annotated tags to the object they finally name: a commit, a tree or a blob (a
   * ref may point at any of them). */
  async peel(oid: string): Promise<{ type: ObjectType; oid: string }> {
    let current = oid;
    for (let depth = 0; depth < 32; depth++) {
      const { type, content } = await this.readContent(current);
      if (type !== 'tag') return { type, oid: current };
      const m = /^object ([0-9a-f]{40})$/m.exec(Buffer.from(content).toString('latin1').split('\n\n')[0]!);
      if (!m) throw new GitReadError(`Tag ${current} has no "object" line; the tag is corrupt.`, current);
      current = m[1]!;
    }
    throw new GitReadError(`Tag ${oid} is a chain of more than 32 tags; receipt-gate does not follow it.`, oid);
  }

  /** The target of `name` when it is a symbolic ref (`ref: refs/heads/main`), else null. */
  async symbolicTarget(name: string): Promise<string | null> {
    if (name !== 'HEAD' && !isValidRefName(name)) return null;
    const raw = this.refs.readRaw(name);
    return raw && 'symbolic' in raw ? raw.symbolic : null;
  }

  /** Resolves a name the way `git rev-parse` does: a full oid (when present), `HEAD`, a full
   * ref, or a short name (`main`, `v1`, `origin/main`, `origin`). Null when nothing matches.
   * Annotated tags resolve to the tag object; use peelToCommit for the commit. */
  async resolveRef(name: string): Promise<string | null> {
    if (OID_RE.test(name)) return (await this.hasObject(name)) ? name : null;
    if (name === 'HEAD' || name === '@') return this.refs.resolveFull('HEAD');
    if (!isValidRefName(name)) return null;
    const full = this.refs.expand(name);
    return full ? this.refs.resolveFull(full) : null;
  }

  /** The full ref name `name` stands for (rev-parse rules), or null. */
  async expandRef(name: string): Promise<string | null> {
    if (name === 'HEAD' || name === '@') return this.refs.headTarget() ?? (this.refs.resolveFull('HEAD') ? 'HEAD' : null);
    if (!isValidRefName(name)) return null;
    return this.refs.expand(name);
  }

  async headTarget(): Promise<string | null> {
    return this.refs.headTarget();
  }

  async listRefs(): Promise<Map<string, string>> {
    return this.refs.list();
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
}

function isGitDir(dir: string): boolean {
  return existsSync(join(dir, 'HEAD')) && (existsSync(join(dir, 'objects')) || existsSync(join(dir, 'commondir')));
}

/** Refuses repositories that cannot be read correctly: the SHA-256 object format (isomorphic-git
 * reads SHA-1 only) and ref storage other than files (reftable). */
function refuseUnsupportedFormat(gitdir: string): void {
  let config = '';
  try {
    config = readFileSync(join(gitdir, 'config'), 'utf8');
  } catch {
    return;
  }
  let section = '';
  for (const raw of config.split('\n')) {
    const line = raw.replace(/[#;].*$/, '').trim();
    const header = /^\[\s*([A-Za-z0-9.-]+)(?:\s+"[^"]*")?\s*\]/.exec(line);
    if (header) {
      section = header[1]!.toLowerCase();
      continue;
    }
    const kv = /^([A-Za-z0-9-]+)\s*=\s*"?([^"]*)"?$/.exec(line);
    if (section !== 'extensions' || !kv) continue;
    const key = kv[1]!.toLowerCase();
    const value = kv[2]!.trim();
    if (key === 'objectformat' && value.toLowerCase() !== 'sha1') {
      throw new GitReadError(
        `The repository ${gitdir} uses the ${value} object format (extensions.objectformat); receipt-gate reads SHA-1 repositories only and refuses to check this one.`,
      );
    }
    if (key === 'refstorage' && value.toLowerCase() !== 'files') {
      throw new GitReadError(
        `The repository ${gitdir} stores its refs as ${value} (extensions.refstorage); receipt-gate reads the files ref format only and refuses to check this one.`,
      );
    }
  }
}

function parseCommit(oid: string, content: Uint8Array): CommitRecord {
  const text = Buffer.from(content).toString('latin1');
  const end = text.indexOf('\n\n');
  const header = end < 0 ? text : text.slice(0, end);
  let tree: string | null = null;
  const parents: string[] = [];
  let committerTime = 0;
  for (const line of header.split('\n')) {
    if (line.startsWith('tree ')) tree = line.slice(5);
    else if (line.startsWith('parent ')) parents.push(line.slice(7));
    else if (line.startsWith('committer ')) {
      const m = /> (-?\d+) [+-]\d{4}$/.exec(line);
      if (m) committerTime = Number(m[1]);
    }
  }
  if (!tree || !OID_RE.test(tree) || parents.some((p) => !OID_RE.test(p))) {
    throw new GitReadError(`Commit ${oid} has a malformed header (tree or parent lines); the commit is corrupt.`, oid);
  }
  return { oid, tree, parents, committerTime };
}
