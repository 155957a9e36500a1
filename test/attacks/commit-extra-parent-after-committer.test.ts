// An honest commit with an extra `parent` line after the committer. git reads one parent (the
// line after the committer is not a parent) and git fsck says nothing: the push is judged as
// the one-parent commit git sees, and an honest change is accepted.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { remotePerTest, write, type Remote } from '../server/helpers';
import { BOB, IDENT, findingOf, machine, push, refOid, verifyRef, writeObject } from './object-helpers';
import { gitValue } from '../helpers/git';

let r: Remote;
remotePerTest(test, 'extra-parent', (remote) => {
  r = remote;
});

function crafted(): { commit: string; main: string } {
  const main = gitValue(r.work, ['rev-parse', 'main']);
  // A commit of the clone only (never pushed), named by the extra line.
  gitValue(r.work, ['checkout', '-q', '-B', 'side', 'main']);
  write(r.work, 'notes.md', 'side\n');
  gitValue(r.work, ['add', '-A']);
  gitValue(r.work, ['commit', '-qm', 'side']);
  const side = gitValue(r.work, ['rev-parse', 'HEAD']);
  gitValue(r.work, ['checkout', '-q', 'main']);
  write(r.work, 'src/orders.py', 'def total(orders):\n    return sum(o.get("amount", 0) for o in orders)\n');
  gitValue(r.work, ['add', '-A']);
  const tree = gitValue(r.work, ['write-tree']);
  gitValue(r.work, ['reset', '-q', '--hard', 'main']);
  const commit = writeObject(r.work, 'commit', `tree ${tree}\nparent ${main}\nauthor ${IDENT}\ncommitter ${IDENT}\nparent ${side}\n\ntolerate missing amounts\n`);
  assert.is(gitValue(r.work, ['rev-list', '--parents', '-n1', commit]), `${commit} ${main}`, 'git reads one parent');
  return { commit, main };
}

test('a non-owner pushes it: accepted, judged as the one-parent commit git reads', () => {
  const { commit } = crafted();
  const result = push(r.work, ['origin', `${commit}:refs/heads/feature/extra`], BOB);
  assert.is(result.status, 0, result.stderr);
  assert.is(machine(result).verdict, 'eligible', result.stderr);
  assert.is(refOid(r.bare, 'refs/heads/feature/extra'), commit);
});

test('also fast-forwarding main, and with receive.fsckObjects=true', () => {
  const { commit } = crafted();
  gitValue(r.bare, ['config', 'receive.fsckObjects', 'true']);
  const result = push(r.work, ['origin', `${commit}:refs/heads/main`], BOB);
  assert.is(result.status, 0, result.stderr);
  assert.is(refOid(r.bare, 'refs/heads/main'), commit);
});

test('verify-ref: eligible', () => {
  const { commit } = crafted();
  gitValue(r.work, ['update-ref', 'refs/heads/extra', commit]);
  const run = verifyRef(r, 'extra');
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.is(run.json.verdict, 'eligible');
  assert.not.ok(findingOf(run, 'OBJECT_INVALID'));
});

test.run();
