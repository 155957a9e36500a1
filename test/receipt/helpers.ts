// The worked example's repository for the receipt tests (repositories and git itself:
// test/helpers/git.ts), and a capturing CliIO to drive the CLI in-process (the grader's commands still run as real
// processes in a tree written from git objects).

import { cpSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { main } from '../../src/cli';
import { bufferedIO } from '../../src/io';
import { commitAll, GIT_ENV, initRepo, tempDir, writeFiles } from '../helpers/git';

export const ROOT = resolve(__dirname, '../..');
export const EXAMPLE = join(ROOT, 'examples', 'allocation');

/** A repository whose `main` holds the worked example of examples/allocation. */
export function exampleRepo(): { repo: string; base: string } {
  const repo = tempDir('example');
  cpSync(EXAMPLE, repo, { recursive: true });
  initRepo({ dir: repo });
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
    env: { ...process.env, ...GIT_ENV, GIT_AUTHOR_DATE: '2026-11-20T12:00:00Z', GIT_COMMITTER_DATE: '2026-11-20T12:00:00Z', NODE_PATH: join(ROOT, 'node_modules'), PROPERTY_SEED: '', PROPERTY_TRIALS: '', RECEIPT_GATE_NOW: TEST_TODAY, ...env },
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
