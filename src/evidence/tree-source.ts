// An EvidenceSource over one git tree, read through the object store. Paths are looked up
// exactly, as git stores them; sizes come from object headers, so an oversized blob is
// refused before it is read.

import type { ObjectStore } from '../git/store';
import { GitReadError } from '../git/types';
import type { EvidenceEntry, EvidenceSource } from './types';

export class TreeSource implements EvidenceSource {
  constructor(
    private readonly store: ObjectStore,
    private readonly treeOid: string,
    readonly label: string,
  ) {}

  async stat(path: string): Promise<EvidenceEntry> {
    const entry = await this.store.entryAt(this.treeOid, path);
    if (!entry) return { kind: 'missing', path };
    if (entry.kind === 'tree') return { kind: 'other', path, what: 'directory' };
    if (entry.kind === 'symlink') return { kind: 'other', path, what: 'symlink' };
    if (entry.kind === 'gitlink') return { kind: 'other', path, what: 'submodule' };
    const info = await this.store.objectInfo(entry.oid);
    if (!info || info.type !== 'blob') {
      throw new GitReadError(`${path} in ${this.label} names blob ${entry.oid}, which the repository does not have`, entry.oid);
    }
    const { store } = this;
    return { kind: 'file', path, size: info.size, read: () => store.readBlob(entry.oid, info.size) };
  }

  async list(dir: string): Promise<string[]> {
    const files = await this.store.listFiles(this.treeOid, dir);
    return files.map((f) => f.path).sort();
  }
}
