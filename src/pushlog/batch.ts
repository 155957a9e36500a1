// The many-ref push (docs/push-log.md, "Many refs in one push"). git 2.39 applies each ref of a
// plain push in a ref transaction of its own and runs the reference-transaction hook twice for
// each: a push of N new refs starts 2·N hook processes, whatever the hook does. So that the
// log costs a push of N new refs O(N) in all, `install.sh --server --log-key` routes the
// creations of a push through git's proc-receive hook (`receive.procReceiveRefs a:refs/`),
// which creates them in ONE transaction with `git update-ref --stdin` when this module says so,
// and hands every other case back to receive-pack unchanged ("fall-through").
//
// pre-receive asks the same question (`batchOf`) to sign the log entries of the push in the
// shape git will apply it: one entry for the batch, then one per other update. If the two
// answers ever differed, the hook's fast path would find no entry signed in advance and the
// Node logger would sign instead: slower, never a wrong log.
//
// A batch is made only where it is exactly what receive-pack would do with each update, when
// all of them succeed:
//   - two or more creations (old = zero, new not zero), each a name both git's
//     check_refname_format and receive-pack's own check (refs/<one or more>/<name>) accept,
//     by a conservative pattern (no `..`, `@{`, `.lock`, control or special characters), not
//     under refs/receipt-gate/ (the log's own refs) and not the branch HEAD names (receive-pack's
//     denyCurrentBranch checks it): a creation that is not so is left out of the batch, and
//     receive-pack applies it alone after it;
//   - no `update` hook (receive-pack runs it per ref), no GIT_NAMESPACE, no
//     receive.shallowUpdate, the log on for the repository;
//   - not an --atomic push (receive-pack applies it in one transaction already);
//   - the routing is ours: receive.procReceiveRefs is exactly `a:refs/` and the proc-receive
//     hook is receipt-gate's (pre-receive only: proc-receive runs because of them).
// When git refuses the batch (a name created by someone else meanwhile, a branch at an object
// that is not a commit), nothing of it is applied and every creation of the push is refused
// with git's reason: the creations of a push are applied together, like --atomic.

import { gitConfigEntries, lastValue } from '../git/config';
import { ZERO_OID } from '../types';
import { hasLinkedWorktrees, headSymrefTarget, hookPresent, hooksDirOf, hookText } from '../git/hooks';
import { logEnabled } from './server-state';

export const PROC_RECEIVE_REFS = 'a:refs/';
export const PROC_RECEIVE_MARKER = 'receipt-gate proc-receive hook';

export interface RefCommand {
  ref: string;
  old: string;
  new: string;
}

/** A name receive-pack and `git update-ref` both accept, by a pattern narrower than either. */
export function batchSafeRef(ref: string): boolean {
  if (!/^refs\/[A-Za-z0-9._\-/+]+$/.test(ref)) return false;
  const parts = ref.split('/');
  if (parts.length < 3) return false;
  return parts.every((c) => c !== '' && !c.startsWith('.') && !c.endsWith('.lock') && !c.endsWith('.')) && !ref.includes('..');
}

export interface BatchQuestion {
  gitdir: string;
  env: NodeJS.ProcessEnv;
  /** the push's updates (pre-receive), or the commands receive-pack sent (proc-receive) */
  updates: readonly RefCommand[];
  /** proc-receive: whether receive-pack said `atomic`; pre-receive: unknown (null) */
  atomic: boolean | null;
  /** pre-receive: also check that the routing (config and hook) is receipt-gate's */
  predict: boolean;
}

/** The creations git will apply in one transaction, in push order; null: none (each update is
 * receive-pack's, as without proc-receive). The push's other updates are receive-pack's, one
 * transaction each, applied after the batch in push order. */
export function batchOf(q: BatchQuestion): RefCommand[] | null {
  if (q.atomic === true) return null;
  if (q.env.GIT_NAMESPACE) return null;
  const all = q.updates.filter((u) => u.old === ZERO_OID && u.new !== ZERO_OID);
  if (all.length < 2 || new Set(all.map((u) => u.ref)).size !== all.length) return null;
  // A name outside the pattern, under refs/receipt-gate/, or the branch HEAD names is left out
  // of the batch: receive-pack applies it alone, after the batch, as without the hook.
  const head = headSymrefTarget(q.gitdir);
  const creations = all.filter((u) => batchSafeRef(u.ref) && !u.ref.startsWith('refs/receipt-gate/') && u.ref !== head);
  if (creations.length < 2) return null;
  if (!logEnabled(q.gitdir)) return null;
  const config = gitConfigEntries(q.gitdir, q.env);
  // Any value of receive.shallowUpdate that is not plainly false (git reads a number other than
  // 0 as true) leaves the push to receive-pack, whose update() checks a shallow push's refs.
  const shallowUpdate = lastValue(config, 'receive.shallowupdate');
  if (shallowUpdate !== null && !/^(false|no|off|0)$/i.test(shallowUpdate.trim())) return null;
  // A linked worktree may have a branch checked out that HEAD does not name (denyCurrentBranch).
  if (hasLinkedWorktrees(q.gitdir)) return null;
  const hooks = hooksDirOf(q.gitdir, q.env, config);
  if (hookPresent(hooks, 'update')) return null;
  // The folder git ran the proc-receive hook from (its shim says), where git runs the update
  // hook too, whatever config this reads differently from git (`git -c`, includeIf): an update
  // hook there also leaves the refs to receive-pack. It can only add a reason not to batch.
  const ran = q.env.RECEIPT_GATE_HOOKS_DIR;
  if (ran && hookPresent(ran, 'update')) return null;
  if (q.predict) {
    const routes = config.filter((e) => e.key === 'receive.procreceiverefs').map((e) => e.value);
    if (routes.length !== 1 || routes[0] !== PROC_RECEIVE_REFS) return null;
    if (!hookPresent(hooks, 'proc-receive') || !hookText(hooks, 'proc-receive')?.includes(PROC_RECEIVE_MARKER)) return null;
  }
  return creations;
}
