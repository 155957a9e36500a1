// The engine: ref updates in, findings and a verdict out. Every entry (pre-receive, pre-push,
// verify-ref, receipt) builds a run context (src/run/context.ts) from a base it picked with the
// one base rule (src/run/base.ts), and each ref update goes through the same rules:
//
//   ref update ─► symbolic refs resolved ─► its kind (src/run/ref-kind.ts): replace, remote-
//              tracking and namespace refs are the owners' (REF_PROTECTED); notes refs are
//              judged as notes (src/rules/notes.ts); branches, tags and the rest as code:
//              ─► deletion / non-commit / rewrite (REF_PROTECTED)
//              ─► new commits ─► touched paths, parents first ─┐
//              ─► net change (old→new, or merge-base→new) ─────┼─► PATH_PROTECTED / PATH_UNSAFE
//              ─► the policy left at new (POLICY_INVALID)      │
//              ─► evidence over the whole tree at new ─────────┴─► findings ─► verdict

import { DeadlineExceeded, withinDeadline } from './deadline';
import type { EvidenceReport, EvidenceResults, EvidenceSource } from './evidence/types';
import { emptyIdentities, finding, type Finding } from './findings';
import { diffTrees, touchedPaths } from './git/diff';
import type { PathChange } from './git/types';
import { ObjectInvalidError, ObjectTooLargeError, type ObjectStore } from './git/store';
import { isAncestor, mergeBase, newCommits, newCommitsOnServer, ShallowBoundaryError } from './git/walk';
import { gateResult, refResult, type GateResult, type GateResultParts, type RefResult, type RefResultParts } from './results';
import { short } from './report/text';
import { deadlineFinding, internalError } from './rules/errors';
import { objectFsckFinding, objectUnreadableFinding } from './rules/object-invalid';
import { contextsEvidence, contextsEvidenceAt } from './rules/contexts';
import { evidenceReport, treeEvidence } from './rules/evidence';
import { policyLeftFindings, stagedPolicyFindings } from './rules/policy-left';
import { dedupePathFindings, protectedPathFindings } from './rules/protected-paths';
import { deletionFinding, notACommitFinding, ownersOnlyFinding, rewriteFinding, symbolicFinding } from './rules/ref-protected';
import { notesFindings } from './rules/notes';
import { RECEIPT_NOTES_REF, updateKind } from './run/ref-kind';
import { createRunContext, type RunContext, type RunSetup } from './run/context';
import { readPolicyAt } from './run/policy-at';
import { ZERO_OID, type RefUpdate } from './types';


export async function evaluate(setup: RunSetup, updates: RefUpdate[]): Promise<GateResult> {
  const { base } = setup;
  if (!base.policy) {
    if (base.findings.length > 0) {
      // The policy in force is broken: nothing can be judged, every update is closed.
      const refs = updates.map((u) => refResult(u, base.findings.map((f) => ({ ...f, ref: u.ref }))));
      return gateResult(refs, { identity: setup.identity });
    }
    return evaluateUnguarded(setup.store, setup.identity, updates, base.name);
  }
  const ctx = createRunContext(setup, base.policy);
  const refs: RefResult[] = [];
  for (const update of updates) {
    try {
      refs.push(await withinDeadline(ctx.deadline, () => judgeRef(ctx, update)));
    } catch (err) {
      // Beyond a shallow clone's boundary there is no verdict to give: the entry says how to
      // fetch the history (exit 2), never a verdict computed on the boundary.
      if (err instanceof ShallowBoundaryError) throw err;
      const f = err instanceof ObjectInvalidError
        ? objectUnreadableFinding(err, { ref: update.ref })
        : err instanceof ObjectTooLargeError
        ? finding('LIMIT_EXCEEDED', {
            ref: update.ref,
            commit: err.oid ?? update.new,
            message: `${err.message} The check cannot judge what it cannot read`,
            fix: 'push history without this object (rewrite the commit with a shorter message or split the tree)',
          })
        : err instanceof DeadlineExceeded ? deadlineFinding(ctx.policy.limits.timeoutMs, { ref: update.ref, commit: update.new }) : internalError(err, { ref: update.ref, commit: update.new });
      refs.push(refResult(update, [f], { isProtectedRef: ctx.isProtectedRef(update.ref) }));
    }
  }
  return gateResult(refs, { policy: ctx.policy, identity: ctx.identity });
}

/** The ref an update writes: a symbolic ref is followed to the ref it names, as git's
 * receive-pack does when it updates it. `outside` when the chain leaves GIT_NAMESPACE. */
async function resolveSymbolic(store: ObjectStore, ref: string): Promise<{ ref: string; outside: boolean }> {
  const resolved = store.refs.resolveSymbolic(ref);
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
  if (ctx.scope.kind === 'server') {
    // What the ref holds now, not what the client says it held (git checks that later): a
    // zero `old` for an existing ref is an update of it, never a creation.
    old = store.refs.resolveExact(ref) ?? ZERO_OID;
  }
  const update: RefUpdate = { old, new: pushed.new, ref };
  const at = { ref: pushed.ref };
  const isProtectedRef = ctx.isProtectedRef(ref) || ctx.isProtectedRef(pushed.ref);
  const done = (commits: string[] = [], identities = emptyIdentities(), evidence: EvidenceResults | null = null, contexts?: EvidenceReport['contexts']) =>
    refResult(pushed, dedupePathFindings(findings), { isProtectedRef, newCommits: commits, identities, evidence, contexts });
  // With bounded contexts, every change is kept to tell which contexts the update touches.
  const touched: PathChange[][] | null = ctx.contexts === null ? null : [];

  // Each kind of ref has its own handler; branches, tags and every other namespace go on below
  // as code.
  const kind = updateKind(pushed.ref, ref, store.objects.replaceRefBase);
  // A remote-tracking ref is owners-only where it is written (a push to the server, which
  // verify-ref in a mirror would take as the base); in a clone it is the fetched branch, and
  // verify-ref origin/main audits that branch as code.
  const auditOfFetchedBranch = kind.kind === 'owners-only' && kind.namespace === 'remotes' && ctx.scope.kind !== 'server';
  if (kind.kind === 'owners-only' && !auditOfFetchedBranch) {
    const f = ownersOnlyFinding(ctx, kind.namespace, pushed.ref, update);
    if (f) findings.push(f);
    return done();
  }
  if (kind.kind === 'notes') {
    findings.push(...(await notesFindings(ctx, pushed.ref, update, isProtectedRef || ref === RECEIPT_NOTES_REF)));
    return done();
  }

  // 2. Deletion.
  if (update.new === ZERO_OID) {
    if (isProtectedRef) {
      const f = deletionFinding(ctx, pushed.ref, update.old === ZERO_OID ? pushed.old : update.old);
      if (f) findings.push(f);
    }
    return done();
  }

  // 3. A ref to a tree or a blob brings no commit: nothing is touched. The tags the push
  //    brings on the way are judged as git fsck judges them.
  const peeled = await store.commits.peel(update.new, ctx.deadline);
  findings.push(...(await newTagFindings(ctx, peeled.tags, at)));
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
  const oldPeeled = update.old === ZERO_OID || !store.objects.hasObject(update.old) ? null : await store.commits.peel(update.old, ctx.deadline);
  const oldCommit = oldPeeled?.type === 'commit' ? oldPeeled.oid : null;

  // 4. On the server, the commits this update brings come first: one whose parent the
  //    repository lacks (a push from a shallow clone) cannot be judged at all, and nothing
  //    below is computed on such a history (it would read the commit as a root that adds
  //    every file, and ancestry through it cannot be answered).
  let commits: string[] | null = null;
  if (ctx.scope.kind === 'server') {
    commits = await newCommitsOf(ctx, newCommit, oldCommit);
    const missing = await missingParentFindings(store, commits, at);
    if (missing.length > 0) {
      findings.push(...missing);
      return done(commits);
    }
  }

  // 5. A protected ref only moves forward.
  if (isProtectedRef && oldPeeled !== null) {
    if (oldCommit === null || !(await isAncestor(store, oldCommit, newCommit, ctx.deadline))) {
      const f = rewriteFinding(ctx, pushed.ref, oldCommit ?? oldPeeled.oid, newCommit);
      if (f) findings.push(f);
    }
  }
  ctx.deadline.check();

  // 6. The commits this update brings, and what each one touches, parents first so a path is
  //    reported with the commit that first touched it.
  commits ??= await newCommitsOf(ctx, newCommit, oldCommit);
  for (const commit of commits) {
    ctx.deadline.tick(64);
    const f = objectFsckFinding('commit', commit, await store.commits.fsckMessages(commit), at);
    if (f) findings.push(f);
  }
  for (const commit of await parentsFirst(store, commits)) {
    ctx.deadline.check();
    const changes = await touchedPaths(store, commit, ctx.deadline);
    touched?.push(changes);
    findings.push(...protectedPathFindings(ctx, changes, { ...at, commit }));
  }
  ctx.deadline.check();

  // 7. The net change: old -> new for the base branch and protected refs, else merge-base -> new.
  const baseTip = ctx.base.tip;
  const netFrom = isProtectedRef && oldCommit !== null ? oldCommit : baseTip !== null ? await mergeBase(store, baseTip, newCommit, ctx.deadline) : null;
  const newTree = (await store.commits.read(newCommit)).tree;
  if (netFrom !== newCommit) {
    const fromTree = netFrom === null ? null : (await store.commits.read(netFrom)).tree;
    const changes = await diffTrees(store, fromTree, newTree, ctx.deadline);
    touched?.push(changes);
    findings.push(...protectedPathFindings(ctx, changes, { ...at, commit: newCommit }));
  }
  ctx.deadline.check();

  // 8. The policy this update leaves behind must be valid too.
  findings.push(...(await policyLeftFindings(store, newCommit, newTree, ctx.base.policyOid, pushed.ref, ctx.policy.contexts)));
  ctx.deadline.check();

  // 9. Evidence over the whole tree at new (once per tree, whatever refs point at it).
  //    With bounded contexts, each context's evidence too, judged by what the update touches.
  const report = ctx.contexts === null || touched === null ? await treeEvidence(ctx, newCommit, newTree) : await contextsEvidence(ctx, ctx.contexts, newCommit, newTree, touched);
  findings.push(...report.findings.map((f) => ({ ...f, ref: pushed.ref, commit: f.commit ?? newCommit })));
  return done(commits, report.identities, report.results, report.contexts);
}

/** OBJECT_INVALID for each tag of a pushed ref's chain that git fsck reports an error for.
 * On the server only the tags the push brings are judged (the repository's own were accepted
 * when they came); elsewhere every tag of the chain. */
async function newTagFindings(ctx: RunContext, tags: readonly string[], at: { ref: string }): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const tag of tags) {
    ctx.deadline.tick(64);
    if (ctx.scope.kind === 'server' && ctx.store.objects.hasQuarantine && !(await ctx.store.objects.isQuarantined(tag))) continue;
    const f = objectFsckFinding('tag', tag, await ctx.store.commits.fsckMessages(tag), at);
    if (f) out.push(f);
  }
  return out;
}

async function newCommitsOf(ctx: RunContext, newCommit: string, oldCommit: string | null): Promise<string[]> {
  const { scope } = ctx;
  if (scope.kind === 'server') return newCommitsOnServer(ctx.store, newCommit, scope.existingTips, ctx.deadline);
  const exclude = [ctx.base.tip, oldCommit, ...scope.exclude].filter((c): c is string => c !== null);
  return newCommits(ctx.store, newCommit, exclude, ctx.deadline);
}

/**
 * A finding for each new commit that names a parent the repository does not hold (and that
 * the repository's own shallow file does not list as a boundary): what a push from a shallow
 * clone brings to a server that lacks the history below it. Git's connectivity check for such a
 * push runs after pre-receive, so the hook sees the commit with its parent absent.
 */
async function missingParentFindings(store: ObjectStore, commits: readonly string[], at: { ref: string }): Promise<Finding[]> {
  const shallow = await store.commits.shallow();
  const out: Finding[] = [];
  for (const commit of commits) {
    if (shallow.has(commit)) continue;
    for (const parent of (await store.commits.read(commit)).parents) {
      if (store.objects.hasObject(parent)) continue;
      out.push(
        finding('INTERNAL_ERROR', {
          ...at,
          commit,
          message: `commit ${commit} names the parent ${parent}, which is neither in the push nor in the repository: the push came from a shallow clone, and what the commit changes cannot be judged without its parent`,
          fix: 'push from a full clone: run `git fetch --unshallow` in the clone you pushed from (or clone the repository again without --depth), then push again',
        }),
      );
    }
  }
  return out;
}

/** `commits` ordered so that every commit comes after those of its parents in the set
 * (commit dates can tie or lie; the graph cannot). */
async function parentsFirst(store: ObjectStore, commits: string[]): Promise<string[]> {
  const inSet = new Set(commits);
  const parents = new Map<string, string[]>();
  for (const c of commits) parents.set(c, (await store.commits.read(c)).parents.filter((p) => inSet.has(p)));
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
        const peeled = await store.commits.peel(update.new);
        if (peeled.type === 'commit') {
          const left = await readPolicyAt(store, peeled.oid);
          findings.push(...left.findings.map((f) => ({ ...f, ref: update.ref })));
        }
      } catch (err) {
        findings.push(err instanceof ObjectInvalidError ? objectUnreadableFinding(err, { ref: update.ref }) : internalError(err, { ref: update.ref, commit: update.new }));
      }
    }
    refs.push(refResult(update, findings));
  }
  return gateResult(refs, { unguarded: true, identity, baseName });
}

/** The staged index as a target (pre-commit): the commit being made, before it exists. */
export interface IndexTarget {
  /** The branch the commit goes on (HEAD's). */
  ref: string;
  /** HEAD's commit, or null on an unborn branch. */
  head: string | null;
  /** What the commit changes: HEAD (and, for a merge, every other parent) against the index. */
  changes: PathChange[];
  /** The index as an evidence source: the tree the commit will have. */
  staged: EvidenceSource;
  /** The staged policy blob, or null when the index has none. */
  stagedPolicyOid: string | null;
  /** What the entry found before the rules ran (unresolved merge conflicts). */
  findings: Finding[];
}

/** Judges the staged index with the rules a pushed commit meets: the policy in force (a broken
 * one closes), the policy the commit would leave, protected paths, and every evidence file. */
export async function evaluateIndex(setup: RunSetup, target: IndexTarget): Promise<GateResult> {
  const { base } = setup;
  const update: RefUpdate = { old: target.head ?? ZERO_OID, new: ZERO_OID, ref: target.ref };
  const single = (findings: Finding[], ref: RefResultParts, run: GateResultParts) =>
    gateResult([refResult(update, findings, ref)], { identity: setup.identity, baseName: base.name, ...run });
  if (!base.policy && base.findings.length > 0) return single(base.findings.map((f) => ({ ...f, ref: target.ref })), {}, {});

  const findings = [...target.findings, ...(await stagedPolicyFindings(target.staged, target.stagedPolicyOid, base.policyOid, target.ref))];
  if (!base.policy) return single(findings, {}, { unguarded: true });

  const ctx = createRunContext(setup, base.policy);
  findings.push(...protectedPathFindings(ctx, target.changes, { ref: target.ref }));
  let identities = emptyIdentities();
  try {
    const report = ctx.contexts === null ? await evidenceReport(ctx, target.staged, null) : await contextsEvidenceAt(ctx, ctx.contexts, target.staged, null, [target.changes]);
    findings.push(...report.findings.map((f) => ({ ...f, ref: target.ref })));
    identities = report.identities;
  } catch (err) {
    findings.push(internalError(err, { ref: target.ref }));
  }
  return single(findings, { isProtectedRef: ctx.isProtectedRef(target.ref), identities }, { policy: ctx.policy });
}
