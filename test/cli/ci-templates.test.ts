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
import { commitAll, git, GIT_ENV, guardedRepo, tempDir, writeFiles } from '../helpers/repo';

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

/** A bare "origin" whose main is guarded, with a branch per case; returns its path and oids. */
function origin(): { bare: string; dir: string; fixtureEdit: string; docsEdit: string } {
  const dir = tempDir('rg-ci-');
  const work = guardedRepo();
  git(work, ['checkout', '-q', '-b', 'fixture-edit']);
  writeFiles(work, { 'fixtures/orders/base.json': '{"orders": [9]}\n' });
  const fixtureEdit = commitAll(work, 'edit the oracle');
  git(work, ['checkout', '-q', '-b', 'docs-edit', 'main']);
  writeFiles(work, { 'src/alloc.py': 'def allocate(total, weights):\n    return [total, 0]\n' });
  const docsEdit = commitAll(work, 'a real fix');
  const bare = join(dir, 'origin.git');
  git(dir, ['clone', '-q', '--bare', work, bare]);
  rmSync(work, { recursive: true, force: true });
  return { bare, dir, fixtureEdit, docsEdit };
}

/** What actions/checkout and GitLab's default GIT_DEPTH leave: a depth-1 clone of one branch. */
function shallowClone(bare: string, branch: string, into: string): string {
  git(resolve(into, '..'), ['clone', '-q', '--depth', '1', '--branch', branch, `file://${bare}`, into]);
  assert.is(git(into, ['rev-parse', '--is-shallow-repository']).trim(), 'true');
  return into;
}

/** `${{ expr }}` as the runner evaluates the few expressions action.yml uses. */
function expand(text: string, ctx: { inputs: Record<string, string>; outputs: Record<string, string> }): string {
  return text.replace(/\$\{\{\s*([^}]+?)\s*\}\}/g, (_, expr: string) => {
    if (expr.startsWith('inputs.')) return ctx.inputs[expr.slice('inputs.'.length)] ?? '';
    if (expr === 'github.action_path') return ROOT;
    const out = /^steps\.verify\.outputs\.([\w-]+)$/.exec(expr);
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
function runAction(workspace: string, env: Record<string, string>, given: Record<string, string>) {
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;
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
    const stepEnv = Object.fromEntries(Object.entries(step.env ?? {}).map(([k, v]) => [k, expand(v, { inputs, outputs: readOutputs(outputFile) })]));
    const r = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', '-c', step.run!], {
      cwd: workspace,
      env: { ...process.env, ...GIT_ENV, ...env, GITHUB_OUTPUT: outputFile, GITHUB_WORKSPACE: workspace, GITHUB_ACTION_PATH: ROOT, ...stepEnv },
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

/** The GitLab job's script as the runner runs it: every line in one bash, -eo pipefail. */
function runGitlab(workspace: string, env: Record<string, string>) {
  const doc = parse(readFileSync(join(ROOT, 'ci', 'gitlab', 'receipt-gate.yml'), 'utf8')) as Record<string, { extends?: string; variables?: Record<string, string>; script?: string[]; artifacts?: { reports?: { junit?: string } } }>;
  const job = doc['receipt-gate']!;
  const base = doc[job.extends!]!;
  const script = ['set -eo pipefail', ...base.script!].join('\n');
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

test.run();
