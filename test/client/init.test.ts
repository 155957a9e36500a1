// `receipt-gate init` in existing projects: merges, never clobbers, and a second run changes
// nothing; the starter files pass the gate's own rules; the shipped hook shims run what init
// writes into .husky/.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { mergeHook, mergePackageJson, runsLintStaged } from '../../src/client/init';
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
    assert.match(merged.devDependencies['receipt-gate'], /^\d+\.\d+\.\d+(-[\w.]+)?$/, 'receipt-gate is pinned exactly');
    assert.match(repo.read('package.json'), /^\{\n {4}"name"/, 'indentation kept');
    assert.is(repo.read('.husky/pre-commit'), 'receipt-gate pre-commit\nlint-staged\nnpm test\n', 'the gate goes before the slow steps');
    assert.is(repo.read('.husky/pre-push'), HUSKY_PRE_PUSH);

    const files = ['package.json', '.husky/pre-commit', '.husky/pre-push', '.receipt-gate.json', 'freeze.json'];
    const before = snapshot(repo, files);
    const second = await repo.cli(['init', '--owner', 'alice']);
    assert.is(second.code, 0, second.stderr);
    assert.match(second.stdout, /nothing to change/);
    assert.is(snapshot(repo, files), before, 'a second run changes nothing');
    assert.equal((repo.json('.receipt-gate.json') as { owners: string[] }).owners, ['alice', 'alice@example.com']);

    // --owner on an existing policy adds the owner, in the file's own layout, when an owner asks.
    const policyBefore = repo.read('.receipt-gate.json');
    const added = await repo.cli(['init', '--owner', 'bob']);
    assert.is(added.code, 0, added.stderr);
    assert.match(added.stdout, /added bob to the owners/);
    assert.is(repo.read('.receipt-gate.json'), policyBefore.replace('"alice@example.com"\n', '"alice@example.com",\n    "bob"\n'));
    const refused = await repo.cli(['init', '--owner', 'mallory'], { GIT_CONFIG_PARAMETERS: "'user.email=agent@example.com'" });
    assert.is(refused.code, 1);
    assert.match(refused.stderr, /not adding mallory .*only an owner \(alice, alice@example\.com, bob\) may change the policy, and you are agent@example\.com/);
    assert.ok(!repo.read('.receipt-gate.json').includes('mallory'));
  } finally {
    repo.remove();
  }
});

/** The guard globs every project gets, in the order init writes them (src/client/layout.ts). */
const EVERY_PROJECT = [
  'properties/**',
  'fixtures/**',
  'checks/**',
  'freeze.json',
  'freezes/**',
  'observations/**',
  '.receipt-gate.json',
  'tools/patch_receipt.py',
  '.github/workflows/**',
  '.gitlab-ci.yml',
  '.gitlab/**',
  '.husky/**',
  '.pre-commit-config.yaml',
  'lefthook.yml',
  '.lefthook.yml',
  'lefthook.yaml',
  '.lefthook.yaml',
  'CODEOWNERS',
  '.github/CODEOWNERS',
  'docs/CODEOWNERS',
  '.gitea/CODEOWNERS',
  '.gitattributes',
  '**/.gitattributes',
  '.gitmodules',
];
/** Python projects' configuration (where there is Python), then what pytest reads by name alone
 * (every project). */
const PYTHON = ['pyproject.toml', 'setup.cfg', 'tox.ini', 'noxfile.py'];
const PYTEST = ['pytest.ini', 'conftest.py', '**/conftest.py'];
const JAVASCRIPT = ['jest.config.*', 'vitest.config.*'];

// Expectation changed with issue 31: init used to write only globs that matched a path (an empty
// project got "protected": []); it now protects the evidence layout, the gate's runner, CI and
// hook files before they exist.
test('the starter policy and evidence pass the gate; an empty project gets the evidence layout, runner, CI and hook guards before they exist, and check reads none as a typo', async () => {
  const repo = new LocalRepo('init-starter');
  try {
    const r = await repo.cli(['init']);
    assert.is(r.code, 0, r.stderr);
    const parsed = parsePolicy(readFileSync(join(repo.dir, '.receipt-gate.json')));
    assert.ok(parsed.ok);
    if (!parsed.ok) return;
    assert.equal(parsed.policy.owners, ['alice@example.com'], 'owner defaults to git config user.email');
    // No Python and no JavaScript: only what pytest reads by name alone (conftest.py, pytest.ini).
    assert.equal(parsed.policy.protected, [...EVERY_PROJECT, ...PYTEST]);
    assert.equal(parsed.policy.exceptions, []);
    assert.match(r.stdout, /\n {6}protected "fixtures\/\*\*": nothing there yet: fixtures, their generator and the epoch pin; protected before it exists\n/);
    assert.match(r.stdout, /\n {6}protected "freeze\.json": the freeze file \(freeze\.json\)\n/, 'the freeze file init writes counts as there');
    assert.not.match(r.stdout, /not protected/);
    const check = await repo.cli(['check', join(repo.dir, '.receipt-gate.json'), join(repo.dir, 'freeze.json')]);
    assert.is(check.code, 0, check.stderr + check.stdout);
    // Committed, none of init's own globs reads as a typo.
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'guard', '--no-verify'); // the hook's command is not on PATH here
    const after = await repo.cli(['check', join(repo.dir, '.receipt-gate.json')]);
    assert.is(after.code, 0, after.stderr + after.stdout);
    assert.not.match(after.stderr + after.stdout, /matches no path/);
    // No package.json: plain git hooks, and still no package.json.
    assert.ok(statSync(join(repo.dir, '.git/hooks/pre-commit')).mode & 0o100);
    assert.is(repo.read('.git/hooks/pre-push'), '#!/bin/sh\nreceipt-gate pre-push "$@"\n');
    assert.throws(() => repo.read('package.json'));
  } finally {
    repo.remove();
  }
});

// Expectation changed with issue 31: --guard-absent is now the default (still accepted);
// --no-guard-absent gives the former default, the absent guards printed and not written.
test('init --no-guard-absent writes only the guards something matches and prints the others; --guard-absent is the default', async () => {
  const repo = new LocalRepo('init-no-guard-absent');
  try {
    repo.write('pyproject.toml', '[project]\nname = "alloc"\n');
    const r = await repo.cli(['init', '--no-guard-absent']);
    assert.is(r.code, 0, r.stderr);
    const parsed = parsePolicy(readFileSync(join(repo.dir, '.receipt-gate.json')));
    assert.ok(parsed.ok);
    if (!parsed.ok) return;
    assert.equal(parsed.policy.protected, ['freeze.json', '.receipt-gate.json', 'pyproject.toml']);
    assert.match(r.stdout, /not protected \(--no-guard-absent\), because nothing matches them yet; add them to "protected" when the files arrive \(check never reports a guard glob as a typo\):/);
    assert.match(r.stdout, /\n {6}"conftest\.py": nothing there yet: a conftest\.py could skip tests\n/);
    assert.match(r.stdout, /\n {6}"fixtures\/\*\*": nothing there yet: fixtures, their generator and the epoch pin\n/);
    assert.not.match(r.stdout, /"jest\.config\.\*"/, 'no JavaScript: no Jest guard offered');
    const help = await repo.cli(['init', '--help']);
    assert.is(help.code, 0);
    assert.match(help.stdout, /\n {2}--no-guard-absent {3}write only the guard globs something matches; print the absent ones/);

    const again = new LocalRepo('init-guard-absent');
    try {
      again.write('pyproject.toml', '[project]\nname = "alloc"\n');
      const g = await again.cli(['init', '--guard-absent']);
      assert.is(g.code, 0, g.stderr);
      assert.equal((again.json('.receipt-gate.json') as { protected: string[] }).protected, [...EVERY_PROJECT, ...PYTHON, ...PYTEST]);
    } finally {
      again.remove();
    }
  } finally {
    repo.remove();
  }
});

// Expectation changed with issue 31: the guard globs (evidence layout, runner, CI, hooks, and
// the Python and JavaScript test configuration, both languages being present) are written
// whether or not they match; the former list held only globs that matched.
test('the starter policy comes from the project\'s layout and the guards of its languages: each glob printed with its reason, and check warns of none', async () => {
  const repo = new LocalRepo('init-layout');
  try {
    const files: Record<string, string> = {
      'package.json': '{"name": "shop", "devDependencies": {"husky": "9.1.7", "lint-staged": "15.5.2"}}\n',
      '.gitignore': 'node_modules\n',
      'src/app.js': 'x\n',
      'test/integration/__fixtures__/orders.json': '{}\n',
      'test/integration/__fixtures__/README.md': 'notes\n',
      'lib/__tests__/__fixtures__/a.txt': 'a\n',
      'test/__snapshots__/app.test.js.snap': 'exports[1] = 1;\n',
      'pkg/parse/testdata/bad.input': 'x\n',
      'web/golden.svg.golden': '<svg/>\n',
      '.github/workflows/ci.yml': 'on: push\n',
      '.circleci/config.yml': 'version: 2.1\n',
      'jest.config.js': 'module.exports = {};\n',
      'conftest.py': '\n',
      'tests/unit/conftest.py': '\n',
      '.gitattributes': '* text=auto\n',
    };
    for (const [p, t] of Object.entries(files)) repo.write(p, t);
    repo.write('node_modules/x/fixtures/ignored.json', '{}\n');
    const r = await repo.cli(['init', '--owner', 'alice@example.com', '--no-install']);
    assert.is(r.code, 0, r.stderr);
    const policy = repo.json('.receipt-gate.json') as { protected: string[]; exceptions: string[] };
    assert.equal(policy.protected, [
      '**/__fixtures__/**',
      '**/testdata/**',
      '**/__snapshots__/**',
      '**/*.golden',
      ...EVERY_PROJECT,
      ...PYTHON,
      ...PYTEST,
      ...JAVASCRIPT,
      '.circleci/**',
    ]);
    assert.equal(policy.exceptions, ['**/__fixtures__/**/*.md']);
    assert.match(r.stdout, /protected "\*\*\/__fixtures__\/\*\*": 3 files in 2 __fixtures__\/ folders \(lib\/__tests__\/__fixtures__\/, test\/integration\/__fixtures__\/\)/);
    assert.match(r.stdout, /protected "\*\*\/testdata\/\*\*": 1 file in 1 testdata\/ folder \(pkg\/parse\/testdata\/\)/);
    assert.match(r.stdout, /protected "jest\.config\.\*": the Jest configuration could skip tests \(jest\.config\.js\)/);
    assert.match(r.stdout, /protected "vitest\.config\.\*": nothing there yet: the Vitest configuration could skip tests; protected before it exists/);
    assert.match(r.stdout, /protected "\.husky\/\*\*": husky hooks \(\.husky\/pre-commit, \.husky\/pre-push\)/);
    assert.match(r.stdout, /protected "\.circleci\/\*\*": the CircleCI configuration \(\.circleci\/config\.yml\)/);
    assert.not.match(r.stdout, /node_modules/);
    assert.not.match(r.stdout, /not protected/);
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'guard', '--no-verify');
    const check = await repo.cli(['check', join(repo.dir, '.receipt-gate.json')]);
    assert.is(check.code, 0, check.stderr + check.stdout);
    assert.not.match(check.stderr, /warning/, 'every starter glob matches a path or is a guard');
  } finally {
    repo.remove();
  }
});

test('a Node project gets the Jest and Vitest guards and not the Python project files; a Python-only project gets pyproject.toml, setup.cfg, tox.ini, noxfile.py and no Jest or Vitest guard; conftest.py and pytest.ini are guarded in both', async () => {
  const node = new LocalRepo('init-node');
  try {
    node.write('package.json', '{"name": "shop"}\n');
    node.write('src/index.ts', 'export const x = 1;\n');
    const r = await node.cli(['init', '--no-install']);
    assert.is(r.code, 0, r.stderr);
    const globs = (node.json('.receipt-gate.json') as { protected: string[] }).protected;
    assert.equal(globs, [...EVERY_PROJECT, ...PYTEST, ...JAVASCRIPT]);
    assert.match(r.stdout, /protected "jest\.config\.\*": nothing there yet: the Jest configuration could skip tests; protected before it exists/);
  } finally {
    node.remove();
  }
  const python = new LocalRepo('init-python-only');
  try {
    python.write('setup.cfg', '[metadata]\nname = alloc\n');
    python.write('src/alloc/allocate.py', 'def allocate():\n    pass\n');
    python.write('tests/test_allocate.py', 'def test_x():\n    pass\n');
    const r = await python.cli(['init']);
    assert.is(r.code, 0, r.stderr);
    const globs = (python.json('.receipt-gate.json') as { protected: string[] }).protected;
    assert.equal(globs, [...EVERY_PROJECT, ...PYTHON, ...PYTEST]);
    assert.match(r.stdout, /protected "setup\.cfg": pytest configuration \(\[tool:pytest\]\) \(setup\.cfg\)/);
    assert.match(r.stdout, /protected "pyproject\.toml": nothing there yet: pytest, coverage and build configuration/);
    assert.not.match(r.stdout, /jest|vitest/i);
  } finally {
    python.remove();
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

test('hook merging recognises the commands however they are written, and goes before the first command', () => {
  assert.equal(mergeHook('npx lint-staged\nnpx receipt-gate pre-commit\n', ['lint-staged', PRE_COMMIT_COMMAND], 'f').text, null);
  for (const launcher of ['pnpm lint-staged', 'pnpm exec lint-staged', 'yarn lint-staged', 'npx --no lint-staged', 'node_modules/.bin/lint-staged', 'npm exec -- lint-staged', 'bunx lint-staged', 'npx lint-staged && npm test']) {
    assert.equal(mergeHook(`${launcher}\n`, ['lint-staged'], 'f').text, null, launcher);
  }
  assert.equal(mergeHook('npx lint-staged-extra\n', ['lint-staged'], 'f').text, 'lint-staged\nnpx lint-staged-extra\n');
  assert.equal(mergeHook('# receipt-gate pre-commit\n', [PRE_COMMIT_COMMAND], 'f').text, '# receipt-gate pre-commit\nreceipt-gate pre-commit\n');
  assert.equal(mergeHook('receipt-gate pre-commit', [PRE_PUSH_COMMAND], 'f').text, `${PRE_PUSH_COMMAND}\nreceipt-gate pre-commit`);
  assert.equal(mergeHook('npm test\nexit 0\n', [PRE_COMMIT_COMMAND], 'f').text, 'receipt-gate pre-commit\nnpm test\nexit 0\n');
  assert.equal(mergeHook('exec npx other\n', [PRE_COMMIT_COMMAND], 'f').text, 'receipt-gate pre-commit\nexec npx other\n');
  assert.equal(
    mergeHook('#!/bin/sh\n. "$(dirname "$0")/_/husky.sh"\n\nnpx lint-staged\n', ['node_modules/.bin/receipt-gate pre-commit', 'node_modules/.bin/lint-staged'], 'f').text,
    '#!/bin/sh\n. "$(dirname "$0")/_/husky.sh"\n\nnode_modules/.bin/receipt-gate pre-commit\nnpx lint-staged\n',
  );
  assert.equal(mergeHook('#!/bin/sh\nset -e\nFOO=1\n', [PRE_COMMIT_COMMAND], 'f').text, '#!/bin/sh\nset -e\nFOO=1\nreceipt-gate pre-commit\n');
  const opts = { glob: 'g', otherLintStagedConfig: null, prepare: 'husky' as const, devDependencies: [['husky', '1'], ['lint-staged', '1'], ['receipt-gate', '1']] as [string, string][] };
  const pkg = mergePackageJson('{"scripts": {"prepare": "husky"}, "lint-staged": {"x": ["a", "receipt-gate check"]}, "devDependencies": {"husky": "1", "lint-staged": "1", "receipt-gate": "1"}}', opts);
  assert.is(pkg.text, null);
  assert.throws(() => mergePackageJson('[]', opts), /not a JSON object/);
  // husky 5-8 print their usage for a bare `husky` and install nothing.
  const legacy = mergePackageJson('{"scripts": {"prepare": "husky"}}', { ...opts, prepare: 'husky install' });
  assert.is(JSON.parse(legacy.text!).scripts.prepare, 'husky install');
  assert.is(mergePackageJson(legacy.text!, { ...opts, prepare: 'husky install' }).notes.filter((n) => /prepare/.test(n)).length, 0);
});

test('lint-staged is recognised however it is invoked: npx, node bin/lint-staged.js, a path, a package script', () => {
  for (const line of ['lint-staged', 'npx lint-staged', 'node bin/lint-staged.js', 'node ./bin/lint-staged.js --debug', 'node --no-warnings node_modules/lint-staged/bin/lint-staged.js', './node_modules/.bin/lint-staged', 'exec node bin/lint-staged.mjs']) {
    assert.ok(runsLintStaged(line), line);
  }
  const scripts = { precommit: 'lint-staged --concurrent false', 'pre-commit': 'npm run precommit', lint: 'eslint .' };
  for (const line of ['npm run precommit', 'npm run pre-commit', 'yarn precommit', 'pnpm run precommit', 'npm run lint && npm run precommit']) {
    assert.ok(runsLintStaged(line, scripts), line);
  }
  for (const line of ['npm run lint', 'npx lint-staged-extra', 'node bin/lint.js', '# lint-staged', 'npm test']) {
    assert.not.ok(runsLintStaged(line, scripts), line);
  }
  // A script that runs itself is not followed forever.
  assert.not.ok(runsLintStaged('npm run a', { a: 'npm run b', b: 'npm run a' }));
});

test("lint-staged's own repository: `node bin/lint-staged.js` is its lint-staged run; no second run, no dependency on itself; the config file's entry is seen", async () => {
  const repo = new LocalRepo('init-lint-staged-repo');
  try {
    repo.write('package.json', `${JSON.stringify({ name: 'lint-staged', version: '16.0.0', bin: 'bin/lint-staged.js', scripts: { prepare: 'husky' }, devDependencies: { husky: '9.1.7' } }, null, 2)}\n`);
    repo.write('.husky/pre-commit', 'node bin/lint-staged.js\n');
    repo.write('lint-staged.config.js', "export default { '*.js': 'eslint --fix', '{.receipt-gate.json,freeze.json,fixtures/**,checks/**,observations/**,freezes/**}': 'receipt-gate check' }\n");
    const first = await repo.cli(['init', '--owner', 'alice@example.com']);
    assert.is(first.code, 0, first.stderr);
    assert.is(repo.read('.husky/pre-commit'), 'receipt-gate pre-commit\nnode bin/lint-staged.js\n');
    const pkg = JSON.parse(repo.read('package.json'));
    assert.is(pkg.devDependencies['lint-staged'], undefined, 'no dependency on lint-staged');
    assert.is(pkg['lint-staged'], undefined);
    assert.not.match(first.stdout, /add ".*": "receipt-gate check" there yourself/, 'the entry is in lint-staged.config.js already');
    const again = await repo.cli(['init', '--owner', 'alice@example.com']);
    assert.match(again.stdout, /nothing to change/);
    assert.not.match(again.stdout, /there yourself/);
  } finally {
    repo.remove();
  }
});

test('a lint-staged run through a package script counts; what the owner removed is never re-added; --no-lint-staged says so', async () => {
  const repo = new LocalRepo('init-lint-staged-removed');
  try {
    repo.write('package.json', `${JSON.stringify({ name: 'shop', scripts: { precommit: 'lint-staged' }, devDependencies: { husky: '9.1.7', 'lint-staged': '15.5.2' } }, null, 2)}\n`);
    repo.write('.husky/pre-commit', 'npm run precommit\n');
    const first = await repo.cli(['init', '--owner', 'alice@example.com']);
    assert.is(first.code, 0, first.stderr);
    assert.is(repo.read('.husky/pre-commit'), 'receipt-gate pre-commit\nnpm run precommit\n', 'no second lint-staged');

    // The owner takes lint-staged out of the hook and the project; a later init adds an owner.
    repo.write('.husky/pre-commit', 'receipt-gate pre-commit\n');
    const pkg = JSON.parse(repo.read('package.json'));
    delete pkg.devDependencies['lint-staged'];
    delete pkg['lint-staged'];
    delete pkg.scripts.precommit;
    repo.write('package.json', `${JSON.stringify(pkg, null, 2)}\n`);
    const before = repo.read('package.json');
    const carol = await repo.cli(['init', '--owner', 'carol']);
    assert.is(carol.code, 0, carol.stderr);
    assert.match(carol.stdout, /added carol to the owners/);
    assert.is(repo.read('.husky/pre-commit'), 'receipt-gate pre-commit\n', 'lint-staged is not re-added');
    assert.is(repo.read('package.json'), before, 'nor its dependency or entry');
    assert.match(carol.stdout, /lint-staged not added: \.husky\/pre-commit already runs the gate without it/);
  } finally {
    repo.remove();
  }

  const fresh = new LocalRepo('init-no-lint-staged');
  try {
    fresh.write('package.json', '{"name": "x"}\n');
    const r = await fresh.cli(['init', '--owner', 'alice@example.com', '--no-lint-staged']);
    assert.is(r.code, 0, r.stderr);
    assert.is(fresh.read('.husky/pre-commit'), 'receipt-gate pre-commit\n');
    const pkg = JSON.parse(fresh.read('package.json'));
    assert.equal([pkg.devDependencies['lint-staged'], pkg['lint-staged']], [undefined, undefined]);
    assert.match(r.stdout, /--no-lint-staged: no lint-staged line, dependency or entry added; 'receipt-gate pre-commit' gates the commit alone/);
    // Not installed yet (no node_modules): the one command to run comes first.
    assert.match(r.stdout, /run 'npm install' before the next commit: package.json names husky@9\.1\.7, receipt-gate@/);
    assert.match(r.stdout, /0\. before anything else, install what package\.json now names: npm install/);
  } finally {
    fresh.remove();
  }
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
