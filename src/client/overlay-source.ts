// An EvidenceSource that shows another source with some files replaced, added or removed: the
// tree as it will be once an authoring command has written its files. Authoring commands run
// the gate's own rules over this view before they write anything, so they never write what
// the gate would reject.

import type { EvidenceEntry, EvidenceSource } from '../evidence/types';

export class OverlaySource implements EvidenceSource {
  readonly label: string;
  private readonly files = new Map<string, Uint8Array | null>();

  constructor(
    private readonly under: EvidenceSource,
    label?: string,
  ) {
    this.label = label ?? `${under.label} with the pending changes`;
  }

  /** Shows `bytes` at `path` (null: shows the path as absent). */
  set(path: string, bytes: Uint8Array | null): this {
    this.files.set(path, bytes);
    return this;
  }

  async stat(path: string): Promise<EvidenceEntry> {
    if (this.files.has(path)) {
      const bytes = this.files.get(path)!;
      if (bytes === null) return { kind: 'missing', path };
      return { kind: 'file', path, size: bytes.length, read: async () => bytes };
    }
    const below = await this.under.stat(path);
    if (below.kind === 'missing' && this.pendingBelow(path).length > 0) {
      return { kind: 'other', path, what: 'directory' };
    }
    return below;
  }

  async list(dir: string): Promise<string[]> {
    const listed = new Set(await this.under.list(dir));
    for (const path of this.pendingBelow(dir)) listed.add(path);
    for (const [path, bytes] of this.files) if (bytes === null) listed.delete(path);
    return [...listed].sort();
  }

  private pendingBelow(dir: string): string[] {
    const prefix = dir === '' ? '' : `${dir}/`;
    return [...this.files].filter(([path, bytes]) => bytes !== null && path.startsWith(prefix)).map(([path]) => path);
  }
}
