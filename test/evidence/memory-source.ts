// An in-memory EvidenceSource for the rule tests: a { path: entry } map, folders implied by the
// paths, with the same path and listing rules as the sources the gate uses.

import { createHash } from 'node:crypto';
import { byCodeUnit, isRepoPath, normalizeDir } from '../../src/evidence/sources';
import type { EvidenceEntry, EvidenceSource } from '../../src/evidence/types';

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

  /** With `oids`, each file's entry carries its git blob oid, as a git tree's do. */
  constructor(
    files: Record<string, MemoryEntry>,
    readonly label: string = 'the test tree',
    private readonly opts: { oids?: boolean } = {},
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
      ...(this.opts.oids ? { oid: createHash('sha1').update(`blob ${bytes.length}\0`).update(bytes).digest('hex') } : {}),
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
