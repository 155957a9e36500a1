// The engine: ref updates in, findings and a verdict out. Every entry (pre-receive, pre-push,
// verify-ref, receipt) builds a run context (src/run/context.ts) from a base it picked with the
// one base rule (src/run/base.ts), and each ref update goes through the same rules:
//
//   ref update ─► symbolic refs resolved ─► deletion / non-commit / rewrite (REF_PROTECTED)
//              ─► new commits ─► touched paths, parents first ─┐
//              ─► net change (old→new, or merge-base→new) ─────┼─► PATH_PROTECTED / PATH_UNSAFE
//              ─► the policy left at new (POLICY_INVALID)      │
//              ─► evidence over the whole tree at new ─────────┴─► findings ─► verdict

import { DeadlineExceeded } from './deadline';
import type { EvidenceReport, EvidenceResults } from './evidence/types';
import { emptyIdentities, finding, type Finding } from './findings';
import { diffTrees, touchedPaths } from './git/diff';
import { ObjectTooLargeError, type ObjectStore } from './git/store';
import { isAncestor, mergeBase, newCommits, newCommitsOnServer, ShallowBoundaryError } from './git/walk';
import { gateResult, refResult, type GateResult, type RefResult } from './results';
import { short } from './render';
import { deadlineFinding, internalError } from './rules/errors';
import { contextsEvidence } from './rules/contexts';
import { treeEvidence } from './rules/evidence';
import { policyLeftFindings } from './rules/policy-left';
import { dedupePathFindings, protectedPathFindings } from './rules/protected-paths';
import { deletionFinding, notACommitFinding, rewriteFinding, symbolicFinding } from './rules/ref-protected';
import { createRunContext, type RunContext, type RunSetup } from './run/context';
import { readPolicyAt } from './run/policy-at';
import { ZERO_OID, type RefUpdate } from './types';
import type { PathChange } from './git/types';


export async function evaluate(setup: RunSetup, updates: RefUpdate[]): Promise<GateResult> {
  const { base } = setup;
  if (!base.policy) {
    if (base.findings.length > 0) {
      // The policy in force is broken: nothing can be judged, every update is closed.
      const refs = updates.map((u) => refResult(u, false, base.findings.map((f) => ({ ...f, ref: u.ref })), [], emptyIdentities()));
      return gateResult(false, null, setup.identity, refs);
    }
    return evaluateUnguarded(setup.store, setup.identity, updates, base.name);
  }
  const ctx = createRunContext(setup, base.policy);
  const refs: RefResult[] = [];
  for (const update of updates) {
    try {
      refs.push(await raceDeadline(ctx, () => judgeRef(ctx, update)));
    } catch (err) {
      // Beyond a shallow clone's boundary there is no verdict to give: the entry says how to
      // fetch the history (exit 2), never a verdict computed on the boundary.
      if (err instanceof ShallowBoundaryError) throw err;
      const f = err instanceof ObjectTooLargeError
        ? finding('LIMIT_EXCEEDED', {
            ref: update.ref,
            commit: err.oid ?? update.new,
            message: `${err.message} The check cannot judge what it cannot read`,
            fix: 'push history without this object (rewrite the commit with a shorter message or split the tree)',
          })
        : err instanceof DeadlineExceeded ? deadlineFinding(ctx.policy.limits.timeoutMs, { ref: update.ref, commit: update.new }) : internalError(err, { ref: update.ref, commit: update.new });
      refs.push(refResult(update, ctx.isProtectedRef(update.ref), [f], [], emptyIdentities()));
    }
  }
  return gateResult(false, ctx.policy, ctx.identity, refs);
}

/** Synchronous loops check ctx.deadline themselves; this timer catches work that waits. */
async function raceDeadline<T>(ctx: RunContext, work: () => Promise<T>): Promise<T> {
  ctx.deadline.check();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(ctx.deadline.budgetMs)), Math.max(0, ctx.deadline.remaining()));
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** The ref an update writes: a symbolic ref is followed to the ref it names, as git's
 * receive-pack does when it updates it. `outside` when the chain leaves GIT_NAMESPACE. */
async function resolveSymbolic(store: ObjectStore, ref: string): Promise<{ ref: string; outside: boolean }> {
  const resolved = await store.resolveSymbolic(ref);
  return resolved === null ? { ref, outside: false } : { ref: resolved.ref, outside: resolved.outsideNamespace === true };
}

async function judgeRef(ctx: RunContext, pushed: RefUpdate): Promise<RefResult> {
  const { store } = ctx;
  const findings: Finding[] = [];

  // 1. Symbolic refs: the update is of the ref it resolves to, judged by that name.
  const { ref, outside } = await resolveSymbolic(store, pushed.ref);
  let old = pushed.old;
  if (ref !== pushed.ref) {
    if (ctx.isProtectedRef(pushed.ref) || outside) {
      const f = symbolicFinding(ctx, pushed.ref, ref, pushed.new === ZERO_OID ? pushed.old : pushed.new);
      if (f) findings.push(f);
    }
  }
  if (ctx.scope.kind === 'server' && (ref !== pushed.ref || old !== ZERO_OID)) {
    // What the ref holds now, not what the client says it held (git checks that later).
    old = (await store.resolveRef(ref)) ?? ZERO_OID;
  }
  const update: RefUpdate = { old, new: pushed.new, ref };
  const at = { ref: pushed.ref };
  const isProtectedRef = ctx.isProtectedRef(ref) || ctx.isProtectedRef(pushed.ref);
  const done = (commits: string[] = [], identities = emptyIdentities(), evidence: EvidenceResults | null = null, contexts?: EvidenceReport['contexts']) =>
    refResult(pushed, isProtectedRef, dedupePathFindings(findings), commits, identities, evidence, contexts);
  // With bounded contexts, every change is kept to tell which contexts the update touches.
  const touched: PathChange[][] | null = ctx.contexts === null ? null : [];

  // 2. Deletion.
  if (update.new === ZERO_OID) {
    if (isProtectedRef) {
      const f = deletionFinding(ctx, pushed.ref, update.old === ZERO_OID ? pushed.old : update.old);
      if (f) findings.push(f);
    }
    return done();
  }

  // 3. A ref to a tree or a blob brings no commit: nothing is touched.
  const peeled = await store.peel(update.new);
  if (peeled.type !== 'commit') {
    const f = isProtectedRef ? notACommitFinding(ctx, pushed.ref, update.new, peeled.type) : null;
    findings.push(
      f ??
        finding('REF_NO_COMMIT', {
          severity: 'info',
          ...at,
          commit: update.new,
          message: `the ref names a ${peeled.type} (${short(peeled.oid)}), not a commit: it brings no commit, so no path is touched`,
          fix: 'nothing to do',
        }),
    );
    return done();
  }
  const newCommit = peeled.oid;
  const oldPeeled = update.old === ZERO_OID || !(await store.hasObject(update.old)) ? null : await store.peel(update.old);
  const oldCommit = oldPeeled?.type === 'commit' ? oldPeeled.oid : null;

  // 4. A protected ref only moves forward.
  if (isProtectedRef && oldPeeled !== null) {
    if (oldCommit === null || !(await isAncestor(store, oldCommit, newCommit, ctx.deadline))) {
      const f = rewriteFinding(ctx, pushed.ref, oldCommit ?? oldPeeled.oid, newCommit);
      if (f) findings.push(f);
    }
  }
  ctx.deadline.check();

  // 5. The commits this update brings, and what each one touches, parents first so a path is
  //    reported with the commit that first touched it.
  const commits = await newCommitsOf(ctx, newCommit, oldCommit);
  for (const commit of await parentsFirst(store, commits)) {
    ctx.deadline.check();
    const changes = await touchedPaths(store, commit, ctx.deadline);
    touched?.push(changes);
    findings.push(...protectedPathFindings(ctx, changes, { ...at, commit }));
  }
  ctx.deadline.check();

  // 6. The net change: old -> new for the base branch and protected refs, else merge-base -> new.
  const baseTip = ctx.base.tip;
  const netFrom = isProtectedRef && oldCommit !== null ? oldCommit : baseTip !== null ? await mergeBase(store, baseTip, newCommit, ctx.deadline) : null;
  const newTree = (await store.readCommit(newCommit)).tree;
  if (netFrom !== newCommit) {
    const fromTree = netFrom === null ? null : (await store.readCommit(netFrom)).tree;
    const changes = await diffTrees(store, fromTree, newTree, ctx.deadline);
    touched?.push(changes);
    findings.push(...protectedPathFindings(ctx, changes, { ...at, commit: newCommit }));
  }
  ctx.deadline.check();

  // 7. The policy this update leaves behind must be valid too.
  findings.push(...(await policyLeftFindings(store, newCommit, newTree, ctx.base.policyOid, pushed.ref, ctx.policy.contexts)));
  ctx.deadline.check();

  // 8. Evidence over the whole tree at new (once per tree, whatever refs point at it).
  //    With bounded contexts, each context's evidence too, judged by what the update touches.
  const report = ctx.contexts === null || touched === null ? await treeEvidence(ctx, newCommit, newTree) : await contextsEvidence(ctx, ctx.contexts, newCommit, newTree, touched);
  findings.push(...report.findings.map((f) => ({ ...f, ref: pushed.ref, commit: f.commit ?? newCommit })));
  return done(commits, report.identities, report.results, report.contexts);
}

async function newCommitsOf(ctx: RunContext, newCommit: string, oldCommit: string | null): Promise<string[]> {
  const { scope } = ctx;
  if (scope.kind === 'server') return newCommitsOnServer(ctx.store, newCommit, scope.existingTips, ctx.deadline);
  const exclude = [ctx.base.tip, oldCommit, ...scope.exclude].filter((c): c is string => c !== null);
  return newCommits(ctx.store, newCommit, exclude, ctx.deadline);
}

/** `commits` ordered so that every commit comes after those of its parents in the set
 * (commit dates can tie or lie; the graph cannot). */
async function parentsFirst(store: ObjectStore, commits: string[]): Promise<string[]> {
  const inSet = new Set(commits);
  const parents = new Map<string, string[]>();
  for (const c of commits) parents.set(c, (await store.readCommit(c)).parents.filter((p) => inSet.has(p)));
  const out: string[] = [];
  const done = new Set<string>();
  // Iterative depth-first post-order, oldest listed commits first.
  for (const root of [...commits].reverse()) {
    const stack: { oid: string; next: number }[] = [{ oid: root, next: 0 }];
    while (stack.length) {
      const top = stack[stack.length - 1]!;
      if (done.has(top.oid)) {
        stack.pop();
        continue;
      }
      const ps = parents.get(top.oid)!;
      if (top.next < ps.length) {
        const p = ps[top.next++]!;
        if (!done.has(p)) stack.push({ oid: p, next: 0 });
      } else {
        done.add(top.oid);
        out.push(top.oid);
        stack.pop();
      }
    }
  }
  return out;
}

/** With no policy at the base nothing is checked, but a policy the update adds must be valid. */
async function evaluateUnguarded(store: ObjectStore, identity: string | null, updates: RefUpdate[], baseName: string | null): Promise<GateResult> {
  const refs: RefResult[] = [];
  for (const update of updates) {
    const findings: Finding[] = [];
    if (update.new !== ZERO_OID) {
      try {
        const peeled = await store.peel(update.new);
        if (peeled.type === 'commit') {
          const left = await readPolicyAt(store, peeled.oid);
          findings.push(...left.findings.map((f) => ({ ...f, ref: update.ref })));
        }
      } catch (err) {
        findings.push(internalError(err, { ref: update.ref, commit: update.new }));
      }
    }
    refs.push(refResult(update, false, findings, [], emptyIdentities()));
  }
  return gateResult(true, null, identity, refs, baseName);
}
