// The GitLab template as shipped, run by gitlab-ci-local (shell executor; test/ci-services.sh
// installs the pinned version) in throwaway projects that depend on receipt-gate through its
// packed tarball, from a fresh clone with no node_modules, as a runner has it. The project's
// .gitlab-ci.yml only includes ci/gitlab/receipt-gate.yml; nothing is installed by hand.
// Every outcome leaves a non-empty SARIF log valid against the 2.1.0 schema and a JUnit file
// python's XML parser reads.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { packedTarball } from '../client/harness';
import { EPOCH_ID, sha256, validEvidence } from '../helpers/repo';
import { pythonJunit, validSarif } from '../helpers/reports';
import { GIT_ENV, tempDir } from '../helpers/git';

const ROOT = resolve(__dirname, '../..');
const NOW = '2026-11-29';

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv = {}) {
  const r = spawnSync(cmd, args, { cwd, encoding: 'utf8', env: { ...process.env, ...GIT_ENV, npm_config_update_notifier: 'false', ...env } });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
}

function must(cmd: string, args: string[], cwd: string): string {
  const r = run(cmd, args, cwd);
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed in ${cwd}: ${r.out}`);
  return r.out;
}

function write(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
}

const gitlabCiLocal = (() => {
  const r = spawnSync('gitlab-ci-local', ['--version'], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error('gitlab-ci-local is not installed: run test/ci-services.sh (it installs the pinned version)');
  return r.stdout.trim();
})();

interface Project {
  dir: string;
  bare: string;
}

/** A project on main with .gitlab-ci.yml including the template, pushed to a bare origin.
 * `withGate`: receipt-gate is a devDependency (the packed tarball, vendored) with a lock file. */
function project(files: Record<string, string>, withGate = true): Project {
  const dir = tempDir('glci');
  const work = join(dir, 'seed');
  mkdirSync(work);
  must('git', ['init', '-q', '-b', 'main'], work);
  const pkg: Record<string, unknown> = { name: 'orders', version: '1.0.0', private: true };
  if (withGate) {
    const { tarball } = packedTarball();
    mkdirSync(join(work, 'vendor'));
    copyFileSync(tarball, join(work, 'vendor', basename(tarball)));
    pkg.devDependencies = { 'receipt-gate': `file:vendor/${basename(tarball)}` };
  }
  write(work, {
    'package.json': `${JSON.stringify(pkg, null, 2)}\n`,
    '.gitignore': 'node_modules/\n.gitlab-ci-local/\nreceipt-gate.sarif\nreceipt-gate.junit.xml\n',
    '.gitlab-ci.yml': 'include:\n  - local: ci/receipt-gate.yml\n',
    'ci/receipt-gate.yml': readFileSync(join(ROOT, 'ci', 'gitlab', 'receipt-gate.yml'), 'utf8'),
    ...files,
  });
  if (withGate) must('npm', ['install', '--package-lock-only', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], work);
  must('git', ['add', '-A'], work);
  must('git', ['commit', '-q', '-m', 'guard the repository'], work);
  const bare = join(dir, 'origin.git');
  must('git', ['clone', '-q', '--bare', work, bare], dir);
  return { dir, bare };
}

/** Commits `files` on `branch` (from main) in a scratch clone and pushes it. */
function pushBranch(p: Project, branch: string, files: Record<string, string>): void {
  const scratch = join(p.dir, `push-${branch.replace(/\W/g, '-')}-${Date.now()}`);
  must('git', ['clone', '-q', p.bare, scratch], p.dir);
  if (branch !== 'main') must('git', ['checkout', '-q', '-b', branch], scratch);
  write(scratch, files);
  must('git', ['add', '-A'], scratch);
  must('git', ['commit', '-q', '-m', `change on ${branch}`], scratch);
  must('git', ['push', '-q', 'origin', branch], scratch);
}

/** A runner's fresh clone of `branch` and gitlab-ci-local's branch pipeline in it. */
function pipeline(p: Project, branch: string) {
  return runJob(p, branch, 'receipt-gate', []);
}

function runJob(p: Project, branch: string, job: string, variables: string[], reports = job === 'receipt-gate') {
  const clone = join(p.dir, `runner-${branch.replace(/\W/g, '-')}-${Date.now()}`);
  must('git', ['clone', '-q', '--branch', branch, p.bare, clone], p.dir);
  assert.not.ok(existsSync(join(clone, 'node_modules')), 'the runner starts without node_modules');
  const r = run(
    'gitlab-ci-local',
    ['--force-shell-executor', '--no-color', '--variable', `RECEIPT_GATE_NOW=${NOW}`, ...variables.flatMap((v) => ['--variable', v]), job],
    clone,
    { HOME: join(p.dir, 'home') },
  );
  const read = (f: string) => (existsSync(join(clone, f)) ? readFileSync(join(clone, f), 'utf8') : '');
  if (!reports) return { ...r, clone, read, sarif: null as never, junit: null as never };
  const sarif = validSarif(read('receipt-gate.sarif'), `${branch}: receipt-gate.sarif`);
  const junit = pythonJunit(read('receipt-gate.junit.xml'));
  return { ...r, clone, read, sarif, junit };
}

function observation(id: string, witness: string): Record<string, string> {
  return {
    [`observations/${id}.json`]: JSON.stringify({ id, epoch_id: EPOCH_ID, status: 'flake', rerun_passed: true, witness_sha256: sha256(witness) }),
    [`observations/${id}.bin`]: witness,
  };
}

test(`gitlab-ci-local ${gitlabCiLocal}: the job installs the base's receipt-gate outside the project, then closed on a fixture branch, eligible on main, hold where a keyed freeze holds`, () => {
  const p = project(validEvidence());
  try {
    pushBranch(p, 'fixture-edit', { 'fixtures/orders/base.json': '{"orders": [9]}\n' });
    const closed = pipeline(p, 'fixture-edit');
    assert.is.not(closed.status, 0, closed.out);
    assert.match(closed.out, /receipt-gate: \d+\.\d+\.\d+\S* from origin\/main:package-lock\.json, installed in \S+ \(outside the project\)/, closed.out);
    assert.not.ok(existsSync(join(closed.clone, 'node_modules')), 'the project was not installed');
    assert.match(closed.out, /receipt-gate: verdict closed \(exit 1\)/, closed.out);
    assert.match(closed.out, /closed PATH_PROTECTED .* fixtures\/orders\/base\.json: /, closed.out);
    assert.ok(
      closed.sarif.runs[0]!.results!.some((r) => r.ruleId === 'PATH_PROTECTED' && r.locations![0]!.physicalLocation!.artifactLocation!.uri === 'fixtures/orders/base.json'),
    );
    assert.ok(closed.junit.failures > 0 && closed.junit.cases.some((c) => c.name === 'PATH_PROTECTED fixtures/orders/base.json' && c.failure !== null), JSON.stringify(closed.junit));

    const eligible = pipeline(p, 'main');
    assert.is(eligible.status, 0, eligible.out);
    assert.match(eligible.out, /receipt-gate: verdict eligible \(exit 0\)/, eligible.out);
    assert.match(eligible.out, /against origin\/main \(/);
    assert.equal(eligible.sarif.runs[0]!.results, []);
    assert.is(eligible.sarif.runs[0]!.invocations![0]!.executionSuccessful, true);
    assert.is(eligible.junit.failures, 0, JSON.stringify(eligible.junit));

    // An owner's commit on main: a flake that re-ran green on the pinned epoch, its witness, and
    // the keyed freeze that cites it (until 2026-12-05).
    pushBranch(p, 'main', {
      ...observation('o3', 'witness bytes'),
      'freezes/f3.json': JSON.stringify({ observation_id: 'o3', epoch_id: EPOCH_ID, expires_on: '2026-12-05', reason: 'socket timeout on CI' }),
    });
    const hold = pipeline(p, 'main');
    assert.is.not(hold.status, 0, hold.out);
    assert.match(hold.out, /receipt-gate: verdict hold \(exit 3\)/, hold.out);
    assert.ok(hold.sarif.runs[0]!.results!.some((r) => r.ruleId === 'FREEZE_HELD'), JSON.stringify(hold.sarif.runs[0]!.results));
    assert.ok(hold.junit.cases.some((c) => c.name.startsWith('FREEZE_HELD') && c.failure !== null), JSON.stringify(hold.junit));
    // The job log carries the three identities: the pin's epoch id, the manifest digest Python
    // computed (test/helpers/repo.ts) and the witness's digest.
    const manifest = JSON.parse(validEvidence()['checks/manifest.json']!).manifest_sha256 as string;
    assert.match(hold.out, new RegExp(`identities: epoch ${EPOCH_ID}, manifest sha256 ${manifest}, 1 witness\\b`), hold.out);
    assert.match(hold.out, new RegExp(`witness o3 sha256 ${sha256('witness bytes')}`), hold.out);
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
});

test(`gitlab-ci-local ${gitlabCiLocal}: nothing checked is exit 2 with a setup message, never a verdict, and reports that say so`, () => {
  // receipt-gate installed, but the default branch has no policy yet.
  const unguarded = project({ 'src/app.js': 'module.exports = 1;\n' });
  try {
    const r = pipeline(unguarded, 'main');
    assert.is.not(r.status, 0, r.out);
    assert.match(r.out, /has no \.receipt-gate\.json: the repository is unguarded and nothing was checked\. Add a policy with 'receipt-gate init'/, r.out);
    assert.match(r.out, /receipt-gate: nothing was checked \(exit 2\)/, r.out);
    assert.not.match(r.out, /verdict (closed|eligible|hold)/, r.out);
    const inv = r.sarif.runs[0]!.invocations![0]!;
    assert.is(inv.executionSuccessful, false);
    assert.match(inv.toolExecutionNotifications![0]!.message.text!, /unguarded/);
    assert.is(r.junit.cases[0]!.name, 'setup: nothing was checked');
  } finally {
    rmSync(unguarded.dir, { recursive: true, force: true });
  }

  // A project that never added receipt-gate: the job says how to add it.
  const bare = project(validEvidence(), false);
  try {
    const r = pipeline(bare, 'main');
    assert.is.not(r.status, 0, r.out);
    assert.match(r.out, /receipt-gate: nothing was checked \(exit 2\): receipt-gate is not installed in this project: the base branch origin\/main names no receipt-gate .*npm install --save-dev receipt-gate/, r.out);
    assert.not.match(r.out, /verdict (closed|eligible|hold)|npx/, r.out);
    const inv = r.sarif.runs[0]!.invocations![0]!;
    assert.is(inv.executionSuccessful, false);
    assert.match(inv.toolExecutionNotifications![0]!.message.text!, /npm install --save-dev receipt-gate/);
    assert.equal([r.junit.tests, r.junit.failures, r.junit.cases[0]!.name], [1, 1, 'setup: nothing was checked']);
    assert.match(r.junit.cases[0]!.failure!, /not installed/);
  } finally {
    rmSync(bare.dir, { recursive: true, force: true });
  }
});

test(`gitlab-ci-local ${gitlabCiLocal}: a patch that swaps in a fake receipt-gate (devDependency file:./tools/fake and its lock entry) is closed by the base's receipt-gate, never judged by the fake`, () => {
  const p = project(validEvidence());
  try {
    // The patch: a package named receipt-gate whose bin prints an eligible verdict, and the
    // project's devDependency pointed at it, locked by npm itself.
    const scratch = join(p.dir, 'push-fake-gate');
    must('git', ['clone', '-q', p.bare, scratch], p.dir);
    must('git', ['checkout', '-q', '-b', 'fake-gate'], scratch);
    const fake = [
      'console.error("FAKE receipt-gate: verdict eligible (exit 0)");',
      'const format = process.argv[process.argv.indexOf("--format") + 1];',
      'if (format === "sarif") console.log(JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: "receipt-gate" } }, invocations: [{ executionSuccessful: true }], results: [] }] }));',
      'if (format === "junit") console.log(\'<?xml version="1.0" encoding="UTF-8"?>\\n<testsuites name="receipt-gate" tests="0" failures="0" errors="0"><testsuite name="receipt-gate verify-ref" tests="0" failures="0" errors="0" skipped="0"></testsuite></testsuites>\');',
      '',
    ].join('\n');
    write(scratch, {
      'tools/fake/package.json': `${JSON.stringify({ name: 'receipt-gate', version: '0.1.0', bin: { 'receipt-gate': 'cli.js' } })}\n`,
      'tools/fake/cli.js': `#!/usr/bin/env node\n${fake}`,
    });
    const pkg = JSON.parse(readFileSync(join(scratch, 'package.json'), 'utf8'));
    pkg.devDependencies['receipt-gate'] = 'file:./tools/fake';
    write(scratch, { 'package.json': `${JSON.stringify(pkg, null, 2)}\n` });
    must('npm', ['install', '--package-lock-only', '--no-audit', '--no-fund', '--loglevel=error'], scratch);
    assert.match(readFileSync(join(scratch, 'package-lock.json'), 'utf8'), /"resolved": "tools\/fake"/, 'npm locked the fake');
    must('git', ['add', '-A'], scratch);
    must('git', ['commit', '-q', '-m', 'a verifier of my own'], scratch);
    must('git', ['push', '-q', 'origin', 'fake-gate'], scratch);

    const r = pipeline(p, 'fake-gate');
    assert.is.not(r.status, 0, r.out);
    assert.not.match(r.out, /FAKE receipt-gate/, 'the fake never ran');
    assert.match(r.out, /receipt-gate: \d+\.\d+\.\d+\S* from origin\/main:package-lock\.json, installed in \S+ \(outside the project\)/, r.out);
    assert.match(r.out, /receipt-gate: verdict closed \(exit 1\)/, r.out);
    assert.match(r.out, /closed PATH_PROTECTED .* package\.json: .*the receipt-gate entry of package\.json/, r.out);
    for (const path of ['package.json', 'package-lock.json', 'tools/fake/package.json']) {
      assert.ok(
        r.sarif.runs[0]!.results!.some((x) => x.ruleId === 'PATH_PROTECTED' && x.locations![0]!.physicalLocation!.artifactLocation!.uri === path),
        `${path}: ${JSON.stringify(r.sarif.runs[0]!.results)}`,
      );
    }
    assert.ok(r.junit.cases.some((c) => c.name === 'PATH_PROTECTED package.json' && c.failure !== null), JSON.stringify(r.junit));
    assert.not.ok(existsSync(join(r.clone, 'node_modules')), 'the project was not installed');
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
});

test(`gitlab-ci-local ${gitlabCiLocal}: the scheduled job runs the frozen tests by id, records which pass, reports what expires within 7 days, edits nothing`, () => {
  const p = project({
    ...validEvidence(),
    ...observation('o3', 'witness bytes'),
    'freezes/f3.json': JSON.stringify({ observation_id: 'o3', epoch_id: EPOCH_ID, expires_on: '2026-12-05', reason: 'socket timeout on CI' }),
    'freeze.json': `${JSON.stringify({
      version: 1,
      frozen: [
        { id: 'tests/test_net.py::test_retry', reason: 'network', expires: '2026-12-02', owner: 'alice', added: '2026-11-25' },
        { id: 'tests/test_clock.py::test_tick', reason: 'timing', expires: '2026-12-10', owner: 'alice', added: '2026-11-27' },
      ],
    })}\n`,
    // The project's test runner, one test by its id: test_retry passes again, test_tick still fails.
    'run-test.sh': 'case "$1" in *test_retry) echo "$1 passed"; exit 0 ;; *) echo "$1 failed"; exit 1 ;; esac\n',
  });
  try {
    const r = runJob(p, 'main', 'receipt-gate-frozen', ['CI_PIPELINE_SOURCE=schedule', 'RECEIPT_GATE_FROZEN_TESTS=sh run-test.sh']);
    assert.is.not(r.status, 0, r.out);
    assert.match(r.out, /receipt-gate freeze review on 2026-11-29: 3 freezes, 0 expired, 2 expiring within 7 days/, r.out);
    // freeze review --run asks the policy's liftAfterPasses (default 5) consecutive passes.
    assert.match(r.out, /2026-12-02 {2}3 days left .* tests\/test_net\.py::test_retry .*; passed 5 consecutive runs \(the policy's liftAfterPasses\): an owner may decide to lift the freeze/, r.out);
    assert.match(r.out, /2026-12-10 {2}11 days left .* tests\/test_clock\.py::test_tick .*; still fails \(exit 1 on run 1 of 5, after 0 passes\)/, r.out);
    const report = JSON.parse(r.read('receipt-gate-frozen.json'));
    assert.equal(report.expiring, ['tests/test_net.py::test_retry', 'o3']);
    assert.equal([report.still_failing, report.now_passing], [['tests/test_clock.py::test_tick'], ['tests/test_net.py::test_retry']]);
    assert.equal(report.freezes.map((f: { kind: string; id: string; days_left: number }) => `${f.kind} ${f.id} ${f.days_left}`), [
      'row tests/test_net.py::test_retry 3',
      'keyed o3 6',
      'row tests/test_clock.py::test_tick 11',
    ]);
    assert.is(run('git', ['status', '--porcelain', '--', 'freeze.json', 'freezes'], r.clone).out, '', 'no freeze was edited or removed');
    // The rules: a schedule runs only the frozen job, a push only the patch pipeline's.
    const jobs = (source: string) =>
      run('gitlab-ci-local', ['--list', '--no-color', '--variable', `CI_PIPELINE_SOURCE=${source}`], r.clone, { HOME: join(p.dir, 'home') })
        .out.split('\n')
        .filter((l) => /^receipt-gate\S*\s+test\s/.test(l))
        .map((l) => l.split(/\s+/)[0]);
    assert.equal(jobs('schedule'), ['receipt-gate-frozen']);
    assert.equal(jobs('push'), ['receipt-gate']);
  } finally {
    rmSync(p.dir, { recursive: true, force: true });
  }
});

test.run();
