// ./install.sh as a server administrator runs it: from any directory with relative paths,
// --help that exits 0, and a warning when HEAD names a branch that does not exist (the gate
// reads the policy from it, so pushes would pass as unguarded).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GIT_ENV, tempDir } from '../helpers/git';

const ROOT = resolve(__dirname, '../..');
const INSTALL = join(ROOT, 'install.sh');

function install(cwd: string, args: string[]) {
  return spawnSync('bash', [INSTALL, ...args], { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' });
}

test('--help exits 0 and names every mode; an unknown option exits 2', () => {
  const help = install(ROOT, ['--help']);
  assert.is(help.status, 0, help.stderr);
  for (const mode of ['--server', '--uninstall', '--ghes-env', '--help']) assert.match(help.stdout, new RegExp(mode));
  const server = spawnSync('bash', [join(ROOT, 'scripts/install-server.sh'), '--help'], { encoding: 'utf8' });
  assert.is(server.status, 0);
  assert.match(server.stdout, /--server REPO\.git/);
  const bad = install(ROOT, ['--bogus']);
  assert.is(bad.status, 2);
  assert.match(bad.stderr, /unknown option '--bogus'/);
});

test('--server takes relative paths from the directory it runs in; warns when HEAD names no branch', () => {
  const dir = tempDir();
  try {
    mkdirSync(join(dir, 'srv'));
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', join(dir, 'srv', 'a.git')]);
    const r = install(join(dir, 'srv'), ['--server', 'a.git']);
    assert.is(r.status, 0, r.stderr);
    const hook = join(dir, 'srv', 'a.git', 'hooks', 'pre-receive');
    assert.ok(existsSync(hook) && existsSync(join(dir, 'srv', 'a.git', 'hooks', 'receipt-gate.cjs')));
    assert.match(readFileSync(hook, 'utf8'), /receipt-gate pre-receive hook/);
    // The new repository's HEAD names main, which has no commit yet.
    assert.match(r.stderr, /warning: a\.git: HEAD names main, which does not exist yet/);

    // Once main exists, no warning; a path through ../ works too.
    const work = join(dir, 'work');
    execFileSync('git', ['init', '-q', '-b', 'main', work]);
    execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'x'], { cwd: work, env: { ...process.env, ...GIT_ENV } });
    execFileSync('git', ['push', '-q', join(dir, 'srv', 'a.git'), 'main'], { cwd: work, env: { ...process.env, ...GIT_ENV }, stdio: 'pipe' });
    const again = install(work, ['--server', '../srv/a.git']);
    assert.is(again.status, 0, again.stderr);
    assert.match(again.stdout, /is up to date/);
    assert.ok(existsSync(join(dir, 'srv', 'a.git', 'hooks', 'receipt-gate.blob')), 'the startup snapshot, installed through relative paths');
    assert.not.match(again.stderr, /warning/);

    const missing = install(dir, ['--server', 'nope.git']);
    assert.is(missing.status, 2);
    assert.match(missing.stderr, /nope\.git: no such directory/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--help names --log-key; --server --log-key with a missing, unreadable, foreign or misplaced key exits 2 with one sentence and installs nothing', () => {
  const help = install(ROOT, ['--help']);
  assert.is(help.status, 0, help.stderr);
  assert.match(help.stdout, /--server --log-key KEY REPO\.git/);
  const dir = tempDir();
  try {
    const bare = join(dir, 'a.git');
    execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare]);
    writeFileSync(join(dir, 'not-a-key.key'), 'hello\n');
    const inside = join(bare, 'log.key');
    execFileSync('node', [join(ROOT, 'dist', 'cli.js'), 'keygen', '--log', '--out', join(bare, 'log')], { encoding: 'utf8' });
    const cases: [string, RegExp][] = [
      [join(dir, 'missing.key'), /--log-key .*missing\.key: no such file; nothing was installed \(create the key with: receipt-gate keygen --log/],
      [join(dir, 'not-a-key.key'), /is not an ed25519 private key \(PEM\); nothing was installed/],
      [inside, /lies inside .*keep the signing key outside the repository .*nothing was installed/],
    ];
    for (const [key, message] of cases) {
      const r = install(dir, ['--server', '--log-key', key, bare]);
      assert.is(r.status, 2, r.stdout + r.stderr);
      assert.match(r.stderr, message);
      assert.is(r.stderr.trim().split('\n').length, 1, r.stderr);
      assert.is(r.stdout, '', r.stdout);
      for (const file of ['pre-receive', 'reference-transaction', 'receipt-gate.cjs', 'receipt-gate.blob']) assert.not.ok(existsSync(join(bare, 'hooks', file)), `${file} installed for ${key}`);
      assert.not.ok(existsSync(join(bare, 'receipt-gate')));
      assert.is(spawnSync('git', ['--git-dir', bare, 'config', 'receipt-gate.logKey']).status, 1);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
