// What a pre-push run is asked to judge: the remote and one line per ref the push updates.
//
// git gives them as arguments (REMOTE URL) and standard input lines
// `<local ref> <local oid> <remote ref> <remote oid>`. Hook managers do not all pass them on:
//
//   - the pre-commit framework reads git's stdin itself and passes nothing; it exports
//     PRE_COMMIT_FROM_REF / PRE_COMMIT_TO_REF (what the remote has, or the parent of the first
//     commit it lacks / what is pushed) and PRE_COMMIT_REMOTE_NAME, _URL, _BRANCH and
//     PRE_COMMIT_LOCAL_BRANCH (the refs of git's line);
//   - husky 4 reads stdin into HUSKY_GIT_STDIN and the arguments into HUSKY_GIT_PARAMS;
//   - lefthook passes stdin only with `use_stdin: true`.
//
// An empty stdin is also what git itself sends when everything is up to date. So with no line
// from any of these, the push is taken to be HEAD's branch to the remote's branch of the same
// name (its upstream when that is on the same remote), said so on stderr; and when not even
// that can be known (detached HEAD, no remote), the run stops with exit 2. Never a silent pass.

import { ZERO_OID, isOid } from '../types';
import { UsageError } from '../io';
import { gitConfig, runGit } from './git-cli';

export interface PushLine {
  localRef: string;
  localOid: string;
  remoteRef: string;
  remoteOid: string;
}

export interface PushInput {
  /** The remote's name (or URL) as git passed it. */
  remote: string;
  lines: PushLine[];
  /** How the lines were found, when not from git's own standard input: one sentence for
   * stderr, so a reconstructed push is never judged without saying so. */
  notice: string | null;
}

/** Parses git's pre-push input. Any malformed line is a usage error (the push is refused). */
export function parsePushLines(text: string): PushLine[] {
  const lines: PushLine[] = [];
  text.split('\n').forEach((raw, i) => {
    const line = raw.replace(/\r$/, '');
    if (line.trim() === '') return;
    const parts = line.split(' ');
    const [localRef, localOid, remoteRef, remoteOid] = parts;
    if (parts.length !== 4 || !localRef || !remoteRef || !isOid(localOid ?? '') || !isOid(remoteOid ?? '')) {
      throw new UsageError(
        `pre-push input line ${i + 1} is not '<local ref> <local oid> <remote ref> <remote oid>': ${JSON.stringify(line.slice(0, 200))}`,
      );
    }
    lines.push({ localRef, localOid: localOid!, remoteRef, remoteOid: remoteOid! });
  });
  return lines;
}

const NO_INPUT_FIX =
  "run it as git's pre-push hook with git's standard input (lefthook: 'use_stdin: true'), or name the push with PRE_COMMIT_REMOTE_BRANCH and PRE_COMMIT_TO_REF";

/**
 * The push to judge, from the first of: git's stdin lines, HUSKY_GIT_STDIN, the pre-commit
 * framework's PRE_COMMIT_* variables, HEAD's branch. `top` is the working tree (for git).
 */
export function readPushInput(opts: { positionals: string[]; stdin: string; env: NodeJS.ProcessEnv; top: string }): PushInput {
  const { env, top } = opts;
  const given = opts.positionals.length > 0 ? opts.positionals : splitParams(env.HUSKY_GIT_PARAMS);
  const remoteName = given[0] ?? nonEmpty(env.PRE_COMMIT_REMOTE_NAME);

  const fromStdin = parsePushLines(opts.stdin);
  if (fromStdin.length > 0) return { remote: remoteName ?? requireRemote(top, env), lines: fromStdin, notice: null };
  const husky = parsePushLines(env.HUSKY_GIT_STDIN ?? '');
  if (husky.length > 0) return { remote: remoteName ?? requireRemote(top, env), lines: husky, notice: null };

  const remoteRef = nonEmpty(env.PRE_COMMIT_REMOTE_BRANCH);
  const toRef = nonEmpty(env.PRE_COMMIT_TO_REF) ?? nonEmpty(env.PRE_COMMIT_LOCAL_BRANCH);
  if (remoteRef !== null || toRef !== null) {
    if (remoteRef === null || toRef === null) {
      throw new UsageError(
        `pre-push got no ref lines on standard input and only part of the pre-commit framework's variables (${remoteRef === null ? 'PRE_COMMIT_REMOTE_BRANCH' : 'PRE_COMMIT_TO_REF and PRE_COMMIT_LOCAL_BRANCH'} unset): nothing was checked; ${NO_INPUT_FIX}`,
      );
    }
    const remote = remoteName ?? requireRemote(top, env);
    const localOid = commitOid(toRef, top, env, 'PRE_COMMIT_TO_REF');
    const fromRef = nonEmpty(env.PRE_COMMIT_FROM_REF);
    // PRE_COMMIT_FROM_REF is the remote's tip when the remote has the branch, else the parent
    // of the first commit it lacks; the remote-tracking ref tells the two apart.
    const tracking = trackingOid(remote, remoteRef, top, env);
    const remoteOid = fromRef !== null && tracking !== null ? commitOid(fromRef, top, env, 'PRE_COMMIT_FROM_REF') : (tracking ?? ZERO_OID);
    const localRef = nonEmpty(env.PRE_COMMIT_LOCAL_BRANCH) ?? toRef;
    return {
      remote,
      lines: [{ localRef, localOid, remoteRef: fullBranchRef(remoteRef), remoteOid }],
      notice: `pre-push: no ref lines on standard input; judging ${localRef} (${localOid.slice(0, 7)}) to ${remoteRef} on ${remote}, from the pre-commit framework's PRE_COMMIT_* variables`,
    };
  }

  // Nothing passed on: HEAD's branch, pushed to the remote's branch it tracks or of its name.
  const head = runGit(['symbolic-ref', '--quiet', 'HEAD'], top, env);
  const branchRef = head.status === 0 ? head.stdout.trim() : '';
  if (!branchRef.startsWith('refs/heads/')) {
    throw new UsageError(`pre-push got no ref lines on standard input, no PRE_COMMIT_* variables, and HEAD is not on a branch: nothing to judge, nothing was checked; ${NO_INPUT_FIX}`);
  }
  const branch = branchRef.slice('refs/heads/'.length);
  const remote = remoteName ?? gitConfig(`branch.${branch}.remote`, top, env) ?? requireRemote(top, env);
  const headOid = commitOid('HEAD', top, env, 'HEAD');
  const upstreamRemote = gitConfig(`branch.${branch}.remote`, top, env);
  const merge = gitConfig(`branch.${branch}.merge`, top, env);
  const remoteRefName = upstreamRemote === remote && merge !== null && merge.startsWith('refs/heads/') ? merge : branchRef;
  const remoteOid = trackingOid(remote, remoteRefName, top, env) ?? ZERO_OID;
  return {
    remote,
    lines: [{ localRef: branchRef, localOid: headOid, remoteRef: remoteRefName, remoteOid }],
    notice: `pre-push: no ref lines on standard input (git sends none when everything is up to date; some hook managers do not pass them on); judging HEAD's branch ${branch} (${headOid.slice(0, 7)}) as the push to ${remoteRefName.slice('refs/heads/'.length)} on ${remote}`,
  };
}

function nonEmpty(value: string | undefined): string | null {
  return value === undefined || value.trim() === '' ? null : value.trim();
}

function splitParams(params: string | undefined): string[] {
  return nonEmpty(params)?.split(/\s+/) ?? [];
}

/** The remote when none was named: origin, when the clone has one. */
function requireRemote(top: string, env: NodeJS.ProcessEnv): string {
  if (gitConfig('remote.origin.url', top, env) !== null) return 'origin';
  throw new UsageError(`pre-push was given no REMOTE (git passes 'REMOTE URL') and this clone has no remote 'origin': nothing was checked; ${NO_INPUT_FIX}`);
}

function fullBranchRef(name: string): string {
  return name.startsWith('refs/') ? name : `refs/heads/${name}`;
}

/** The commit a name or oid stands for, or a usage error naming where the name came from. */
function commitOid(name: string, top: string, env: NodeJS.ProcessEnv, from: string): string {
  const run = runGit(['rev-parse', '--verify', '--quiet', '--end-of-options', `${name}^{commit}`], top, env);
  const oid = run.stdout.trim();
  if (run.status !== 0 || !isOid(oid)) {
    throw new UsageError(`pre-push: ${from} is ${JSON.stringify(name)}, which names no commit in this clone: nothing was checked; fetch it or name a commit`);
  }
  return oid;
}

/** What this clone last saw of `ref` on `remote` (refs/remotes/<remote>/<branch>), or null. */
function trackingOid(remote: string, ref: string, top: string, env: NodeJS.ProcessEnv): string | null {
  const branch = fullBranchRef(ref).replace(/^refs\/heads\//, '');
  if (branch.startsWith('refs/')) return null;
  const run = runGit(['rev-parse', '--verify', '--quiet', `refs/remotes/${remote}/${branch}^{commit}`], top, env);
  const oid = run.stdout.trim();
  return run.status === 0 && isOid(oid) ? oid : null;
}
