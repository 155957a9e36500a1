// EvidenceSources besides the git tree (src/evidence/tree-source.ts): a working directory on
// disk, for `receipt-gate check`, and an in-memory tree, for tests.

import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EvidenceEntry, EvidenceSource } from './types';

/** True for a repository path the gate can look up: relative, '/'-separated, no empty, `.` or
 * `..` segment, no backslash or NUL. */
function isRepoPath(path: string): boolean {
  if (path === '' || path.includes('\\') || path.includes('\u0000')) return false;
  return path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

function normalizeDir(dir: string): string | null {
  const trimmed = dir.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return '';
  return isRepoPath(trimmed) ? trimmed : null;
}

function byCodeUnit(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * A working directory on disk. Symlinks are never followed (lstat at every segment): a path
 * below a symlinked folder does not exist, as in git, and a symlink where a file should be is
 * reported as a symlink. A folder holding `.git` is a submodule; the top-level `.git` is skipped.
 */
export class DirectorySource implements EvidenceSource {
  readonly label: string;

  constructor(
    private readonly root: string,
    label?: string,
  ) {
    this.label = label ?? `the working tree at ${root}`;
  }

  async stat(path: string): Promise<EvidenceEntry> {
    if (!isRepoPath(path) || path.split('/')[0] === '.git') return { kind: 'missing', path };
    const segments = path.split('/');
    for (let i = 1; i < segments.length; i++) {
      const kind = await this.kindOf(segments.slice(0, i).join('/'));
      if (kind !== 'directory') return { kind: 'missing', path };
    }
    const kind = await this.kindOf(path);
    if (kind === null) return { kind: 'missing', path };
    if (kind !== 'file') return { kind: 'other', path, what: kind };
    const full = join(this.root, ...segments);
    const info = await lstat(full);
    return {
      kind: 'file',
      path,
      size: info.size,
      read: async () => new Uint8Array(await readFile(full)),
    };
  }

  async list(dir: string): Promise<string[]> {
    const start = normalizeDir(dir);
    if (start === null) return [];
    if (start !== '') {
      const segments = start.split('/');
      for (let i = 1; i <= segments.length; i++) {
        if ((await this.kindOf(segments.slice(0, i).join('/'))) !== 'directory') return [];
      }
    }
    const out: string[] = [];
    const walk = async (rel: string): Promise<void> => {
      const names = await readdir(rel === '' ? this.root : join(this.root, ...rel.split('/')));
      for (const name of names) {
        if (rel === '' && name === '.git') continue;
        const child = rel === '' ? name : `${rel}/${name}`;
        const kind = await this.kindOf(child);
        if (kind === 'directory') await walk(child);
        else if (kind !== null) out.push(child);
      }
    };
    await walk(start);
    return out.sort(byCodeUnit);
  }

  /** What sits at a repository path, without following symlinks. */
  private async kindOf(path: string): Promise<'file' | 'directory' | 'symlink' | 'submodule' | null> {
    let info;
    try {
      info = await lstat(join(this.root, ...path.split('/')));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT' || (err as NodeJS.ErrnoException).code === 'ENOTDIR') {
        return null;
      }
      throw err;
    }
    if (info.isSymbolicLink()) return 'symlink';
    if (info.isFile()) return 'file';
    if (info.isDirectory()) {
      try {
        await lstat(join(this.root, ...path.split('/'), '.git'));
        return 'submodule';
      } catch {
        return 'directory';
      }
    }
    return null; // sockets, fifos, devices: not something git stores
  }
}

/** One entry of a MemorySource tree. `{ size }` stands for a file of that size whose bytes must
 * never be read (reading it throws): it proves a size limit is applied before reading. */
export type MemoryEntry =
  | string
  | Uint8Array
  | { symlink: string }
  | { submodule: string }
  | { size: number };

/** An in-memory tree from a { path: entry } map; folders are implied by the paths. */
export class MemorySource implements EvidenceSource {
  private readonly files = new Map<string, MemoryEntry>();
  private readonly dirs = new Set<string>();
  /** Paths whose bytes were read, in order (tests assert what was, and was not, read). */
  readonly reads: string[] = [];

  constructor(
    files: Record<string, MemoryEntry>,
    readonly label: string = 'the test tree',
  ) {
    for (const path of Object.keys(files)) {
      if (!isRepoPath(path)) throw new Error(`MemorySource: ${JSON.stringify(path)} is not a repository path`);
      this.files.set(path, files[path]!);
      const segments = path.split('/');
      for (let i = 1; i < segments.length; i++) this.dirs.add(segments.slice(0, i).join('/'));
    }
    for (const dir of this.dirs) {
      if (this.files.has(dir)) throw new Error(`MemorySource: ${dir} is both a file and a folder`);
    }
  }

  async stat(path: string): Promise<EvidenceEntry> {
    if (this.dirs.has(path)) return { kind: 'other', path, what: 'directory' };
    const entry = this.files.get(path);
    if (entry === undefined) return { kind: 'missing', path };
    if (typeof entry === 'object' && 'symlink' in entry) return { kind: 'other', path, what: 'symlink' };
    if (typeof entry === 'object' && 'submodule' in entry) return { kind: 'other', path, what: 'submodule' };
    if (typeof entry === 'object' && 'size' in entry && !(entry instanceof Uint8Array)) {
      return {
        kind: 'file',
        path,
        size: entry.size,
        read: async () => {
          throw new Error(`MemorySource: ${path} (${entry.size} bytes) was read; its size should have been refused first`);
        },
      };
    }
    const bytes = typeof entry === 'string' ? new TextEncoder().encode(entry) : entry;
    return {
      kind: 'file',
      path,
      size: bytes.length,
      read: async () => {
        this.reads.push(path);
        return bytes.slice();
      },
    };
  }

  async list(dir: string): Promise<string[]> {
    const start = normalizeDir(dir);
    if (start === null) return [];
    if (start !== '' && !this.dirs.has(start)) return [];
    const prefix = start === '' ? '' : start + '/';
    return [...this.files.keys()].filter((p) => p.startsWith(prefix)).sort(byCodeUnit);
  }
}
