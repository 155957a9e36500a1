// husky 6 in a project that has no lint-staged: init adds `node_modules/.bin/lint-staged` to
// .husky/pre-commit and lint-staged to devDependencies, so it installs it (npm install, from
// the npm cache) before anything runs the hooks, and the very next commit goes through with no
// step done by hand. With --no-install it stops with the one command to run instead.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, lstatSync } from 'node:fs';
import { join } from 'node:path';
import { installedWith, OWNER_EMAIL, packedTarball, Sandbox } from './harness';

const HUSKY6_PRE_COMMIT = '#!/bin/sh\n. "$(dirname "$0")/_/husky.sh"\n\necho the project checks\n';

function ownerClone(sandbox: Sandbox, name: string): string {
  const owner = sandbox.clone(name, OWNER_EMAIL, () => undefined);
  // The project names receipt-gate by the packed tarball (absolute, so any clone installs it)
  // and husky 6; it has never heard of lint-staged.
  sandbox.write(owner, 'package.json', `${JSON.stringify({ name: 'legacy-app', version: '1.0.0', private: true, devDependencies: { husky: '6.0.0', 'receipt-gate': `file:${packedTarball().tarball}` } }, null, 2)}\n`);
  sandbox.write(owner, '.gitignore', 'node_modules\n');
  sandbox.write(owner, 'src/app.js', 'module.exports = 1;\n');
  sandbox.write(owner, '.husky/pre-commit', HUSKY6_PRE_COMMIT);
  chmodSync(join(owner, '.husky/pre-commit'), 0o755);
  const r = sandbox.run(join(owner, 'node_modules', '.bin', 'husky'), ['install'], owner);
  assert.is(r.status, 0, r.stderr + r.stdout);
  assert.not.ok(existsSync(join(owner, 'node_modules', 'lint-staged')), 'lint-staged is not installed');
  return owner;
}

const sandbox = new Sandbox('husky6-install', installedWith('husky6-without-lint-staged', ['husky@6.0.0']));
sandbox.installServerHook();

test('husky 6 without lint-staged: init adds it, installs it, and the very next commit passes through the hooks', () => {
  const owner = ownerClone(sandbox, 'owner');
  const init = sandbox.receiptGate(owner, ['init', '--owner', OWNER_EMAIL]);
  assert.is(init.status, 0, init.stderr + init.stdout);
  assert.match(sandbox.read(owner, '.husky/pre-commit'), /node_modules\/\.bin\/lint-staged/);
  assert.is(JSON.parse(sandbox.read(owner, 'package.json')).devDependencies['lint-staged'], '15.5.2');
  assert.match(init.stdout, /ran 'npm install': lint-staged@15\.5\.2 installed/, init.stdout);
  assert.ok(existsSync(join(owner, 'node_modules', '.bin', 'lint-staged')));
  assert.not.ok(lstatSync(join(owner, 'node_modules')).isSymbolicLink(), 'npm installed into the project');

  sandbox.git(owner, 'add', '-A');
  const commit = sandbox.commit(owner, 'Guard evidence with receipt-gate');
  assert.is(commit.status, 0, commit.stderr + commit.stdout);
  assert.not.match(commit.stderr + commit.stdout, /not found/);
  assert.match(commit.stderr + commit.stdout, /the project checks/, 'the project\'s own hook step still ran');
  const push = sandbox.push(owner, 'alice', ['origin', 'main']);
  assert.is(push.status, 0, push.stderr + push.stdout);
});

test('husky 6 without lint-staged, --no-install: init stops with the one command to run', () => {
  const owner = ownerClone(sandbox, 'owner-no-install');
  const init = sandbox.receiptGate(owner, ['init', '--owner', OWNER_EMAIL, '--no-install']);
  assert.is(init.status, 0, init.stderr + init.stdout);
  assert.match(init.stdout, /run 'npm install' before the next commit: package\.json names lint-staged@15\.5\.2, which is not installed yet and the hooks run it/);
  assert.match(init.stdout, /0\. before anything else, install what package\.json now names: npm install/);
  assert.not.ok(existsSync(join(owner, 'node_modules', 'lint-staged')));
});

test.run();
