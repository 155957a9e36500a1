// The base the client judges against: the commit whose policy is in force and whose evidence
// is the "before" side. The server reads the policy from the tip of its default branch, so the
// client's best prediction is the remote-tracking copy of that branch
// (refs/remotes/<remote>/<baseBranch>). Before the policy has ever been pushed (an owner has
// just run `init`), the local HEAD's policy is used instead, so the hooks work from the first
// commit on.

import { readPolicyAt } from '../engine';
import type { Policy } from '../evidence/types';
import type { Finding } from '../findings';
import type { ObjectStore } from '../git/store';

export interface ClientBase {
  /** The ref the base was taken from ('refs/remotes/origin/main', 'HEAD', …); null when no
   * candidate holds a policy (the repository is unguarded). */
  name: string | null;
  commit: string | null;
  /** The policy in force; null when unguarded or when the policy there is invalid. */
  policy: Policy | null;
  /** POLICY_INVALID / LIMIT_EXCEEDED for a broken policy at the base. */
  findings: Finding[];
}

const UNGUARDED: ClientBase = { name: null, commit: null, policy: null, findings: [] };

/** A ref's commit, or null when the ref does not exist. */
export async function commitOf(store: ObjectStore, ref: string): Promise<string | null> {
  const oid = await store.resolveRef(ref);
  return oid === null ? null : store.peelToCommit(oid);
}

/**
 * The first of these that holds a policy (valid or not): refs/remotes/<remote>/<baseBranch>,
 * then each of `fallbacks` (local refs, e.g. HEAD), in order. The base branch's name comes from
 * a policy: the one at refs/remotes/<remote>/HEAD (the server's default branch), the fallbacks'
 * own, then main and master are tried.
 */
export async function resolveClientBase(
  store: ObjectStore,
  remote: string | null,
  fallbacks: string[],
): Promise<ClientBase> {
  const local: ClientBase[] = [];
  for (const ref of fallbacks) {
    const at = await candidate(store, ref);
    if (at) local.push(at);
  }
  if (remote !== null) {
    const remoteHead = await candidate(store, `refs/remotes/${remote}/HEAD`);
    const hints = [remoteHead?.policy?.baseBranch, ...local.map((c) => c.policy?.baseBranch), 'main', 'master'];
    const guesses = [...new Set(hints.filter((b): b is string => !!b))];
    for (const branch of guesses) {
      const tracking = await candidate(store, `refs/remotes/${remote}/${branch}`);
      if (!tracking) continue;
      // The tracking branch's own policy may name another base branch: follow it once.
      const named = tracking.policy?.baseBranch;
      if (named && named !== branch) {
        const other = await candidate(store, `refs/remotes/${remote}/${named}`);
        if (other) return other;
      }
      return tracking;
    }
  }
  return local[0] ?? UNGUARDED;
}

/** True when the base is a remote-tracking ref (the server's view), not a local stand-in. */
export function isRemoteBase(base: ClientBase): boolean {
  return base.name !== null && base.name.startsWith('refs/remotes/');
}

/** The base at `ref` when the ref exists and its tree holds a policy file. */
async function candidate(store: ObjectStore, ref: string): Promise<ClientBase | null> {
  const commit = await commitOf(store, ref);
  if (commit === null) return null;
  const { policy, findings } = await readPolicyAt(store, commit);
  if (policy === null && findings.length === 0) return null;
  return { name: ref, commit, policy, findings };
}
