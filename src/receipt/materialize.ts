// Writes one commit's tree from git objects into a fresh directory. The grader runs there,
// never in the caller's working tree, which may hold uncommitted, ignored or generated files
// that the commit does not. Bytes are written as stored in git: no eol conversion, no
// filters, no hooks, no checkout.

import { closeSync, constants, fchmodSync, lstatSync, mkdirSync, openSync, readlinkSync, realpathSync, symlinkSync, writeSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import type { ObjectStore } from '../git/store';
import { isUnsafeName } from '../git/tree';

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

/** Why `path` cannot be written safely, or null. Every segment must be a name a checkout can
 * write: not empty, `.`, `..`, nor `.git` under any of its aliases (case, trailing dots and
 * spaces, HFS+-ignored code points, `git~1`, NTFS streams: isUnsafeName in src/git/tree.ts),
 * and without `\` or NUL. A name that is not valid UTF-8 is refused too (the store shows its
 * bytes as `\xNN`, and the grader writes names only as UTF-8). */
export function unsafePathReason(path: string): string | null {
  if (path.startsWith('/')) return 'it is absolute';
  for (const seg of path.split('/')) {
    if (seg.includes('\\')) return `its segment '${seg}' contains a backslash (or bytes that are not UTF-8, shown as \\xNN)`;
    if (isUnsafeName(Buffer.from(seg, 'utf8'))) {
      return `its segment '${seg}' is not a name a checkout may write (empty, '.', '..', NUL, or '.git' under one of its aliases)`;
    }
  }
  return null;
}

/** Where a symlink at `path` with `target` points inside the tree, or null when it leaves it. */
export function symlinkTargetInside(path: string, target: string): string | null {
  if (target === '' || target.startsWith('/') || target.includes('\0') || target.includes('\\')) return null;
  const joined = posix.normalize(posix.join(posix.dirname(path), target));
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return null;
  return joined;
}

/** Writes the tree of `commitOid` into `dir` (which must exist and be empty). */
export async function materializeCommit(store: ObjectStore, commitOid: string, dir: string): Promise<MaterializeResult> {
  const commit = await store.commits.read(commitOid);
  const files = await store.trees.listFiles(commit.tree, '');
  const root = realpathSync(dir);
  const result: MaterializeResult = { files: 0, symlinks: 0, submodules: [] };
  const symlinks: { path: string; target: string }[] = [];

  for (const { path, entry } of files) {
    const unsafe = unsafePathReason(path);
    if (unsafe) {
      throw new MaterializeError(`refusing to write '${path}' from commit ${commitOid}: ${unsafe}`, path);
    }
    const dest = join(root, ...path.split('/'));
    ensureParent(root, path, dest);
    switch (entry.kind) {
      case 'file':
      case 'exec': {
        const bytes = await store.objects.readBlob(entry.oid, MAX_MATERIALIZED_BLOB);
        writeNew(dest, bytes, entry.kind === 'exec' ? 0o755 : 0o644, path);
        result.files++;
        break;
      }
      case 'symlink': {
        const target = Buffer.from(await store.objects.readBlob(entry.oid, 4096)).toString('utf8');
        if (symlinkTargetInside(path, target) === null) {
          throw new MaterializeError(
            `refusing to write symlink '${path}' -> '${target}' from commit ${commitOid}: its target leaves the tree`,
            path,
          );
        }
        // Symlinks are created last, so no file of the tree is ever written through one.
        symlinks.push({ path, target });
        break;
      }
      case 'gitlink':
        mkdirSync(dest, { recursive: false });
        result.submodules.push(path);
        break;
      case 'tree':
        mkdirSync(dest, { recursive: true });
        break;
    }
  }
  for (const { path, target } of symlinks) {
    const dest = join(root, ...path.split('/'));
    ensureParent(root, path, dest);
    try {
      symlinkSync(target, dest);
    } catch (err) {
      throw new MaterializeError(`cannot create symlink '${path}': ${(err as Error).message}`, path);
    }
    result.symlinks++;
  }
  // The lexical check above cannot see chains (`a -> d/s/..` where `d/s -> ..`): resolve each
  // link through the links actually written and refuse one that lands outside the tree.
  for (const { path, target } of symlinks) {
    if (!resolvesInside(root, path)) {
      throw new MaterializeError(
        `refusing symlink '${path}' -> '${target}' from commit ${commitOid}: through other symlinks of the tree it leaves the tree`,
        path,
      );
    }
  }
  return result;
}

/** Creates the parent directories of `dest` and checks that none of them is a symlink, so a
 * crafted tree cannot make the grader write outside `root`. */
function ensureParent(root: string, path: string, dest: string): void {
  const parent = dirname(dest);
  mkdirSync(parent, { recursive: true });
  const segments = path.split('/').slice(0, -1);
  let at = root;
  for (const seg of segments) {
    at = join(at, seg);
    const st = lstatSync(at);
    if (!st.isDirectory()) {
      throw new MaterializeError(`refusing to write '${path}': '${posix.join(...segments)}' is not a directory in the written tree`, path);
    }
  }
}

function writeNew(dest: string, bytes: Uint8Array, mode: number, path: string): void {
  let fd: number;
  try {
    fd = openSync(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, mode);
  } catch (err) {
    throw new MaterializeError(`cannot write '${path}': ${(err as Error).message} (a tree with two entries of one name?)`, path);
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
    let isLink = false;
    try {
      isLink = lstatSync(join(root, ...stack)).isSymbolicLink();
    } catch {
      isLink = false; // absent: nothing to follow
    }
    if (!isLink) continue;
    if (++hops > 40) return false; // a loop
    const target = readlinkSync(join(root, ...stack));
    if (target.startsWith('/')) return false;
    stack.pop();
    pending = [...target.split('/'), ...pending];
  }
  return true;
}
