// Notes refs (refs/notes/**) are judged as notes: a notes commit holds notes about other
// objects, never the repository's evidence, so neither evidence nor protected paths are read
// from it. refs/notes/receipt-gate (where `receipt-gate receipt` stores receipts) and any notes
// ref protectedRefs names only move forward for non-owners: a non-owner may add notes (a
// fast-forward) but may not rewrite or delete them, nor point the ref at something that is
// not a commit.

import type { Finding } from '../findings';
import { isAncestor } from '../git/history/merge-base';
import type { RunContext } from '../run/context';
import { ZERO_OID, type RefUpdate } from '../types';
import { deletionFinding, notACommitFinding, rewriteFinding } from './ref-protected';

/** REF_PROTECTED findings for an update of a notes ref (`guarded`: receipt-gate's own or a
 * protected one); none for owners or for other notes refs. */
export async function notesFindings(ctx: RunContext, ref: string, update: RefUpdate, guarded: boolean): Promise<Finding[]> {
  if (!guarded || ctx.owner) return [];
  const { store } = ctx;
  if (update.new === ZERO_OID) {
    if (update.old === ZERO_OID) return [];
    const f = deletionFinding(ctx, ref, update.old);
    return f ? [f] : [];
  }
  const peeled = await store.commits.peel(update.new);
  if (peeled.type !== 'commit') {
    const f = notACommitFinding(ctx, ref, update.new, peeled.type);
    return f ? [f] : [];
  }
  if (update.old === ZERO_OID || !store.objects.hasObject(update.old)) return [];
  const old = await store.commits.peel(update.old);
  if (old.type !== 'commit' || !(await isAncestor(ctx.history, old.oid, peeled.oid, ctx.deadline))) {
    const f = rewriteFinding(ctx, ref, old.oid, peeled.oid);
    return f ? [f] : [];
  }
  return [];
}
