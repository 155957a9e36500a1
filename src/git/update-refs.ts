// Creating many refs in one ref transaction, by git itself (`git update-ref --stdin`): the
// proc-receive hook's batch (src/pushlog/batch.ts). git takes every ref's lock, checks that
// none exists yet (`create`), that each new value is an object it has and that a branch points
// at a commit, runs the reference-transaction hook once for `prepared` and once for
// `committed`, and applies all or none.

import { spawnSync } from 'node:child_process';

export interface RefCreation {
  ref: string;
  new: string;
}

export type CreateOutcome = { ok: true; stderr: string } | { ok: false; error: string; stderr: string };

/**
 * Creates `refs` in one transaction of the repository at `gitdir`, with `message` for the
 * reflog. `env` is the environment git runs with (receive-pack's, plus what the caller adds for
 * the reference-transaction hook). `error` is git's first line of complaint; `stderr` all git and
 * its hooks wrote there (the caller passes it on to the pusher).
 */
export function createRefsAtomically(gitdir: string, env: NodeJS.ProcessEnv, refs: readonly RefCreation[], message: string): CreateOutcome {
  const input = refs.map((r) => `create ${r.ref} ${r.new}\n`).join('');
  const run = spawnSync('git', ['--git-dir', gitdir, 'update-ref', '-m', message, '--stdin'], {
    env,
    // Ref names are held one character per byte (as receive-pack sent them).
    input: Buffer.from(input, 'latin1'),
    encoding: 'utf8',
    stdio: ['pipe', 'ignore', 'pipe'],
    // git's and its hooks' messages for every ref of a large push: never cut short (a cut
    // would kill git after its transaction may have committed).
    maxBuffer: 256 << 20,
  });
  const stderr = run.stderr ?? '';
  if (run.error) return { ok: false, error: `git update-ref could not run: ${run.error.message}`, stderr };
  if (run.status === 0) return { ok: true, stderr };
  const first = stderr.split('\n').find((l) => l.trim() !== '') ?? `git update-ref exited with status ${run.status ?? run.signal}`;
  return { ok: false, error: first.replace(/^fatal: /, '').slice(0, 300), stderr };
}
