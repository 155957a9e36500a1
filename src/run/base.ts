// The one base rule: which commit supplies the policy in force and is the "before" side of a
// run. Every entry picks one of these, and nothing else looks for a base:
//
//   server   the bare repository's HEAD (the default branch, inside GIT_NAMESPACE when set)
//            supplies the policy; the tip of the policy's baseBranch bounds the net change.
//   named    `--base REF` (verify-ref, receipt, verify-receipt).
//   default  verify-ref/receipt without --base: the policy's baseBranch, preferring
//            refs/remotes/origin/<baseBranch>.
//   client   pre-commit / pre-push / check: the remote-tracking copy of the server's base
//            branch (refs/remotes/<remote>/<baseBranch>), else the local fallbacks (HEAD), so
//            the hooks work from the first commit an owner makes with `init`.

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Policy } from '../evidence/types';
import type { Finding } from '../findings';
import { ObjectTooLargeError, type ObjectStore } from '../git/store';
import { resolveRevision } from '../git/revision';
import { GitReadError } from '../git/types';
import { UsageError } from '../io';
import { isOid, ZERO_OID } from '../types';
import { readPolicyAt } from './policy-at';
import { decodeRefName } from '../git/refname';

export interface Base {
  /** How the base is shown: a ref name ('refs/remotes/origin/main'), or a description. Null
   * when no candidate holds a policy (the repository is unguarded). */
  name: string | null;
  /** The commit whose tree supplies the policy; null when there is none. */
  policyCommit: string | null;
  /** The tip of the base branch: the "before" side of evidence and the merge-base partner of
   * the net change. Usually the policy commit. */
  tip: string | null;
  /** The local branch the base stands for, e.g. refs/heads/main. */
  branchRef: string | null;
  /** The policy in force; null when unguarded or when the policy there is invalid. */
  policy: Policy | null;
  /** POLICY_INVALID / LIMIT_EXCEEDED for a broken policy at the base. */
  findings: Finding[];
  /** The policy blob at the base (to tell whether an update changes it). */
  policyOid: string | null;
}

export type BaseChoice =
  | { kind: 'server' }
  | { kind: 'named'; spec: string }
  | { kind: 'default' }
  | { kind: 'client'; remote: string | null; fallbacks: string[] }
  /** pre-push: the remote's name and the tips git just read from it for the pushed refs. */
  | { kind: 'push'; remote: string; remoteTips: { ref: string; oid: string }[] };

const UNGUARDED: Base = { name: null, policyCommit: null, tip: null, branchRef: null, policy: null, findings: [], policyOid: null };

export async function resolveBase(store: ObjectStore, choice: BaseChoice): Promise<Base> {
  switch (choice.kind) {
    case 'server':
      return serverBase(store);
    case 'named':
      return namedBase(store, choice.spec);
    case 'default':
      return defaultBase(store);
    case 'client':
      return clientBase(store, choice.remote, choice.fallbacks);
    case 'push':
      return pushBase(store, choice.remote, choice.remoteTips);
  }
}

/** A ref's commit, or null when the ref does not exist or names no commit. */
export async function commitOf(store: ObjectStore, ref: string): Promise<string | null> {
  const oid = store.refs.resolve(ref);
  if (oid === null) return null;
  const peeled = await store.commits.peel(oid);
  return peeled.type === 'commit' ? peeled.oid : null;
}

/** The base at `commit`, shown as `name`. */
async function baseAt(store: ObjectStore, name: string, commit: string, branchRef: string | null): Promise<Base> {
  const read = await readPolicyAt(store, commit);
  return { name, policyCommit: commit, tip: commit, branchRef, policy: read.policy, findings: read.findings, policyOid: read.oid };
}

async function serverBase(store: ObjectStore): Promise<Base> {
  // The default branch tip as it was before this push (git updates refs only after
  // pre-receive accepts).
  let headRef = store.refs.headTarget() ?? 'HEAD';
  let head = await commitOf(store, 'HEAD');
  if (head === null && headRef === 'HEAD' && store.refs.namespace !== '') {
    // A namespace without a HEAD of its own (git creates none on push): its default branch is
    // the one the repository's HEAD names, read inside the namespace, so the namespace is
    // guarded by its own policy rather than read as unguarded.
    const own = repositoryHeadTarget(store.gitdir);
    if (own !== null) {
      headRef = own;
      head = await commitOf(store, own);
    }
  }
  if (head === null) return { ...UNGUARDED, name: headRef, branchRef: headRef.startsWith('refs/heads/') ? headRef : null };
  const base = await baseAt(store, headRef, head, headRef.startsWith('refs/heads/') ? headRef : null);
  if (base.policy) {
    const branchRef = `refs/heads/${base.policy.baseBranch}`;
    if (branchRef !== headRef) {
      base.branchRef = branchRef;
      base.tip = await commitOf(store, branchRef);
    }
  }
  return base;
}

/** The symbolic target of the repository's own HEAD file (outside any namespace). */
function repositoryHeadTarget(gitdir: string): string | null {
  try {
    const m = /^ref:[ \t]*(refs\/heads\/[^\n]+?)[ \t\r\n]*$/.exec(readFileSync(join(gitdir, 'HEAD'), 'latin1'));
    return m ? decodeRefName(Buffer.from(m[1]!, 'latin1')) : null;
  } catch {
    return null;
  }
}

async function namedBase(store: ObjectStore, spec: string): Promise<Base> {
  const commit = await resolveCommitSpec(store, spec, '--base');
  return baseAt(store, spec, commit, branchRefOf(await fullRefName(store, spec)));
}

/** The policy's baseBranch, preferring refs/remotes/origin/<baseBranch>. The branch name comes
 * from the policy, which comes from the base: start from the usual default branches, then
 * follow the policy's baseBranch if it names another. */
async function defaultBase(store: ObjectStore): Promise<Base> {
  const head = store.refs.headTarget();
  const guesses = [...new Set(['main', 'master', head?.startsWith('refs/heads/') ? head.slice('refs/heads/'.length) : null])].filter(
    (b): b is string => b !== null,
  );
  const locate = async (branch: string): Promise<Base | null> => {
    for (const ref of [`refs/remotes/origin/${branch}`, `refs/heads/${branch}`]) {
      const commit = await commitOf(store, ref);
      if (commit) return baseAt(store, ref, commit, `refs/heads/${branch}`);
    }
    return null;
  };
  for (const branch of guesses) {
    const guess = await locate(branch);
    if (!guess) continue;
    if (!guess.policy || guess.policy.baseBranch === branch) return guess;
    return (await locate(guess.policy.baseBranch)) ?? guess;
  }
  return UNGUARDED;
}

/**
 * The first of these that holds a policy (valid or not): refs/remotes/<remote>/<baseBranch>,
 * then each of `fallbacks` (local refs or oids, e.g. HEAD), in order. The base branch's name
 * comes from a policy: the one at refs/remotes/<remote>/HEAD (the server's default branch),
 * the fallbacks' own, then main and master are tried.
 */
async function clientBase(store: ObjectStore, remote: string | null, fallbacks: string[]): Promise<Base> {
  const local: Base[] = [];
  for (const ref of fallbacks) {
    const at = await candidate(store, ref);
    if (at) local.push(at);
  }
  if (remote !== null) {
    const remoteHead = await candidate(store, `refs/remotes/${remote}/HEAD`);
    const hints = [remoteHead?.policy?.baseBranch, ...local.map((c) => c.policy?.baseBranch), 'main', 'master'];
    for (const branch of new Set(hints.filter((b): b is string => !!b))) {
      const tracking = await candidate(store, `refs/remotes/${remote}/${branch}`);
      if (!tracking) continue;
      // The tracking branch's own policy may name another base branch: follow it once.
      const named = tracking.policy?.baseBranch;
      if (named && named !== branch) {
        const other = await candidate(store, `refs/remotes/${remote}/${named}`);
        if (other) return other;
      }
      return tracking;
    }
  }
  return local[0] ?? UNGUARDED;
}

/**
 * The base of a push: the commit whose policy is in force and whose tip bounds the new commits.
 *
 * 1. When the push updates the base branch and git has just read its tip from the server
 *    (the line's remote oid, when this clone has that commit): that tip, the server's own base.
 * 2. Else the remote-tracking base branch, refs/remotes/<remote>/<baseBranch>, as this clone
 *    last fetched it.
 * 3. Else (a URL rather than a remote name, a remote never fetched) the local base branch.
 */
async function pushBase(store: ObjectStore, remote: string, remoteTips: { ref: string; oid: string }[]): Promise<Base> {
  const known = await clientBase(store, remote, ['HEAD']);
  const branchRef = `refs/heads/${known.policy?.baseBranch ?? 'main'}`;
  const live = remoteTips.find((t) => t.ref === branchRef && t.oid !== ZERO_OID);
  if (live && store.objects.hasObject(live.oid)) {
    const fresh = await clientBase(store, null, [live.oid]);
    return fresh.name === null ? fresh : { ...fresh, name: `${branchRef.replace(/^refs\/heads\//, '')} on ${remote}`, branchRef };
  }
  if (isRemoteBase(known)) return known;
  const local = await clientBase(store, null, ['refs/heads/main', 'refs/heads/master', 'HEAD']);
  const named = local.policy ? `refs/heads/${local.policy.baseBranch}` : null;
  if (named !== null && named !== local.name && (await commitOf(store, named)) !== null) {
    const followed = await clientBase(store, null, [named]);
    if (followed.name !== null) return followed;
  }
  return local;
}

/** True when the base is a remote-tracking ref (the server's view), not a local stand-in. */
export function isRemoteBase(base: Base): boolean {
  return base.name !== null && base.name.startsWith('refs/remotes/');
}

/** The base at `ref` when the ref exists and its tree holds a policy file. */
async function candidate(store: ObjectStore, ref: string): Promise<Base | null> {
  const commit = isOid(ref) ? (store.objects.hasObject(ref) ? await store.commits.peelToCommit(ref) : null) : await commitOf(store, ref);
  if (commit === null) return null;
  const base = await baseAt(store, ref, commit, ref.startsWith('refs/remotes/') ? `refs/heads/${ref.replace(/^refs\/remotes\/[^/]+\//, '')}` : ref.startsWith('refs/heads/') ? ref : null);
  if (base.policy === null && base.findings.length === 0) return null;
  return base;
}

function branchRefOf(full: string): string {
  return `refs/heads/${full.replace(/^refs\/remotes\/[^/]+\//, '').replace(/^refs\/heads\//, '')}`;
}

/** The commit a command-line revision names (REF, --base, --ref: git's revision syntax); a
 * usage error saying what is accepted when it names none. */
export async function resolveCommitSpec(store: ObjectStore, spec: string, what: string): Promise<string> {
  let named: string | null = null;
  try {
    named = (await resolveRevision(store, spec)).oid;
    return await store.commits.peelToCommit(named);
  } catch (err) {
    // Too large to read: the engine judges it (LIMIT_EXCEEDED, closed), as the server would.
    if (err instanceof ObjectTooLargeError && named !== null) return named;
    if (err instanceof GitReadError) throw new UsageError(`${what} '${spec}': ${err.message}${await missingRefHint(store, spec)}`);
    throw err;
  }
}

/** For a name that resolves to nothing: the remote-tracking branch it likely means, or the
 * fetch that brings it (a CI checkout has origin/main and no local main; a depth-1 clone has
 * only the branch it checked out). Empty for what cannot be a branch name. */
async function missingRefHint(store: ObjectStore, spec: string): Promise<string> {
  if (!/^[A-Za-z0-9][\w./-]*$/.test(spec) || spec.includes('..') || /^[0-9a-f]{4,64}$/.test(spec)) return '';
  const branch = spec.replace(/^refs\/heads\//, '').replace(/^refs\/remotes\/origin\//, '').replace(/^origin\//, '');
  const tracking = `refs/remotes/origin/${branch}`;
  if (!spec.startsWith('origin/') && !spec.startsWith('refs/remotes/') && (await commitOf(store, tracking)) !== null) {
    return ` This clone has origin/${branch} (no local ${branch}, as in a CI checkout): pass origin/${branch}.`;
  }
  return ` If ${branch} is a branch of the remote, fetch it first: git fetch origin ${branch}:refs/remotes/origin/${branch}, then pass origin/${branch}.`;
}

/** The full ref name a revision names (`HEAD` is the branch it names, `main` is
 * refs/heads/main); the revision as typed when it names a commit, not a ref (`HEAD~1`, an oid). */
export async function fullRefName(store: ObjectStore, spec: string): Promise<string> {
  try {
    return (await resolveRevision(store, spec)).ref ?? spec;
  } catch {
    return spec;
  }
}
