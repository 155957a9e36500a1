// One evidence report for trees whose evidence is the same. A push of many tags on distinct
// commits asks for the evidence over the whole tree at each of them; the trees differ (each
// commit changed some source file) while the evidence files the checks read are the same
// blobs. The evidence checks see a tree only through an EvidenceSource: the entry at a path
// (`stat`), the files below a folder (`list`) and a label for messages. Here the source of a
// tree records each question and the entry it answered from; a later tree that gives the same
// entry (kind and object id) for every recorded question gets the same report, because the
// checks, deterministic on the same answers (the same blobs, policy, base tree and day), would
// ask the same questions and reach the same report.
//
// Not reused: a report whose run read the label (a message naming the commit), met an error
// while asking (a message naming the tree), or holds an INTERNAL_ERROR or LIMIT_EXCEEDED
// finding. The deadline is not part of a report: a run it stops throws and is kept by no one.

import type { Finding } from '../findings';
import type { ObjectStore } from '../git/store';
import type { RawTree } from '../git/raw-tree';
import type { EntryKind, TreeEntry } from '../git/types';
import { entryAt } from '../evidence/tree-source';
import type { EvidenceEntry, EvidenceReport, EvidenceSource } from '../evidence/types';

/** The entry a question was answered from: null when absent. */
type Seen = { kind: EntryKind; oid: string } | null;

/** A question and the entry that answered it: the path's own entry (`stat`), or the entry at
 * the folder (`list`: the same folder tree lists the same files). */
interface Question {
  path: string;
  seen: Seen;
}

/** A tree's EvidenceSource that records what it was asked (TreeSource's answers, exactly). */
export class RecordingTreeSource implements EvidenceSource {
  readonly questions: Question[] = [];
  /** False once the label was read or a question failed. */
  reusable = true;

  constructor(
    private readonly store: ObjectStore,
    private readonly treeOid: string,
    private readonly name: string,
  ) {}

  get label(): string {
    this.reusable = false;
    return this.name;
  }

  async stat(path: string): Promise<EvidenceEntry> {
    try {
      const entry = await this.store.trees.entryAt(this.treeOid, path);
      this.questions.push({ path, seen: entry ? { kind: entry.kind, oid: entry.oid } : null });
      if (!entry) return { kind: 'missing', path };
      return await entryAt(this.store, path, entry, this.name);
    } catch (err) {
      this.reusable = false;
      throw err;
    }
  }

  async list(dir: string): Promise<string[]> {
    try {
      const prefix = dir.split('/').filter((p) => p !== '').join('/');
      // The whole tree is listed from the tree itself: no other tree lists the same.
      if (prefix === '') this.reusable = false;
      else {
        const at = await this.store.trees.entryAt(this.treeOid, prefix);
        this.questions.push({ path: prefix, seen: at ? { kind: at.kind, oid: at.oid } : null });
      }
      const files = await this.store.trees.listFiles(this.treeOid, dir);
      return files.map((f) => f.path).sort();
    } catch (err) {
      this.reusable = false;
      throw err;
    }
  }
}

/** A report and the questions its run asked; `folders`: the folders below the root its
 * comparisons have read, by oid (the same folder in every tree that shares it). */
export interface RecordedReport {
  questions: readonly Question[];
  report: EvidenceReport;
  folders: Map<string, RawTree>;
}

/** Folders a recorded report keeps for its comparisons. */
const KEPT_FOLDERS = 64;

/** The recorded report, if it may serve other trees. */
export function recorded(source: RecordingTreeSource, report: EvidenceReport): RecordedReport | null {
  if (!source.reusable || report.findings.some(unsettled)) return null;
  return { questions: source.questions, report, folders: new Map() };
}

function unsettled(f: Finding): boolean {
  return f.code === 'INTERNAL_ERROR' || f.code === 'LIMIT_EXCEEDED';
}

/** True when `tree` answers every question of `r` from the same entry. A tree that cannot be
 * read is not the same: its own run meets the error, and says it as it always has. */
export async function sameAnswers(store: ObjectStore, tree: string, r: RecordedReport): Promise<boolean> {
  // Each folder read once for all the questions (TreePaths.entryAt reads the root once per
  // path asked), and a folder below the root once for all the trees compared with `r` (a
  // folder is its oid's bytes): the same lookup, name by name, as entryAt's.
  let root: RawTree | null = null;
  const folder = async (oid: string): Promise<RawTree> => {
    if (oid === tree) return (root ??= await store.objects.readRawTree(oid));
    let raw = r.folders.get(oid);
    if (!raw) {
      raw = await store.objects.readRawTree(oid);
      if (r.folders.size >= KEPT_FOLDERS) r.folders.clear();
      r.folders.set(oid, raw);
    }
    return raw;
  };
  const entryAt = async (path: string): Promise<TreeEntry | null> => {
    const parts = path.split('/').filter((p) => p !== '');
    if (parts.length === 0) return null;
    let at = tree;
    for (let i = 0; ; i++) {
      const raw = await folder(at);
      const entry = raw.find(parts[i]!);
      if (i === parts.length - 1 || entry === null) return entry;
      if (entry.kind !== 'tree') return null;
      at = entry.oid;
    }
  };
  try {
    for (const q of r.questions) {
      const entry = await entryAt(q.path);
      if (entry === null ? q.seen !== null : q.seen === null || entry.kind !== q.seen.kind || entry.oid !== q.seen.oid) return false;
    }
    return true;
  } catch {
    return false;
  }
}
