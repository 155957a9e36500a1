// The engine: ref updates in, findings and a verdict out. Every entry (verify-ref, the
// server's pre-receive, the client's pre-push) calls `evaluate`; they differ only in where
// the new commits come from and which commit supplies the policy.
//
//   ref update ─► new commits ─► touched paths ─┐
//                                               ├─► findings ─► verdict
//   policy @ base ─► evidence @ new, @ base ────┘

import { emptyIdentities, finding, type Finding, type Identities } from './findings';
import { verdictOf, type Verdict } from './verdict';
import type { ObjectStore } from './git/store';
import { diffTrees, touchedPaths } from './git/diff';
import { isAncestor, mergeBase, newCommits, newCommitsInQuarantine } from './git/walk';
import type { PathChange } from './git/types';
import { checkEvidence } from './evidence/index';
import { evidencePaths, parsePolicy } from './evidence/policy';
import { TreeSource } from './evidence/tree-source';
import { POLICY_PATH, type Policy } from './evidence/types';
import { foldPath, matcher, refMatcher } from './paths';

export const ZERO_OID = '0000000000000000000000000000000000000000';

/** Identity variables read when there is no policy to name them. */
export const DEFAULT_IDENTITY_ENV = ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'];

/** A policy file larger than this is refused before it is read (the policy's own limit is
 * not known until it has been read). */
const POLICY_MAX_BYTES = 1024 * 1024;

export interface RefUpdate {
  old: string;
  new: string;
  ref: string;
}

export interface GateOptions {
  store: ObjectStore;
  /** Who pushes or runs the check; null is nobody, who owns nothing. */
  identity: string | null;
  /** Today as a UTC date, YYYY-MM-DD. */
  today: string;
  /** Server: the commits whose objects the push brought. Elsewhere: reachable from `new` and
   * not from the base tip, `old` or `exclude`. */
  newCommitsFrom: 'quarantine' | 'base';
  /** The commit whose tree supplies the policy. */
  policyCommit: string | null;
  /** Tip of baseBranch before the update: merge-base for the net change, base for evidence. */
  baseTip: string | null;
  /** More tips whose history is not new (client: remote-tracking refs). */
  exclude?: string[];
  /** Absolute Date.now() deadline; default now + policy.limits.timeoutMs. */
  deadlineMs?: number;
}

export interface RefResult {
  update: RefUpdate;
  kind: 'branch' | 'tag' | 'other';
  isProtectedRef: boolean;
  verdict: Verdict;
  findings: Finding[];
  identities: Identities;
  newCommits: string[];
}

export interface GateResult {
  unguarded: boolean;
  policy: Policy | null;
  identity: string | null;
  refs: RefResult[];
  findings: Finding[];
  verdict: Verdict;
}

// ---------------------------------------------------------------------------------------------
// Identity and ownership

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

function ownersText(policy: Policy): string {
  return policy.owners.length ? policy.owners.join(', ') : 'nobody (the policy lists no owners)';
}

// ---------------------------------------------------------------------------------------------
// Policy

/** Reads and validates the policy in `commit`'s tree. No policy file: `policy` is null and
 * there are no findings (the repository is unguarded). */
export async function readPolicyAt(
  store: ObjectStore,
  commit: string | null,
): Promise<{ policy: Policy | null; findings: Finding[] }> {
  if (commit === null) return { policy: null, findings: [] };
  const { tree } = await store.readCommit(commit);
  const source = new TreeSource(store, tree, `commit ${commit.slice(0, 7)}`);
  const entry = await source.stat(POLICY_PATH);
  if (entry.kind === 'missing') return { policy: null, findings: [] };
  const invalid = (message: string): Finding =>
    finding('POLICY_INVALID', {
      commit,
      path: POLICY_PATH,
      message,
      fix: `an owner commits a valid ${POLICY_PATH} (schemas/policy.schema.json) to the base branch`,
    });
  if (entry.kind === 'other') {
    return { policy: null, findings: [invalid(`expected a regular file, found a ${entry.what}`)] };
  }
  if (entry.size > POLICY_MAX_BYTES) {
    return {
      policy: null,
      findings: [
        finding('LIMIT_EXCEEDED', {
          commit,
          path: POLICY_PATH,
          message: `the policy is ${entry.size} bytes, over the ${POLICY_MAX_BYTES}-byte limit for evidence files`,
          fix: `an owner replaces ${POLICY_PATH} with a policy under ${POLICY_MAX_BYTES} bytes`,
        }),
      ],
    };
  }
  const parsed = parsePolicy(await entry.read(), POLICY_PATH);
  if (parsed.ok) return { policy: parsed.policy, findings: [] };
  return { policy: null, findings: parsed.findings.map((f) => ({ ...f, commit })) };
}

// ---------------------------------------------------------------------------------------------
// Protected paths

export interface ProtectionRules {
  /** True when a non-owner may not change `path`. */
  isProtected(path: string): boolean;
  /** The glob (or file) that protects `path`, for messages. */
  protectedBy(path: string): string | null;
}

export function protectionRules(policy: Policy): ProtectionRules {
  // The policy, pin, manifest and freeze file can never be excepted.
  const pinned = [POLICY_PATH, policy.epoch?.pin, policy.manifest?.path, policy.freeze?.path]
    .filter((p): p is string => typeof p === 'string')
    .map(foldPath);
  const globs = [...policy.protected, ...evidencePaths(policy)];
  const perGlob = globs.map((g) => ({ glob: g, match: matcher([g]) }));
  const isException = matcher(policy.exceptions);
  const protectedBy = (path: string): string | null => {
    const folded = foldPath(path);
    const fixed = pinned.find((p) => p === folded);
    if (fixed !== undefined) return fixed;
    if (isException(path)) return null;
    return perGlob.find((g) => g.match(path))?.glob ?? null;
  };
  return { protectedBy, isProtected: (path) => protectedBy(path) !== null };
}

/** PATH_PROTECTED for each protected path a non-owner changes, PATH_UNSAFE for each path no
 * checkout could write safely (whoever pushes). One finding per path: the first change seen. */
export function protectedPathFindings(
  policy: Policy,
  identity: string | null,
  changes: PathChange[],
  at: { ref?: string; commit?: string },
): Finding[] {
  const owner = isOwner(policy, identity);
  const rules = protectionRules(policy);
  const out: Finding[] = [];
  const seen = new Set<string>();
  for (const change of changes) {
    const key = `${change.path}\0${change.unsafe && change.after ? 'unsafe' : 'protected'}`;
    if (seen.has(key)) continue;
    if (change.unsafe && change.after) {
      seen.add(key);
      out.push(
        finding('PATH_UNSAFE', {
          ...at,
          path: change.path,
          message: `the tree has an entry no checkout can write safely (a segment that is .git in any case, '.', '..', empty, or holds '\\' or NUL)`,
          fix: `remove the entry; such a path is refused for every pusher`,
        }),
      );
      continue;
    }
    if (owner) continue;
    const by = rules.protectedBy(change.path);
    if (by === null) continue;
    seen.add(key);
    out.push(
      finding('PATH_PROTECTED', {
        ...at,
        path: change.path,
        message: `${describeChange(change)} a protected path (${by}) as ${identity ?? 'nobody'}, who is not an owner`,
        fix: `${by} may only be changed by: ${ownersText(policy)}; take the change out of this push, or ask an owner to make it`,
      }),
    );
  }
  return out;
}

function describeChange(change: PathChange): string {
  switch (change.change) {
    case 'add':
      return 'adds';
    case 'delete':
      return 'deletes';
    case 'mode':
      return `changes the mode (${change.before?.mode} -> ${change.after?.mode}) of`;
    case 'type':
      return `changes the type (${change.before?.kind} -> ${change.after?.kind}) of`;
    default:
      return 'changes';
  }
}

// ---------------------------------------------------------------------------------------------
// Evaluation

class DeadlineExceeded extends Error {}

function refKind(ref: string): RefResult['kind'] {
  if (ref.startsWith('refs/heads/')) return 'branch';
  if (ref.startsWith('refs/tags/')) return 'tag';
  return 'other';
}

export async function evaluate(opts: GateOptions, updates: RefUpdate[]): Promise<GateResult> {
  const started = Date.now();
  const { store } = opts;
  let policyRead: { policy: Policy | null; findings: Finding[] };
  try {
    policyRead = await readPolicyAt(store, opts.policyCommit);
  } catch (err) {
    policyRead = { policy: null, findings: [internalError(err, { commit: opts.policyCommit ?? undefined, path: POLICY_PATH })] };
  }
  const { policy } = policyRead;
  if (!policy) {
    if (policyRead.findings.length > 0) {
      // The policy in force is broken: nothing can be judged, every update is closed.
      const refs = updates.map((update) => refResult(update, false, policyRead.findings.map((f) => ({ ...f, ref: update.ref })), [], emptyIdentities()));
      return summarize(false, null, opts.identity, refs);
    }
    return evaluateUnguarded(opts, updates);
  }

  const deadline = opts.deadlineMs ?? started + policy.limits.timeoutMs;
  const evidenceCache = new Map<string, Promise<{ findings: Finding[]; identities: Identities }>>();
  const refs: RefResult[] = [];
  for (const update of updates) {
    const isProtectedRef =
      update.ref === `refs/heads/${policy.baseBranch}` || refMatcher(policy.protectedRefs)(update.ref);
    try {
      refs.push(
        await withDeadline(deadline, () => evaluateRef(opts, policy, update, isProtectedRef, evidenceCache, deadline)),
      );
    } catch (err) {
      const f =
        err instanceof DeadlineExceeded
          ? finding('LIMIT_EXCEEDED', {
              ref: update.ref,
              commit: update.new,
              message: `the check did not finish within limits.timeoutMs (${policy.limits.timeoutMs} ms)`,
              fix: 'push fewer commits at once, or an owner raises limits.timeoutMs in the policy',
            })
          : internalError(err, { ref: update.ref, commit: update.new });
      refs.push(refResult(update, isProtectedRef, [f], [], emptyIdentities()));
    }
  }
  return summarize(false, policy, opts.identity, refs);
}

async function withDeadline<T>(deadline: number, work: () => Promise<T>): Promise<T> {
  const remaining = deadline - Date.now();
  if (remaining <= 0) throw new DeadlineExceeded();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded()), remaining);
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

async function evaluateRef(
  opts: GateOptions,
  policy: Policy,
  update: RefUpdate,
  isProtectedRef: boolean,
  evidenceCache: Map<string, Promise<{ findings: Finding[]; identities: Identities }>>,
  deadline: number,
): Promise<RefResult> {
  const { store, identity } = opts;
  const findings: Finding[] = [];
  const owner = isOwner(policy, identity);
  const at = { ref: update.ref };

  if (update.new === ZERO_OID) {
    if (isProtectedRef && !owner) {
      findings.push(
        finding('REF_PROTECTED', {
          ...at,
          commit: update.old,
          message: `deletes the protected ref ${update.ref} as ${identity ?? 'nobody'}, who is not an owner`,
          fix: `protected refs may only be deleted by: ${ownersText(policy)}`,
        }),
      );
    }
    return refResult(update, isProtectedRef, findings, [], emptyIdentities());
  }

  const newCommit = await store.peelToCommit(update.new);
  const oldCommit = update.old === ZERO_OID ? null : await peelIfPresent(store, update.old);

  if (isProtectedRef && oldCommit !== null && !owner && !(await isAncestor(store, oldCommit, newCommit))) {
    findings.push(
      finding('REF_PROTECTED', {
        ...at,
        commit: newCommit,
        message: `rewrites the protected ref ${update.ref} (not a fast-forward of ${oldCommit.slice(0, 7)}) as ${identity ?? 'nobody'}, who is not an owner`,
        fix: `push a fast-forward (merge or rebase onto ${update.ref}); only ${ownersText(policy)} may rewrite it`,
      }),
    );
  }

  // The commits this update brings, and what each one touches.
  const commits =
    opts.newCommitsFrom === 'quarantine'
      ? await newCommitsInQuarantine(store, newCommit)
      : await newCommits(
          store,
          newCommit,
          [opts.baseTip, oldCommit, ...(opts.exclude ?? [])].filter((c): c is string => c !== null),
        );
  // Parents before children, so a path is reported with the commit that first touched it.
  for (const commit of await parentsFirst(store, commits)) {
    // The timer in withDeadline only fires when the work yields; a long walk checks the clock.
    if (Date.now() > deadline) throw new DeadlineExceeded();
    findings.push(...protectedPathFindings(policy, identity, await touchedPaths(store, commit), { ...at, commit }));
  }

  if (Date.now() > deadline) throw new DeadlineExceeded();

  // The net change: old -> new for the base branch and protected refs, else merge-base -> new.
  const netFrom =
    isProtectedRef && oldCommit !== null
      ? oldCommit
      : opts.baseTip !== null
        ? await mergeBase(store, opts.baseTip, newCommit)
        : null;
  if (netFrom !== newCommit) {
    const fromTree = netFrom === null ? null : (await store.readCommit(netFrom)).tree;
    const toTree = (await store.readCommit(newCommit)).tree;
    const net = await diffTrees(store, fromTree, toTree);
    findings.push(...protectedPathFindings(policy, identity, net, { ...at, commit: newCommit }));
  }

  // The policy this update leaves behind must be valid too.
  const newTree = (await store.readCommit(newCommit)).tree;
  const policyEntry = await store.entryAt(newTree, POLICY_PATH);
  const basePolicyEntry = opts.policyCommit
    ? await store.entryAt((await store.readCommit(opts.policyCommit)).tree, POLICY_PATH)
    : null;
  if (policyEntry && policyEntry.oid !== basePolicyEntry?.oid) {
    const left = await readPolicyAt(store, newCommit);
    findings.push(...left.findings.map((f) => ({ ...f, ref: update.ref })));
  }

  if (Date.now() > deadline) throw new DeadlineExceeded();

  // Evidence over the whole tree at new (once per tree, whatever refs point at it).
  const baseTree = opts.baseTip === null ? null : (await store.readCommit(opts.baseTip)).tree;
  const key = `${newTree}:${baseTree}`;
  let evidence = evidenceCache.get(key);
  if (!evidence) {
    evidence = checkEvidence({
      policy,
      atNew: new TreeSource(store, newTree, `commit ${newCommit.slice(0, 7)}`),
      atBase: baseTree === null ? null : new TreeSource(store, baseTree, `base ${opts.baseTip!.slice(0, 7)}`),
      today: opts.today,
    });
    evidenceCache.set(key, evidence);
  }
  const report = await evidence;
  findings.push(...report.findings.map((f) => ({ ...f, ref: update.ref, commit: f.commit ?? newCommit })));

  return refResult(update, isProtectedRef, dedupe(findings), commits, report.identities);
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

async function peelIfPresent(store: ObjectStore, oid: string): Promise<string | null> {
  // A client's view of the remote may name an old tip it never fetched.
  if (!(await store.hasObject(oid))) return null;
  return store.peelToCommit(oid);
}

/** With no policy at the base nothing is checked, but a policy the update adds must be valid. */
async function evaluateUnguarded(opts: GateOptions, updates: RefUpdate[]): Promise<GateResult> {
  const refs: RefResult[] = [];
  for (const update of updates) {
    const findings: Finding[] = [];
    if (update.new !== ZERO_OID) {
      try {
        const commit = await opts.store.peelToCommit(update.new);
        const left = await readPolicyAt(opts.store, commit);
        findings.push(...left.findings.map((f) => ({ ...f, ref: update.ref })));
      } catch (err) {
        findings.push(internalError(err, { ref: update.ref, commit: update.new }));
      }
    }
    refs.push(refResult(update, false, findings, [], emptyIdentities()));
  }
  return summarize(true, null, opts.identity, refs);
}

function refResult(
  update: RefUpdate,
  isProtectedRef: boolean,
  findings: Finding[],
  newCommitList: string[],
  identities: Identities,
): RefResult {
  return {
    update,
    kind: refKind(update.ref),
    isProtectedRef,
    verdict: verdictOf(findings),
    findings,
    identities,
    newCommits: newCommitList,
  };
}

function summarize(unguarded: boolean, policy: Policy | null, identity: string | null, refs: RefResult[]): GateResult {
  const findings = refs.flatMap((r) => r.findings);
  return { unguarded, policy, identity, refs, findings, verdict: verdictOf(findings) };
}

/** The same rule on the same path from several commits is one finding (the first commit). */
function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    if (f.code !== 'PATH_PROTECTED' && f.code !== 'PATH_UNSAFE') return true;
    const key = `${f.code}\0${f.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export function internalError(err: unknown, at: { ref?: string; commit?: string; path?: string }): Finding {
  const message = err instanceof Error ? err.message : String(err);
  return finding('INTERNAL_ERROR', {
    ...at,
    message: `the check could not complete: ${message}`,
    fix: 'the gate failed closed; fix the repository problem named above, or report it with RECEIPT_GATE_DEBUG=1 output',
  });
}
