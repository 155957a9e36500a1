// ci/github/receipt-gate-frozen.yml in a project without package.json: examples/python (pytest,
// one frozen test) runs the workflow's `run:` steps as the runner does. With RG_COMMAND (a
// receipt-gate command line the project provides) and with RG_VERSION set to the release tarball,
// the frozen test runs by its id under pytest and the expiring freeze is reported (exit 3).
// With neither, the release RG_RELEASE records (OWNER/NAME@TAG) is fetched outside the project
// and its dist/cli.js runs, as the Action runs its own release (here a release tag in a local
// repository, RG_RELEASE_SERVER a file:// URL); with RG_RELEASE still the shipped placeholder,
// the install step stops with exit 2 naming what to set (never npm's ENOENT or 127).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { packedTarball } from '../client/harness';
import { cleanupTempDirs, tempDir } from '../helpers/git';

const ROOT = resolve(__dirname, '../..');
const CLI = join(ROOT, 'dist', 'cli.js');

interface Step {
  name?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
}

/** examples/python as a fresh repository: no package.json, no lock file. */
function pythonProject(dir: string, env: NodeJS.ProcessEnv): string {
  const work = join(dir, 'work');
  cpSync(join(ROOT, 'examples', 'python'), work, { recursive: true, filter: (src) => !/__pycache__|\.pytest_cache/.test(src) });
  for (const args of [['init', '-q', '-b', 'main'], ['add', '-A'], ['commit', '-qm', 'allocation']]) {
    const r = spawnSync('git', args, { cwd: work, env, encoding: 'utf8' });
    assert.is(r.status, 0, r.stderr);
  }
  assert.not.ok(existsSync(join(work, 'package.json')));
  return work;
}

/** Runs the workflow's `run:` steps in order with the runner's environment and `set` (the
 * project's own settings of the step variables); stops after the first failing step. */
function runWorkflow(work: string, dir: string, set: Record<string, string>) {
  const workflow = parse(readFileSync(join(ROOT, 'ci', 'github', 'receipt-gate-frozen.yml'), 'utf8')) as { jobs: { frozen: { steps: Step[] } } };
  const githubEnv = join(dir, `github-env-${Date.now()}`);
  const runnerTemp = tempDir('runner-temp');
  const carried = (): Record<string, string> =>
    existsSync(githubEnv) ? Object.fromEntries(readFileSync(githubEnv, 'utf8').split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])) : {};
  const statuses: number[] = [];
  let log = '';
  for (const step of workflow.jobs.frozen.steps) {
    if (step.uses) continue;
    const env = { ...(step.env ?? {}), ...Object.fromEntries(Object.entries(set).filter(([k]) => step.env && k in step.env)) };
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
      cwd: work,
      env: {
        PATH: `/usr/bin:${process.env.PATH}`,
        HOME: dir,
        LANG: 'C.UTF-8',
        GIT_CONFIG_NOSYSTEM: '1',
        GIT_CONFIG_GLOBAL: '/dev/null',
        PYTHONDONTWRITEBYTECODE: '1',
        CI: 'true',
        GITHUB_ACTIONS: 'true',
        GITHUB_EVENT_NAME: 'schedule',
        GITHUB_ENV: githubEnv,
        RUNNER_TEMP: runnerTemp,
        RECEIPT_GATE_NOW: '2026-09-18',
        npm_config_update_notifier: 'false',
        npm_config_cache: join(dir, '.npm'),
        ...carried(),
        ...env,
      },
      encoding: 'utf8',
    });
    statuses.push(r.status ?? -1);
    log += r.stdout + r.stderr;
    if (r.status !== 0) break;
  }
  return { statuses, log, carried: carried(), runnerTemp };
}

function gitEnv(dir: string): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 'Alice', GIT_AUTHOR_EMAIL: 'alice@example.com', GIT_COMMITTER_NAME: 'Alice', GIT_COMMITTER_EMAIL: 'alice@example.com' };
}

function assertFrozenRun(log: string, statuses: number[]): void {
  // The freeze expires on 2026-09-20, within the 7-day window: exit 3, someone reviews it.
  assert.equal(statuses, [0, 3], log);
  assert.match(log, /receipt-gate freeze review on 2026-09-18: 1 freeze/);
  assert.match(log, /tests\/test_allocate\.py::test_concurrent_realloc .*passed 5 consecutive runs/);
}

test('frozen workflow without package.json: RG_COMMAND runs the given receipt-gate; the frozen pytest test runs by its id', () => {
  const dir = tempDir('frozen-py');
  try {
    const work = pythonProject(dir, gitEnv(dir));
    const { statuses, log } = runWorkflow(work, dir, { RG_COMMAND: `node ${CLI}`, RG_FROZEN_TESTS: 'python3 -m pytest -q' });
    assert.match(log, /receipt-gate: \d+\.\d+\.\d+\S* from RG_COMMAND \(node /);
    assertFrozenRun(log, statuses);
    assert.not.ok(existsSync(join(work, 'node_modules')));
    assert.not.ok(existsSync(join(work, 'package.json')));
  } finally {
    cleanupTempDirs();
  }
});

test('frozen workflow without package.json: RG_VERSION names the release tarball, installed outside the project', () => {
  const { tarball } = packedTarball();
  const dir = tempDir('frozen-py-release');
  try {
    const work = pythonProject(dir, gitEnv(dir));
    const { statuses, log, carried, runnerTemp } = runWorkflow(work, dir, { RG_VERSION: tarball, RG_FROZEN_TESTS: 'python3 -m pytest -q' });
    assert.match(log, /receipt-gate: \d+\.\d+\.\d+\S* from RG_VERSION, installed in /);
    assert.ok(carried.RG_CLI!.startsWith(runnerTemp), carried.RG_CLI);
    assertFrozenRun(log, statuses);
    assert.not.ok(existsSync(join(work, 'node_modules')));
  } finally {
    cleanupTempDirs();
  }
});

test('frozen workflow: an RG_COMMAND that does not run stops the install step with exit 2', () => {
  const dir = tempDir('frozen-py-bad');
  try {
    const work = pythonProject(dir, gitEnv(dir));
    const { statuses, log } = runWorkflow(work, dir, { RG_COMMAND: 'no-such-receipt-gate', RG_FROZEN_TESTS: 'python3 -m pytest -q' });
    assert.equal(statuses, [2], log);
    assert.match(log, /RG_COMMAND \(no-such-receipt-gate\) does not run/);
  } finally {
    cleanupTempDirs();
  }
});

test('frozen workflow without package.json and RG_RELEASE left as shipped: exit 2 naming RG_RELEASE, RG_VERSION and RG_COMMAND', () => {
  const dir = tempDir('frozen-py-none');
  try {
    const work = pythonProject(dir, gitEnv(dir));
    const { statuses, log } = runWorkflow(work, dir, {});
    assert.equal(statuses, [2], log);
    assert.match(log, /names no receipt-gate in package-lock\.json or package\.json, and RG_RELEASE is 'OWNER\/receipt-gate@vX': set RG_RELEASE to the receipt-gate release this file comes from \(OWNER\/NAME@TAG, as your Action's uses: line names it\), or RG_VERSION to the release tarball's URL \(or a version\), or RG_COMMAND/);
    assert.not.match(log, /ENOENT|command not found/);
  } finally {
    cleanupTempDirs();
  }
});

/** A receipt-gate repository at `server`/acme/receipt-gate.git with a release tag v9.9.9 whose
 * tree holds the built dist/cli.js (as scripts/release-action.sh tags it), and a branch `main`
 * without it. */
function releaseRepository(dir: string): string {
  const env = gitEnv(dir);
  const src = join(dir, 'release-src');
  const server = join(dir, 'server');
  const steps: [string, string[]][] = [
    [dir, ['init', '-q', '-b', 'main', src]],
    [src, ['commit', '-q', '--allow-empty', '-m', 'receipt-gate sources']],
    [src, ['add', 'dist/cli.js']],
    [src, ['commit', '-q', '-m', 'Release v9.9.9: the GitHub Action with its prebuilt dist/cli.js']],
    [src, ['tag', 'v9.9.9']],
    [src, ['reset', '-q', '--hard', 'HEAD~1']],
    [dir, ['clone', '-q', '--bare', src, join(server, 'acme', 'receipt-gate.git')]],
  ];
  for (const [cwd, args] of steps) {
    if (args[0] === 'add') {
      mkdirSync(join(src, 'dist'), { recursive: true });
      cpSync(CLI, join(src, 'dist', 'cli.js'));
    }
    const r = spawnSync('git', args, { cwd, env, encoding: 'utf8' });
    assert.is(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  }
  return `file://${server}`;
}

test('frozen workflow without package.json and nothing else set: the release RG_RELEASE records runs, fetched outside the project', () => {
  const dir = tempDir('frozen-py-rg-release');
  try {
    const server = releaseRepository(dir);
    const work = pythonProject(dir, gitEnv(dir));
    const { statuses, log, carried, runnerTemp } = runWorkflow(work, dir, { RG_RELEASE: 'acme/receipt-gate@v9.9.9', RG_RELEASE_SERVER: server, RG_FROZEN_TESTS: 'python3 -m pytest -q' });
    const version = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version as string;
    assert.ok(log.includes(`receipt-gate: ${version} from RG_RELEASE (acme/receipt-gate@v9.9.9), fetched into ${runnerTemp}/`), log);
    assert.ok(carried.RG_CLI!.startsWith(runnerTemp), carried.RG_CLI);
    assertFrozenRun(log, statuses);
    assert.not.ok(existsSync(join(work, 'node_modules')));
    assert.not.ok(existsSync(join(work, 'release')));
  } finally {
    cleanupTempDirs();
  }
});

test('frozen workflow: an RG_RELEASE that names a branch (no dist/cli.js) or no tag stops with exit 2', () => {
  const dir = tempDir('frozen-py-rg-branch');
  try {
    const server = releaseRepository(dir);
    const work = pythonProject(dir, gitEnv(dir));
    const branch = runWorkflow(work, dir, { RG_RELEASE: 'acme/receipt-gate@main', RG_RELEASE_SERVER: server });
    assert.equal(branch.statuses, [2], branch.log);
    assert.match(branch.log, /RG_RELEASE acme\/receipt-gate@main has no dist\/cli\.js: name a release tag/);
    const missing = runWorkflow(work, dir, { RG_RELEASE: 'acme/receipt-gate@v0.0.0-none', RG_RELEASE_SERVER: server });
    assert.equal(missing.statuses, [2], missing.log);
    assert.match(missing.log, /cannot fetch RG_RELEASE acme\/receipt-gate@v0\.0\.0-none from file:/);
  } finally {
    cleanupTempDirs();
  }
});

test.run();
