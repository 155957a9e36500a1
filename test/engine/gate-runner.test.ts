// The gate's runner (src/rules/gate-runner.ts) on blobs of a real repository: which entries of
// package.json, the npm, pnpm and yarn lock files and .pre-commit-config.yaml count, and the
// sides that cannot be read (fail closed). test/attacks/gate-runner.test.ts pushes the cases.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ObjectStore } from '../../src/git/store';
import type { PathChange } from '../../src/git/types';
import { gateRunnerChange, runnerFileOf } from '../../src/rules/gate-runner';
import { cleanupTempDirs, gitValue, initRepo } from '../helpers/git';

const repo = initRepo();
const store = ObjectStore.open({ gitdir: join(repo, '.git') });

function blob(text: string): string {
  const file = join(repo, 'blob');
  writeFileSync(file, text);
  return gitValue(repo, ['hash-object', '-w', file]);
}

const side = (text: string, kind: 'file' | 'symlink' = 'file') => ({ mode: kind === 'file' ? '100644' : '120000', kind, oid: blob(text) });

async function changed(path: string, before: string | null, after: string | null, kinds: { after?: 'file' | 'symlink' } = {}): Promise<string | null> {
  const change: PathChange = {
    path,
    change: before === null ? 'add' : after === null ? 'delete' : 'modify',
    ...(before !== null ? { before: side(before) } : {}),
    ...(after !== null ? { after: side(after, kinds.after) } : {}),
    unsafe: false,
  };
  return (await gateRunnerChange(await store, change))?.entry ?? null;
}

const pkg = (extra: Record<string, unknown>) => JSON.stringify({ name: 'orders', version: '1.0.0', ...extra }, null, 2);

test('runner files by their last segment, in any case, at any depth', () => {
  for (const p of ['package.json', 'apps/web/package.json', 'Package.JSON', 'package-lock.json', 'npm-shrinkwrap.json', 'pnpm-lock.yaml', 'yarn.lock', '.pre-commit-config.yaml']) assert.ok(runnerFileOf(p), p);
  for (const p of ['package.json.bak', 'src/package.ts', 'lock.yaml', 'pre-commit-config.yaml']) assert.is(runnerFileOf(p), null, p);
});

test('runner files by the folded key every path rule uses: the names a macOS or Windows checkout writes onto them', () => {
  assert.is(runnerFileOf('services/api/package.json.'), 'package.json');
  assert.is(runnerFileOf('pac\u200ckage.json'), 'package.json');
  assert.is(runnerFileOf('yarn.lock '), 'yaml-lock');
  assert.is(runnerFileOf('.pre-commit-config.yaml::$DATA'), 'pre-commit');
  assert.is(runnerFileOf('PACKAGE-LOCK.JSON'), 'npm-lock');
  assert.is(runnerFileOf('package.json5'), null);
});

test('package.json: receipt-gate in any dependency map, overrides, resolutions, pnpm.overrides; other entries free', async () => {
  const base = pkg({ devDependencies: { 'receipt-gate': '0.1.0', 'left-pad': '1.3.0' } });
  assert.is(await changed('package.json', base, pkg({ devDependencies: { 'receipt-gate': '0.1.0', 'left-pad': '1.3.1' } })), null);
  assert.is(await changed('package.json', base, pkg({ devDependencies: { 'left-pad': '1.3.0', 'receipt-gate': '0.1.0' }, scripts: { test: 'x' } })), null, 'key order and other fields');
  assert.is(await changed('package.json', base, pkg({ devDependencies: { 'receipt-gate': 'file:./tools/fake', 'left-pad': '1.3.0' } })), 'devDependencies["receipt-gate"]');
  assert.is(await changed('package.json', base, pkg({ devDependencies: { 'left-pad': '1.3.0' }, dependencies: { 'receipt-gate': '0.1.0' } })), 'devDependencies["receipt-gate"] (removed)');
  for (const extra of [
    { overrides: { 'receipt-gate': 'file:./x' } },
    { overrides: { foo: { 'receipt-gate': '0.0.1' } } },
    { resolutions: { '**/receipt-gate': 'file:./x' } },
    { pnpm: { overrides: { 'receipt-gate@<1': 'link:./x' } } },
    { bin: { 'receipt-gate': 'fake.js' } },
    { optionalDependencies: { 'receipt-gate': 'npm:evil@1' } },
  ]) {
    assert.ok(await changed('package.json', base, pkg({ devDependencies: { 'receipt-gate': '0.1.0', 'left-pad': '1.3.0' }, ...extra })), JSON.stringify(extra));
  }
  // A package named receipt-gate (a fake's own package.json) is one, wherever it is.
  assert.ok(await changed('tools/fake/package.json', null, JSON.stringify({ name: 'receipt-gate', bin: 'cli.js' })));
  assert.is(await changed('tools/other/package.json', null, JSON.stringify({ name: 'other', bin: { other: 'cli.js' } })), null);
});

test('npm lock files: the receipt-gate package at any depth, a package with its bin, v1 dependencies', async () => {
  const lock = (gate: unknown, extra: Record<string, unknown> = {}) =>
    JSON.stringify({ lockfileVersion: 3, packages: { '': { devDependencies: { 'receipt-gate': '0.1.0' } }, 'node_modules/left-pad': { version: '1.3.0' }, 'node_modules/receipt-gate': gate, ...extra } });
  const good = { version: '0.1.0', resolved: 'https://r/receipt-gate-0.1.0.tgz', integrity: 'sha512-a' };
  assert.is(await changed('package-lock.json', lock(good), lock(good, { 'node_modules/left-pad': { version: '1.3.1' } })), null);
  assert.is(await changed('package-lock.json', lock(good), lock({ ...good, resolved: 'https://evil/x.tgz' })), 'packages["node_modules/receipt-gate"]');
  assert.ok(await changed('package-lock.json', lock(good), lock(good, { 'node_modules/foo/node_modules/receipt-gate': { version: '9.9.9' } })));
  assert.ok(await changed('package-lock.json', lock(good), lock(good, { 'node_modules/foo': { version: '1.0.0', bin: { 'receipt-gate': 'x.js' } } })));
  const v1 = (spec: string) => JSON.stringify({ lockfileVersion: 1, dependencies: { foo: { version: '1.0.0', dependencies: { 'receipt-gate': { version: spec } } }, 'left-pad': { version: '1.3.0' } } });
  assert.is(await changed('npm-shrinkwrap.json', v1('0.1.0'), v1('0.2.0')), 'dependencies["foo"].dependencies["receipt-gate"]');
});

test('yarn.lock and pnpm-lock.yaml: blocks that mention receipt-gate; others free', async () => {
  const yarn = (gate: string, pad: string) => `# yarn lockfile v1\n\n\nleft-pad@${pad}:\n  version "${pad}"\n\n"receipt-gate@${gate}":\n  version "0.1.0"\n  resolved "https://r/receipt-gate-0.1.0.tgz"\n`;
  assert.is(await changed('yarn.lock', yarn('^0.1.0', '1.3.0'), yarn('^0.1.0', '1.3.1')), null);
  assert.ok(await changed('yarn.lock', yarn('^0.1.0', '1.3.0'), yarn('file:./tools/fake', '1.3.0')));
  const pnpm = (resolution: string) => `lockfileVersion: '9.0'\nimporters:\n  .:\n    devDependencies:\n      receipt-gate:\n        specifier: 0.1.0\n        version: 0.1.0\npackages:\n  receipt-gate@0.1.0:\n    resolution: ${resolution}\n`;
  assert.is(await changed('pnpm-lock.yaml', pnpm('{integrity: sha512-a}'), pnpm('{integrity: sha512-a}') + '  left-pad@1.3.0:\n    resolution: {integrity: sha512-b}\n'), null);
  assert.ok(await changed('pnpm-lock.yaml', pnpm('{integrity: sha512-a}'), pnpm('{tarball: file:fake.tgz}')));
});

test('.pre-commit-config.yaml: the repos item of receipt-gate\'s hooks (repo, rev, entries); others free', async () => {
  const cfg = (rev: string, black: string) => `repos:\n- repo: https://github.com/psf/black\n  rev: ${black}\n  hooks:\n  - id: black\n- repo: https://git.example/receipt-gate\n  rev: ${rev}\n  hooks:\n  - id: receipt-gate-pre-commit\n`;
  assert.is(await changed('.pre-commit-config.yaml', cfg('v1', '24.3.0'), cfg('v1', '24.4.0')), null);
  assert.ok(await changed('.pre-commit-config.yaml', cfg('v1', '24.3.0'), cfg('v2', '24.3.0')));
  const local = (entry: string) => `repos:\n  - repo: local\n    hooks:\n      - id: receipt-gate-pre-commit\n        entry: ${entry}\n        language: system\n`;
  assert.ok(await changed('.pre-commit-config.yaml', local('node_modules/.bin/receipt-gate pre-commit'), local('tools/fake pre-commit')));
  // Mentioned outside a block list of repos (a flow list): the whole file is unknown.
  assert.ok(await changed('.pre-commit-config.yaml', cfg('v1', '24.3.0'), 'repos: [{repo: https://git.example/receipt-gate, rev: v2, hooks: [{id: receipt-gate-pre-commit}]}]\n'));
});

test('a side that cannot be read counts when either side names receipt-gate (fail closed)', async () => {
  const base = pkg({ devDependencies: { 'receipt-gate': '0.1.0' } });
  assert.ok(await changed('package.json', base, '{ not json'), 'unparseable after a receipt-gate entry');
  assert.ok(await changed('package.json', '{ not json', base), 'unparseable before');
  assert.is(await changed('package.json', pkg({}), '{ not json'), null, 'neither side names receipt-gate');
  assert.ok(await changed('package.json', base, 'tools/fake.json', { after: 'symlink' }), 'a symlink');
  const anchored = 'x: &rev v9\nrepos:\n- repo: https://git.example/receipt-gate\n  rev: *rev\n  hooks:\n  - id: receipt-gate-pre-commit\n';
  assert.ok(await changed('.pre-commit-config.yaml', anchored, anchored.replace('v9', 'v10')), 'a YAML alias');
});

test.after(() => {
  cleanupTempDirs();
});

test.run();
