// The one place that decides whether a push is accepted (docs/contract.md §2 On the server):
// the engine's result in, a plain decision out (src/decision.ts), per ref update and for the
// push. The renderers print it and the push log records it; neither decides again.
//
//   closed                                   rejected (REF_RESERVED: `reserved`)
//   hold on a ref that is not protected      accepted with a notice
//   hold on a protected ref, by an owner     accepted with a notice (the owner's push is the
//                                            human decision a hold asks for)
//   hold on a protected ref, by a non-owner  rejected (the owners are named)
//   eligible                                 accepted
//   one rejected update                      the whole push is rejected (git takes all or none)
//   the push log cannot record an accepted push: every update rejected (`refusedByLog`)
//
// Calls no renderer, no engine and nothing of the server's push context.

import type { PushDecision, RefDecision } from '../decision';
import { finding } from '../findings';
import { gateResult, refResult, type GateResult, type RefResult } from '../results';

/** The decision on a judged push. `policyOid`: the policy blob that judged it. */
export function decide(result: GateResult, policyOid: string | null = null): PushDecision {
  const refs = result.refs.map((ref) => decideRef(result, ref));
  return {
    accepted: refs.every((r) => r.outcome !== 'rejected'),
    refs,
    result,
    unguarded: result.unguarded && result.findings.length === 0,
    holdOwners: holdOwners(result),
    policyOid,
  };
}

function decideRef(result: GateResult, ref: RefResult): RefDecision {
  if (ref.verdict === 'closed') {
    return { ref, outcome: 'rejected', reason: ref.findings.some((f) => f.code === 'REF_RESERVED') ? 'reserved' : 'closed' };
  }
  if (ref.verdict === 'hold') {
    if (!ref.isProtectedRef) return { ref, outcome: 'notice', reason: 'hold' };
    if (mayMakeHeld(result, ref)) return { ref, outcome: 'notice', reason: 'hold-owner' };
    return { ref, outcome: 'rejected', reason: 'hold-protected' };
  }
  return { ref, outcome: 'accepted', reason: 'eligible' };
}

/** Whether the pusher may make this held update of a protected ref: an owner of the policy in
 * force, or an owner of every context whose findings hold it. Identities compare exactly;
 * nobody (no identity variable set) owns nothing. */
function mayMakeHeld(result: GateResult, ref: RefResult): boolean {
  const { policy, identity } = result;
  if (policy === null || identity === null) return false;
  if (policy.owners.includes(identity)) return true;
  const holds = ref.findings.filter((f) => f.severity === 'hold');
  return (
    holds.length > 0 &&
    holds.every((f) => f.context !== undefined && (policy.contexts?.find((c) => c.name === f.context)?.policy.owners ?? []).includes(identity))
  );
}

/** Who may make a held update of a protected ref: the policy's owners and those of the
 * contexts whose findings hold. */
function holdOwners(result: GateResult): string[] {
  const policy = result.policy;
  if (!policy) return [];
  const names = new Set(policy.owners);
  for (const f of result.findings) {
    if (f.severity !== 'hold' || f.context === undefined) continue;
    for (const o of policy.contexts?.find((c) => c.name === f.context)?.policy.owners ?? []) names.add(o);
  }
  return [...names];
}

/** An accepted push the push log could not record (docs/push-log.md): an update the log cannot
 * attribute to the gate would read as a move outside it, so every update is rejected, each
 * carrying the reason. A rejected push stays as it was. */
export function refusedByLog(decision: PushDecision, why: string): PushDecision {
  if (!decision.accepted) return decision;
  const { result } = decision;
  const f = finding('INTERNAL_ERROR', {
    message: `the push log could not record this push's decisions (${why})`,
    fix: 'the server administrator checks that the repository\'s receipt-gate/ folder is writable by the git user; nothing was accepted',
  });
  const refs = result.refs.map((r) => refResult(r.update, [{ ...f, ref: r.update.ref }], { isProtectedRef: r.isProtectedRef }));
  const failed = gateResult(refs, { policy: result.policy, identity: result.identity, baseName: result.baseName });
  return {
    ...decision,
    accepted: false,
    refs: failed.refs.map((ref) => ({ ref, outcome: 'rejected', reason: 'log' })),
    result: failed,
    unguarded: false,
  };
}
