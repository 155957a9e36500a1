// One context per run, built once: the store and its commit history, the base and its policy (read and validated
// once), the protection rules and protected-ref matcher (compiled once), who runs the check,
// today's date and the deadline from the injected clock. Every target of the run (a ref
// update, the staged index) goes through the same rules with this context.

import { Deadline, type RunTime } from '../deadline';
import type { EvidenceReport } from '../evidence/types';
import type { Policy } from '../evidence/types';
import type { History } from '../git/history/history';
import type { ObjectStore } from '../git/store';
import { refNameLatin1 } from '../git/refname';
import { refMatcher } from '../matchers';
import { compileProtection, type PathMemory, type Protection } from '../protection';
import { compileContexts, type Contexts } from './contexts';
import type { Base } from './base';
import { isOwner, ownersText } from './identity';

/** Which commits count as new (docs/contract.md §2 New commits). */
export type NewCommitScope =
  /** Server: reachable from `new` and from no ref the repository had before the push. */
  | { kind: 'server'; existingTips: string[] }
  /** Client and verify-ref: reachable from `new` and not from the base tip, `old` or these. */
  | { kind: 'base'; exclude: string[] };

export interface RunContext {
  store: ObjectStore;
  /** The store's commit walks and what they keep (src/git/history/history.ts). */
  history: History;
  base: Base;
  policy: Policy;
  protection: Protection;
  /** Switched on for a push of more than one commit: the run's protections then remember each
   * path's answer (src/protection.ts). */
  pathMemory: PathMemory;
  isProtectedRef(ref: string): boolean;
  identity: string | null;
  owner: boolean;
  ownersText: string;
  today: string;
  deadline: Deadline;
  scope: NewCommitScope;
  /** Bounded contexts, compiled once; null for a policy without contexts. */
  contexts: Contexts | null;
  /** Judge every context's evidence in full, touched or not (the grader's receipts need it). */
  contextsInFull: boolean;
  /** Evidence reports by `<new tree>:<base tree>`, so refs that share a tree are checked once. */
  evidence: Map<string, Promise<EvidenceReport>>;
}

export interface RunSetup {
  store: ObjectStore;
  /** The store's History, made where the store is opened: runs on the same store share it. */
  history: History;
  base: Base;
  /** Who pushes or runs the check; null is nobody, who owns nothing. */
  identity: string | null;
  /** Today as a UTC date, YYYY-MM-DD. */
  today: string;
  scope: NewCommitScope;
  /** A test clock (ms): the deadline is then counted on it alone (see `time`). */
  now?: () => number;
  /** When the run started on that clock (the server counts from its own start). */
  startedAt?: number;
  /** The run's start on the CPU and wall clocks and the hard timeout (the server's hook);
   * without it and without `now`, the run starts when its context is made. */
  time?: RunTime;
  /** Bounded contexts: judge every context's evidence in full, even an untouched one whose
   * tree is the base's (the grader records each context's evidence). */
  contextsInFull?: boolean;
}

export function createRunContext(setup: RunSetup, policy: Policy): RunContext {
  const now = setup.now ?? Date.now;
  const started = setup.startedAt ?? now();
  // Ref names are bytes (src/git/refs.ts): the policy's patterns and base branch are text,
  // matched as their UTF-8 bytes, as git compares a name with the bytes it was given.
  const utf8 = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
  const protectedRefs = refMatcher(policy.protectedRefs.map(utf8));
  const baseRef = utf8(`refs/heads/${policy.baseBranch}`);
  // limits.timeoutMs of CPU time with a wall-clock ceiling (src/deadline.ts); an injected
  // clock (tests) counts it on that clock alone.
  const deadline = setup.now
    ? new Deadline(started + policy.limits.timeoutMs, policy.limits.timeoutMs, now)
    : Deadline.forRun(policy.limits.timeoutMs, setup.time);
  const pathMemory: PathMemory = { on: false };
  const protection = compileProtection(policy, { deadline, memory: pathMemory });
  const owner = isOwner(policy, setup.identity);
  const owners = ownersText(policy);
  const contexts = policy.contexts
    ? compileContexts({ policy: { ...policy, contexts: policy.contexts }, identity: setup.identity, protection, owner, ownersText: owners, deadline, pathMemory })
    : null;
  return {
    store: setup.store,
    history: setup.history,
    base: setup.base,
    policy,
    protection,
    pathMemory,
    isProtectedRef: (ref) => {
      const bytes = refNameLatin1(ref);
      return bytes === baseRef || protectedRefs(bytes);
    },
    identity: setup.identity,
    owner,
    ownersText: owners,
    today: setup.today,
    deadline,
    scope: setup.scope,
    contexts,
    contextsInFull: setup.contextsInFull === true,
    evidence: new Map(),
  };
}
