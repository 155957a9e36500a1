// Attack: landing someone else's fixture change without making it. The net change counts as a
// touch: old -> new for an update of the base branch or of a protected ref, merge-base(main,
// new) -> new for any other ref (as `git diff main...HEAD`). So fast-forwarding main onto an
// owner's fixture change is a touch, while merging main into a work branch is not (docs/contract.md §2).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accept, ALICE, arenaPerFile, assertClosed, BOB, commitAll, push, serverFile, write } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

test('fast-forwarding main onto someone else\'s fixture change is a touch', () => {
  const r = arena();
  // alice (owner) prepares a fixture change on a branch; bob fast-forwards main onto it.
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/fixture-by-alice', 'origin/main']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": ["alice"]}\n');
  commitAll(r.work, 'alice fixture');
  accept(r, push(r.work, ['origin', 'feature/fixture-by-alice'], ALICE));
  assertClosed(r, push(r.work, ['origin', 'feature/fixture-by-alice:main'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.is(serverFile(r, 'fixtures/orders/base.json'), '{"orders": []}');
  // The same onto a protected release branch; and bob's honest commit on top changes nothing.
  assertClosed(r, push(r.work, ['origin', 'feature/fixture-by-alice:refs/heads/release/2.0'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  write(r.work, 'src/on-top.py', 'x = 1\n');
  commitAll(r.work, 'bob on top');
  assertClosed(r, push(r.work, ['origin', 'HEAD:main'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  accept(r, push(r.work, ['origin', 'feature/fixture-by-alice:main'], ALICE));
  assert.is(serverFile(r, 'fixtures/orders/base.json'), '{"orders": ["alice"]}');
});

test('merging main into a work branch is not a touch; merging an owner\'s unlanded fixture branch is', () => {
  const r = arena();
  // bob's work branch from before alice's fixture change landed on main (test above).
  gitValue(r.work, ['checkout', '-q', '-B', 'work', 'origin/main~1']);
  write(r.work, 'src/work.py', 'w = 1\n');
  commitAll(r.work, 'bob works');
  accept(r, push(r.work, ['origin', 'work'], BOB));
  gitValue(r.work, ['merge', '-q', '--no-edit', 'origin/main']);
  const merged = push(r.work, ['origin', 'work'], BOB);
  accept(r, merged);
  assert.match(merged.remote.join('\n'), /push accepted/);

  // alice's next fixture change sits on a branch of hers, not on main. bob merges it into his
  // work branch: the merge commit changes nothing against alice's side (no new commit touches
  // the fixture), but the branch's net change against main does.
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/alice-next', 'origin/main']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": ["alice", "next"]}\n');
  commitAll(r.work, 'alice next fixture');
  accept(r, push(r.work, ['origin', 'feature/alice-next'], ALICE));
  gitValue(r.work, ['checkout', '-q', 'work']);
  gitValue(r.work, ['merge', '-q', '--no-edit', 'feature/alice-next']);
  const result = push(r.work, ['origin', 'work'], BOB);
  assertClosed(r, result, 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.is(gitValue(r.bare, ['show', 'work:fixtures/orders/base.json']), '{"orders": ["alice"]}');
});

test("one honest commit on an owner's unlanded fixture branch, pushed as a branch of its own, is a touch", () => {
  // The push brings one commit, whose own diff (against its parent, alice's commit) is honest;
  // its net change against main (from the merge-base, main's tip) carries alice's fixture. The
  // net change is the tip's own diff only when it starts at the tip's parent.
  const r = arena();
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/alice-only', 'origin/main']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": ["alice", "only"]}\n');
  commitAll(r.work, 'alice fixture, not landed');
  accept(r, push(r.work, ['origin', 'feature/alice-only'], ALICE));
  write(r.work, 'src/on-alice.py', 'y = 2\n');
  commitAll(r.work, 'bob on top of alice');
  assertClosed(r, push(r.work, ['origin', 'HEAD:refs/heads/bob/on-alice'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  // The same commit's own diff alone is honest: on top of main it is accepted.
  gitValue(r.work, ['checkout', '-q', '-B', 'bob/alone', 'origin/main']);
  write(r.work, 'src/on-alice.py', 'y = 2\n');
  commitAll(r.work, 'bob alone');
  accept(r, push(r.work, ['origin', 'bob/alone'], BOB));
});

test.run();
