// A Python project adopts the gate the way the articles lay it out, with no fixtures/ yet:
// `receipt-gate init` (the built CLI, on PATH as the hooks call it) protects the evidence
// layout and the Python test configuration before those files exist; the owner adds the first
// fixture; an agent's edit of it, of pyproject.toml and a new conftest.py are refused by the
// pre-commit hook and, pushed past the client hooks, by the server hook installed in a bare
// repository (a real `git push`).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, gitResult, gitValue, initRepo, tempDir, writeFiles } from '../helpers/git';
import { assertRejected, baseEnv, CLI, ensureBuilt, installHook, push, refOid } from '../server/helpers';

test.after(cleanupTempDirs);

test('init in a Python project guards fixtures/**, properties/**, checks/**, pyproject.toml and conftest.py before they exist; a non-owner\'s edit of the first fixture is refused by the hooks and by the server', () => {
  ensureBuilt();
  const root = tempDir('init-python');
  for (const dir of ['server.git', 'alloc']) mkdirSync(join(root, dir));
  const bare = initRepo({ dir: join(root, 'server.git'), bare: true });
  installHook(bare);
  const bin = join(root, 'bin');
  writeFiles(root, { 'bin/receipt-gate': `#!/bin/sh\nexec "${process.execPath}" "${CLI}" "$@"\n` });
  chmodSync(join(bin, 'receipt-gate'), 0o755);
  const env = baseEnv({ PATH: `${bin}:${process.env.PATH}` });
  const work = initRepo({ dir: join(root, 'alloc') });
  gitValue(work, ['config', 'user.email', 'owner@example.com']);
  gitValue(work, ['remote', 'add', 'origin', `file://${bare}`]);
  const run = (args: string[], extra: Record<string, string> = {}) => gitResult(work, args, { env: { ...env, ...extra } });

  // The articles' Python layout, before any evidence: no fixtures/, properties/ or checks/.
  writeFiles(work, {
    'pyproject.toml': '[project]\nname = "alloc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests", "properties"]\n',
    'src/alloc/__init__.py': 'from .allocate import allocate\n',
    'src/alloc/allocate.py': 'def allocate(total, weights, seed):\n    return [total * w // sum(weights) for w in weights]\n',
    'tests/test_allocate.py': 'from alloc import allocate\n\ndef test_sum():\n    assert sum(allocate(100, [1, 1], 1)) <= 100\n',
  });
  const init = node(work, [CLI, 'init', '--owner', 'alice', '--owner', 'owner@example.com'], env);
  assert.is(init.status, 0, init.stderr);
  const policy = JSON.parse(readFileSync(join(work, '.receipt-gate.json'), 'utf8')) as { protected: string[] };
  for (const glob of ['fixtures/**', 'properties/**', 'checks/**', 'freezes/**', 'observations/**', 'tools/patch_receipt.py', 'pyproject.toml', 'setup.cfg', 'tox.ini', 'noxfile.py', 'pytest.ini', 'conftest.py', '**/conftest.py']) {
    assert.ok(policy.protected.includes(glob), `${glob} in ${JSON.stringify(policy.protected)}`);
  }
  assert.not.ok(policy.protected.includes('jest.config.*'), 'no JavaScript: no Jest guard');
  assert.not.ok(policy.protected.includes('vitest.config.*'), 'no JavaScript: no Vitest guard');
  assert.not.ok(existsSync(join(work, 'package.json')), 'a Python project keeps no package.json');
  assert.match(init.stdout, /protected "fixtures\/\*\*": nothing there yet: fixtures, their generator and the epoch pin; protected before it exists/);

  // The owner commits the policy (the plain git hooks run the gate) and pushes it.
  run(['add', '-A']);
  const guard = run(['commit', '-q', '-m', 'Guard evidence with receipt-gate']);
  assert.is(guard.status, 0, guard.stderr + guard.stdout);
  const first = push(work, ['origin', 'main'], { REMOTE_USER: 'alice', PATH: env.PATH! });
  assert.is(first.status, 0, first.stderr);

  // The owner adds the first fixture, under the guard written before it existed.
  writeFiles(work, { 'fixtures/orders/base.csv': 'id,total\n1,100\n2,250\n' });
  run(['add', '-A']);
  const fixture = run(['commit', '-q', '-m', 'First fixture']);
  assert.is(fixture.status, 0, fixture.stderr + fixture.stdout);
  const second = push(work, ['origin', 'main'], { REMOTE_USER: 'alice', PATH: env.PATH! });
  assert.is(second.status, 0, second.stderr);
  const accepted = refOid(bare, 'refs/heads/main');

  // An agent edits the fixture, switches a test path off in pyproject.toml and adds a conftest.py.
  const agent = { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.email', GIT_CONFIG_VALUE_0: 'agent@example.com' };
  writeFiles(work, {
    'fixtures/orders/base.csv': 'id,total\n1,100\n2,999\n',
    'pyproject.toml': '[project]\nname = "alloc"\nversion = "0.1.0"\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    'tests/conftest.py': 'collect_ignore = ["test_allocate.py"]\n',
  });
  run(['add', '-A'], agent);
  const refused = run(['commit', '-q', '-m', 'Fix the fixture'], agent);
  assert.is.not(refused.status, 0, 'the pre-commit hook refuses the commit');
  assert.match(refused.stderr + refused.stdout, /PATH_PROTECTED/);
  const skipped = run(['commit', '-q', '--no-verify', '-m', 'Fix the fixture'], agent);
  assert.is(skipped.status, 0, skipped.stderr);
  const pushed = push(work, ['--no-verify', 'origin', 'HEAD:main'], { REMOTE_USER: 'bob', PATH: env.PATH! });
  assertRejected(pushed, 'PATH_PROTECTED', 'fixtures/orders/base.csv');
  assertRejected(pushed, 'PATH_PROTECTED', 'pyproject.toml');
  assertRejected(pushed, 'PATH_PROTECTED', 'tests/conftest.py');
  assert.is(refOid(bare, 'refs/heads/main'), accepted, 'the server keeps the owner\'s main');
});

/** Runs `node ARGS` in `cwd` with `env`: status and output. */
function node(cwd: string, args: string[], env: NodeJS.ProcessEnv): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(process.execPath, args, { cwd, env, encoding: 'utf8' });
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

test.run();
