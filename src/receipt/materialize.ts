// Writes one commit's tree from git objects into a fresh directory. The grader runs there,
// never in the caller's working tree, which may hold uncommitted, ignored or generated files
// that the commit does not. Bytes are written as stored in git: no eol conversion, no
// filters, no hooks, no checkout.
//
// Names are bytes, as git keeps them: a name that is not valid UTF-8 is written under its exact
// bytes (the file system takes them as a Buffer path), as a checkout writes it. Inside this
// file a path is held as a byte string (`latin1`: one character per byte) and turned into a
// Buffer at each file-system call; messages show it decoded (decodePathBytes, `\xNN` for a
// byte that is not UTF-8), as the server's findings do.

import { closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, symlinkSync, writeSync } from 'node:fs';
import { posix } from 'node:path';
import type { ObjectStore } from '../git/store';
import { decodePathBytes, isUnsafeName } from '../git/tree';
import type { TreeEntry } from '../git/types';

/** Largest single file the grader writes; a bigger blob is refused (fail closed). */
export const MAX_MATERIALIZED_BLOB = 512 * 1024 * 1024;

export class MaterializeError extends Error {
  constructor(
    message: string,
    readonly path: string,
  ) {
    super(message);
    this.name = 'MaterializeError';
  }
}

export interface MaterializeResult {
  files: number;
  symlinks: number;
  /** Submodules are written as empty directories, as `git checkout` leaves them uninitialised. */
  submodules: string[];
}

/** Why `path` (text, written as UTF-8) cannot be written safely, or null. Every segment must be
 * a name a checkout can write: see unsafeSegmentReason. */
export function unsafePathReason(path: string): string | null {
  if (path.startsWith('/')) return 'it is absolute';
  for (const seg of path.split('/')) {
    const reason = unsafeSegmentReason(Buffer.from(seg, 'utf8'), seg);
    if (reason) return reason;
  }
  return null;
}

/** Why one name (its raw bytes; `shown` is how messages print it) cannot be written safely, or
 * null: it is empty, `.`, `..`, or `.git` under any of its aliases (case, trailing dots and
 * spaces, HFS+-ignored code points, `git~1`, NTFS streams: isUnsafeName in src/git/tree.ts), or
 * it holds `/`, `\` or NUL. Bytes that are not UTF-8 are not a reason: git and the server take
 * them, and they are written as they are. */
export function unsafeSegmentReason(raw: Uint8Array, shown: string): string | null {
  if (raw.includes(0x5c)) return `its segment '${shown}' contains a backslash`;
  if (isUnsafeName(raw)) return `its segment '${shown}' is not a name a checkout may write (empty, '.', '..', NUL, or '.git' under one of its aliases)`;
  return null;
}

/** Where a symlink at `path` with `target` points inside the tree, or null when it leaves it.
 * Both may be byte strings: only the ASCII `/`, `.`, `\` and NUL are looked at. */
export function symlinkTargetInside(path: string, target: string): string | null {
  if (target === '' || target.startsWith('/') || target.includes('\0') || target.includes('\\')) return null;
  const joined = posix.normalize(posix.join(posix.dirname(path), target));
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return null;
  return joined;
}

/** One non-tree entry of the commit: its path as bytes (a byte string) and as shown. */
interface Listed {
  bytes: string;
  shown: string;
  entry: TreeEntry;
}

const toBytes = (byteString: string): Buffer => Buffer.from(byteString, 'latin1');
const byteStringOf = (raw: Uint8Array): string => Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength).toString('latin1');

/** Every non-tree entry below `treeOid`, depth first; a name no checkout may write is refused
 * before anything below it is read. */
async function listEntries(store: ObjectStore, treeOid: string, commitOid: string): Promise<Listed[]> {
  const out: Listed[] = [];
  const visit = async (oid: string, bytes: string, shown: string) => {
    for (const entry of await store.trees.read(oid)) {
      const b = bytes === '' ? byteStringOf(entry.rawName) : `${bytes}/${byteStringOf(entry.rawName)}`;
      const s = shown === '' ? entry.name : `${shown}/${entry.name}`;
      const unsafe = unsafeSegmentReason(entry.rawName, entry.name);
      if (unsafe) throw new MaterializeError(`refusing to write '${s}' from commit ${commitOid}: ${unsafe}`, s);
      if (entry.kind === 'tree') await visit(entry.oid, b, s);
      else out.push({ bytes: b, shown: s, entry });
    }
  };
  await visit(treeOid, '', '');
  return out;
}

/** Writes the tree of `commitOid` into `dir` (which must exist and be empty). */
export async function materializeCommit(store: ObjectStore, commitOid: string, dir: string): Promise<MaterializeResult> {
  const commit = await store.commits.read(commitOid);
  const files = await listEntries(store, commit.tree, commitOid);
  const root = realpathSync(dir, { encoding: 'buffer' }).toString('latin1');
  const result: MaterializeResult = { files: 0, symlinks: 0, submodules: [] };
  const symlinks: { bytes: string; shown: string; target: string }[] = [];

  for (const { bytes: path, shown, entry } of files) {
    const dest = `${root}/${path}`;
    ensureParent(root, path, shown);
    switch (entry.kind) {
      case 'file':
      case 'exec': {
        const blob = await store.objects.readBlob(entry.oid, MAX_MATERIALIZED_BLOB);
        writeNew(dest, blob, entry.kind === 'exec' ? 0o755 : 0o644, shown);
        result.files++;
        break;
      }
      case 'symlink': {
        const targetBytes = await store.objects.readBlob(entry.oid, 4096);
        const target = byteStringOf(targetBytes);
        if (symlinkTargetInside(path, target) === null) {
          throw new MaterializeError(
            `refusing to write symlink '${shown}' -> '${decodePathBytes(targetBytes)}' from commit ${commitOid}: its target leaves the tree`,
            shown,
          );
        }
        // Symlinks are created last, so no file of the tree is ever written through one.
        symlinks.push({ bytes: path, shown, target });
        break;
      }
      case 'gitlink':
        mkdirSync(toBytes(dest), { recursive: false });
        result.submodules.push(shown);
        break;
      case 'tree':
        mkdirSync(toBytes(dest), { recursive: true });
        break;
    }
  }
  for (const { bytes: path, shown, target } of symlinks) {
    ensureParent(root, path, shown);
    try {
      symlinkSync(toBytes(target), toBytes(`${root}/${path}`));
    } catch (err) {
      throw new MaterializeError(`cannot create symlink '${shown}': ${(err as Error).message}`, shown);
    }
    result.symlinks++;
  }
  // The lexical check above cannot see chains (`a -> d/s/..` where `d/s -> ..`): resolve each
  // link through the links actually written and refuse one that lands outside the tree.
  for (const { bytes: path, shown, target } of symlinks) {
    if (!resolvesInsideBytes(root, path)) {
      throw new MaterializeError(
        `refusing symlink '${shown}' -> '${decodePathBytes(toBytes(target))}' from commit ${commitOid}: through other symlinks of the tree it leaves the tree`,
        shown,
      );
    }
  }
  return result;
}

/** Creates the parent directories of `root/path` (byte strings) and checks that none of them is
 * a symlink, so a crafted tree cannot make the grader write outside `root`. */
function ensureParent(root: string, path: string, shown: string): void {
  const segments = path.split('/').slice(0, -1);
  if (segments.length === 0) return;
  mkdirSync(toBytes(`${root}/${segments.join('/')}`), { recursive: true });
  let at = root;
  for (const seg of segments) {
    at = `${at}/${seg}`;
    const st = lstatSync(toBytes(at));
    if (!st.isDirectory()) {
      const parent = shown.split('/').slice(0, -1).join('/');
      throw new MaterializeError(`refusing to write '${shown}': '${parent}' is not a directory in the written tree`, shown);
    }
  }
}

function writeNew(dest: string, bytes: Uint8Array, mode: number, shown: string): void {
  let fd: number;
  try {
    fd = openSync(toBytes(dest), constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (err) {
    throw new MaterializeError(`cannot write '${shown}': ${(err as Error).message} (a tree with two entries of one name?)`, shown);
  }
  try {
    fchmodSync(fd, mode); // exact mode, whatever the umask
    let off = 0;
    while (off < bytes.length) off += writeSync(fd, bytes, off, bytes.length - off);
  } finally {
    closeSync(fd);
  }
}

/** Follows `path` component by component inside `root`, through symlinks, and says whether
 * every step stays inside. Missing components are taken lexically (they cannot be links). */
export function resolvesInside(root: string, path: string): boolean {
  return resolvesInsideBytes(Buffer.from(root, 'utf8').toString('latin1'), Buffer.from(path, 'utf8').toString('latin1'));
}

/** resolvesInside on byte strings (see the head of this file). */
function resolvesInsideBytes(root: string, path: string): boolean {
  let pending = path.split('/').filter((s) => s !== '' && s !== '.');
  const stack: string[] = [];
  let hops = 0;
  while (pending.length > 0) {
    const seg = pending.shift() as string;
    if (seg === '.' || seg === '') continue;
    if (seg === '..') {
      if (stack.length === 0) return false;
      stack.pop();
      continue;
    }
    stack.push(seg);
    const at = toBytes(`${root}/${stack.join('/')}`);
    let isLink = false;
    try {
      isLink = lstatSync(at).isSymbolicLink();
    } catch {
      isLink = false; // absent: nothing to follow
    }
    if (!isLink) continue;
    if (++hops > 40) return false; // a loop
    const target = readlinkSync(at, { encoding: 'buffer' }).toString('latin1');
    if (target.startsWith('/')) return false;
    stack.pop();
    pending = [...target.split('/'), ...pending];
  }
  return true;
}
