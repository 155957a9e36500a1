// REF_PROTECTED: a non-owner may not delete or rewrite a protected ref, point it at something
// that is not a commit, or create, delete or retarget a symbolic ref whose name is protected.

import { finding, type Finding } from '../findings';
import { short } from '../report/text';
import type { RunContext } from '../run/context';

export function deletionFinding(ctx: RunContext, ref: string, old: string): Finding | null {
  if (ctx.owner) return null;
  return finding('REF_PROTECTED', {
    ref,
    commit: old,
    message: `deletes the protected ref ${ref} as ${ctx.identity ?? 'nobody'}, who is not an owner`,
    fix: `protected refs may only be deleted by: ${ctx.ownersText}`,
  });
}

export function rewriteFinding(ctx: RunContext, ref: string, oldCommit: string, newCommit: string): Finding | null {
  if (ctx.owner) return null;
  return finding('REF_PROTECTED', {
    ref,
    commit: newCommit,
    message: `rewrites the protected ref ${ref} (not a fast-forward of ${short(oldCommit)}) as ${ctx.identity ?? 'nobody'}, who is not an owner`,
    fix: `push a fast-forward (merge or rebase onto ${ref}); only ${ctx.ownersText} may rewrite it`,
  });
}

export function notACommitFinding(ctx: RunContext, ref: string, oid: string, type: string): Finding | null {
  if (ctx.owner) return null;
  return finding('REF_PROTECTED', {
    ref,
    commit: oid,
    message: `points the protected ref ${ref} at a ${type}, not a commit, as ${ctx.identity ?? 'nobody'}, who is not an owner`,
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
    message: `updates the protected symbolic ref ${ref} (an alias of ${target}) as ${ctx.identity ?? 'nobody'}, who is not an owner`,
    fix: `push to ${target} itself; only ${ctx.ownersText} may change what ${ref} names`,
  });
}
