// An EvidenceSource over the staged index: the tree the commit being made will have. Entries
// come from the index file, bytes from the object store (`git add` wrote them there).

import type { EvidenceEntry, EvidenceSource } from '../evidence/types';
import type { ObjectStore } from '../git/store';
import type { IndexEntry } from '../git/staged-index';
import { entryAt } from '../evidence/tree-source';

export class IndexSource implements EvidenceSource {
  private readonly byPath = new Map<string, IndexEntry>();
  private readonly dirs = new Set<string>();
  private readonly sorted: string[];

  constructor(
    private readonly store: ObjectStore,
    entries: readonly IndexEntry[],
    readonly label = 'the staged index',
  ) {
    for (const entry of entries) {
      this.byPath.set(entry.path, entry);
      const segments = entry.path.split('/');
      for (let i = 1; i < segments.length; i++) this.dirs.add(segments.slice(0, i).join('/'));
    }
    this.sorted = [...this.byPath.keys()].sort();
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
