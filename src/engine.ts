// The engine: ref updates in, findings and a verdict out. Every entry (pre-receive, pre-push,
// verify-ref, receipt) builds a run context (src/run/context.ts) from a base it picked with the
// one base rule (src/run/base.ts), and each ref update goes through the same rules:
//
//   ref update ─► symbolic refs resolved ─► its kind (src/run/ref-kind.ts): on the server,
//              refs/receipt-gate/** is nobody's (REF_RESERVED, src/rules/push-log.ts); replace,
//              remote-tracking and namespace refs are the owners' (REF_PROTECTED); notes refs
//              are judged as notes (src/rules/notes.ts); branches, tags and the rest as code:
//              ─► deletion / non-commit / rewrite (REF_PROTECTED)
//              ─► new commits ─► touched paths, parents first ─┐
//              ─► net change (old→new, or merge-base→new) ─────┼─► PATH_PROTECTED / PATH_UNSAFE
//              ─► the policy left at new (POLICY_INVALID)      │
//              ─► evidence over the whole tree at new ─────────┴─► findings ─► verdict

import { DeadlineExceeded, withinDeadline } from './deadline';
import type { EvidenceReport, EvidenceResults, EvidenceSource } from './evidence/types';
import { emptyIdentities, finding, type Finding, type Identities } from './findings';
import { diffTrees, soleDiffedParentNow, touchedPathsNow } from './git/diff';
import type { PathChange } from './git/types';
import { ObjectInvalidError, ObjectTooLargeError, type ObjectStore } from './git/store';
import { noteAncestorsAmong } from './git/history/ancestors-among';
import { isAncestor, mergeBase } from './git/history/merge-base';
import { newCommits } from './git/history/new-commits';
import { newCommitsOnServer } from './git/history/server-new-commits';
import { ShallowBoundaryError } from './git/history/shallow';
import { gateResult, refResult, type GateResult, type GateResultParts, type RefResult, type RefResultParts } from './results';
import { short } from './wording';
import { deadlineFinding, internalError } from './rules/errors';
import { objectFsckFinding, objectUnreadableFinding } from './rules/object-invalid';
import { contextsEvidence, contextsEvidenceAt } from './rules/contexts';
import { evidenceReport, treeEvidence } from './rules/evidence';
import { policyLeftFindings, stagedPolicyFindings } from './rules/policy-left';
import { dedupePathFindings, pathFindings, pathFindingsNow } from './rules/protected-paths';
import { deletionFinding, notACommitFinding, ownersOnlyFinding, rewriteFinding, symbolicFinding } from './rules/ref-protected';
import { notesFindings } from './rules/notes';
import { reservedRefFinding } from './rules/push-log';
import { RECEIPT_NOTES_REF, refKindOf, updateKind } from './run/ref-kind';
import { createRunContext, type RunContext, type RunSetup } from './run/context';
import { readPolicyAt } from './run/policy-at';
import { ZERO_OID, type RefUpdate } from './types';


export async function evaluate(setup: RunSetup, updates: RefUpdate[]): Promise<GateResult> {
  const { base } = setup;
  if (!base.policy) {
    if (base.findings.length > 0) {
      // The policy in force is broken: nothing can be judged, every update is closed.
      const refs = updates.map((u) => refResult(u, [...base.findings.map((f) => ({ ...f, ref: u.ref })), ...reservedFindings(setup, u)]));
      return gateResult(refs, { identity: setup.identity });
    }
    return evaluateUnguarded(setup, updates, base.name);
  }
  const ctx = createRunContext(setup, base.policy);
  // The loose refs the server listed for the existing tips answer for every pushed name
  // (one listing, not a stat per ref), as packed-refs is read once.
  const releaseListing = ctx.store.refs.useLooseListing();
  try {
    await noteBaseAncestors(ctx, updates);
    return gateResult(await judgeEach(ctx, updates), { policy: ctx.policy, identity: ctx.identity });
  } finally {
    releaseListing();
  }
}

/** Each update through judgeRef, in order; what stops one (an unreadable object, the deadline)
 * is that update's finding. */
async function judgeEach(ctx: RunContext, updates: RefUpdate[]): Promise<RefResult[]> {
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
        : err instanceof DeadlineExceeded ? deadlineFinding(ctx.policy.limits.timeoutMs, { ref: update.ref, commit: update.new }, err) : internalError(err, { ref: update.ref, commit: update.new });
      refs.push(refResult(update, [f], { isProtectedRef: ctx.isProtectedRef(update.ref) }));
    }
  }
  return refs;
}

/** The ref an update writes: a symbolic ref is followed to the ref it names, as git's
 * receive-pack does when it updates it. `outside` when the chain leaves GIT_NAMESPACE. */
async function resolveSymbolic(store: ObjectStore, ref: string): Promise<{ ref: string; outside: boolean }> {
  const resolved = store.refs.resolveSymbolic(ref);
  return resolved === null ? { ref, outside: false } : { ref: resolved.ref, outside: resolved.outsideNamespace === true };
}

/** One ref update on its way through the rules: what was pushed, the update as the rules see
 * it (symbolic refs followed, `old` from the repository on the server), and what has been found. */
interface RefJudgement {
  ctx: RunContext;
  /** The update as pushed (the name the findings and the result carry). */
  pushed: RefUpdate;
  /** The update of the ref it writes. */
  update: RefUpdate;
  /** Where findings are placed: the pushed ref's name. */
  at: { ref: string };
  /** Whether either name (pushed or resolved) is a protected ref. */
  isProtectedRef: boolean;
  findings: Finding[];
  /** With bounded contexts, every change is kept to tell which contexts the update touches. */
  touched: PathChange[][] | null;
}

/** What a judgement hands back besides its findings (what the code path found on the way). */
interface JudgedParts {
  commits?: string[];
  identities?: Identities;
  evidence?: EvidenceResults | null;
  contexts?: EvidenceReport['contexts'];
}

/** The result of one ref update: its findings (path findings once each) and what was found. */
function resultOf(j: RefJudgement, parts: JudgedParts = {}): RefResult {
  return refResult(j.pushed, dedupePathFindings(j.findings), {
    isProtectedRef: j.isProtectedRef,
    newCommits: parts.commits ?? [],
    identities: parts.identities ?? emptyIdentities(),
    evidence: parts.evidence ?? null,
    contexts: parts.contexts,
  });
}

/** REF_RESERVED for a push's update of refs/receipt-gate/** (by the name pushed), on the
 * server; nothing elsewhere (verify-ref may audit the log's ref as code). */
function reservedFindings(setup: RunSetup, update: RefUpdate): Finding[] {
  if (setup.scope.kind !== 'server' || refKindOf(update.ref).kind !== 'reserved') return [];
  const f = reservedRefFinding(update, setup.identity);
  return f ? [f] : [];
}

/** One ref update: its name resolved, then the handler of its kind. On the server the push
 * log's refs are nobody's; replace, remote-tracking and namespace refs are the owners'; notes
 * refs are judged as notes; branches, tags and every other namespace as code. */
async function judgeRef(ctx: RunContext, pushed: RefUpdate): Promise<RefResult> {
  const j = await startJudgement(ctx, pushed);
  const kind = updateKind(pushed.ref, j.update.ref, ctx.store.objects.replaceRefBase);
  if (kind.kind === 'reserved' && ctx.scope.kind === 'server') {
    // Written only by the server's hook: closed for every pusher, owners included, whichever
    // name (pushed, or the end of its symbolic chain) lies under refs/receipt-gate/.
    const f = reservedRefFinding({ ...pushed, ref: refKindOf(pushed.ref).kind === 'reserved' ? pushed.ref : j.update.ref }, ctx.identity);
    if (f) j.findings.push({ ...f, ref: pushed.ref });
    j.isProtectedRef = true;
    return resultOf(j);
  }
  // A remote-tracking ref is owners-only where it is written (a push to the server, which
  // verify-ref in a mirror would take as the base); in a clone it is the fetched branch, and
  // verify-ref origin/main audits that branch as code.
  const auditOfFetchedBranch = kind.kind === 'owners-only' && kind.namespace === 'remotes' && ctx.scope.kind !== 'server';
  if (kind.kind === 'owners-only' && !auditOfFetchedBranch) {
    const f = ownersOnlyFinding(ctx, kind.namespace, pushed.ref, j.update);
    if (f) j.findings.push(f);
    return resultOf(j);
  }
  if (kind.kind === 'notes') {
    j.findings.push(...(await notesFindings(ctx, pushed.ref, j.update, j.isProtectedRef || j.update.ref === RECEIPT_NOTES_REF)));
    return resultOf(j);
  }
  return judgeCode(j);
}

/** 1. Symbolic refs: the update is of the ref it resolves to, judged by that name. */
async function startJudgement(ctx: RunContext, pushed: RefUpdate): Promise<RefJudgement> {
  const { store } = ctx;
  const findings: Finding[] = [];
  const { ref, outside } = await resolveSymbolic(store, pushed.ref);
  if (ref !== pushed.ref && (ctx.isProtectedRef(pushed.ref) || outside)) {
    const f = symbolicFinding(ctx, pushed.ref, ref, pushed.new === ZERO_OID ? pushed.old : pushed.new);
    if (f) findings.push(f);
  }
  // What the ref holds now, not what the client says it held (git checks that later): a
  // zero `old` for an existing ref is an update of it, never a creation.
  const old = ctx.scope.kind === 'server' ? (store.refs.resolveExact(ref) ?? ZERO_OID) : pushed.old;
  return {
    ctx,
    pushed,
    update: { old, new: pushed.new, ref },
    at: { ref: pushed.ref },
    isProtectedRef: ctx.isProtectedRef(ref) || ctx.isProtectedRef(pushed.ref),
    findings,
    touched: ctx.contexts === null ? null : [],
  };
}

/** A branch, a tag or any other ref judged as code: deletion, what the ref names, its new
 * commits, the net change, the policy it leaves and the evidence at its tip. */
async function judgeCode(j: RefJudgement): Promise<RefResult> {
  const { ctx, update, pushed } = j;
  // 2. Deletion.
  if (update.new === ZERO_OID) {
    if (j.isProtectedRef) {
      const f = deletionFinding(ctx, pushed.ref, update.old === ZERO_OID ? pushed.old : update.old);
      if (f) j.findings.push(f);
    }
    return resultOf(j);
  }
  const newCommit = await peelNew(j);
  if (newCommit === null) return resultOf(j);
  const oldPeeled = update.old === ZERO_OID || !ctx.store.objects.hasObject(update.old) ? null : await ctx.store.commits.peel(update.old, ctx.deadline);
  const oldCommit = oldPeeled?.type === 'commit' ? oldPeeled.oid : null;
  const tips = { newCommit, oldCommit, oldOid: oldPeeled?.oid ?? null };

  // Bounded contexts: what each context's epoch pin names at the base, read once per run.
  await ctx.contexts?.prepare(ctx.store, ctx.base.tip);
  // The tip's changes are held no longer than the net change needs them (a large diff's records
  // would otherwise live through the evidence below).
  const history = await judgeHistory(j, tips);
  const newCommits = history.oids;
  if (history.missingParents) return resultOf(j, { commits: newCommits });
  await judgeNetChange(j, tips, history.tipChanges);
  const newTree = (await ctx.store.commits.read(newCommit)).tree;

  // 8. The policy this update leaves behind must be valid too.
  j.findings.push(...(await policyLeftAt(ctx, newCommit, newTree)).map((f) => ({ ...f, ref: pushed.ref })));
  ctx.deadline.check();

  // 9. Evidence over the whole tree at new (once per tree, whatever refs point at it).
  //    With bounded contexts, each context's evidence too, judged by what the update touches.
  const report = ctx.contexts === null || j.touched === null ? await treeEvidence(ctx, newCommit, newTree) : await contextsEvidence(ctx, ctx.contexts, newCommit, newTree, j.touched);
  j.findings.push(...report.findings.map((f) => ({ ...f, ref: pushed.ref, commit: f.commit ?? newCommit })));
  return resultOf(j, { commits: newCommits, identities: report.identities, evidence: report.results, contexts: report.contexts });
}

/** Per run, the policy each commit leaves (its findings without a ref): many refs on one
 * commit read it once. */
const policyLeftOf = new WeakMap<RunContext, Map<string, Promise<Finding[]>>>();

function policyLeftAt(ctx: RunContext, commit: string, tree: string): Promise<Finding[]> {
  let byCommit = policyLeftOf.get(ctx);
  if (!byCommit) policyLeftOf.set(ctx, (byCommit = new Map<string, Promise<Finding[]>>()));
  let left = byCommit.get(commit);
  if (!left) {
    left = policyLeftFindings(ctx.store, commit, tree, ctx.base.policyOid, '', ctx.policy.contexts);
    byCommit.set(commit, left);
  }
  return left;
}

/** The new and old tips of a code update, peeled to commits (`oldOid`: what old peels to). */
interface Tips {
  newCommit: string;
  oldCommit: string | null;
  oldOid: string | null;
}

/** 3. The commit the update's new value peels to, or null when it names a tree or a blob: such
 *  a ref brings no commit and touches nothing. The tags the push brings on the way are judged
 *  as git fsck judges them. */
async function peelNew(j: RefJudgement): Promise<string | null> {
  const { ctx, update, pushed, at } = j;
  const peeled = await ctx.store.commits.peel(update.new, ctx.deadline);
  j.findings.push(...(await newTagFindings(ctx, peeled.tags, at)));
  if (peeled.type === 'commit') return peeled.oid;
  const f = j.isProtectedRef ? notACommitFinding(ctx, pushed.ref, update.new, peeled.type) : null;
  j.findings.push(
    f ??
      finding('REF_NO_COMMIT', {
        severity: 'info',
        ...at,
        commit: update.new,
        message: `the ref names a ${peeled.type} (${short(peeled.oid)}), not a commit: it brings no commit, so no path is touched`,
        fix: 'nothing to do',
      }),
  );
  return null;
}

/** Steps 4 to 6: the commits the update brings (`missingParents` when one names a parent the
 * server lacks, and nothing else is judged), a protected ref's rewind, and what each new commit
 * touches. */
async function judgeHistory(j: RefJudgement, tips: Tips): Promise<{ oids: string[]; missingParents: boolean; tipChanges?: PathChange[] }> {
  const { ctx, at } = j;
  const { store } = ctx;
  // 4. On the server, the commits this update brings come first: one whose parent the
  //    repository lacks (a push from a shallow clone) cannot be judged at all, and nothing
  //    below is computed on such a history (it would read the commit as a root that adds
  //    every file, and ancestry through it cannot be answered).
  let commits: string[] | null = null;
  if (ctx.scope.kind === 'server') {
    // A commit the base branch's tip (an existing ref's) reaches brings nothing new, as the
    // walk from the existing tips would say (noteBaseAncestors proved it once for the push).
    const old = reachedByExistingTip(ctx, tips.newCommit) && !(await store.objects.isQuarantined(tips.newCommit));
    commits = old ? [] : await newCommitsOf(ctx, tips.newCommit, tips.oldCommit);
    const missing = await missingParentFindings(store, commits, at);
    if (missing.length > 0) {
      j.findings.push(...missing);
      return { oids: commits, missingParents: true };
    }
  }

  // 5. A protected ref only moves forward.
  if (j.isProtectedRef && tips.oldOid !== null) {
    if (tips.oldCommit === null || !(await isAncestor(ctx.history, tips.oldCommit, tips.newCommit, ctx.deadline))) {
      const f = rewriteFinding(ctx, j.pushed.ref, tips.oldCommit ?? tips.oldOid, tips.newCommit);
      if (f) j.findings.push(f);
    }
  }
  ctx.deadline.check();

  // 6. The commits this update brings, and what each one touches, parents first so a path is
  //    reported with the commit that first touched it.
  commits ??= await newCommitsOf(ctx, tips.newCommit, tips.oldCommit);
  // Every commit below is read synchronously (one await for the object database, not one per
  // commit).
  await store.objects.ready();
  for (const commit of commits) {
    ctx.deadline.tick(64);
    const f = objectFsckFinding('commit', commit, store.commits.fsckMessagesNow(commit), at);
    if (f) j.findings.push(f);
  }
  //    Each commit is diffed newest first all the same, and its findings kept for the report
  //    in parents-first order: git's packs hold a folder's newest version whole and the older
  //    ones as deltas on the next newer one, so read newest first each version is rebuilt from
  //    the one just read, and is garbage two commits later (read oldest first, a chain of up
  //    to 50 versions is rebuilt at once and kept until its commits come).
  //    What stops a diff (an object that cannot be read) is the error of the oldest commit
  //    that meets one, as a parents-first pass meets it: after a failure the commits are diffed
  //    again parents first, up to the first that fails.
  const ordered = parentsFirst(store, commits);
  const found: Finding[][] = new Array<Finding[]>(ordered.length);
  const changesOf: PathChange[][] | null = j.touched ? new Array<PathChange[]>(ordered.length) : null;
  //    The commits of a longer push name the same paths again and again: the run's
  //    protections remember each path's answer from here on (src/protection.ts).
  if (ordered.length > 1) ctx.pathMemory.on = true;
  //    The tip's own changes, for the net change (step 7) when they are the same diff.
  let tipChanges: PathChange[] | undefined;
  const pass = async (newestFirst: boolean): Promise<void> => {
    for (let n = 0; n < ordered.length; n++) {
      // The clocks are read every 16th commit (a commit costs tens of microseconds).
      ctx.deadline.tick(16);
      const k = newestFirst ? ordered.length - 1 - n : n;
      const where = { ...at, commit: ordered[k]! };
      const changes = touchedPathsNow(store, where.commit, ctx.deadline);
      if (changesOf) changesOf[k] = changes;
      if (where.commit === tips.newCommit) tipChanges = changes;
      // Awaited only when a runner file's entry must be read: no promise per commit.
      found[k] = pathFindingsNow(ctx, changes, where) ?? (await pathFindings(ctx, changes, where));
    }
  };
  try {
    await pass(true);
  } catch (err) {
    if (err instanceof DeadlineExceeded) throw err;
    await pass(false);
    throw err;
  }
  for (let k = 0; k < ordered.length; k++) {
    if (changesOf) j.touched!.push(changesOf[k]!);
    j.findings.push(...found[k]!);
  }
  ctx.deadline.check();
  return { oids: commits, missingParents: false, tipChanges };
}

/** 7. The net change: old -> new for the base branch and protected refs, else merge-base -> new.
 * `tipChanges`: the new tip's own changes when step 6 diffed it. When the net change starts at
 * the tip's only parent (a push of one commit), it is that very diff: its changes are counted
 * again without diffing the trees again, and its findings are the ones step 6 reported for
 * the tip (the same rule on the same path from the same commit, which resultOf keeps once). */
async function judgeNetChange(j: RefJudgement, tips: Tips, tipChanges: PathChange[] | undefined): Promise<void> {
  const { ctx } = j;
  const { store } = ctx;
  const baseTip = ctx.base.tip;
  const netFrom = j.isProtectedRef && tips.oldCommit !== null ? tips.oldCommit : baseTip !== null ? await mergeBase(ctx.history, baseTip, tips.newCommit, ctx.deadline) : null;
  if (netFrom !== null && tipChanges !== undefined) {
    await store.objects.ready();
    if (soleDiffedParentNow(store, tips.newCommit) === netFrom) {
      j.touched?.push(tipChanges);
      ctx.deadline.check();
      return;
    }
  }
  if (netFrom !== tips.newCommit) {
    const newTree = (await store.commits.read(tips.newCommit)).tree;
    const fromTree = netFrom === null ? null : (await store.commits.read(netFrom)).tree;
    const changes = await diffTrees(store, fromTree, newTree, ctx.deadline);
    j.touched?.push(changes);
    j.findings.push(...(await pathFindings(ctx, changes, { ...j.at, commit: tips.newCommit })));
  }
  ctx.deadline.check();
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

/** Per run: the base tip, when it is one of the existing tips the server's walk starts from
 * (so a commit it reaches is reached by the repository's refs). */
const existingBaseTip = new WeakMap<RunContext, string>();

/**
 * Before the refs are judged one by one: when two or more refs of the push name commits the
 * repository already held (a push of many tags on old commits), one walk from the base tip
 * finds which of those commits it reaches (src/git/history/ancestors-among.ts), instead of a
 * walk per ref for its merge base and, on the server, for whether the existing refs reach it.
 * Only proven ancestry is recorded; anything else is judged per ref exactly as before, and an
 * error here (an unreadable object, the deadline) is left for the per-ref judgement to meet and
 * name.
 */
async function noteBaseAncestors(ctx: RunContext, updates: readonly RefUpdate[]): Promise<void> {
  const tip = ctx.base.tip;
  if (tip === null || updates.length < 2) return;
  try {
    await withinDeadline(ctx.deadline, () => noteAncestorsOfHeld(ctx, tip, updates));
  } catch {
    // Nothing recorded is nothing assumed: each ref is judged in full.
  }
}

/** The refs' commits the repository held before the push, walked for from the base tip when
 * two or more refs name them. */
async function noteAncestorsOfHeld(ctx: RunContext, tip: string, updates: readonly RefUpdate[]): Promise<void> {
  const { store } = ctx;
  // Refs per value named (50,000 tags may name one commit).
  const named = new Map<string, number>();
  for (const u of updates) if (u.new !== ZERO_OID) named.set(u.new, (named.get(u.new) ?? 0) + 1);
  const held = new Set<string>();
  let refs = 0;
  for (const [oid, n] of named) {
    ctx.deadline.tick(64);
    if (!store.objects.hasObject(oid)) continue;
    const peeled = await store.commits.peel(oid, ctx.deadline);
    // A commit the push brought is above every existing tip, never below the base tip.
    if (peeled.type !== 'commit' || peeled.oid === tip || (await store.objects.isQuarantined(peeled.oid))) continue;
    held.add(peeled.oid);
    refs += n;
  }
  if (refs < 2) return;
  if (ctx.scope.kind === 'server') {
    await ctx.history.useCommitCache();
    if (ctx.scope.existingTips.includes(tip)) existingBaseTip.set(ctx, tip);
  }
  await noteAncestorsAmong(ctx.history, tip, [...held], ctx.deadline);
}

/** True when the server's existing tips are shown to reach `commit`: the base tip is one of
 * them and noteBaseAncestors found `commit` below it (or it is the tip). */
function reachedByExistingTip(ctx: RunContext, commit: string): boolean {
  const tip = existingBaseTip.get(ctx);
  return tip !== undefined && (commit === tip || ctx.history.knownAncestor(commit, tip));
}

async function newCommitsOf(ctx: RunContext, newCommit: string, oldCommit: string | null): Promise<string[]> {
  const { scope } = ctx;
  if (scope.kind === 'server') return newCommitsOnServer(ctx.history, newCommit, scope.existingTips, ctx.deadline);
  const exclude = [ctx.base.tip, oldCommit, ...scope.exclude].filter((c): c is string => c !== null);
  return newCommits(ctx.history, newCommit, exclude, ctx.deadline);
}

/**
 * A finding for each new commit that names a parent the repository does not hold (and that
 * the repository's own shallow file does not list as a boundary): what a push from a shallow
 * clone brings to a server that lacks the history below it. Git's connectivity check for such a
 * push runs after pre-receive, so the hook sees the commit with its parent absent.
 */
async function missingParentFindings(store: ObjectStore, commits: readonly string[], at: { ref: string }): Promise<Finding[]> {
  const shallow = store.commits.shallowNow();
  await store.objects.ready();
  const out: Finding[] = [];
  for (const commit of commits) {
    if (shallow.has(commit)) continue;
    for (const parent of store.commits.recordNow(commit).parents) {
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
 * (commit dates can tie or lie; the graph cannot). Only after the object database's `ready()`. */
function parentsFirst(store: ObjectStore, commits: string[]): string[] {
  const inSet = new Set(commits);
  const parents = new Map<string, string[]>();
  for (const c of commits) parents.set(c, store.commits.recordNow(c).parents.filter((p) => inSet.has(p)));
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
async function evaluateUnguarded(setup: RunSetup, updates: RefUpdate[], baseName: string | null): Promise<GateResult> {
  const { store, identity } = setup;
  const refs: RefResult[] = [];
  for (const update of updates) {
    const findings: Finding[] = reservedFindings(setup, update);
    if (findings.length > 0) {
      refs.push(refResult(update, findings, { isProtectedRef: true }));
      continue;
    }
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
  await ctx.contexts?.prepare(ctx.store, base.tip);
  findings.push(...(await pathFindings(ctx, target.changes, { ref: target.ref })));
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
