// The pre-commit framework through this repository's .pre-commit-hooks.yaml: a project whose
// .pre-commit-config.yaml names receipt-gate's repository (here a local clone of the manifest
// and hooks/run at one commit, so no network is needed), with receipt-gate in devDependencies.
// init sees the hooks already configured and adds only the pre-push hook type.

import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from './harness';
import { managerScenario } from './managers-scenario';

const hooksRepo = mkdtempSync(join(tmpdir(), 'rg-hooks-repo-'));
process.on('exit', () => rmSync(hooksRepo, { recursive: true, force: true }));
const git = (...args: string[]) =>
  execFileSync('git', args, {
    cwd: hooksRepo,
    encoding: 'utf8',
    env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: '/dev/null', GIT_AUTHOR_NAME: 't', GIT_AUTHOR_EMAIL: 't@e', GIT_COMMITTER_NAME: 't', GIT_COMMITTER_EMAIL: 't@e' },
  }).trim();
git('init', '-q', '-b', 'main');
mkdirSync(join(hooksRepo, 'hooks'));
copyFileSync(join(REPO_ROOT, '.pre-commit-hooks.yaml'), join(hooksRepo, '.pre-commit-hooks.yaml'));
copyFileSync(join(REPO_ROOT, 'hooks', 'run'), join(hooksRepo, 'hooks', 'run'));
git('add', '-A');
git('commit', '-q', '-m', 'receipt-gate hooks');
const rev = git('rev-parse', 'HEAD');

managerScenario({
  name: 'pre-commit-repo',
  packages: [],
  pushNotice: /from the pre-commit framework's PRE_COMMIT_\* variables/,
  showsPassingOutput: true,
  packageJson: true,
  files: {
    '.pre-commit-config.yaml': `repos:\n  - repo: ${hooksRepo}\n    rev: ${rev}\n    hooks:\n      - id: receipt-gate-pre-commit\n      - id: receipt-gate-pre-push\n      - id: receipt-gate-check\n`,
  },
  env: (sandbox) => ({ PRE_COMMIT_HOME: mkdtempSync(join(sandbox.dir, 'pre-commit-home-')) }),
  activate(sandbox, dir) {
    const r = sandbox.run('pre-commit', ['install', '--hook-type', 'pre-commit', '--hook-type', 'pre-push'], dir);
    assert.is(r.status, 0, r.stderr + r.stdout);
  },
  wrote(sandbox, owner, out) {
    assert.match(out, /hook manager: the pre-commit framework/);
    const config = sandbox.read(owner, '.pre-commit-config.yaml');
    assert.not.match(config, /repo: local/, 'the hooks are already there: no second copy');
    assert.match(config, /^default_install_hook_types: \[pre-commit, pre-push\]\n/);
  },
});
