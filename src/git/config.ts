// The repository's config, read through isomorphic-git (`getConfig`, `getConfigAll`).
//
// receipt-gate needs few keys: the two extensions it cannot read past (the SHA-256 object
// format, reftable ref storage) and `branch.<name>.remote` / `.merge` / `remote.<name>.fetch`
// for `@{upstream}`. Only the repository's own config file is read (`<commondir>/config`), as
// isomorphic-git does: no system or global file, no `include`/`includeIf`. Section and key
// names are case-insensitive, subsection names (`branch.Main`) case-sensitive, as in git.

import { readdirSync, readFileSync, statSync } from 'node:fs';
import { getConfig, getConfigAll } from 'isomorphic-git';
import type * as git from 'isomorphic-git';
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
  /** The file's text, lower-cased, read once (null: it could not be read). */
  private text: Promise<string | null> | undefined;

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
      hit = this.mayHold(path).then((maybe) => (maybe ? this.parsedValues(path) : []));
      this.read.set(path, hit);
    }
    return hit;
  }

  /**
   * Whether the file can hold `path`: a variable's name is written out on its line (no escape
   * or continuation reaches a name), so a file whose text does not contain the key's name, in
   * any case, has no value for it, and is not parsed for it. Unreadable: isomorphic-git decides.
   */
  private async mayHold(path: string): Promise<boolean> {
    const fs = this.fs.promises as unknown as { readFile(path: string, encoding: string): Promise<unknown> };
    this.text ??= Promise.resolve()
      .then(() => fs.readFile(`${this.commondir}/config`, 'utf8'))
      .then(
        (t) => (typeof t === 'string' ? t.toLowerCase() : null),
        () => null,
      );
    const text = await this.text;
    return text === null || text.includes(path.slice(path.lastIndexOf('.') + 1).toLowerCase());
  }

  private parsedValues(path: string): Promise<string[]> {
    return getConfigAll({ fs: this.fs, gitdir: this.commondir, path }).then(
      (all) => (all as unknown[]).map((v) => String(v)),
      (err: unknown) => {
        throw new GitReadError(`Cannot read ${this.commondir}/config (${path}): ${err instanceof Error ? err.message : String(err)}.`);
      },
    );
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

/** isomorphic-git probes paths that do not exist and only looks at `code`: the error is made
 * without capturing a stack trace, which would cost more than the read. */
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

/** A read-only fs for isomorphic-git over the real files, synchronous underneath (no thread-pool
 * hop per call): what its config reader is given. */
export function plainReadOnlyFs(): git.PromiseFsClient {
  const readFile = async (path: string, opts?: unknown): Promise<Buffer | string> => {
    // isomorphic-git calls readFile() without a path to learn whether the fs is promise-based.
    if (typeof path !== 'string') throw enoent(String(path));
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
    const st = statSync(path, { throwIfNoEntry: false });
    if (st === undefined) throw enoent(path);
    return st;
  };
  const refuse = async (path: string) => {
    throw erofs(String(path));
  };
  const readdir = async (path: string) => readdirSync(path);
  const promises = { readFile, stat, lstat: stat, readdir, readlink: refuse, writeFile: refuse, mkdir: refuse, rmdir: refuse, unlink: refuse, symlink: refuse, rm: refuse };
  return { promises };
}

/** One `section[.subsection].key = value` of a config file, the key lower-cased as git does
 * (section and key names are case-insensitive, subsections not). */
export interface ConfigEntry {
  key: string;
  value: string;
}

/**
 * The entries of a git config file's text, in order: `[section]`, `[section "subsection"]`,
 * `key = value` with git's quoting (`"…"`, `\"`, `\\`, `\n`, `\t`, a trailing `\` continuing
 * the line), `;` and `#` comments, and a bare `key` meaning true.
 */
export function parseConfigText(text: string): ConfigEntry[] {
  const entries: ConfigEntry[] = [];
  let section = '';
  const lines = text.replace(/\r\n/g, '\n').split('\n');
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    const header = /^\s*\[\s*([A-Za-z0-9.-]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\]\s*(.*)$/.exec(line);
    if (header) {
      const [name, sub] = [header[1]!.toLowerCase(), header[2]];
      // [section.sub] (the old form) lower-cases the subsection; [section "sub"] keeps its case.
      section = sub !== undefined ? `${name}.${sub.replace(/\\(.)/g, '$1')}` : name;
      line = header[3]!;
      if (line.trim() === '' || /^\s*[;#]/.test(line)) continue;
    }
    const m = /^\s*([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/.exec(line);
    if (!m || section === '') continue;
    const key = `${section}.${m[1]!.toLowerCase()}`;
    if (m[2] === undefined) {
      entries.push({ key, value: 'true' });
      continue;
    }
    let raw = m[2];
    // A value ending in an unquoted backslash continues on the next line.
    while (/(^|[^\\])(\\\\)*\\$/.test(raw) && i + 1 < lines.length) raw = raw.slice(0, -1) + lines[++i];
    entries.push({ key, value: configValueText(raw) });
  }
  return entries;
}

/** A raw value as git reads it: quotes removed, escapes resolved, comments and the white space
 * around an unquoted value dropped. */
function configValueText(raw: string): string {
  let out = '';
  let quoted = false;
  let pending = ''; // unquoted white space, kept only when more value follows
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!;
    if (!quoted && (c === ';' || c === '#')) break;
    if (c === '"') {
      out += pending;
      pending = '';
      quoted = !quoted;
      continue;
    }
    if (c === '\\' && i + 1 < raw.length) {
      const next = raw[++i]!;
      out += pending + (next === 'n' ? '\n' : next === 't' ? '\t' : next === 'b' ? '\b' : next);
      pending = '';
      continue;
    }
    if (!quoted && /\s/.test(c)) {
      if (out !== '') pending += c;
      continue;
    }
    out += pending + c;
    pending = '';
  }
  return out;
}

/**
 * The config files git reads, lowest precedence first, as `git config` lists them: the system
 * file (`GIT_CONFIG_SYSTEM`, else /etc/gitconfig; none with `GIT_CONFIG_NOSYSTEM`), the global
 * ones (`GIT_CONFIG_GLOBAL`, else `$XDG_CONFIG_HOME/git/config` or `~/.config/git/config`, then
 * `~/.gitconfig`), the repository's `config`. `include.path` is followed (relative to the file
 * that names it, `~/` from HOME), up to 10 deep; `includeIf` is not.
 */
export function gitConfigEntries(commondir: string | null, env: NodeJS.ProcessEnv): ConfigEntry[] {
  const home = env.HOME ?? null;
  const files: string[] = [];
  const noSystem = env.GIT_CONFIG_NOSYSTEM !== undefined && !/^(0|false|no|off)?$/i.test(env.GIT_CONFIG_NOSYSTEM);
  if (!noSystem) files.push(env.GIT_CONFIG_SYSTEM ?? '/etc/gitconfig');
  if (env.GIT_CONFIG_GLOBAL !== undefined) files.push(env.GIT_CONFIG_GLOBAL);
  else {
    const xdg = env.XDG_CONFIG_HOME ? `${env.XDG_CONFIG_HOME}/git/config` : home ? `${home}/.config/git/config` : null;
    if (xdg) files.push(xdg);
    if (home) files.push(`${home}/.gitconfig`);
  }
  if (commondir !== null) files.push(`${commondir}/config`);
  const entries: ConfigEntry[] = [];
  const read = (file: string, depth: number): void => {
    if (file === '' || file === '/dev/null' || depth > 10) return;
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      return; // an absent or unreadable file holds nothing, as for git
    }
    for (const e of parseConfigText(text)) {
      if (e.key === 'include.path') {
        const target = e.value.startsWith('~/') && home ? `${home}${e.value.slice(1)}` : e.value.startsWith('/') ? e.value : `${file.slice(0, file.lastIndexOf('/') + 1)}${e.value}`;
        read(target, depth + 1);
      } else entries.push(e);
    }
  };
  for (const file of files) read(file, 0);
  // GIT_CONFIG_COUNT, GIT_CONFIG_KEY_<n>, GIT_CONFIG_VALUE_<n>: the environment's own entries, last.
  const count = Number(env.GIT_CONFIG_COUNT ?? '0');
  for (let n = 0; Number.isInteger(count) && n < count; n++) {
    const key = env[`GIT_CONFIG_KEY_${n}`];
    const value = env[`GIT_CONFIG_VALUE_${n}`];
    if (!key || value === undefined) continue;
    const dot = key.lastIndexOf('.');
    const first = key.indexOf('.');
    const lowered = first === dot ? key.toLowerCase() : `${key.slice(0, first).toLowerCase()}${key.slice(first, dot)}${key.slice(dot).toLowerCase()}`;
    entries.push({ key: lowered, value });
  }
  return entries;
}

/** The last value of `key` (lower-case section and name) among `entries`, or null. */
export function lastValue(entries: readonly ConfigEntry[], key: string): string | null {
  for (let i = entries.length - 1; i >= 0; i--) if (entries[i]!.key === key) return entries[i]!.value;
  return null;
}
