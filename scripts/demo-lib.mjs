// What both demos (scripts/demo.mjs, scripts/demo-monorepo.mjs) share: the built CLI, a
// throwaway folder with a clean git environment, and a runner that prints a command and what
// it answered. Needs only git, Node.js and the built dist/cli.js (./install.sh builds it).
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const root = join(dirname(fileURLToPath(import.meta.url)), '..');
export const cli = join(root, 'dist', 'cli.js');

/** A demo's folder (`prefix` names it), its clean environment on the injected date `now`, and
 * `run`/`git`/`step` working in `work` (a folder below it). Exits 2 when the CLI is not built. */
export function demoSetup({ prefix, now, work: workName = 'work' }) {
  if (!existsSync(cli)) {
    console.error('demo: dist/cli.js is missing; run ./install.sh first');
    process.exit(2);
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const work = join(dir, workName);
  const env = {
    PATH: process.env.PATH,
    HOME: dir,
    LANG: 'C.UTF-8',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Demo',
    GIT_AUTHOR_EMAIL: 'demo@example.com',
    GIT_COMMITTER_NAME: 'Demo',
    GIT_COMMITTER_EMAIL: 'demo@example.com',
    RECEIPT_GATE_NOW: now,
  };
  const bold = (s) => (process.stdout.isTTY ? `\x1b[1m${s}\x1b[0m` : s);
  const step = (title) => console.log(`\n${bold(`== ${title}`)}`);
  const run = (cmd, args, opts = {}) => {
    const r = spawnSync(cmd, args, { cwd: opts.cwd ?? work, env: { ...env, ...(opts.env ?? {}) }, encoding: 'utf8' });
    if (opts.show) {
      console.log(`$ ${opts.label ?? [cmd, ...args].join(' ')}`);
      process.stdout.write(r.stdout.replace(/^/gm, '  ').replace(/  $/, ''));
      process.stdout.write(r.stderr.replace(/^/gm, '  ').replace(/  $/, ''));
      console.log(`  (exit ${r.status})`);
    } else if (r.status !== 0 && !opts.mayFail) {
      throw new Error(`${cmd} ${args.join(' ')} failed:\n${r.stdout}${r.stderr}`);
    }
    return r;
  };
  const git = (...args) => run('git', args);
  return { dir, work, env, bold, step, run, git };
}

/** Removes the demo's folder (unless --keep), says how it went and exits 1 when it did not go
 * as shown. */
export function finishDemo({ dir, keep, started, failed }) {
  if (keep) console.log(`\nkept: ${dir}`);
  else rmSync(dir, { recursive: true, force: true });
  console.log(`\n${failed ? 'demo: something did not go as shown above' : 'demo: done'} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(failed ? 1 : 0);
}
