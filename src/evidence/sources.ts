// An EvidenceSource besides the git tree (src/evidence/tree-source.ts): a working directory on
// disk, for `receipt-gate check`.

import { lstat, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { EvidenceEntry, EvidenceSource } from './types';

/** True for a repository path the gate can look up: relative, '/'-separated, no empty, `.` or
 * `..` segment, no backslash or NUL. */
export function isRepoPath(path: string): boolean {
  if (path === '' || path.includes('\\') || path.includes('\u0000')) return false;
  return path.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/** A folder to list: '' for the root, null when it is no repository path. */
export function normalizeDir(dir: string): string | null {
  const trimmed = dir.replace(/\/+$/, '');
  if (trimmed === '' || trimmed === '.') return '';
  return isRepoPath(trimmed) ? trimmed : null;
}

export function byCodeUnit(a: string, b: string): number {
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
