// Temporary repositories and the git CLI, for every test: one environment (nothing of the
// caller's identity, configuration or locale leaks in), one way to run git, one kind of
// temporary folder. Suites with a harness of their own (test/server/helpers.ts for the
// installed hook, test/git/helpers.ts for raw objects) build on this module.

import { execFileSync, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** The environment git runs in: a fixed identity, no system or global configuration, the C
 * locale, no prompts. Commit dates are added by `git()` (see there). */
export const GIT_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  LANG: 'C',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.com',
  GIT_TERMINAL_PROMPT: '0',
};

export interface GitOptions {
  /** Standard input. */
  input?: string | Buffer;
  /** Variables over GIT_ENV (dates given here win over the clock's). */
  env?: NodeJS.ProcessEnv;
}

let clock = Date.parse('2026-01-01T00:00:00Z') / 1000;

function envOf(opts: GitOptions): NodeJS.ProcessEnv {
  // Each call gets a later, fixed date: commits are reproducible and ordered as they were made.
  clock += 60;
  const date = `${clock} +0000`;
  return { ...GIT_ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date, ...opts.env };
}

/** Runs git; its standard output exactly (throws with git's stderr when it fails). */
export function git(cwd: string, args: string[], opts: GitOptions = {}): string {
  return gitBuf(cwd, args, opts).toString('utf8');
}

/** git's standard output without the white space around it: one value (an oid, a ref, a count). */
export function gitValue(cwd: string, args: string[], opts: GitOptions = {}): string {
  return git(cwd, args, opts).trim();
}

/** Runs git; its standard output as bytes. */
export function gitBuf(cwd: string, args: string[], opts: GitOptions = {}): Buffer {
  return execFileSync('git', args, { cwd, input: opts.input, env: envOf(opts), stdio: ['pipe', 'pipe', 'pipe'], maxBuffer: 1024 * 1024 * 1024 });
}

/** Runs git without throwing: status, stdout and stderr as text. */
export function gitResult(cwd: string, args: string[], opts: GitOptions = {}): SpawnSyncReturns<string> {
  return spawnSync('git', args, { cwd, input: opts.input, env: envOf(opts), encoding: 'utf8', timeout: 60_000, maxBuffer: 1024 * 1024 * 1024 });
}

const made: string[] = [];

/** A new empty folder under the system's temporary folder, named rg-<label>-…; removed by
 * `cleanupTempDirs`. */
export function tempDir(label = 'test'): string {
  const dir = mkdtempSync(join(tmpdir(), `rg-${label}-`));
  made.push(dir);
  return dir;
}

/** Removes every folder `tempDir` made so far. */
export function cleanupTempDirs(): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A new repository on branch main (bare, or with a work tree and core.autocrlf off). */
export function initRepo(opts: { dir?: string; bare?: boolean } = {}): string {
  const dir = opts.dir ?? tempDir();
  git(dir, ['init', '-q', '-b', 'main', ...(opts.bare ? ['--bare'] : [])]);
  if (!opts.bare) git(dir, ['config', 'core.autocrlf', 'false']);
  return dir;
}

export function writeFiles(repo: string, files: Record<string, string | Buffer>): void {
  for (const [path, content] of Object.entries(files)) {
    const full = join(repo, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, content);
  }
}

export function removeFiles(repo: string, paths: string[]): void {
  for (const p of paths) rmSync(join(repo, p), { recursive: true, force: true });
}

/** Stages everything and commits (an empty commit when nothing changed); the commit's oid. */
export function commitAll(repo: string, message: string, opts: Pick<GitOptions, 'env'> = {}): string {
  git(repo, ['add', '-A'], opts);
  git(repo, ['commit', '-q', '--allow-empty', '-m', message], opts);
  return gitValue(repo, ['rev-parse', 'HEAD'], opts);
}
