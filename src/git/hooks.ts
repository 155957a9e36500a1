// Where git finds a repository's hooks, and what its HEAD names: read as git reads them, for
// the proc-receive hook's question of whether a batch of new refs is what receive-pack would
// apply (src/pushlog/batch.ts).

import { accessSync, constants, readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { gitConfigEntries, lastValue, type ConfigEntry } from './config';

/** Where git looks for this repository's hooks: core.hooksPath (relative to the repository,
 * a leading `~/` from HOME), else hooks/. `config`: the entries git reads, when already read. */
export function hooksDirOf(gitdir: string, env: NodeJS.ProcessEnv, config: readonly ConfigEntry[] = gitConfigEntries(gitdir, env)): string {
  const value = lastValue(config, 'core.hookspath') ?? '';
  if (value === '') return resolve(gitdir, 'hooks');
  if (value.startsWith('~/') && env.HOME) return resolve(env.HOME, value.slice(2));
  return resolve(gitdir, value);
}

/** Whether git would run the hook `name` of that folder (an executable file there). */
export function hookPresent(hooksDir: string, name: string): boolean {
  try {
    accessSync(resolve(hooksDir, name), constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The text of the hook file `name` (null: none, or unreadable). */
export function hookText(hooksDir: string, name: string): string | null {
  try {
    return readFileSync(resolve(hooksDir, name), 'utf8');
  } catch {
    return null;
  }
}

/** The ref HEAD names (`ref: refs/heads/main`), or null for a detached or unreadable HEAD. */
export function headSymrefTarget(gitdir: string): string | null {
  try {
    const m = /^ref:\s*(\S+)\s*$/.exec(readFileSync(resolve(gitdir, 'HEAD'), 'utf8'));
    return m ? m[1]! : null;
  } catch {
    return null;
  }
}

/** True when the repository has linked worktrees (`$GIT_DIR/worktrees/` holds any): a branch
 * one of them has checked out is not the one HEAD names. */
export function hasLinkedWorktrees(gitdir: string): boolean {
  try {
    return readdirSync(resolve(gitdir, 'worktrees')).length > 0;
  } catch {
    return false;
  }
}
