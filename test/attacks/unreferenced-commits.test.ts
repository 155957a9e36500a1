// Attack: hiding a touch in commits the server already holds. The new commits of a push are
// those reachable from `new` and from no ref the repository had before it (`git rev-list NEW
// --not --all`): the quarantine holds most of them and is a fast path, never the definition,
// so commits that arrived earlier unreferenced, or sit in an alternate, are new when a ref
// first reaches them (docs/contract.md §2).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { arenaPerFile, assertClosed, baseEnv, BOB, commitAll, machine, push, serverFile, write } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

test('commits the repository already holds, unreferenced, are new when a ref first reaches them', () => {
  const r = arena();
  // C1 edits a fixture, C2 reverts it; both reach the server's object store without a ref
  // (an earlier fetch by the server, a rejected push's leftovers, a shared alternate).
  gitValue(r.work, ['checkout', '-q', '-b', 'sneak']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": -1}]}\n');
  const c1 = commitAll(r.work, 'edit the fixture');
  gitValue(r.work, ['revert', '--no-edit', 'HEAD']);
  const c2 = gitValue(r.work, ['rev-parse', 'HEAD']);
  gitValue(r.bare, ['fetch', '-q', r.work, 'refs/heads/sneak']);
  assert.ok(gitValue(r.bare, ['cat-file', '-t', c1]) === 'commit');
  assert.is(gitValue(r.bare, ['for-each-ref', '--contains', c2]), '', 'no ref reaches the commits');

  const result = push(r.work, ['origin', `${c2}:refs/heads/main`], BOB);
  assertClosed(r, result, 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.ok(machine(result).findings.some((f) => f.commit === c1), result.stderr);
  // The same through a new branch, and with a commit on top that the quarantine holds.
  write(r.work, 'src/on-top.py', 'x = 1\n');
  const c3 = commitAll(r.work, 'on top');
  const again = push(r.work, ['origin', `${c3}:refs/heads/topic`], BOB);
  assertClosed(r, again, 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.ok(machine(again).findings.some((f) => f.commit === c1), again.stderr);
  assert.is(serverFile(r, 'fixtures/orders/base.json'), '{"orders": []}');
});

test('commits in an alternate object directory are new when a ref first reaches them', () => {
  const r = arena();
  // Another repository on the server (a fork network's pool) holds bob's fixture edit.
  const pool = join(r.root, 'pool.git');
  gitValue(r.root, ['init', '-q', '--bare', pool]);
  write(r.work, 'fixtures/weights_v3.json', '{"id": "weights_v3", "input": {}, "sha256": "0"}\n');
  const edit = commitAll(r.work, 'weights');
  gitValue(r.work, ['revert', '--no-edit', 'HEAD']);
  const tip = gitValue(r.work, ['rev-parse', 'HEAD']);
  gitValue(r.work, ['push', '-q', pool, 'HEAD:refs/heads/pooled'], { env: baseEnv() });
  write(r.bare, 'objects/info/alternates', `${join(pool, 'objects')}\n`);
  try {
    assert.is(gitValue(r.bare, ['cat-file', '-t', edit]), 'commit', 'the server reads the commit through its alternate');
    const result = push(r.work, ['origin', `${tip}:refs/heads/from-pool`], BOB);
    assertClosed(r, result, 'PATH_PROTECTED', 'fixtures/weights_v3.json');
    assert.ok(machine(result).findings.some((f) => f.commit === edit), result.stderr);
  } finally {
    rmSync(join(r.bare, 'objects/info/alternates'));
  }
});

test('quarantine-only commits: a fixture edit deep in a push, loose or as a pack (over receive.unpackLimit)', () => {
  const r = arena();
  for (const limit of ['100', '1']) {
    gitValue(r.bare, ['config', 'receive.unpackLimit', limit]);
    gitValue(r.work, ['checkout', '-q', '-f', '-B', `deep-${limit}`, 'origin/main']);
    for (let i = 0; i < 8; i++) {
      write(r.work, `src/mod${i}.py`, `n = ${i} + ${limit}\n`);
      if (i === 2) write(r.work, 'checks/manifest.json', '{"seed": 1, "properties": [], "manifest_sha256": "0"}\n');
      if (i === 3) gitValue(r.work, ['checkout', 'origin/main', '--', 'checks/manifest.json']);
      commitAll(r.work, `mod ${i}`);
    }
    assertClosed(r, push(r.work, ['origin', `deep-${limit}`], BOB), 'PATH_PROTECTED', 'checks/manifest.json');
    assertClosed(r, push(r.work, ['origin', `deep-${limit}:main`], BOB), 'PATH_PROTECTED', 'checks/manifest.json');
  }
  gitValue(r.bare, ['config', '--unset', 'receive.unpackLimit']);
});

test.run();
