// Naming commits on the command line (verify-ref, receipt, verify-receipt): REF resolves like
// `git rev-parse`; the base defaults to the policy's baseBranch, preferring
// refs/remotes/origin/<baseBranch>.

import { readPolicyAt } from './engine';
import { ObjectStore } from './git/store';
import { GitReadError } from './git/types';
import { UsageError } from './io';

export async function resolveCommit(store: ObjectStore, name: string, what: string): Promise<string> {
  let oid: string | null;
  try {
    oid = await store.resolveRef(name);
    if (oid !== null) oid = await store.peelToCommit(oid);
  } catch (err) {
    if (err instanceof GitReadError) throw new UsageError(`${what} '${name}': ${err.message}`);
    throw err;
  }
  if (oid === null) throw new UsageError(`${what} '${name}' does not name a commit in ${store.gitdir}`);
  return oid;
}

/** The full ref name of `name` (HEAD resolves to the branch it names; an oid stays an oid). */
export async function fullRefName(store: ObjectStore, name: string): Promise<string> {
  if (name === 'HEAD') return (await store.headTarget()) ?? 'HEAD';
  if (name.startsWith('refs/')) return name;
  const refs = await store.listRefs();
  for (const candidate of [`refs/heads/${name}`, `refs/tags/${name}`, `refs/remotes/${name}`]) {
    if (refs.has(candidate)) return candidate;
  }
  return name;
}

export interface Base {
  /** As given or found, e.g. refs/remotes/origin/main. */
  name: string;
  commit: string;
  /** The local branch the base stands for, e.g. refs/heads/main. */
  branchRef: string;
}

function branchRefOf(full: string): string {
  return `refs/heads/${full.replace(/^refs\/remotes\/[^/]+\//, '').replace(/^refs\/heads\//, '')}`;
}

/** --base, or the policy's baseBranch (preferring refs/remotes/origin/<baseBranch>). The branch
 * name comes from the policy, which comes from the base: start from the usual default
 * branches, then follow the policy's baseBranch if it names another. */
export async function resolveBase(store: ObjectStore, given: string | undefined): Promise<Base | null> {
  if (given !== undefined) {
    const commit = await resolveCommit(store, given, '--base');
    return { name: given, commit, branchRef: branchRefOf(await fullRefName(store, given)) };
  }
  const head = await store.headTarget();
  const guesses = ['main', 'master', head?.startsWith('refs/heads/') ? head.slice('refs/heads/'.length) : null].filter(
    (b): b is string => b !== null,
  );
  const refs = await store.listRefs();
  const locate = async (branch: string): Promise<Base | null> => {
    for (const ref of [`refs/remotes/origin/${branch}`, `refs/heads/${branch}`]) {
      const oid = refs.get(ref);
      if (oid) return { name: ref, commit: await store.peelToCommit(oid), branchRef: `refs/heads/${branch}` };
    }
    return null;
  };
  for (const branch of guesses) {
    const guess = await locate(branch);
    if (!guess) continue;
    const { policy } = await readPolicyAt(store, guess.commit).catch(() => ({ policy: null }));
    if (!policy || policy.baseBranch === branch) return guess;
    return (await locate(policy.baseBranch)) ?? guess;
  }
  return null;
}

/** Opens the repository a command names (`--repo`, else the working directory): a work tree,
 * a .git directory or a bare repository. One that cannot be opened (none there, SHA-256,
 * reftable) is a setup error: exit 2, nothing was checked. */
export async function openRepository(dir: string, env: NodeJS.ProcessEnv): Promise<ObjectStore> {
  try {
    return await ObjectStore.discover(dir, env);
  } catch (err) {
    throw new UsageError(err instanceof Error ? err.message : String(err));
  }
}
