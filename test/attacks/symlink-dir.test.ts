// Attack: a symlink at a protected path, or at a folder below which a protected glob could
// match (`tools -> src/tools` puts other bytes at tools/patch_receipt.py in every checkout,
// `.github -> ci` adds workflows). A touch of the protected path for non-owners; exceptions
// never cover a symlink (docs/contract.md §6, "Symlinks and gitlinks").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ALICE, accept, arenaPerFile, assertClosed, BOB, commitAll, push, refOid, serverFile, symlinkAt, write } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

test('a symlink over a protected folder is a touch of it: tools, .github, fixtures/README.md', () => {
  const r = arena();
  const symlink = (target: string, path: string) => symlinkAt(r.work, target, path);
  gitValue(r.work, ['checkout', '-q', '-B', 'topic', 'origin/main']);
  write(r.work, 'src/tools/patch_receipt.py', 'print("patched")\n');
  symlink('src/tools', 'tools');
  commitAll(r.work, 'tools through a symlink');
  assertClosed(r, push(r.work, ['origin', 'topic'], BOB), 'PATH_PROTECTED', 'tools');

  gitValue(r.work, ['reset', '-q', '--hard', 'origin/main']);
  write(r.work, 'ci/workflows/evil.yml', 'on: push\n');
  symlink('ci', '.github');
  commitAll(r.work, 'workflows through a symlink');
  assertClosed(r, push(r.work, ['origin', 'topic'], BOB), 'PATH_PROTECTED', '.github');

  // fixtures/README.md is under the exception fixtures/**/*.md, but an exception never covers a
  // symlink: fixtures/README.md/orders/base.json would exist in every checkout.
  gitValue(r.work, ['reset', '-q', '--hard', 'origin/main']);
  write(r.work, 'src/fake/orders/base.json', '{"orders": [{"amount": -1}]}\n');
  symlink('../src/fake', 'fixtures/README.md');
  commitAll(r.work, 'a symlink under an exception');
  assertClosed(r, push(r.work, ['origin', 'topic'], BOB), 'PATH_PROTECTED', 'fixtures/README.md');
  assert.is(refOid(r.bare, 'refs/heads/topic'), null);

  // The owner may; and a non-owner may edit the excepted file as a regular file.
  accept(r, push(r.work, ['origin', 'topic'], ALICE));
  gitValue(r.work, ['reset', '-q', '--hard', 'origin/main']);
  write(r.work, 'fixtures/README.md', 'More notes.\n');
  commitAll(r.work, 'notes');
  accept(r, push(r.work, ['origin', '+topic'], BOB));
});

test('a protected file replaced by a symlink is rejected', () => {
  const r = arena();
  const before = serverFile(r, 'fixtures/orders/base.json');
  symlinkAt(r.work, '../../src/orders.py', 'fixtures/orders/base.json');
  commitAll(r.work, 'symlink fixture');
  assertClosed(r, push(r.work, ['origin', 'HEAD:refs/heads/feature/symlink'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assertClosed(r, push(r.work, ['origin', 'HEAD:main'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.is(serverFile(r, 'fixtures/orders/base.json'), before);
});

test('a symlink at .github/workflows itself and at the freeze file, pushed to main', () => {
  const r = arena();
  const tip = gitValue(r.bare, ['rev-parse', 'main']);
  write(r.work, 'ci/evil.yml', 'on: push\n');
  symlinkAt(r.work, '../ci', '.github/workflows');
  symlinkAt(r.work, 'src/orders.py', 'freeze.json');
  commitAll(r.work, 'symlinks at protected paths');
  const m = assertClosed(r, push(r.work, ['origin', 'HEAD:main'], BOB), 'PATH_PROTECTED', '.github/workflows');
  assert.ok(m.blocked_paths.includes('freeze.json'), JSON.stringify(m));
  assert.is(gitValue(r.bare, ['rev-parse', 'main']), tip);
  assert.is(serverFile(r, '.github/workflows'), null);
});

test.run();
