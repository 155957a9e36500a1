// Who runs the check, and what they own. Commit author and committer fields are never an
// identity: anyone can write them.

import { DEFAULT_IDENTITY_ENV } from '../evidence/policy';
import type { Policy } from '../evidence/types';

/** The first identity variable of the policy that is set to a non-empty value. */
export function identityFromEnv(policy: Policy | null, env: NodeJS.ProcessEnv): string | null {
  for (const name of policy?.identityEnv ?? DEFAULT_IDENTITY_ENV) {
    const value = env[name];
    if (value !== undefined && value !== '') return value;
  }
  return null;
}

/** Identities compare exactly; nobody owns nothing. */
export function isOwner(policy: Policy, identity: string | null): boolean {
  return identity !== null && policy.owners.includes(identity);
}

export function ownersText(policy: Policy): string {
  return policy.owners.length ? policy.owners.join(', ') : 'nobody (the policy lists no owners)';
}
