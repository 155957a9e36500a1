// What was decided about a push: plain data. The decision is made in one place,
// src/server/decide.ts (verdicts, hold on protected refs, reserved refs, the push log's own
// refusal); the renderers (src/report/remote.ts, src/report/machine.ts) print it and the push
// log (src/pushlog/record.ts) records it. This module holds only the shapes, so the renderers
// read a decision without importing the module that makes it.

import type { GateResult, RefResult } from './results';

/** How one ref update fares on the server (docs/contract.md §2 On the server). */
export type RefOutcome = 'accepted' | 'notice' | 'rejected';

/** Why a ref update fares as it does:
 *  eligible        accepted
 *  hold            hold on a ref that is not protected: accepted with a notice
 *  hold-owner      hold on a protected ref, pushed by an owner (the human decision a hold asks
 *                  for): accepted with a notice
 *  hold-protected  hold on a protected ref, pushed by a non-owner: rejected, naming the owners
 *  reserved        an update of refs/receipt-gate/** (REF_RESERVED): rejected for everyone
 *  closed          any other closing finding: rejected
 *  log             judged acceptable, but the push log could not record it: rejected */
export type RefReason = 'eligible' | 'hold' | 'hold-owner' | 'hold-protected' | 'reserved' | 'closed' | 'log';

export interface RefDecision {
  /** The engine's result for the update (its findings, verdict, whether the ref is protected). */
  ref: RefResult;
  outcome: RefOutcome;
  reason: RefReason;
}

export interface PushDecision {
  /** git takes all refs or none: one rejected update rejects the push. */
  accepted: boolean;
  /** One per ref update, in the order of `result.refs`. */
  refs: RefDecision[];
  /** What the push was judged on (every finding the answer lists). */
  result: GateResult;
  /** A repository without a policy, and nothing found: accepted without checks. */
  unguarded: boolean;
  /** Who may make a held update of a protected ref: the owners of the policy in force (and of
   * the contexts whose findings hold), empty when none is known. */
  holdOwners: string[];
  /** The policy blob that judged the push (recorded by the push log); null when none. */
  policyOid: string | null;
}
