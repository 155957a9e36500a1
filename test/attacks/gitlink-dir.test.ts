// Attack: a gitlink (a submodule entry, mode 160000) at a protected path or at a folder below
// which a protected glob could match. `git clone --recurse-submodules` writes the submodule's
// files there, so it is a touch of the protected path as a symlink there is (docs/contract.md §6); an
// exception never covers it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accept, ALICE, arenaPerFile, assertClosed, BOB, commitAll, push, serverFile, write } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

/** Replaces `path` (a file, a folder or nothing) in the index with a gitlink to `commit` and
 * commits; the work tree is left alone. */
function gitlinkAt(work: string, path: string, commit: string): string {
  gitValue(work, ['rm', '-rq', '--cached', '--ignore-unmatch', path]);
  gitValue(work, ['update-index', '--add', '--cacheinfo', `160000,${commit},${path}`]);
  gitValue(work, ['commit', '-qm', `a submodule at ${path}`]);
  return gitValue(work, ['rev-parse', 'HEAD']);
}

/** A commit of another repository (the "submodule") holding tools/patch_receipt.py. */
const SUBMODULE = 'a'.repeat(40);

test('a gitlink at tools (for tools/patch_receipt.py), at .github (for .github/workflows/**), at fixtures', () => {
  const r = arena();
  const tip = gitValue(r.bare, ['rev-parse', 'main']);
  for (const [path, branch] of [
    ['tools', 'sub-tools'],
    ['.github', 'sub-github'],
    ['.github/workflows', 'sub-workflows'],
    ['fixtures', 'sub-fixtures'],
  ] as const) {
    gitValue(r.work, ['checkout', '-q', '-f', '-B', branch, 'origin/main']);
    gitlinkAt(r.work, path, SUBMODULE);
    const result = push(r.work, ['origin', branch], BOB);
    const m = assertClosed(r, result, 'PATH_PROTECTED', path);
    assert.ok(m.blocked_paths.includes(path), JSON.stringify(m));
    const said = result.remote.join('\n');
    assert.match(said, /adds a submodule \(gitlink\) at a protected path|changes the type \(\w+ -> gitlink\)/, said);
  }
  assert.is(gitValue(r.bare, ['rev-parse', 'main']), tip);
  assert.is(serverFile(r, 'tools'), null);
  assert.ok(serverFile(r, 'fixtures/orders/base.json'));
});

test('an exception never covers a gitlink: fixtures/README.md as a submodule', () => {
  const r = arena();
  gitlinkAt(r.work, 'fixtures/README.md', SUBMODULE);
  assertClosed(r, push(r.work, ['origin', 'HEAD:refs/heads/sub-readme'], BOB), 'PATH_PROTECTED', 'fixtures/README.md');
  assertClosed(r, push(r.work, ['origin', 'HEAD:main'], BOB), 'PATH_PROTECTED', 'fixtures/README.md');
  assert.match(serverFile(r, 'fixtures/README.md') ?? '', /Fixtures; regenerate/);
});

test('moving an existing submodule over a protected folder, and deleting it, are touches; one elsewhere is not', () => {
  const r = arena();
  // The owner puts a submodule at tools; bob may neither bump nor remove it.
  gitlinkAt(r.work, 'tools', SUBMODULE);
  accept(r, push(r.work, ['origin', 'HEAD:main'], ALICE));
  gitValue(r.work, ['checkout', '-q', '-f', '-B', 'bump', 'origin/main']);
  gitlinkAt(r.work, 'tools', 'b'.repeat(40));
  assertClosed(r, push(r.work, ['origin', 'HEAD:main'], BOB), 'PATH_PROTECTED', 'tools');
  gitValue(r.work, ['checkout', '-q', '-f', '-B', 'remove', 'origin/main']);
  gitValue(r.work, ['rm', '-q', '--cached', 'tools']);
  gitValue(r.work, ['commit', '-qm', 'no submodule']);
  assertClosed(r, push(r.work, ['origin', 'HEAD:main'], BOB), 'PATH_PROTECTED', 'tools');
  assert.is(gitValue(r.bare, ['rev-parse', 'main:tools']), SUBMODULE);

  // A submodule no protected glob reaches below is bob's to add and bump.
  gitValue(r.work, ['checkout', '-q', '-f', '-B', 'vendor', 'origin/main']);
  gitlinkAt(r.work, 'vendor/lib', SUBMODULE);
  write(r.work, 'src/uses_lib.py', 'import lib\n');
  commitAll(r.work, 'use the library');
  accept(r, push(r.work, ['origin', 'HEAD:main'], BOB));
  gitlinkAt(r.work, 'vendor/lib', 'c'.repeat(40));
  accept(r, push(r.work, ['origin', 'HEAD:main'], BOB));
});

test('a protected file replaced by a submodule (gitlink) is rejected', () => {
  const r = arena();
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/gitlink', 'origin/main']);
  const head = gitValue(r.work, ['rev-parse', 'HEAD']);
  gitValue(r.work, ['rm', '-q', '--cached', 'fixtures/orders/base.json']);
  gitValue(r.work, ['update-index', '--add', '--cacheinfo', `160000,${head},fixtures/orders/base.json`]);
  gitValue(r.work, ['commit', '-qm', 'gitlink over fixture']);
  assertClosed(r, push(r.work, ['origin', 'feature/gitlink'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
});

test.run();
