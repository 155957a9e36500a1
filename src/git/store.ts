// A repository as receipt-gate reads it: the pieces, each used directly by its callers.
//
//   - `objects` (objects.ts): find, read, SHA-1 check and cache every object; blobs with a size
//     limit, raw trees, type and size without reading, the quarantine, abbreviated oids, replace
//     refs;
//   - `commits` (commits.ts): commits and tags through the one parser (src/git/parse/), peeling,
//     git fsck's messages, the shallow boundary;
//   - `trees` (tree-paths.ts): the entry at a path, the files below a directory;
//   - `refs` (refs.ts): loose refs, packed-refs, symbolic refs, GIT_NAMESPACE, rev-parse names;
//   - `config` (config.ts): the repository's config file.
// `ObjectStore` opens them on one repository (its git directory, the common directory of a
// linked worktree, the environment's quarantine, alternates and namespace) and closes them.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { objectDirectories } from './object-dirs';
import { RefReader, namespacePrefix } from './refs';
import { RepositoryConfig } from './config';
import { ObjectDatabase } from './objects';
import { CommitReader } from './commits';
import { TreePaths } from './tree-paths';
import { GitReadError } from './types';

export { GitReadError } from './types';
export { ObjectInvalidError } from './parse/commit';
export type { ObjectMessage } from './parse/common';
export { UnsupportedRepositoryError } from './config';
export type { RawRef, RefEntry, ResolvedRef } from './refs';
export { BlobTooLargeError, ObjectTooLargeError, MAX_NON_BLOB_BYTES } from './objects';
export type { CommitRecord } from './commits';

export class ObjectStore {
  readonly objects: ObjectDatabase;
  readonly commits: CommitReader;
  readonly trees: TreePaths;
  /** Refs; inside GIT_NAMESPACE every name it takes and gives is the client's (refs.ts). */
  readonly refs: RefReader;

  private constructor(
    readonly gitdir: string,
    /** Where objects, refs and config live (the main git directory of a linked worktree). */
    readonly commondir: string,
    readonly config: RepositoryConfig,
    env: NodeJS.ProcessEnv,
  ) {
    // The reader resolves a full oid to itself when the object is present, as rev-parse does.
    this.refs = new RefReader(gitdir, commondir, namespacePrefix(env.GIT_NAMESPACE), (oid) => this.objects.hasObject(oid));
    this.objects = new ObjectDatabase(commondir, objectDirectories(commondir, env), this.refs, config, env);
    this.commits = new CommitReader(this.objects, this.refs, commondir);
    this.trees = new TreePaths(this.objects);
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
    const pointer = join(gitdir, 'commondir');
    try {
      // A linked worktree names its common directory; most repositories have no such file
      // (asked with existsSync: no error is built for them).
      const rel = existsSync(pointer) ? readFileSync(pointer, 'utf8').trim() : '';
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
    this.objects.close();
  }
}

function isGitDir(dir: string): boolean {
  return existsSync(join(dir, 'HEAD')) && (existsSync(join(dir, 'objects')) || existsSync(join(dir, 'commondir')));
}
