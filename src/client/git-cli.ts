// The few questions the client asks the `git` program rather than the object store: where the
// working tree and its git directory are (worktrees, $GIT_DIR and friends are git's to
// resolve), and configuration values such as user.email. The client hooks run under git, so
// git is always there; the server and the engine never call it.

import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { UsageError } from '../io';

export interface GitRun {
  status: number;
  stdout: string;
  stderr: string;
}

export function runGit(args: string[], cwd: string, env: NodeJS.ProcessEnv): GitRun {
  const run = spawnSync('git', args, { cwd, env, encoding: 'utf8', maxBuffer: 16 * 1024 * 1024 });
  if (run.error) {
    throw new UsageError(`could not run 'git ${args.join(' ')}': ${run.error.message} (is git installed and on PATH?)`);
  }
  return { status: run.status ?? 1, stdout: run.stdout, stderr: run.stderr };
}

/** A configuration value, or null when it is unset or set to the empty string. */
export function gitConfig(key: string, cwd: string, env: NodeJS.ProcessEnv): string | null {
  const run = runGit(['config', '--get', key], cwd, env);
  if (run.status !== 0) return null;
  const value = run.stdout.replace(/\n$/, '');
  return value === '' ? null : value;
}

export interface Worktree {
  /** Top level of the working tree. */
  top: string;
  /** This working tree's git directory (where its index and HEAD live). */
  gitdir: string;
}

/** The working tree around `cwd`, or a usage error that says how to get one. */
export function locateWorktree(cwd: string, env: NodeJS.ProcessEnv): Worktree {
  const run = runGit(['rev-parse', '--show-toplevel', '--absolute-git-dir'], cwd, env);
  const [top, gitdir] = run.stdout.split('\n');
  if (run.status !== 0 || !top || !gitdir) {
    const why = run.stderr.trim().split('\n')[0] || 'not inside a working tree';
    throw new UsageError(`${cwd} is not inside a git working tree (${why}); run this in a clone of the guarded repository`);
  }
  return { top: resolve(top), gitdir: resolve(gitdir) };
}

/** The identity the client hooks act as: `git config user.email`. Advisory only: anyone can
 * set it, so the server never uses it; it lets an owner's commit pass locally as it will on the
 * server, where the pusher's login decides. */
export function clientIdentity(cwd: string, env: NodeJS.ProcessEnv, given?: string): string | null {
  if (given !== undefined) return given === '' ? null : given;
  return gitConfig('user.email', cwd, env);
}
