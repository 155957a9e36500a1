// `receipt-gate init` in existing projects: merges, never clobbers, and a second run changes
// nothing; the starter files pass the gate's own rules; the shipped hook shims run what init
// writes into .husky/.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { mergeHook, mergePackageJson } from '../../src/client/init';
import { HUSKY_PRE_COMMIT, HUSKY_PRE_PUSH, PRE_COMMIT_COMMAND, PRE_PUSH_COMMAND } from '../../src/client/templates';
import { parsePolicy } from '../../src/evidence/policy';
import { LocalRepo } from './local';
import { REPO_ROOT } from './harness';

const snapshot = (repo: LocalRepo, paths: string[]) => paths.map((p) => `${p}\n${repo.read(p)}`).join('\n---\n');

test('init merges into an existing package.json and husky hook, keeps everything, and is idempotent', async () => {
  const repo = new LocalRepo('init-merge');
  try {
    const pkg = {
      name: 'shop',
      version: '2.0.0',
      scripts: { prepare: 'tsc -p .', test: 'jest' },
      'lint-staged': { '*.js': 'eslint --fix' },
      devDependencies: { husky: '^9.0.0' },
    };
    repo.write('package.json', `${JSON.stringify(pkg, null, 4)}\n`);
    repo.write('.husky/pre-commit', 'npm test\n');
    const first = await repo.cli(['init', '--owner', 'alice', '--owner', 'alice@example.com']);
    assert.is(first.code, 0, first.stderr);
    assert.match(first.stdout, /\.\/install\.sh --server/);

    const merged = JSON.parse(repo.read('package.json'));
    assert.is(merged.name, 'shop');
    assert.is(merged.scripts.test, 'jest');
    assert.is(merged.scripts.prepare, 'tsc -p . && husky');
    assert.is(merged['lint-staged']['*.js'], 'eslint --fix');
    assert.ok(Object.values(merged['lint-staged']).includes('receipt-gate check'));
    assert.is(merged.devDependencies.husky, '^9.0.0', 'an existing husky is kept');
    assert.is(merged.devDependencies['lint-staged'], '15.5.2');
    assert.match(repo.read('package.json'), /^\{\n {4}"name"/, 'indentation kept');
    assert.is(repo.read('.husky/pre-commit'), 'npm test\nlint-staged\nreceipt-gate pre-commit\n');
    assert.is(repo.read('.husky/pre-push'), HUSKY_PRE_PUSH);

    const files = ['package.json', '.husky/pre-commit', '.husky/pre-push', '.receipt-gate.json', 'freeze.json'];
    const before = snapshot(repo, files);
    const second = await repo.cli(['init', '--owner', 'someone-else']);
    assert.is(second.code, 0, second.stderr);
    assert.match(second.stdout, /nothing to change/);
    assert.is(snapshot(repo, files), before, 'a second run changes nothing');
    assert.equal((repo.json('.receipt-gate.json') as { owners: string[] }).owners, ['alice', 'alice@example.com']);
  } finally {
    repo.remove();
  }
});

test('the starter policy and evidence pass the gate; runner and workflow files are protected', async () => {
  const repo = new LocalRepo('init-starter');
  try {
    const r = await repo.cli(['init']);
    assert.is(r.code, 0, r.stderr);
    const parsed = parsePolicy(readFileSync(join(repo.dir, '.receipt-gate.json')));
    assert.ok(parsed.ok);
    if (!parsed.ok) return;
    assert.equal(parsed.policy.owners, ['alice@example.com'], 'owner defaults to git config user.email');
    for (const glob of ['.github/workflows/**', '.husky/**', '.gitattributes', '**/.gitattributes', '.gitmodules', 'conftest.py', '**/conftest.py', 'pytest.ini', 'jest.config.*', 'vitest.config.*', 'fixtures/**', 'freeze.json']) {
      assert.ok(parsed.policy.protected.includes(glob), glob);
    }
    const check = await repo.cli(['check', join(repo.dir, '.receipt-gate.json'), join(repo.dir, 'freeze.json')]);
    assert.is(check.code, 0, check.stderr + check.stdout);
    assert.ok(statSync(join(repo.dir, '.husky/pre-commit')).mode & 0o100);
  } finally {
    repo.remove();
  }
});

test('init never overwrites: an invalid policy is reported and kept; a separate lint-staged config is left alone', async () => {
  const repo = new LocalRepo('init-keep');
  try {
    repo.write('.receipt-gate.json', '{"version": 1, "owners": "alice"}\n');
    const r = await repo.cli(['init']);
    assert.is(r.code, 1);
    assert.match(r.stderr, /POLICY_INVALID/);
    assert.match(r.stderr, /\/owners/);
    assert.is(repo.read('.receipt-gate.json'), '{"version": 1, "owners": "alice"}\n');

    repo.write('.receipt-gate.json', '{"version": 1, "owners": ["alice"]}\n');
    repo.write('.lintstagedrc.json', '{"*.ts": "tsc"}\n');
    repo.write('package.json', '{"name": "x"}\n');
    const ok = await repo.cli(['init']);
    assert.is(ok.code, 0, ok.stderr);
    assert.is(repo.read('.lintstagedrc.json'), '{"*.ts": "tsc"}\n');
    assert.is(JSON.parse(repo.read('package.json'))['lint-staged'], undefined);
    assert.match(ok.stdout, /lint-staged is configured in \.lintstagedrc\.json/);
  } finally {
    repo.remove();
  }
});

test('init without an owner to name is a usage error', async () => {
  const repo = new LocalRepo('init-owner', null);
  try {
    const r = await repo.cli(['init']);
    assert.is(r.code, 2);
    assert.match(r.stderr, /--owner NAME/);
  } finally {
    repo.remove();
  }
});

test('hook merging recognises the commands however they are written', () => {
  assert.equal(mergeHook('npx lint-staged\nnpx receipt-gate pre-commit\n', ['lint-staged', PRE_COMMIT_COMMAND], 'f').text, null);
  assert.equal(mergeHook('# receipt-gate pre-commit\n', [PRE_COMMIT_COMMAND], 'f').text, '# receipt-gate pre-commit\nreceipt-gate pre-commit\n');
  assert.equal(mergeHook('receipt-gate pre-commit', [PRE_PUSH_COMMAND], 'f').text, `receipt-gate pre-commit\n${PRE_PUSH_COMMAND}\n`);
  assert.equal(mergeHook('npm test\nexit 0\n', [PRE_COMMIT_COMMAND], 'f').text, 'npm test\nreceipt-gate pre-commit\nexit 0\n');
  assert.equal(mergeHook('exec npx other\n', [PRE_COMMIT_COMMAND], 'f').text, 'receipt-gate pre-commit\nexec npx other\n');
  const pkg = mergePackageJson('{"scripts": {"prepare": "husky"}, "lint-staged": {"x": ["a", "receipt-gate check"]}, "devDependencies": {"husky": "1", "lint-staged": "1", "receipt-gate": "1"}}', {
    glob: 'g',
    name: 'n',
    otherLintStagedConfig: null,
    selfVersion: '1',
  });
  assert.is(pkg.text, null);
  assert.throws(() => mergePackageJson('[]', { glob: 'g', name: 'n', otherLintStagedConfig: null, selfVersion: '1' }), /not a JSON object/);
});

test('the shipped shims (hooks/) run the commands init writes into .husky/', () => {
  const preCommit = readFileSync(join(REPO_ROOT, 'hooks/pre-commit'), 'utf8').trimEnd().split('\n');
  const prePush = readFileSync(join(REPO_ROOT, 'hooks/pre-push'), 'utf8').trimEnd().split('\n');
  assert.equal(preCommit, ['#!/usr/bin/env sh', PRE_COMMIT_COMMAND]);
  assert.equal(prePush, ['#!/usr/bin/env sh', PRE_PUSH_COMMAND]);
  assert.ok(HUSKY_PRE_COMMIT.split('\n').includes(PRE_COMMIT_COMMAND));
  assert.ok(HUSKY_PRE_PUSH.split('\n').includes(PRE_PUSH_COMMAND));
});

test.run();
