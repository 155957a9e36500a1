// The GitHub Action (action.yml) and the GitLab CI template (ci/gitlab/receipt-gate.yml) as
// their runners run them: the `run:` and `script:` lines are read from the YAML and executed by
// bash in a real clone, with the environment GitHub Actions and GitLab CI set (a depth-1
// checkout, GITHUB_BASE_REF, CI_MERGE_REQUEST_TARGET_BRANCH_NAME, CI_COMMIT_SHA, ...).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import { packedTarball } from '../client/harness';
import { EPOCH_ID, guardedRepo, validEvidence } from '../helpers/repo';
import { commitAll, git, GIT_ENV, tempDir, writeFiles } from '../helpers/git';

const ROOT = resolve(__dirname, '../..');

interface Step {
  name?: string;
  if?: string;
  uses?: string;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
  id?: string;
}
interface Action {
  inputs: Record<string, { default?: string }>;
  runs: { using: string; steps: Step[] };
}

/** A bare "origin" whose main is guarded, with a branch per case; returns its path and oids.
 * `fake-gate`: a patch that points the receipt-gate devDependency main names at a fake. */
function origin(): { bare: string; dir: string; fixtureEdit: string; docsEdit: string; fakeGate: string } {
  const dir = tempDir('ci');
  const work = guardedRepo();
  git(work, ['checkout', '-q', '-b', 'fixture-edit']);
  writeFiles(work, { 'fixtures/orders/base.json': '{"orders": [9]}\n' });
  const fixtureEdit = commitAll(work, 'edit the oracle');
  git(work, ['checkout', '-q', '-b', 'docs-edit', 'main']);
  writeFiles(work, { 'src/alloc.py': 'def allocate(total, weights):\n    return [total, 0]\n' });
  const docsEdit = commitAll(work, 'a real fix');
  git(work, ['checkout', '-q', 'main']);
  writeFiles(work, { 'package.json': `${JSON.stringify({ name: 'orders', private: true, devDependencies: { 'receipt-gate': '0.1.0' } }, null, 2)}\n` });
  commitAll(work, 'receipt-gate as a devDependency');
  git(work, ['checkout', '-q', '-b', 'fake-gate']);
  writeFiles(work, {
    'package.json': `${JSON.stringify({ name: 'orders', private: true, devDependencies: { 'receipt-gate': 'file:./tools/fake' } }, null, 2)}\n`,
    'tools/fake/package.json': `${JSON.stringify({ name: 'receipt-gate', version: '0.1.0', bin: { 'receipt-gate': 'cli.js' } })}\n`,
    'tools/fake/cli.js': `#!/usr/bin/env node\n${FAKE_GATE_JS}`,
  });
  const fakeGate = commitAll(work, 'a verifier of my own');
  const bare = join(dir, 'origin.git');
  git(dir, ['clone', '-q', '--bare', work, bare]);
  rmSync(work, { recursive: true, force: true });
  return { bare, dir, fixtureEdit, docsEdit, fakeGate };
}

/** The identities line the job log must carry for origin()'s evidence: the pin's epoch id and
 * the manifest digest Python computed (test/helpers/repo.ts), no witness. */
const IDENTITIES = new RegExp(`^identities: epoch ${EPOCH_ID}, manifest sha256 ${JSON.parse(validEvidence()['checks/manifest.json']!).manifest_sha256}, 0 witnesses$`, 'm');

/** A fake receipt-gate: whatever it is asked, an eligible verdict (an empty SARIF log, exit 0),
 * and a mark that it ran (RG_FAKE_MARK). */
const FAKE_GATE_JS = [
  'if (process.env.RG_FAKE_MARK) require("node:fs").writeFileSync(process.env.RG_FAKE_MARK, "ran");',
  'console.log(JSON.stringify({ version: "2.1.0", runs: [{ tool: { driver: { name: "receipt-gate" } }, invocations: [{ executionSuccessful: true }], results: [] }] }));',
  '',
].join('\n');

/** What `npm ci` of the fake-gate patch leaves: the fake as node_modules/.bin/receipt-gate. */
function installFake(work: string): void {
  writeFiles(work, { 'node_modules/.bin/receipt-gate': `#!${process.execPath}\n${FAKE_GATE_JS}` });
  spawnSync('chmod', ['+x', join(work, 'node_modules/.bin/receipt-gate')]);
}

/** What actions/checkout and GitLab's default GIT_DEPTH leave: a depth-1 clone of one branch. */
function shallowClone(bare: string, branch: string, into: string): string {
  git(resolve(into, '..'), ['clone', '-q', '--depth', '1', '--branch', branch, `file://${bare}`, into]);
  assert.is(git(into, ['rev-parse', '--is-shallow-repository']).trim(), 'true');
  return into;
}

/** `${{ expr }}` as the runner evaluates the few expressions action.yml uses. */
function expand(text: string, ctx: { inputs: Record<string, string>; outputs: Record<string, string>; actionPath: string }): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (expr.startsWith('inputs.')) return ctx.inputs[expr.slice('inputs.'.length)] ?? '';
    if (expr === 'github.action_path') return ctx.actionPath;
    // The steps' outputs share one file here; their names do not collide.
    const out = /^steps\.(?:base|verify)\.outputs\.([\w-]+)$/.exec(expr);
    if (out) return ctx.outputs[out[1]!] ?? '';
    throw new Error(`expression the test does not know: ${expr}`);
  });
}

function readOutputs(file: string): Record<string, string> {
  if (!existsSync(file)) return {};
  return Object.fromEntries(
    readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.includes('='))
      .map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]),
  );
}

/** Runs the action's `run:` steps as a composite action runs them (bash -eo pipefail, each
 * step's env), skipping the `uses:` steps (checkout is the shallow clone made above; the SARIF
 * upload needs GitHub). Returns each step's exit status and the step outputs. */
function runAction(workspace: string, env: Record<string, string>, given: Record<string, string>, actionPath = ROOT) {
  const action = parse(readFileSync(join(actionPath, 'action.yml'), 'utf8')) as Action;
  assert.is(action.runs.using, 'composite');
  const inputs = Object.fromEntries(Object.entries(action.inputs).map(([k, v]) => [k, given[k] ?? v.default ?? '']));
  const outputFile = join(workspace, '..', `github-output-${Date.now()}`);
  const steps: { name: string; status: number; stdout: string; stderr: string }[] = [];
  for (const step of action.runs.steps) {
    if (step.uses) {
      assert.ok(['actions/checkout@v4', 'github/codeql-action/upload-sarif@v3'].includes(step.uses), step.uses);
      continue;
    }
    assert.is(step.shell, 'bash');
    assert.not.match(step.run!, /\$\{\{/, `${step.name}: no expression inside a script`);
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, { inputs, outputs: readOutputs(outputFile), actionPath })]));
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
      cwd: workspace,
      env: { ...process.env, ...GIT_ENV, ...env, GITHUB_OUTPUT: outputFile, GITHUB_WORKSPACE: workspace, GITHUB_ACTION_PATH: actionPath, ...stepEnv },
      encoding: 'utf8',
    });
    steps.push({ name: step.name ?? '', status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr });
    if (r.status !== 0) break;
  }
  return { steps, outputs: readOutputs(outputFile) };
}

function githubEnv(headRef: string, sha: string): Record<string, string> {
  return {
    CI: 'true',
    GITHUB_ACTIONS: 'true',
    GITHUB_EVENT_NAME: 'pull_request',
    GITHUB_BASE_REF: 'main',
    GITHUB_HEAD_REF: headRef,
    GITHUB_REF: 'refs/pull/7/merge',
    GITHUB_SHA: sha,
    GITHUB_REPOSITORY: 'acme/orders',
    RUNNER_OS: 'Linux',
  };
}

test('GitHub Action on a pull request from a depth-1 checkout: deepens, fails closed on an oracle edit, SARIF and annotations', () => {
  const o = origin();
  try {
    const work = shallowClone(o.bare, 'fixture-edit', join(o.dir, 'work'));
    const { steps, outputs } = runAction(work, githubEnv('fixture-edit', o.fixtureEdit), { checkout: 'false' });
    assert.equal(steps.map((s) => s.status), [0, 0, 1], JSON.stringify(steps, null, 2));
    assert.is(steps[2]!.name, 'Fail unless eligible');
    assert.equal([outputs.verdict, outputs['exit-code']], ['closed', '1']);
    assert.is(git(work, ['rev-parse', '--is-shallow-repository']).trim(), 'false', 'the clone was deepened');
    const sarif = JSON.parse(readFileSync(join(work, 'receipt-gate.sarif'), 'utf8'));
    const results = sarif.runs[0].results as { ruleId: string; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[];
    assert.ok(
      results.some((r) => r.ruleId === 'PATH_PROTECTED' && r.locations[0]!.physicalLocation.artifactLocation.uri === 'fixtures/orders/base.json'),
      JSON.stringify(results),
    );
    assert.match(steps[1]!.stdout, /^::error file=fixtures\/orders\/base\.json,title=PATH_PROTECTED \(refs\/heads\/fixture-edit\)::/m);
    // The text report in the log, with the three identities.
    assert.match(steps[1]!.stdout, IDENTITIES, steps[1]!.stdout);
    assert.match(steps[1]!.stdout, /^ {2}closed PATH_PROTECTED .* fixtures\/orders\/base\.json: /m, steps[1]!.stdout);
  } finally {
    rmSync(o.dir, { recursive: true, force: true });
  }
});

test('GitHub Action: an honest patch is eligible (exit 0) and a SARIF log with no results is still written', () => {
  const o = origin();
  try {
    const work = shallowClone(o.bare, 'docs-edit', join(o.dir, 'work'));
    const { steps, outputs } = runAction(work, githubEnv('docs-edit', o.docsEdit), { checkout: 'false', 'sarif-file': 'out/../gate.sarif' });
    assert.equal(steps.map((s) => s.status), [0, 0, 0], JSON.stringify(steps, null, 2));
    assert.equal([outputs.verdict, outputs['exit-code']], ['eligible', '0']);
    const sarif = JSON.parse(readFileSync(join(work, 'gate.sarif'), 'utf8'));
    assert.equal(sarif.runs[0].results, []);
    assert.is(sarif.runs[0].invocations[0].executionSuccessful, true);
  } finally {
    rmSync(o.dir, { recursive: true, force: true });
  }
});

test('without deepening, a depth-1 clone is exit 2 naming the fix, and the SARIF says the run failed', () => {
  const o = origin();
  try {
    const work = shallowClone(o.bare, 'fixture-edit', join(o.dir, 'work'));
    git(work, ['fetch', '-q', '--depth', '1', 'origin', '+refs/heads/main:refs/remotes/origin/main']);
    const r = spawnSync(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'verify-ref', 'HEAD', '--base', 'origin/main', '--format', 'sarif'], {
      cwd: work,
      env: { ...process.env, ...GIT_ENV, ...githubEnv('fixture-edit', o.fixtureEdit) },
      encoding: 'utf8',
    });
    assert.is(r.status, 2, r.stdout + r.stderr);
    const inv = JSON.parse(r.stdout).runs[0].invocations[0];
    assert.is(inv.executionSuccessful, false);
    assert.match(inv.toolExecutionNotifications[0].message.text, /fetch-depth: 0|--unshallow/);
  } finally {
    rmSync(o.dir, { recursive: true, force: true });
  }
});

/** What actions/checkout with fetch-depth: 0 leaves: every branch as origin/*, only the
 * checked-out one local (no local main). */
function fullClone(bare: string, branch: string, into: string): string {
  git(resolve(into, '..'), ['clone', '-q', '--branch', branch, `file://${bare}`, into]);
  assert.is(git(into, ['rev-parse', '--is-shallow-repository']).trim(), 'false');
  assert.is(git(into, ['branch', '--list', 'main']).trim(), '', 'no local main');
  return into;
}

/** The README's Action snippet: the `with:` of its `uses: <owner>/receipt-gate@...` line. */
function readmeSnippet(): Record<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const m = /- uses: <owner>\/receipt-gate@\S+[^\n]*\n\s+with: (\{[^}\n]*\})/.exec(readme);
  assert.ok(m, 'README.md has the Action snippet');
  const withInputs = parse(m[1]!) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(withInputs).map(([k, v]) => [k, String(v)]));
}

function pushEnv(branch: string, sha: string): Record<string, string> {
  const env = githubEnv(branch, sha);
  delete env.GITHUB_BASE_REF;
  delete env.GITHUB_HEAD_REF;
  return { ...env, GITHUB_EVENT_NAME: 'push', GITHUB_REF: `refs/heads/${branch}` };
}

interface ActionCase {
  name: string;
  clone: 'full' | 'shallow';
  branch: 'fixture-edit' | 'docs-edit';
  event: 'pull_request' | 'push';
  with: Record<string, string>;
  verdict: string;
  exit: string;
  /** Extra checks of the run (stdout of the verify step, the workspace). */
  check?(out: string, work: string): void;
}

/** Every documented input, alone or in the combinations the docs show (the README's among them). */
function actionCases(): ActionCase[] {
  const shim = (work: string) => join(work, '..', 'shim-ran');
  return [
    { name: 'the README snippet in a full clone', clone: 'full', branch: 'fixture-edit', event: 'pull_request', with: readmeSnippet(), verdict: 'closed', exit: '1' },
    { name: 'base: main in a full clone (origin/main, no local main)', clone: 'full', branch: 'fixture-edit', event: 'pull_request', with: { base: 'main' }, verdict: 'closed', exit: '1' },
    { name: 'base: main in a depth-1 clone', clone: 'shallow', branch: 'fixture-edit', event: 'pull_request', with: { base: 'main', checkout: 'false' }, verdict: 'closed', exit: '1' },
    { name: 'base: main on a push (no GITHUB_BASE_REF), depth-1', clone: 'shallow', branch: 'docs-edit', event: 'push', with: { base: 'main', checkout: 'false' }, verdict: 'eligible', exit: '0' },
    { name: 'base: origin/main in a depth-1 clone', clone: 'shallow', branch: 'docs-edit', event: 'pull_request', with: { base: 'origin/main', checkout: 'false' }, verdict: 'eligible', exit: '0' },
    { name: 'base: refs/heads/main in a full clone', clone: 'full', branch: 'fixture-edit', event: 'push', with: { base: 'refs/heads/main' }, verdict: 'closed', exit: '1' },
    { name: 'no base on a push: the policy\'s baseBranch (origin/main)', clone: 'full', branch: 'fixture-edit', event: 'push', with: {}, verdict: 'closed', exit: '1' },
    {
      name: 'base that names nothing: error (exit 2), the reason in the SARIF',
      clone: 'full', branch: 'docs-edit', event: 'pull_request', with: { base: 'no-such-branch' }, verdict: 'error', exit: '2',
      check(out, work) {
        assert.match(out, /nothing was checked \(exit 2\)/);
        const inv = JSON.parse(readFileSync(join(work, 'receipt-gate.sarif'), 'utf8')).runs[0].invocations[0];
        assert.is(inv.executionSuccessful, false);
        assert.match(inv.toolExecutionNotifications[0].message.text, /no-such-branch/);
      },
    },
    { name: 'identity: an owner may edit the fixture', clone: 'full', branch: 'fixture-edit', event: 'pull_request', with: { identity: 'alice' }, verdict: 'eligible', exit: '0' },
    { name: 'ref: the commit by its id', clone: 'full', branch: 'fixture-edit', event: 'pull_request', with: { ref: 'origin/fixture-edit' }, verdict: 'closed', exit: '1' },
    {
      name: 'annotations: false prints no workflow commands',
      clone: 'full', branch: 'fixture-edit', event: 'pull_request', with: { annotations: 'false' }, verdict: 'closed', exit: '1',
      check(out) {
        assert.not.match(out, /^::/m);
        assert.match(out, IDENTITIES, 'the text report still carries the identities');
      },
    },
    {
      name: 'sarif-file in a folder that does not exist yet',
      clone: 'full', branch: 'docs-edit', event: 'pull_request', with: { 'sarif-file': 'reports/rg/out.sarif' }, verdict: 'eligible', exit: '0',
      check(_out, work) {
        assert.equal(JSON.parse(readFileSync(join(work, 'reports/rg/out.sarif'), 'utf8')).runs[0].results, []);
      },
    },
    {
      name: 'command: the given command line',
      clone: 'full', branch: 'fixture-edit', event: 'pull_request', with: { command: `${process.execPath} ${join(ROOT, 'dist', 'cli.js')}` }, verdict: 'closed', exit: '1',
    },
    {
      name: 'command that prints no report (exit 127): error (exit 2), never closed, and a SARIF that says so',
      clone: 'full', branch: 'docs-edit', event: 'pull_request', with: { command: 'receipt-gate-is-not-installed' }, verdict: 'error', exit: '2',
      check(out, work) {
        assert.match(out, /::error title=receipt-gate::nothing was checked/);
        const inv = JSON.parse(readFileSync(join(work, 'receipt-gate.sarif'), 'utf8')).runs[0].invocations[0];
        assert.is(inv.executionSuccessful, false);
      },
    },
    {
      name: 'a receipt-gate in the project\'s node_modules/.bin is never run: the action\'s own release is',
      clone: 'full', branch: 'fixture-edit', event: 'pull_request', with: {}, verdict: 'closed', exit: '1',
      check(_out, work) {
        assert.not.ok(existsSync(shim(work)), 'the project\'s receipt-gate did not run');
      },
    },
  ];
}

test('GitHub Action: every documented input combination, including the README snippet and base: main in full and depth-1 clones', () => {
  const o = origin();
  try {
    const failures: string[] = [];
    actionCases().forEach((c, i) => {
      const work = join(o.dir, `case-${i}`);
      if (c.clone === 'full') fullClone(o.bare, c.branch, work);
      else shallowClone(o.bare, c.branch, work);
      if (c.name.startsWith('a receipt-gate in the project')) installFake(work);
      const sha = git(work, ['rev-parse', 'HEAD']).trim();
      const env = { ...(c.event === 'push' ? pushEnv(c.branch, sha) : githubEnv(c.branch, sha)), RG_FAKE_MARK: join(work, '..', 'shim-ran') };
      const { steps, outputs } = runAction(work, env, c.with);
      const verify = steps.find((s) => s.name === 'receipt-gate verify-ref');
      const got = `${outputs.verdict}/${outputs['exit-code']}`;
      if (got !== `${c.verdict}/${c.exit}` || verify === undefined || verify.status !== 0) {
        failures.push(`${c.name}: got ${got}, want ${c.verdict}/${c.exit}\n${JSON.stringify(steps, null, 2)}`);
        return;
      }
      const last = steps[steps.length - 1]!;
      assert.is(last.name, 'Fail unless eligible', c.name);
      assert.is(String(last.status), c.exit, c.name);
      const sarif = JSON.parse(readFileSync(join(work, c.with['sarif-file'] ?? 'receipt-gate.sarif'), 'utf8'));
      assert.is(sarif.version, '2.1.0', c.name);
      if (c.verdict === 'closed') assert.ok(sarif.runs[0].results.some((r: { ruleId: string }) => r.ruleId === 'PATH_PROTECTED'), c.name);
      if (c.verdict !== 'error') assert.not.match(verify.stdout + verify.stderr, /does not name an object/, c.name);
      c.check?.(verify.stdout, work);
    });
    assert.equal(failures, [], failures.join('\n\n'));
  } finally {
    rmSync(o.dir, { recursive: true, force: true });
  }
});

test('GitHub Action: a patch that swaps in a fake receipt-gate (npm ci put it in node_modules/.bin) is judged by the action\'s own release: closed', () => {
  const o = origin();
  try {
    const work = fullClone(o.bare, 'fake-gate', join(o.dir, 'work'));
    installFake(work);
    const mark = join(o.dir, 'fake-ran');
    // The fake, run by hand, says eligible: that is what the patch wants CI to print.
    const fake = spawnSync(join(work, 'node_modules/.bin/receipt-gate'), ['verify-ref', 'HEAD', '--format', 'sarif'], { cwd: work, encoding: 'utf8' });
    assert.is(fake.status, 0);
    assert.equal(JSON.parse(fake.stdout).runs[0].results, []);
    const { steps, outputs } = runAction(work, { ...githubEnv('fake-gate', o.fakeGate), RG_FAKE_MARK: mark }, { checkout: 'false' });
    assert.equal([outputs.verdict, outputs['exit-code']], ['closed', '1'], JSON.stringify(steps, null, 2));
    assert.not.ok(existsSync(mark), 'the fake did not run');
    const results = JSON.parse(readFileSync(join(work, 'receipt-gate.sarif'), 'utf8')).runs[0].results as { ruleId: string; message: { text: string }; locations: { physicalLocation: { artifactLocation: { uri: string } } }[] }[];
    const hit = results.find((r) => r.ruleId === 'PATH_PROTECTED' && r.locations[0]!.physicalLocation.artifactLocation.uri === 'package.json');
    assert.ok(hit, JSON.stringify(results));
    assert.match(hit!.message.text, /the receipt-gate entry of package\.json/);
    assert.is(steps[steps.length - 1]!.status, 1);
  } finally {
    rmSync(o.dir, { recursive: true, force: true });
  }
});

test('GitHub Action from a release tag: the prebuilt dist/cli.js runs, nothing is installed or built (no npm), timed', () => {
  const o = origin();
  try {
    // The release as scripts/release-action.sh makes it, in a clone of this repository's HEAD.
    const repo = join(o.dir, 'receipt-gate');
    git(o.dir, ['clone', '-q', '--no-hardlinks', ROOT, repo]);
    spawnSync('ln', ['-s', join(ROOT, 'node_modules'), join(repo, 'node_modules')]);
    const release = spawnSync('bash', [join(repo, 'scripts', 'release-action.sh'), 'v9.9.9'], { cwd: repo, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
    assert.is(release.status, 0, release.stderr + release.stdout);
    assert.ok(git(repo, ['ls-tree', '-r', '--name-only', 'v9.9.9']).split('\n').includes('dist/cli.js'), 'the tag carries dist/cli.js');
    assert.is(git(repo, ['ls-files', 'dist/cli.js']).trim(), '', 'the branch does not track it');
    assert.is(git(repo, ['rev-parse', 'v9.9.9~1']).trim(), git(repo, ['rev-parse', 'HEAD']).trim());
    // What the runner downloads for `uses: OWNER/receipt-gate@v9.9.9`: that tree, no node_modules.
    const action = join(o.dir, 'action');
    git(o.dir, ['clone', '-q', '--depth', '1', '--branch', 'v9.9.9', `file://${repo}`, action]);
    assert.not.ok(existsSync(join(action, 'node_modules')));
    // npm on PATH records any call and fails: the action must not need it.
    const bin = join(o.dir, 'bin');
    writeFiles(bin, { npm: `#!/bin/sh\necho "npm $*" >> "${join(o.dir, 'npm-called')}"\nexit 1\n` });
    spawnSync('chmod', ['+x', join(bin, 'npm')]);
    const work = fullClone(o.bare, 'fixture-edit', join(o.dir, 'work'));
    const started = process.hrtime.bigint();
    const { steps, outputs } = runAction(work, { ...githubEnv('fixture-edit', o.fixtureEdit), PATH: `${bin}:${process.env.PATH}` }, { base: 'main' }, action);
    const ms = Number((process.hrtime.bigint() - started) / 1_000_000n);
    console.log(`action from a release tag: ${steps.length} steps in ${ms} ms after the checkout`);
    assert.equal([outputs.verdict, outputs['exit-code']], ['closed', '1'], JSON.stringify(steps, null, 2));
    assert.not.ok(existsSync(join(o.dir, 'npm-called')), 'npm was not run');
    assert.not.ok(existsSync(join(action, 'node_modules')), 'nothing was installed into the action');
  } finally {
    rmSync(o.dir, { recursive: true, force: true });
  }
});

test('GitHub scheduled workflow (ci/github/receipt-gate-frozen.yml): frozen tests by id, which pass, what expires within 7 days, nothing edited', () => {
  const workflow = parse(readFileSync(join(ROOT, 'ci', 'github', 'receipt-gate-frozen.yml'), 'utf8')) as {
    on: { schedule: { cron: string }[] };
    jobs: { frozen: { steps: Step[] } };
  };
  assert.ok(workflow.on.schedule[0]!.cron.split(' ').length === 5, 'a schedule: trigger');
  const work = guardedRepo({
    'package.json': `${JSON.stringify({ name: 'orders', private: true, devDependencies: { 'receipt-gate': `file:${packedTarball().tarball}` } }, null, 2)}\n`,
    '.gitignore': 'node_modules/\nreceipt-gate-frozen.*\n',
    'freeze.json': `${JSON.stringify({
      version: 1,
      frozen: [
        { id: 'tests/test_net.py::test_retry', reason: 'network', expires: '2026-12-02', owner: 'alice', added: '2026-11-25' },
        { id: 'tests/test_clock.py::test_tick', reason: 'timing', expires: '2026-11-28', owner: 'alice', added: '2026-11-20' },
      ],
    })}\n`,
    'run-test.sh': 'case "$1" in *test_retry) exit 0 ;; *) exit 1 ;; esac\n',
  });
  const runnerTemp = tempDir('runner-temp');
  try {
    const summary = join(work, '..', `summary-${Date.now()}.md`);
    // What the runner carries from step to step: GITHUB_ENV's lines, and its temp directory.
    const githubEnvFile = join(work, '..', `github-env-${Date.now()}`);
    const carried = (): Record<string, string> =>
      existsSync(githubEnvFile) ? Object.fromEntries(readFileSync(githubEnvFile, 'utf8').split('\n').filter((l) => l.includes('=')).map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)])) : {};
    const statuses: number[] = [];
    let log = '';
    for (const step of workflow.jobs.frozen.steps) {
      if (step.uses) {
        assert.ok(['actions/checkout@v4', 'actions/setup-node@v4', 'actions/upload-artifact@v4'].includes(step.uses), step.uses);
        continue;
      }
      assert.not.match(step.run!, /\$\{\{/, `${step.name}: no expression inside a script`);
      // As a project sets it when it copies the workflow: its runner, one test by id.
      const env = { ...(step.env ?? {}), ...(step.env && 'RG_FROZEN_TESTS' in step.env ? { RG_FROZEN_TESTS: 'sh run-test.sh' } : {}) };
      const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
        cwd: work,
        env: { ...process.env, ...GIT_ENV, CI: 'true', GITHUB_ACTIONS: 'true', GITHUB_EVENT_NAME: 'schedule', GITHUB_STEP_SUMMARY: summary, GITHUB_ENV: githubEnvFile, RUNNER_TEMP: runnerTemp, RECEIPT_GATE_NOW: '2026-11-29', npm_config_update_notifier: 'false', ...carried(), ...env },
        encoding: 'utf8',
      });
      statuses.push(r.status ?? -1);
      log += r.stdout + r.stderr;
    }
    // A freeze expired yesterday: exit 1, the run fails and says what to do.
    assert.equal(statuses, [0, 1], log);
    assert.match(log, /receipt-gate freeze review on 2026-11-29: 2 freezes, 1 expired, 1 expiring within 7 days/);
    // freeze review --run asks the policy's liftAfterPasses (default 5) consecutive passes.
    assert.match(log, /tests\/test_net\.py::test_retry .*; passed 5 consecutive runs \(the policy's liftAfterPasses\): an owner may decide to lift the freeze/, log);
    assert.match(log, /tests\/test_clock\.py::test_tick .*still fails \(exit 1 on run 1 of 5, after 0 passes\)/, log);
    assert.match(log, /an owner runs 'receipt-gate freeze prune'/);
    assert.match(readFileSync(summary, 'utf8'), /^```\nreceipt-gate freeze review/);
    const report = JSON.parse(readFileSync(join(work, 'receipt-gate-frozen.json'), 'utf8'));
    assert.equal([report.expired, report.expiring], [['tests/test_clock.py::test_tick'], ['tests/test_net.py::test_retry']]);
    assert.is(git(work, ['status', '--porcelain', '--', 'freeze.json', 'freezes']), '', 'nothing edited');
    // receipt-gate came from what the default branch names, installed outside the project.
    assert.match(log, /receipt-gate: \d+\.\d+\.\d+\S* from HEAD:package\.json, installed in /);
    assert.ok(carried().RG_CLI!.startsWith(runnerTemp), carried().RG_CLI);
    assert.not.ok(existsSync(join(work, 'node_modules')), 'the project was not installed');
  } finally {
    rmSync(work, { recursive: true, force: true });
    rmSync(runnerTemp, { recursive: true, force: true });
  }
});

/** The GitLab job's script as the runner runs it: every line in one bash, -eo pipefail. */
function runGitlab(workspace: string, env: Record<string, string>) {
  const doc = parse(readFileSync(join(ROOT, 'ci', 'gitlab', 'receipt-gate.yml'), 'utf8')) as Record<string, { extends?: string; variables?: Record<string, string>; before_script?: string[]; script?: string[]; artifacts?: { reports?: { junit?: string } } }>;
  const job = doc['receipt-gate']!;
  const base = doc[job.extends!]!;
  // GitLab runs before_script and script in one shell.
  const script = ['set -eo pipefail', ...(base.before_script ?? []), ...base.script!].join('\n');
  const r = spawnSync('bash', ['--noprofile', '--norc', '-c', script], {
    cwd: workspace,
    env: { ...process.env, ...GIT_ENV, ...base.variables, ...env },
    encoding: 'utf8',
  });
  return { ...r, junit: base.artifacts!.reports!.junit!, depth: base.variables!.GIT_DEPTH };
}

function gitlabEnv(extra: Record<string, string>): Record<string, string> {
  return {
    CI: 'true',
    GITLAB_CI: 'true',
    CI_PROJECT_PATH: 'acme/orders',
    CI_DEFAULT_BRANCH: 'main',
    // The CLI under test: this checkout's build (a project would use its node_modules or npx).
    RECEIPT_GATE: `node ${join(ROOT, 'dist', 'cli.js')}`,
    ...extra,
  };
}

test('GitLab merge request pipeline: deepens, audits CI_COMMIT_SHA against the target branch, JUnit report', () => {
  const o = origin();
  try {
    const work = shallowClone(o.bare, 'fixture-edit', join(o.dir, 'work'));
    const r = runGitlab(
      work,
      gitlabEnv({
        CI_PIPELINE_SOURCE: 'merge_request_event',
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
        CI_MERGE_REQUEST_SOURCE_BRANCH_NAME: 'fixture-edit',
        CI_COMMIT_SHA: o.fixtureEdit,
        CI_COMMIT_REF_NAME: 'fixture-edit',
      }),
    );
    assert.is(r.depth, '0');
    assert.is(r.status, 1, r.stdout + r.stderr);
    assert.match(r.stdout, /closed PATH_PROTECTED .* fixtures\/orders\/base\.json: /, r.stdout + r.stderr);
    assert.match(r.stdout, IDENTITIES, 'the job log carries the three identities');
    const junit = readFileSync(join(work, r.junit), 'utf8');
    assert.match(junit, /<testcase classname="receipt-gate\.PATH_PROTECTED" name="PATH_PROTECTED fixtures\/orders\/base\.json">/);
    const sarif = JSON.parse(readFileSync(join(work, 'receipt-gate.sarif'), 'utf8'));
    assert.ok(sarif.runs[0].results.length > 0);
  } finally {
    rmSync(o.dir, { recursive: true, force: true });
  }
});

test('GitLab branch pipeline: without a merge request the base is the default branch (origin/main)', () => {
  const o = origin();
  try {
    const work = shallowClone(o.bare, 'docs-edit', join(o.dir, 'work'));
    const r = runGitlab(work, gitlabEnv({ CI_PIPELINE_SOURCE: 'push', CI_COMMIT_BRANCH: 'docs-edit', CI_COMMIT_SHA: o.docsEdit }));
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /against origin\/main \(/, r.stdout + r.stderr);
    assert.match(r.stdout, /verdict: eligible/);
  } finally {
    rmSync(o.dir, { recursive: true, force: true });
  }
});

test('GitLab: a pinned RECEIPT_GATE_VERSION is installed outside the project, the patch\'s fake never runs, and the template defines no variable a project sets', () => {
  const doc = parse(readFileSync(join(ROOT, 'ci', 'gitlab', 'receipt-gate.yml'), 'utf8')) as Record<string, { variables?: Record<string, string> }>;
  // Job-level variables win over a project's top-level `variables:`: the template sets none but GIT_DEPTH.
  assert.equal(Object.keys(doc['.receipt-gate']!.variables ?? {}), ['GIT_DEPTH']);
  assert.equal(Object.keys(doc['.receipt-gate-frozen']!.variables ?? {}), []);
  const o = origin();
  try {
    const work = shallowClone(o.bare, 'fake-gate', join(o.dir, 'work'));
    installFake(work);
    const mark = join(o.dir, 'fake-ran');
    const tmp = tempDir('gl-tmp');
    const r = runGitlab(
      work,
      gitlabEnv({
        CI_PIPELINE_SOURCE: 'merge_request_event',
        CI_MERGE_REQUEST_TARGET_BRANCH_NAME: 'main',
        CI_COMMIT_SHA: o.fakeGate,
        RECEIPT_GATE: '',
        RECEIPT_GATE_VERSION: packedTarball().tarball,
        RG_FAKE_MARK: mark,
        TMPDIR: tmp,
        npm_config_update_notifier: 'false',
      }),
    );
    assert.is(r.status, 1, r.stdout + r.stderr);
    assert.not.ok(existsSync(mark), 'the fake did not run');
    assert.match(r.stdout, new RegExp(`receipt-gate: \\d+\\.\\d+\\.\\d+\\S* from RECEIPT_GATE_VERSION, installed in ${tmp}/receipt-gate\\.\\w+ \\(outside the project\\)`), r.stdout + r.stderr);
    assert.match(r.stdout, /closed PATH_PROTECTED .* package\.json: .*the receipt-gate entry of package\.json/, r.stdout);
    assert.match(r.stdout, /receipt-gate: verdict closed \(exit 1\)/);
    rmSync(tmp, { recursive: true, force: true });
  } finally {
    rmSync(o.dir, { recursive: true, force: true });
  }
});

test.run();
