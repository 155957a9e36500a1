// The README's install lines, run exactly as written, in fresh projects: the packed tarball
// (the route that works while receipt-gate is not on the registry) copied to the top of the
// project, `npm install --save-dev --save-exact ./receipt-gate-X.tgz`, then `npx receipt-gate
// init`; and the Python route, `npm install --global ./receipt-gate-X.tgz` then
// `receipt-gate init`, which writes no Node tooling into the project (plain git hooks, or the
// pre-commit framework's configuration when the project has one). init's printed `git add`
// is run as printed and must leave nothing of what changed uncommitted; node_modules/ ends up
// ignored; the hooks it wrote then refuse a non-owner's edit of the freeze file.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, join, resolve } from 'node:path';
import { packedTarball } from '../client/harness';
import { cleanupTempDirs, tempDir } from '../helpers/git';

const ROOT = resolve(__dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');

/** The commands of the README's ```sh block that contains `marker`, comments dropped. */
function readmeLines(marker: string): string[] {
  const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  const block = blocks.find((b) => b.includes(marker));
  assert.ok(block, `README.md has a sh block with ${marker}`);
  return block.split('\n').map((l) => l.replace(/\s+#.*$/, '').trim()).filter((l) => l !== '' && !l.startsWith('#'));
}

function gitEnv(home: string, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: home,
    LANG: 'C.UTF-8',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    npm_config_cache: join(home, '.npm'),
    RECEIPT_GATE_NOW: '2026-09-10',
    ...extra,
  };
}

/** A fresh repository with one commit by alice, the tarball copied to its top. */
function freshProject(dir: string, files: Record<string, string>, env: NodeJS.ProcessEnv): string {
  const project = join(dir, 'project');
  mkdirSync(project);
  const git = (...args: string[]) => {
    const r = spawnSync('git', args, { cwd: project, env, encoding: 'utf8' });
    assert.is(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout;
  };
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 'alice@example.com');
  git('config', 'user.name', 'Alice');
  for (const [path, text] of Object.entries(files)) writeFileSync(join(project, path), text);
  git('add', '-A');
  git('commit', '-qm', 'the project');
  return project;
}

const sh = (line: string, cwd: string, env: NodeJS.ProcessEnv) => spawnSync('sh', ['-c', line], { cwd, env, encoding: 'utf8' });

/** Runs the `git add … && git commit` line init printed; afterwards nothing is left changed. */
function commitAsPrinted(out: string, project: string, env: NodeJS.ProcessEnv): string {
  const line = out.split('\n').map((l) => l.trim()).find((l) => l.startsWith('git add '));
  assert.ok(line, `init printed a git add line:\n${out}`);
  const r = sh(line, project, env);
  assert.is(r.status, 0, r.stdout + r.stderr);
  const status = spawnSync('git', ['status', '--porcelain', '--untracked-files=all'], { cwd: project, env, encoding: 'utf8' });
  assert.is(status.stdout, '', `init's git add left changes uncommitted:\n${status.stdout}`);
  return line;
}

/** bob's edit of the freeze file is refused by the hook init installed. */
function assertHookRefusesFreezeEdit(project: string, env: NodeJS.ProcessEnv): void {
  writeFileSync(join(project, 'freeze.json'), '{"version": 1, "frozen": []}\n\n');
  const r = spawnSync('git', ['-c', 'user.email=bob@example.com', 'commit', '-qam', 'bob edits the freeze file'], { cwd: project, env, encoding: 'utf8' });
  assert.is.not(r.status, 0, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, /PATH_PROTECTED[^\n]*freeze\.json/);
}

test('README route: npm install --save-dev --save-exact ./receipt-gate-X.tgz, then npx receipt-gate init, committed as init prints', () => {
  const { tarball } = packedTarball();
  const lines = readmeLines('npm install --save-dev --save-exact ./receipt-gate-');
  assert.equal(lines.map((l) => l.split(' ').slice(0, 3).join(' ')), ['npm install --save-dev', 'npx receipt-gate init']);
  assert.ok(lines[0]!.endsWith(`./${basename(tarball)}`), `the README names the tarball npm pack writes (${basename(tarball)}): ${lines[0]}`);
  const dir = tempDir('install-route');
  try {
    const env = gitEnv(dir);
    const project = freshProject(dir, { 'README.md': '# a Node project\n' }, env);
    copyFileSync(tarball, join(project, basename(tarball)));
    for (const line of lines) {
      const r = sh(line, project, env);
      assert.is(r.status, 0, `${line}\n${r.stdout}${r.stderr}`);
      if (line.startsWith('npx receipt-gate init')) {
        const add = commitAsPrinted(r.stdout, project, env);
        for (const path of ['.receipt-gate.json', 'package.json', 'package-lock.json', basename(tarball), '.gitignore', '.husky/pre-commit']) {
          assert.ok(add.split(' ').includes(path), `git add names ${path}: ${add}`);
        }
      }
    }
    const pkg = JSON.parse(readFileSync(join(project, 'package.json'), 'utf8'));
    assert.is(pkg.devDependencies['receipt-gate'], `file:${basename(tarball)}`);
    assert.match(readFileSync(join(project, '.gitignore'), 'utf8'), /^node_modules\/$/m);
    const tracked = spawnSync('git', ['ls-files', 'node_modules'], { cwd: project, env, encoding: 'utf8' });
    assert.is(tracked.stdout, '');
    assertHookRefusesFreezeEdit(project, env);
  } finally {
    cleanupTempDirs();
  }
});

test('README Python route: npm install --global ./receipt-gate-X.tgz, then receipt-gate init: no package.json, husky or lint-staged', () => {
  const { tarball } = packedTarball();
  const lines = readmeLines('npm install --global ./receipt-gate-');
  assert.equal(lines.map((l) => l.split(' ').slice(0, 3).join(' ')), ['npm install --global', 'receipt-gate init --owner']);
  const dir = tempDir('install-route-py');
  try {
    // --global goes to a prefix of the test's own, whose bin folder is on PATH.
    const prefix = join(dir, 'global');
    const env = gitEnv(dir, { npm_config_prefix: prefix, PATH: `${join(prefix, 'bin')}:${process.env.PATH}` });
    const project = freshProject(dir, { 'pyproject.toml': '[project]\nname = "allocation"\n', 'allocate.py': 'def allocate():\n    return []\n' }, env);
    // The tarball where the user downloaded it, outside the project: --global installs it there.
    copyFileSync(tarball, join(dir, basename(tarball)));
    for (const line of lines) {
      const r = sh(line, line.startsWith('npm ') ? dir : project, env);
      assert.is(r.status, 0, `${line}\n${r.stdout}${r.stderr}`);
      if (line.startsWith('receipt-gate init')) {
        assert.match(r.stdout, /hook manager: plain git hooks/);
        const add = commitAsPrinted(r.stdout, project, env);
        assert.not.ok(/package|husky|lint-staged|\.gitignore/.test(add), add);
      }
    }
    for (const path of ['package.json', 'package-lock.json', 'node_modules', '.husky']) assert.not.ok(existsSync(join(project, path)), `${path} was written`);
    const policy = JSON.parse(readFileSync(join(project, '.receipt-gate.json'), 'utf8'));
    for (const glob of ['pyproject.toml', 'conftest.py', '**/conftest.py', 'properties/**', 'fixtures/**', 'checks/**']) assert.ok(policy.protected.includes(glob), glob);
    assert.match(readFileSync(join(project, '.git', 'hooks', 'pre-commit'), 'utf8'), /^receipt-gate pre-commit$/m);
    assertHookRefusesFreezeEdit(project, env);
  } finally {
    cleanupTempDirs();
  }
});

test('README Python route with the pre-commit framework: init joins .pre-commit-config.yaml, writes no Node tooling, and pre-commit refuses the edit', () => {
  const { tarball } = packedTarball();
  const lines = readmeLines('npm install --global ./receipt-gate-');
  const dir = tempDir('install-route-precommit');
  try {
    const prefix = join(dir, 'global');
    const env = gitEnv(dir, { npm_config_prefix: prefix, PATH: `${join(prefix, 'bin')}:/usr/bin:${process.env.PATH}`, PRE_COMMIT_HOME: join(dir, 'pre-commit-cache') });
    const config = 'repos:\n- repo: meta\n  hooks:\n  - id: identity\n';
    const project = freshProject(dir, { 'pyproject.toml': '[project]\nname = "allocation"\n', '.pre-commit-config.yaml': config }, env);
    copyFileSync(tarball, join(dir, basename(tarball)));
    let add = '';
    for (const line of lines) {
      const r = sh(line, line.startsWith('npm ') ? dir : project, env);
      assert.is(r.status, 0, `${line}\n${r.stdout}${r.stderr}`);
      if (line.startsWith('receipt-gate init')) {
        assert.match(r.stdout, /hook manager: the pre-commit framework \(\.pre-commit-config\.yaml\)/);
        assert.match(r.stdout, /ran 'pre-commit install --hook-type pre-commit --hook-type pre-push'/);
        add = commitAsPrinted(r.stdout, project, env);
      }
    }
    assert.ok(add.split(' ').includes('.pre-commit-config.yaml'), add);
    assert.not.ok(/package|husky|lint-staged/.test(add), add);
    for (const path of ['package.json', 'package-lock.json', 'node_modules', '.husky']) assert.not.ok(existsSync(join(project, path)), `${path} was written`);
    assert.match(readFileSync(join(project, '.pre-commit-config.yaml'), 'utf8'), /entry: receipt-gate pre-commit\n\s+language: system/);
    assertHookRefusesFreezeEdit(project, env);
  } finally {
    cleanupTempDirs();
  }
});

test('a Python project whose package.json only installs receipt-gate gets plain git hooks, not husky and lint-staged (--husky asks for them)', () => {
  const { tarball } = packedTarball();
  const dir = tempDir('install-route-pydev');
  try {
    const env = gitEnv(dir);
    const project = freshProject(dir, { 'pyproject.toml': '[project]\nname = "allocation"\n' }, env);
    copyFileSync(tarball, join(project, basename(tarball)));
    const install = sh(readmeLines('npm install --save-dev --save-exact ./receipt-gate-')[0]!, project, env);
    assert.is(install.status, 0, install.stderr);
    const before = readFileSync(join(project, 'package.json'), 'utf8');
    const r = sh('npx receipt-gate init', project, env);
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /hook manager: plain git hooks .*a Python project whose package\.json only installs receipt-gate/);
    assert.is(readFileSync(join(project, 'package.json'), 'utf8'), before);
    assert.not.ok(existsSync(join(project, '.husky')));
    assert.match(readFileSync(join(project, '.git', 'hooks', 'pre-commit'), 'utf8'), /^node_modules\/\.bin\/receipt-gate pre-commit$/m);
    const add = commitAsPrinted(r.stdout, project, env);
    for (const path of ['package.json', 'package-lock.json', basename(tarball), '.gitignore']) assert.ok(add.split(' ').includes(path), `git add names ${path}: ${add}`);
    assertHookRefusesFreezeEdit(project, env);

    // Asked for: husky and lint-staged are planned (--no-install: nothing is downloaded).
    mkdirSync(join(dir, 'other'));
    const other = freshProject(join(dir, 'other'), { 'pyproject.toml': '[project]\nname = "x"\n', 'package.json': before }, env);
    const asked = sh('receipt-gate init --husky --no-install', other, { ...env, PATH: `${join(project, 'node_modules', '.bin')}:${env.PATH}` });
    assert.match(asked.stdout, /hook manager: no hook manager yet: husky 9 and lint-staged/, asked.stdout + asked.stderr);
    assert.ok(existsSync(join(other, '.husky', 'pre-commit')));
  } finally {
    cleanupTempDirs();
  }
});

test.run();
