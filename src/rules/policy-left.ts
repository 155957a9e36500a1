// POLICY_INVALID for the policy a ref update leaves behind: a push may change the policy (an
// owner's), but never leave an invalid one at `new`.

import type { Finding } from '../findings';
import { POLICY_PATH, type ContextPolicy, type EvidenceSource } from '../evidence/types';
import type { ObjectStore } from '../git/store';
import { missingRoots, readPolicyAt, readPolicyFrom } from '../run/policy-at';

export async function policyLeftFindings(store: ObjectStore, newCommit: string, newTree: string, basePolicyOid: string | null, ref: string, contexts?: readonly ContextPolicy[]): Promise<Finding[]> {
  const entry = await store.trees.entryAt(newTree, POLICY_PATH);
  // The same policy with contexts: its roots must still be folders at new.
  if (entry && entry.oid === basePolicyOid && contexts) return (await missingRoots(store, newCommit, newTree, contexts)).map((f) => ({ ...f, ref }));
  if (!entry || entry.oid === basePolicyOid) return [];
  const left = await readPolicyAt(store, newCommit);
  return left.findings.map((f) => ({ ...f, ref }));
}

/** The same rule for the staged index: the policy a commit being made would leave. */
export async function stagedPolicyFindings(staged: EvidenceSource, stagedOid: string | null, basePolicyOid: string | null, ref: string): Promise<Finding[]> {
  if (stagedOid === basePolicyOid) return [];
  const left = await readPolicyFrom(staged, stagedOid);
  return left.findings.map((f) => ({ ...f, ref }));
}
