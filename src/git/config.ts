// The repository's config, read through isomorphic-git (`getConfig`, `getConfigAll`).
//
// receipt-gate needs few keys: the two extensions it cannot read past (the SHA-256 object
// format, reftable ref storage) and `branch.<name>.remote` / `.merge` / `remote.<name>.fetch`
// for `@{upstream}`. Only the repository's own config file is read (`<commondir>/config`), as
// isomorphic-git does: no system or global file, no `include`/`includeIf`. Section and key
// names are case-insensitive, subsection names (`branch.Main`) case-sensitive, as in git.

import { getConfig, getConfigAll } from 'isomorphic-git';
import type * as git from 'isomorphic-git';
import { plainReadOnlyFs } from './fs-view';
import { GitReadError } from './types';

/** The repository extensions receipt-gate refuses (with the value it found). */
export type UnsupportedExtension = 'objectFormat' | 'refStorage';

/** The one sentence every command prints for a repository receipt-gate cannot read (exit 2:
 * nothing was checked). `init` refuses with it before writing anything. */
export function unsupportedRepositoryMessage(repository: string, extension: UnsupportedExtension, value: string): string {
  if (extension === 'objectFormat') {
    return (
      `The repository ${repository} uses the ${value} object format (extensions.objectFormat = ${value}); ` +
      'receipt-gate reads SHA-1 repositories only, so it checked nothing. Use receipt-gate on a SHA-1 repository (the default of `git init`).'
    );
  }
  return (
    `The repository ${repository} stores its refs as ${value} (extensions.refStorage = ${value}); ` +
    'receipt-gate reads the files ref format only, so it checked nothing. Convert the repository with `git refs migrate --ref-format=files` (git 2.46 or later).'
  );
}

/** A repository receipt-gate refuses to read: a GitReadError, so every command that already
 * reports those (exit 2) reports this one with the same sentence. */
export class UnsupportedRepositoryError extends GitReadError {
  constructor(
    readonly repository: string,
    readonly extension: UnsupportedExtension,
    readonly value: string,
  ) {
    super(unsupportedRepositoryMessage(repository, extension, value));
    this.name = 'UnsupportedRepositoryError';
  }
}

/** One repository's config file; each key is read once. */
export class RepositoryConfig {
  private readonly read = new Map<string, Promise<string[]>>();

  /**
   * @param commondir the git directory holding `config` (a linked worktree's common dir)
   * @param fs the fs isomorphic-git reads it through (default: the real files, read-only)
   */
  constructor(
    readonly commondir: string,
    private readonly fs: git.PromiseFsClient = plainReadOnlyFs(),
  ) {}

  /** Every value of `path` (`section.key` or `section.subsection.key`), in file order. */
  async values(path: string): Promise<string[]> {
    let hit = this.read.get(path);
    if (!hit) {
      hit = getConfigAll({ fs: this.fs, gitdir: this.commondir, path }).then(
        (all) => (all as unknown[]).map((v) => String(v)),
        (err: unknown) => {
          throw new GitReadError(`Cannot read ${this.commondir}/config (${path}): ${err instanceof Error ? err.message : String(err)}.`);
        },
      );
      this.read.set(path, hit);
    }
    return hit;
  }

  /** The value of `path` as git reads it (the last one wins), or null when unset. */
  async value(path: string): Promise<string | null> {
    const all = await this.values(path);
    return all.length > 0 ? all[all.length - 1]! : null;
  }

  /** Throws UnsupportedRepositoryError for the SHA-256 object format and for ref storage other
   * than files; `repository` is how the message names the repository. */
  async refuseUnsupported(repository: string): Promise<void> {
    const format = await this.value('extensions.objectformat');
    if (format !== null && format.toLowerCase() !== 'sha1') throw new UnsupportedRepositoryError(repository, 'objectFormat', format);
    const refs = await this.value('extensions.refstorage');
    if (refs !== null && refs.toLowerCase() !== 'files') throw new UnsupportedRepositoryError(repository, 'refStorage', refs);
  }
}

/** `getConfig` for one key of the repository at `gitdir` (its common dir), or null. */
export async function configValue(gitdir: string, path: string): Promise<string | null> {
  // isomorphic-git parses a few core keys to booleans or numbers; every other value is a string.
  const value = (await getConfig({ fs: plainReadOnlyFs(), gitdir, path })) as string | number | boolean | null | undefined;
  return value === undefined || value === null ? null : String(value);
}

/** Refuses (UnsupportedRepositoryError) a repository receipt-gate cannot read, before any
 * command reads or writes in it. */
export async function refuseUnsupportedRepository(gitdir: string): Promise<void> {
  await new RepositoryConfig(gitdir).refuseUnsupported(gitdir);
}
