// Receipts of a monorepo's bounded contexts (docs/contexts.md): one receipt per touched context,
// each stored as its own file (receipt-<context>.json) or git note (refs/notes/receipt-gate-<context>),
// and the merge bot's rule — every context the commit touches has an eligible receipt for it.

import { evaluate } from '../engine';
import type { History } from '../git/history/history';
import type { ObjectStore } from '../git/store';
import type { Base } from '../run/base';
import { ZERO_OID } from '../types';

/** Notes receipts are too large for: a note over this size is refused before it is read. */
const MAX_NOTE_BYTES = 16 * 1024 * 1024;

/** The notes ref (as `git notes --ref` takes it) a receipt is stored under: `receipt-gate` for a
 * repository without contexts, `receipt-gate-<context>` for one context's. */
export function receiptNotesRef(context: string | null): string {
  return context === null ? 'receipt-gate' : `receipt-gate-${context}`;
}

/** The file `receipt` writes a context's receipt to by default. */
export function receiptFileName(context: string): string {
  return `receipt-${context}.json`;
}

/** The names of the contexts `commit` touches against the base, judged as `receipt` judges it
 * (the commits reachable from it and not from the base, and the net change). */
export async function touchedContextNames(at: { store: ObjectStore; history: History; base: Base; commit: string; refName: string; today: string }): Promise<Set<string>> {
  const gate = await evaluate(
    { store: at.store, history: at.history, base: at.base, identity: null, today: at.today, scope: { kind: 'base', exclude: [] } },
    [{ old: ZERO_OID, new: at.commit, ref: at.refName }],
  );
  return new Set((gate.refs[0]?.contexts ?? []).filter((c) => c.touched).map((c) => c.name));
}

/** The note on `commit` under `ref` (flat or fanned out, as git stores notes), or null. */
export async function readNote(store: ObjectStore, ref: string, commit: string): Promise<string | null> {
  const notesCommit = store.refs.resolve(`refs/notes/${ref}`);
  if (notesCommit === null) return null;
  const { tree } = await store.commits.read(await store.commits.peelToCommit(notesCommit));
  for (const path of [commit, `${commit.slice(0, 2)}/${commit.slice(2)}`, `${commit.slice(0, 2)}/${commit.slice(2, 4)}/${commit.slice(4)}`]) {
    const entry = await store.trees.entryAt(tree, path);
    if (entry && (entry.kind === 'file' || entry.kind === 'exec')) {
      return Buffer.from(await store.objects.readBlob(entry.oid, MAX_NOTE_BYTES)).toString('utf8');
    }
  }
  return null;
}
