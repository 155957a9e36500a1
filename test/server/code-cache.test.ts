// The bundle's V8 code cache (scripts/build.mjs): written beside the installed bundle after a
// push, used by the next push, ignored when damaged or unwritable, and removed by --uninstall
// and by installing a different bundle. Every check is a real `git push` into a bare repository.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, cleanup, commitAll, git, guardedRemote, INSTALL, machine, makeTemplate, push, write, type Remote } from './helpers';

let template: Remote;
let r: Remote;
test.before(() => {
  template = makeTemplate({ install: false });
});
test.after(() => cleanup(template?.root));
test.before.each(() => {
  r = guardedRemote(template, 'cache');
});
test.after.each(() => cleanup(r?.root));

function install(...args: string[]): void {
  const res = spawnSync('bash', [INSTALL, ...args], { encoding: 'utf8', env: baseEnv({ RECEIPT_GATE_BUNDLE_SOURCE: CLI }) });
  assert.is(res.status, 0, res.stdout + res.stderr);
}

const caches = (hooks: string) => readdirSync(hooks).filter((n) => /^\.receipt-gate\.cjs\.[0-9a-f]{16}\.v[\d.]+\.v8cache$/.test(n));

function pushBranch(name: string, path: string): ReturnType<typeof push> {
  git(r.work, ['checkout', '-q', '-B', name, 'main']);
  write(r.work, path, `${name}\n`);
  commitAll(r.work, name);
  return push(r.work, ['origin', name], { REMOTE_USER: 'bob' });
}

test('a push writes the cache; later pushes judge the same with it, damaged or not; --uninstall removes it', () => {
  install('--server', r.bare);
  const hooks = join(r.bare, 'hooks');
  assert.equal(caches(hooks), [], 'installing writes no cache');
  const first = pushBranch('feature/a', 'src/a.py');
  assert.is(first.status, 0, first.stderr);
  assert.is(caches(hooks).length, 1, 'the first run left its cache');
  const cache = join(hooks, caches(hooks)[0]!);
  const written = readFileSync(cache);
  assert.ok(written.length > 1000);

  // With the cache: the same answers, including a rejection.
  const second = pushBranch('feature/b', 'src/b.py');
  assert.is(second.status, 0, second.stderr);
  const bad = pushBranch('feature/bad', 'fixtures/EPOCH');
  assert.is.not(bad.status, 0);
  assert.ok(machine(bad).blocked_paths.includes('fixtures/EPOCH'));
  assert.ok(readFileSync(cache).equals(written), 'an accepted cache is not rewritten');

  // A damaged cache is rejected by V8, the bundle compiles from source and the cache is renewed.
  writeFileSync(cache, Buffer.alloc(written.length, 7));
  const damaged = pushBranch('feature/bad2', 'fixtures/EPOCH');
  assert.is.not(damaged.status, 0);
  assert.ok(machine(damaged).blocked_paths.includes('fixtures/EPOCH'));
  const ok = pushBranch('feature/c', 'src/c.py');
  assert.is(ok.status, 0, ok.stderr);
  assert.not.ok(readFileSync(cache).equals(Buffer.alloc(written.length, 7)), 'the damaged cache was replaced');

  install('--uninstall', r.bare);
  assert.equal(caches(hooks), []);
});

test('a hook directory the hook cannot write to: no cache, same verdicts', () => {
  install('--server', r.bare);
  const hooks = join(r.bare, 'hooks');
  // Tests run as root, who writes through permissions: a directory in the cache's place stands
  // in for a read-only hook directory (reading it and renaming over it both fail).
  const res0 = pushBranch('feature/a', 'src/a.py');
  assert.is(res0.status, 0, res0.stderr);
  const cache = join(hooks, caches(hooks)[0]!);
  spawnSync('rm', ['-f', cache]);
  spawnSync('mkdir', [cache]);
  spawnSync('touch', [join(cache, 'keep')]);
  chmodSync(cache, 0o755);
  const ok = pushBranch('feature/b', 'src/b.py');
  assert.is(ok.status, 0, ok.stderr);
  const bad = pushBranch('feature/bad', 'fixtures/EPOCH');
  assert.is.not(bad.status, 0);
  assert.ok(machine(bad).blocked_paths.includes('fixtures/EPOCH'));
  assert.is(readdirSync(cache).join(','), 'keep', 'nothing was written in its place');
  assert.equal(
    readdirSync(hooks).filter((n) => n.includes('.v8cache.')),
    [],
    'no temporary file is left behind',
  );
});

test('installing a different bundle removes the old cache', () => {
  install('--server', r.bare);
  const hooks = join(r.bare, 'hooks');
  const res = pushBranch('feature/a', 'src/a.py');
  assert.is(res.status, 0, res.stderr);
  assert.is(caches(hooks).length, 1);
  // A different bundle (one more line) installed over it.
  const other = join(r.root, 'other-cli.js');
  writeFileSync(other, readFileSync(CLI, 'utf8') + '// another build\n');
  const again = spawnSync('bash', [INSTALL, '--server', r.bare], { encoding: 'utf8', env: baseEnv({ RECEIPT_GATE_BUNDLE_SOURCE: other }) });
  assert.is(again.status, 0, again.stdout + again.stderr);
  assert.equal(caches(hooks), []);
});

test.run();
