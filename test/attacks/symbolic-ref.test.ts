// Attack: a symbolic ref to a protected ref. An update through it is an update of the ref it
// resolves to, judged by that name (rewind, deletion, net change); one whose own name is
// protected is the owners' decision (docs/contract.md §6, "Refs").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accept, ALICE, arenaPerFile, assertClosed, BOB, commitAll, push, refOid, serverFile, serverRefs, write } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

test('an alias of main cannot rewind it or delete it; main stays where it was', () => {
  const r = arena();
  write(r.work, 'src/a.py', 'a = 1\n');
  commitAll(r.work, 'a');
  accept(r, push(r.work, ['origin', 'HEAD:main'], ALICE));
  const tip = refOid(r.bare, 'refs/heads/main');
  gitValue(r.bare, ['symbolic-ref', 'refs/heads/master', 'refs/heads/main']);
  r.refs = serverRefs(r.bare);

  assertClosed(r, push(r.work, ['--force', 'origin', 'HEAD~1:refs/heads/master'], BOB), 'REF_PROTECTED');
  assert.is(refOid(r.bare, 'refs/heads/main'), tip);
  assertClosed(r, push(r.work, ['origin', ':refs/heads/master'], BOB), 'REF_PROTECTED');
  assert.is(refOid(r.bare, 'refs/heads/main'), tip);

  // Through the alias, a fixture edit is judged as an update of main: old -> new.
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": -1}]}\n');
  commitAll(r.work, 'fixture through the alias');
  assertClosed(r, push(r.work, ['origin', 'HEAD:refs/heads/master'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.is(refOid(r.bare, 'refs/heads/main'), tip);
  assert.is(serverFile(r, 'fixtures/orders/base.json'), '{"orders": []}');
  gitValue(r.bare, ['symbolic-ref', '--delete', 'refs/heads/master']);
  r.refs = serverRefs(r.bare);
});

test('an update through a symbolic ref whose own name is protected is the owners\' decision', () => {
  const r = arena();
  gitValue(r.bare, ['branch', 'feature/x', 'main']);
  gitValue(r.bare, ['symbolic-ref', 'refs/heads/release/current', 'refs/heads/feature/x']);
  r.refs = serverRefs(r.bare);
  gitValue(r.work, ['fetch', '-q', 'origin']);
  gitValue(r.work, ['checkout', '-q', '-b', 'feature/x', 'origin/feature/x']);
  write(r.work, 'src/b.py', 'b = 1\n');
  commitAll(r.work, 'b');
  assertClosed(r, push(r.work, ['origin', 'HEAD:refs/heads/release/current'], BOB), 'REF_PROTECTED');
  assert.is(push(r.work, ['origin', 'HEAD:refs/heads/release/current'], ALICE).status, 0);
  assert.is(refOid(r.bare, 'refs/heads/feature/x'), gitValue(r.work, ['rev-parse', 'HEAD']));
});

test.run();
