// Real git repositories for the receipt tests, built with the git CLI in temp dirs, and a
// capturing CliIO to drive the CLI in-process (the grader's commands still run as real
// processes in a tree written from git objects).

import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { writeFiles } from '../helpers/repo';
import { join, resolve } from 'node:path';
import { main } from '../../src/cli';
import { bufferedIO } from '../../src/io';

export const ROOT = resolve(__dirname, '../..');
export const EXAMPLE = join(ROOT, 'examples', 'allocation');

const GIT_ENV = {
  GIT_AUTHOR_NAME: 'Receipt Test',
  GIT_AUTHOR_EMAIL: 'receipt@example.com',
  GIT_COMMITTER_NAME: 'Receipt Test',
  GIT_COMMITTER_EMAIL: 'receipt@example.com',
  GIT_AUTHOR_DATE: '2026-11-20T12:00:00Z',
  GIT_COMMITTER_DATE: '2026-11-20T12:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

export function tempDir(prefix = 'rg-receipt-'): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function git(cwd: string, args: string[], input?: string | Buffer): string {
  return execFileSync('git', args, {
    cwd,
    input,
    env: { ...process.env, ...GIT_ENV },
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  }).toString('utf8');
}

export function commitAll(repo: string, message: string): string {
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '--allow-empty', '-m', message]);
  return git(repo, ['rev-parse', 'HEAD']).trim();
}

/** A repository whose `main` holds the worked example of examples/allocation. */
export function exampleRepo(): { repo: string; base: string } {
  const repo = tempDir('rg-example-');
  cpSync(EXAMPLE, repo, { recursive: true });
  git(repo, ['init', '-q', '-b', 'main']);
  git(repo, ['config', 'core.autocrlf', 'false']);
  const base = commitAll(repo, 'allocation example');
  return { repo, base };
}

export interface Captured {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `receipt-gate ARGS` in-process with `cwd` and env (NODE_PATH lets the example's
 * property file find fast-check from this repository's install). */
export async function cli(cwd: string, args: string[], env: NodeJS.ProcessEnv = {}, stdin = ''): Promise<Captured> {
  const buffered = bufferedIO({
    env: { ...process.env, ...GIT_ENV, NODE_PATH: join(ROOT, 'node_modules'), PROPERTY_SEED: '', PROPERTY_TRIALS: '', RECEIPT_GATE_NOW: TEST_TODAY, ...env },
    cwd,
    stdin,
  });
  const code = await main(args, buffered.io);
  return { code, stdout: buffered.stdout(), stderr: buffered.stderr() };
}

/** The tests' clock: every run is judged on this date, whatever the system clock says. */
export const TEST_TODAY = '2026-11-29';

export const GRADER = ['--properties-cmd', 'node properties/allocate.properties.js', '--fixture-cmd', 'node src/allocate-cli.js'];

export { writeFiles };
