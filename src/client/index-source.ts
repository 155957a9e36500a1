// An EvidenceSource over the staged index: the tree the commit being made will have. Entries
// come from the index file, bytes from the object store (`git add` wrote them there).
//
// The lookups are built on first use, and the directory set only when a path is missing or a
// directory is listed: a pre-commit on a 100,000-file index asks for a handful of paths.

import type { EvidenceEntry, EvidenceSource } from '../evidence/types';
import type { ObjectStore } from '../git/store';
import type { IndexEntry } from '../git/staged-index';
import { entryAt } from '../evidence/tree-source';

export class IndexSource implements EvidenceSource {
  private byPathMap: Map<string, IndexEntry> | null = null;
  private dirSet: Set<string> | null = null;
  private sortedPaths: string[] | null = null;

  constructor(
    private readonly store: ObjectStore,
    private readonly entries: readonly IndexEntry[],
    readonly label = 'the staged index',
  ) {}

  /** Path to entry; a later entry with the same decoded path wins, as before. */
  private get byPath(): Map<string, IndexEntry> {
    if (!this.byPathMap) {
      this.byPathMap = new Map();
      for (const entry of this.entries) this.byPathMap.set(entry.path, entry);
    }
    return this.byPathMap;
  }

  /** Every directory that holds an entry, at any depth. */
  private get dirs(): Set<string> {
    if (!this.dirSet) {
      this.dirSet = new Set();
      for (const path of this.byPath.keys()) {
        for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) this.dirSet.add(path.slice(0, slash));
      }
    }
    return this.dirSet;
  }

  private get sorted(): string[] {
    if (!this.sortedPaths) this.sortedPaths = [...this.byPath.keys()].sort();
    return this.sortedPaths;
  }

  async stat(path: string): Promise<EvidenceEntry> {
    const entry = this.byPath.get(path);
    if (!entry) return this.dirs.has(path) ? { kind: 'other', path, what: 'directory' } : { kind: 'missing', path };
    return entryAt(this.store, path, entry, this.label);
  }

  async list(dir: string): Promise<string[]> {
    const prefix = dir.replace(/\/+$/, '');
    if (prefix === '') return [...this.sorted];
    if (!this.dirs.has(prefix)) return [];
    return this.sorted.filter((p) => p.startsWith(`${prefix}/`));
  }
}
