// REF_PROTECTED: a non-owner may not delete or rewrite a protected ref, point it at something
// that is not a commit, or create, delete or retarget a symbolic ref whose name is protected.

import { finding, type Finding } from '../findings';
import { short } from '../wording';
import type { RunContext } from '../run/context';
import { quoteRefName as quoteRef } from '../quote';
import { ZERO_OID } from '../types';

export function deletionFinding(ctx: RunContext, ref: string, old: string): Finding | null {
  if (ctx.owner) return null;
  return finding('REF_PROTECTED', {
    ref,
    commit: old,
    message: `deletes the protected ref ${quoteRef(ref)} as ${ctx.identity ?? 'nobody'}, who is not an owner`,
    fix: `protected refs may only be deleted by: ${ctx.ownersText}`,
  });
}

export function rewriteFinding(ctx: RunContext, ref: string, oldCommit: string, newCommit: string): Finding | null {
  if (ctx.owner) return null;
  return finding('REF_PROTECTED', {
    ref,
    commit: newCommit,
    message: `rewrites the protected ref ${quoteRef(ref)} (not a fast-forward of ${short(oldCommit)}) as ${ctx.identity ?? 'nobody'}, who is not an owner`,
    fix: `push a fast-forward (merge or rebase onto ${quoteRef(ref)}); only ${ctx.ownersText} may rewrite it`,
  });
}

export function notACommitFinding(ctx: RunContext, ref: string, oid: string, type: string): Finding | null {
  if (ctx.owner) return null;
  return finding('REF_PROTECTED', {
    ref,
    commit: oid,
    message: `points the protected ref ${quoteRef(ref)} at a ${type}, not a commit, as ${ctx.identity ?? 'nobody'}, who is not an owner`,
    fix: `a protected ref must name a commit; only ${ctx.ownersText} may change what it names`,
  });
}

/** An update through a symbolic ref whose own name is protected: the alias is part of how the
 * protected name resolves, so changing through it is the owners' decision. */
export function symbolicFinding(ctx: RunContext, ref: string, target: string, oid: string): Finding | null {
  if (ctx.owner) return null;
  return finding('REF_PROTECTED', {
    ref,
    commit: oid,
    message: `updates the protected symbolic ref ${quoteRef(ref)} (an alias of ${quoteRef(target)}) as ${ctx.identity ?? 'nobody'}, who is not an owner`,
    fix: `push to ${quoteRef(target)} itself; only ${ctx.ownersText} may change what ${quoteRef(ref)} names`,
  });
}

/** What each owners-only namespace changes, for the message (src/run/ref-kind.ts). */
const OWNERS_ONLY: Record<'replace' | 'remotes' | 'namespaces', string> = {
  replace: 'a replace ref changes what git reads for the object it names (show, checkout, archive, every mirror clone read the replacement instead)',
  remotes: 'a remote-tracking ref is what verify-ref and the client hooks take as the base, whose policy is in force',
  namespaces: "a ref under refs/namespaces/ is another namespace's ref (its branches, HEAD, base and replace refs)",
};

/** A non-owner creates, moves or deletes a replace, remote-tracking or namespace ref. */
export function ownersOnlyFinding(ctx: RunContext, namespace: keyof typeof OWNERS_ONLY, ref: string, update: { old: string; new: string }): Finding | null {
  if (ctx.owner) return null;
  const verb = update.new === ZERO_OID ? 'deletes' : update.old === ZERO_OID ? 'creates' : 'moves';
  const what = namespace === 'replace' ? 'replace ref' : namespace === 'remotes' ? 'remote-tracking ref' : 'namespace ref';
  return finding('REF_PROTECTED', {
    ref,
    commit: update.new === ZERO_OID ? update.old : update.new,
    message: `${verb} the ${what} ${quoteRef(ref)} as ${ctx.identity ?? 'nobody'}, who is not an owner: ${OWNERS_ONLY[namespace]}`,
    fix: `only ${ctx.ownersText} may create, move or delete refs under ${namespace === 'replace' ? 'refs/replace/' : `refs/${namespace}/`}; push branches (refs/heads/...) or tags instead`,
  });
}
