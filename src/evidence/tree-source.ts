// An EvidenceSource over one git tree, read through the object store. Paths are looked up
// exactly, as git stores them; sizes come from object headers, so an oversized blob is
// refused before it is read.

import type { Deadline } from '../deadline';
import type { ObjectStore } from '../git/store';
import { GitReadError, type EntryKind } from '../git/types';
import { checkEvidence } from './index';
import type { EvidenceEntry, EvidenceReport, EvidenceSource, Policy } from './types';

/** The evidence view of one tree or index entry: a regular file's size comes from the object
 * header, and its bytes are read only when asked for. */
export async function entryAt(
  store: ObjectStore,
  path: string,
  entry: { kind: EntryKind; oid: string },
  label: string,
): Promise<EvidenceEntry> {
  if (entry.kind === 'tree') return { kind: 'other', path, what: 'directory' };
  if (entry.kind === 'symlink') return { kind: 'other', path, what: 'symlink' };
  if (entry.kind === 'gitlink') return { kind: 'other', path, what: 'submodule' };
  const info = await store.objects.objectInfo(entry.oid);
  if (!info || info.type !== 'blob') {
    throw new GitReadError(`${path} in ${label} names blob ${entry.oid}, which the repository does not have`, entry.oid);
  }
  return { kind: 'file', path, size: info.size, oid: entry.oid, read: () => store.objects.readBlob(entry.oid, info.size) };
}

export class TreeSource implements EvidenceSource {
  constructor(
    private readonly store: ObjectStore,
    private readonly treeOid: string,
    readonly label: string,
  ) {}

  async stat(path: string): Promise<EvidenceEntry> {
    const entry = await this.store.trees.entryAt(this.treeOid, path);
    if (!entry) return { kind: 'missing', path };
    return entryAt(this.store, path, entry, this.label);
  }

  async list(dir: string): Promise<string[]> {
    const files = await this.store.trees.listFiles(this.treeOid, dir);
    return files.map((f) => f.path).sort();
  }
}

/** checkEvidence over a commit's tree (and the base commit's, for EPOCH_REWRITTEN), for the
 * tools that judge one commit outside a push: the receipt's verifier, and the grader until the
 * engine hands it the report of its own run. */
export async function checkEvidenceAtCommit(
  store: ObjectStore,
  policy: Policy,
  commit: string,
  opts: { base: string | null; today: string; deadline?: Deadline },
): Promise<EvidenceReport> {
  const tree = (await store.commits.read(commit)).tree;
  const baseTree = opts.base === null ? null : (await store.commits.read(opts.base)).tree;
  return checkEvidence({
    policy,
    atNew: new TreeSource(store, tree, `commit ${commit.slice(0, 7)}`),
    atBase: baseTree === null || opts.base === null ? null : new TreeSource(store, baseTree, `base ${opts.base.slice(0, 7)}`),
    today: opts.today,
    ...(opts.deadline ? { deadline: opts.deadline } : {}),
  });
}
