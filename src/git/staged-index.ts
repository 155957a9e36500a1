// The staged index (`.git/index`, or $GIT_INDEX_FILE inside a commit hook), read by parsing
// git's index file format ourselves (gitformat-index(5), versions 2, 3 and 4). The pre-commit
// hook judges exactly these entries: what the commit being made will contain.
//
// Only stage-0 entries are content. Entries added with `git add -N` (intent to add) are not
// written into the commit's tree, so they are left out too. A conflicted index (stages 1-3)
// cannot be committed; it is reported rather than guessed at.

import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { isAbsolute, join, resolve } from 'node:path';
import type { ObjectStore } from './store';
import { decodePathBytes, isUnsafeRawPath } from './tree';
import { ZERO_OID } from '../types';
import { GitReadError, type ChangeKind, type EntryKind, type PathChange } from './types';

export interface IndexEntry {
  /** Full repository path, decoded as UTF-8 for matching and display. */
  path: string;
  /** The path bytes as stored in the index. */
  rawPath: Uint8Array;
  /** Octal mode as git writes it in a tree: "100644", "100755", "120000", "160000". */
  mode: string;
  kind: Exclude<EntryKind, 'tree'>;
  oid: string;
}

export interface StagedIndex {
  /** Index format version (2, 3 or 4); 0 when there is no index file yet. */
  version: number;
  /** Stage-0 entries that will be committed, sorted by path bytes (as git keeps them). */
  entries: IndexEntry[];
  /** Paths with unresolved merge conflicts (entries at stage 1, 2 or 3). */
  conflicts: string[];
  /** The cache-tree extension (`TREE`): the tree oid git recorded for each directory whose
   * entries have not changed since; null when the index has none or it cannot be used (an
   * index with conflicts or intent-to-add entries is never shortcut). */
  cacheTree: CacheTreeNode | null;
}

/** One directory of the cache-tree extension (gitformat-index(5), "Cache tree"). */
export interface CacheTreeNode {
  /** The directory's name (one path component, raw bytes as latin1; '' for the root). */
  name: string;
  /** Index entries below this directory; -1 when git invalidated the node. */
  entryCount: number;
  /** The tree oid of the directory as the index has it; null for an invalidated node. */
  oid: string | null;
  children: Map<string, CacheTreeNode>;
}

const SIGNATURE = 0x44495243; // "DIRC"
const ENTRY_FIXED_BYTES = 62; // 10 x 32-bit stat fields, 20-byte oid, 16-bit flags
const OID_BYTES = 20;
const FLAG_EXTENDED = 0x4000;
const FLAG_STAGE_MASK = 0x3000;
const FLAG_NAME_MASK = 0x0fff;
const EXT_FLAG_INTENT_TO_ADD = 0x2000;

/** Where git keeps the index for a working tree whose (per-worktree) git directory is
 * `gitdir`: $GIT_INDEX_FILE when git set it (commit hooks, `git commit -a`, `git commit PATH`),
 * resolved against `cwd`, else `<gitdir>/index`. */
export function indexFilePath(gitdir: string, env: NodeJS.ProcessEnv, cwd: string): string {
  const fromEnv = env.GIT_INDEX_FILE;
  if (fromEnv) return isAbsolute(fromEnv) ? fromEnv : resolve(cwd, fromEnv);
  return join(gitdir, 'index');
}

/** Reads and parses the index file at `file`. No file is an empty index (a repository where
 * nothing was ever staged). Any other failure is a GitReadError naming the file. */
export async function readStagedIndex(file: string): Promise<StagedIndex> {
  let bytes: Uint8Array;
  try {
    const info = await stat(file);
    if (!info.isFile()) throw new GitReadError(`the git index ${file} is not a regular file`);
    bytes = await readFile(file);
  } catch (err) {
    if (isNotFound(err)) return { version: 0, entries: [], conflicts: [], cacheTree: null };
    if (err instanceof GitReadError) throw err;
    throw new GitReadError(`cannot read the git index ${file}: ${err instanceof Error ? err.message : String(err)}`);
  }
  return parseIndex(bytes, file);
}

function isNotFound(err: unknown): boolean {
  return typeof err === 'object' && err !== null && (err as { code?: string }).code === 'ENOENT';
}

/** Raises the GitReadError of a malformed index. */
type Fail = (what: string) => never;

/** Parses index bytes (gitformat-index(5)). `file` is only used in messages. */
export function parseIndex(bytes: Uint8Array, file = 'the git index'): StagedIndex {
  const fail: Fail = (what) => {
    throw new GitReadError(`${file} is not a git index this tool can read: ${what}`);
  };
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const { version, count, bodyLength } = readHeader(bytes, view, fail);

  const entries: IndexEntry[] = [];
  const conflicts = new Set<string>();
  let skippedEntries = false;
  const cursor: EntryCursor = { offset: 12, previousPath: new Uint8Array(0) };
  for (let i = 0; i < count; i++) {
    const raw = readEntry(bytes, view, cursor, { version, index: i, count, bodyLength }, fail);
    const path = decodePathBytes(raw.rawPath);
    if (raw.stage !== 0) {
      conflicts.add(path);
      skippedEntries = true;
      continue;
    }
    if (raw.intentToAdd) {
      skippedEntries = true;
      continue;
    }
    const typed = kindOfMode(raw.mode);
    if (typed === null) {
      if ((raw.mode & 0o170000) === 0o040000) {
        fail(`it is a sparse index (directory entry ${path}); run 'git sparse-checkout disable' or 'git config index.sparse false' and retry`);
      }
      return fail(`entry ${path} has mode ${raw.mode.toString(8)}, which git does not write`);
    }
    entries.push({ path, rawPath: raw.rawPath, mode: typed.mode, kind: typed.kind, oid: raw.oid });
  }

  const treeData = readExtensions(bytes, view, cursor.offset, bodyLength, fail);
  const cacheTree = treeData !== null && !skippedEntries ? parseCacheTree(treeData) : null;
  return { version, entries, conflicts: [...conflicts].sort(), cacheTree };
}

/** The 12-byte header (signature, version, entry count) and the trailing checksum, a SHA-1 of
 * everything before it (all zeros when index.skipHash is set). */
function readHeader(bytes: Uint8Array, view: DataView, fail: Fail): { version: number; count: number; bodyLength: number } {
  if (bytes.length < 12 + OID_BYTES) fail('the file is truncated');
  if (view.getUint32(0) !== SIGNATURE) fail('it does not start with DIRC');
  const version = view.getUint32(4);
  if (version < 2 || version > 4) fail(`index version ${version} (2, 3 and 4 are supported)`);
  const bodyLength = bytes.length - OID_BYTES;
  const trailer = hex(bytes.subarray(bodyLength));
  if (trailer !== ZERO_OID) {
    const digest = createHash('sha1').update(bytes.subarray(0, bodyLength)).digest('hex');
    if (digest !== trailer) fail('its checksum does not match (the file is corrupt or being written)');
  }
  return { version, count: view.getUint32(8), bodyLength };
}

/** Where the next entry starts, and the path of the previous one (version 4 paths are stored
 * as a change of it). */
interface EntryCursor {
  offset: number;
  previousPath: Uint8Array;
}

/** Reads entry `index` at the cursor and moves the cursor past it. */
function readEntry(
  bytes: Uint8Array,
  view: DataView,
  cursor: EntryCursor,
  where: { version: number; index: number; count: number; bodyLength: number },
  fail: Fail,
): { rawPath: Uint8Array; mode: number; oid: string; stage: number; intentToAdd: boolean } {
  const { version, count, bodyLength } = where;
  const n = where.index + 1;
  const start = cursor.offset;
  let offset = start;
  if (offset + ENTRY_FIXED_BYTES > bodyLength) fail(`entry ${n} of ${count} is truncated`);
  const mode = view.getUint32(offset + 24);
  const oid = hex(bytes.subarray(offset + 40, offset + 40 + OID_BYTES));
  const flags = view.getUint16(offset + 60);
  offset += ENTRY_FIXED_BYTES;
  let extended = 0;
  if (flags & FLAG_EXTENDED) {
    if (version < 3) fail(`entry ${n} has extended flags in a version ${version} index`);
    if (offset + 2 > bodyLength) fail(`entry ${n} of ${count} is truncated`);
    extended = view.getUint16(offset);
    offset += 2;
  }

  let rawPath: Uint8Array;
  const previousPath = cursor.previousPath;
  if (version === 4) {
    // The path is the previous entry's path minus N trailing bytes, plus a NUL-terminated suffix.
    const { value: strip, next } = readOffsetVarint(bytes, offset, bodyLength, fail);
    offset = next;
    if (strip > previousPath.length) fail(`entry ${n} strips more of the previous path than it has`);
    const end = bytes.indexOf(0, offset);
    if (end < 0 || end >= bodyLength) fail(`entry ${n} has an unterminated path`);
    const suffix = bytes.subarray(offset, end);
    rawPath = new Uint8Array(previousPath.length - strip + suffix.length);
    rawPath.set(previousPath.subarray(0, previousPath.length - strip), 0);
    rawPath.set(suffix, previousPath.length - strip);
    offset = end + 1;
  } else {
    const nameLength = flags & FLAG_NAME_MASK;
    // A length of 0xFFF means "at least 0xFFF": the NUL terminator decides.
    const end = nameLength < FLAG_NAME_MASK ? offset + nameLength : bytes.indexOf(0, offset + FLAG_NAME_MASK);
    if (end < 0 || end >= bodyLength || bytes[end] !== 0) fail(`entry ${n} has a malformed path`);
    rawPath = bytes.slice(offset, end);
    // Entries are padded with 1 to 8 NULs to a multiple of 8 bytes.
    offset = start + Math.floor((end - start + 8) / 8) * 8;
    if (offset > bodyLength) fail(`entry ${n} of ${count} is truncated`);
  }
  cursor.offset = offset;
  cursor.previousPath = rawPath;
  return { rawPath, mode, oid, stage: (flags & FLAG_STAGE_MASK) >> 12, intentToAdd: (extended & EXT_FLAG_INTENT_TO_ADD) !== 0 };
}

/** Walks the extensions after the entries: optional ones (first byte 'A'..'Z') may be skipped;
 * others change what the entries mean and must be understood. Returns the cache-tree
 * extension's data (`TREE`), null when there is none. */
function readExtensions(bytes: Uint8Array, view: DataView, from: number, bodyLength: number, fail: Fail): Uint8Array | null {
  let treeData: Uint8Array | null = null;
  let offset = from;
  while (offset + 8 <= bodyLength) {
    const signature = String.fromCharCode(...bytes.subarray(offset, offset + 4));
    const size = view.getUint32(offset + 4);
    if (offset + 8 + size > bodyLength) fail(`extension ${JSON.stringify(signature)} is truncated`);
    if (signature === 'TREE') treeData = bytes.subarray(offset + 8, offset + 8 + size);
    const first = bytes[offset]!;
    if (!(first >= 0x41 && first <= 0x5a)) {
      if (signature === 'link') {
        fail(`it is a split index; run 'git update-index --no-split-index' and retry`);
      }
      if (signature === 'sdir') {
        fail(`it is a sparse index; run 'git sparse-checkout disable' or 'git config index.sparse false' and retry`);
      }
      fail(`it has the required extension ${JSON.stringify(signature)}, which this tool does not understand`);
    }
    offset += 8 + size;
  }
  if (offset !== bodyLength) fail('it has trailing bytes after its extensions');
  return treeData;
}

/** Parses the cache-tree extension's data: nodes in pre-order, each `<name>\0<entry count>
 * <subtree count>\n` and, unless invalidated (count -1), the 20-byte tree oid. An extension
 * that does not parse is not used (null): it only ever saves work, never decides anything. */
function parseCacheTree(data: Uint8Array): CacheTreeNode | null {
  let at = 0;
  const node = (depth: number): CacheTreeNode | null => {
    if (depth > 4096) return null;
    const nul = data.indexOf(0, at);
    if (nul < 0) return null;
    const name = Buffer.from(data.buffer, data.byteOffset + at, nul - at).toString('latin1');
    const eol = data.indexOf(0x0a, nul + 1);
    if (eol < 0) return null;
    const m = /^(-1|0|[1-9][0-9]*) (0|[1-9][0-9]*)$/.exec(Buffer.from(data.buffer, data.byteOffset + nul + 1, eol - nul - 1).toString('latin1'));
    if (!m) return null;
    at = eol + 1;
    const entryCount = Number(m[1]);
    let oid: string | null = null;
    if (entryCount >= 0) {
      if (at + OID_BYTES > data.length) return null;
      oid = hex(data.subarray(at, at + OID_BYTES));
      at += OID_BYTES;
    }
    const children = new Map<string, CacheTreeNode>();
    for (let k = Number(m[2]); k > 0; k--) {
      const child = node(depth + 1);
      if (!child || children.has(child.name)) return null;
      children.set(child.name, child);
    }
    return { name, entryCount, oid, children };
  };
  const root = node(0);
  return root && root.name === '' && at === data.length ? root : null;
}

/** Regular files keep their executable bit only; the legacy 100664 reads as 100644, as git
 * itself writes it into trees. */
function kindOfMode(mode: number): { mode: string; kind: IndexEntry['kind'] } | null {
  switch (mode & 0o170000) {
    case 0o100000:
      return mode & 0o111 ? { mode: '100755', kind: 'exec' } : { mode: '100644', kind: 'file' };
    case 0o120000:
      return { mode: '120000', kind: 'symlink' };
    case 0o160000:
      return { mode: '160000', kind: 'gitlink' };
    default:
      return null;
  }
}

/** git's variable-length offset encoding (varint.c), used by index version 4. */
function readOffsetVarint(
  bytes: Uint8Array,
  offset: number,
  limit: number,
  fail: Fail,
): { value: number; next: number } {
  if (offset >= limit) fail('a path prefix length is truncated');
  let c = bytes[offset++]!;
  let value = c & 0x7f;
  while (c & 0x80) {
    if (offset >= limit) fail('a path prefix length is truncated');
    if (value > 0xffffff) fail('a path prefix length is out of range');
    c = bytes[offset++]!;
    value = ((value + 1) << 7) | (c & 0x7f);
  }
  return { value, next: offset };
}

function hex(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex');
}

/** One file of a flattened tree (HEAD's), as the diff against the index needs it. */
export interface FlatEntry {
  path: string;
  rawPath: Uint8Array;
  mode: string;
  kind: Exclude<EntryKind, 'tree'>;
  oid: string;
}

/**
 * What committing the index would change against `head` (HEAD's tree flattened to its files;
 * [] for an unborn HEAD): one PathChange per path that is added, deleted, or changed in
 * content, mode or type. Paths pair by their raw bytes, as git pairs them.
 */
export function diffFlatAgainstIndex(head: readonly FlatEntry[], index: readonly IndexEntry[]): PathChange[] {
  const key = (raw: Uint8Array) => Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
  const before = new Map(head.map((e) => [key(e.rawPath), e]));
  const changes: PathChange[] = [];
  const side = (e: FlatEntry | IndexEntry) => ({ mode: e.mode, kind: e.kind, oid: e.oid });
  for (const after of index) {
    const k = key(after.rawPath);
    const was = before.get(k);
    before.delete(k);
    if (!was) {
      changes.push({ path: after.path, change: 'add', after: side(after), unsafe: isUnsafeRawPath(after.rawPath) });
      continue;
    }
    const change: ChangeKind | null =
      typeGroup(was.kind) !== typeGroup(after.kind)
        ? 'type'
        : was.oid !== after.oid
          ? 'modify'
          : was.mode !== after.mode
            ? 'mode'
            : null;
    if (change) changes.push({ path: after.path, change, before: side(was), after: side(after), unsafe: isUnsafeRawPath(after.rawPath) });
  }
  for (const gone of before.values()) {
    changes.push({ path: gone.path, change: 'delete', before: side(gone), unsafe: isUnsafeRawPath(gone.rawPath) });
  }
  return changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

/** Regular files, executable or not, are one type; their difference is a mode change. */
function typeGroup(kind: EntryKind): string {
  return kind === 'exec' ? 'file' : kind;
}

/** Every non-tree entry of a tree, with full decoded and raw paths (for diffFlatAgainstIndex). */
export async function flattenTree(store: ObjectStore, treeOid: string): Promise<FlatEntry[]> {
  return flattenTreeExcept(store, treeOid, () => false);
}

/** flattenTree without the directories `skip` names (their raw path, latin1, and the tree oid
 * the flattened tree has there). */
async function flattenTreeExcept(
  store: ObjectStore,
  treeOid: string,
  skip: (rawDir: string, tree: string) => boolean,
): Promise<FlatEntry[]> {
  const out: FlatEntry[] = [];
  const visit = async (tree: string, path: string, raw: Uint8Array): Promise<void> => {
    for (const entry of await store.trees.read(tree)) {
      const rawPath = raw.length === 0 ? entry.rawName : concatPath(raw, entry.rawName);
      const full = path === '' ? entry.name : `${path}/${entry.name}`;
      if (entry.kind === 'tree') {
        if (!skip(latin1(rawPath), entry.oid)) await visit(entry.oid, full, rawPath);
      } else {
        out.push({ path: full, rawPath, mode: entry.mode === '100664' ? '100644' : entry.mode, kind: entry.kind, oid: entry.oid });
      }
    }
  };
  await visit(treeOid, '', new Uint8Array(0));
  return out;
}

/**
 * What committing the index would change against the tree `treeOid` (null: the empty tree):
 * exactly `diffFlatAgainstIndex(await flattenTree(store, treeOid), index.entries)`, but in time
 * proportional to what is staged. The index's cache-tree extension records, for every
 * directory git has not seen change since it last wrote trees, the oid of the tree that
 * directory will have in the commit; a directory whose recorded oid equals the tree's is the
 * same on both sides and is neither read nor compared (`git commit` itself writes those
 * trees from the same records). Invalidated directories (entry count -1) and everything
 * without a record are compared entry by entry.
 */
export async function indexChangesAgainstTree(store: ObjectStore, treeOid: string | null, index: StagedIndex): Promise<PathChange[]> {
  const root = index.cacheTree;
  const entries = index.entries;
  if (treeOid === null || root === null || !sortedByRawPath(entries)) {
    return diffFlatAgainstIndex(treeOid === null ? [] : await flattenTree(store, treeOid), entries);
  }
  if (root.oid === treeOid && root.entryCount === entries.length) return [];
  /** Index ranges [start, end) of the directories found identical. */
  const skipped: [number, number][] = [];
  const nodeAt = (rawDir: string): CacheTreeNode | null => {
    let node: CacheTreeNode | undefined = root;
    for (const part of rawDir.split('/')) {
      node = node.children.get(part);
      if (!node) return null;
    }
    return node;
  };
  const head = await flattenTreeExcept(store, treeOid, (rawDir, tree) => {
    const node = nodeAt(rawDir);
    if (!node || node.oid !== tree) return false;
    const range = rangeUnder(entries, rawDir);
    if (range[1] - range[0] !== node.entryCount) return false; // a record that does not fit: compare
    skipped.push(range);
    return true;
  });
  skipped.sort((a, b) => a[0] - b[0]);
  const staged: IndexEntry[] = [];
  let from = 0;
  for (const [start, end] of skipped) {
    for (let i = from; i < start; i++) staged.push(entries[i]!);
    from = Math.max(from, end);
  }
  for (let i = from; i < entries.length; i++) staged.push(entries[i]!);
  return diffFlatAgainstIndex(head, staged);
}

function latin1(raw: Uint8Array): string {
  return Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');
}

/** True when the entries are in strictly increasing raw-path order (as git writes them). */
function sortedByRawPath(entries: readonly IndexEntry[]): boolean {
  for (let i = 1; i < entries.length; i++) {
    if (Buffer.compare(entries[i - 1]!.rawPath, entries[i]!.rawPath) >= 0) return false;
  }
  return true;
}

/** The index range [start, end) of the entries below the directory `rawDir` (latin1 of its
 * raw path); the entries must be sorted by raw path. */
function rangeUnder(entries: readonly IndexEntry[], rawDir: string): [number, number] {
  const lo = Buffer.from(rawDir + '/', 'latin1');
  const hi = Buffer.from(rawDir + '0', 'latin1'); // '0' follows '/'
  const lowerBound = (key: Buffer) => {
    let a = 0;
    let b = entries.length;
    while (a < b) {
      const mid = (a + b) >> 1;
      if (Buffer.compare(entries[mid]!.rawPath, key) < 0) a = mid + 1;
      else b = mid;
    }
    return a;
  };
  return [lowerBound(lo), lowerBound(hi)];
}

function concatPath(dir: Uint8Array, name: Uint8Array): Uint8Array {
  const out = new Uint8Array(dir.length + 1 + name.length);
  out.set(dir, 0);
  out[dir.length] = 0x2f;
  out.set(name, dir.length + 1);
  return out;
}
