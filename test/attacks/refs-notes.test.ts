// refs/notes/** is judged as notes: a notes commit's tree is never the repository's evidence,
// so an owner's `git push origin refs/notes/receipt-gate` (docs/receipts.md) is accepted; a
// non-owner may add notes (a fast-forward) but may not rewrite or delete receipt-gate's notes
// ref; and commits only a notes ref reached are still new when a branch first reaches them.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRejected, commitAll, push, remotePerTest, write, type Remote } from '../server/helpers';
import { assertUnchanged, refAt, serverState } from './refs-harness';
import { gitValue } from '../helpers/git';

const notes = suite('refs/notes');
let r: Remote;
remotePerTest(notes, 'attack-notes', (remote) => {
  r = remote;
});

const BOB = { REMOTE_USER: 'bob' };
const ALICE = { REMOTE_USER: 'alice' };
const NOTES = 'refs/notes/receipt-gate';

function addNote(target: string, text: string): string {
  gitValue(r.work, ['notes', '--ref', 'receipt-gate', 'add', '-f', '-m', text, target]);
  return gitValue(r.work, ['rev-parse', NOTES]);
}

notes('an owner pushes refs/notes/receipt-gate as docs/receipts.md says: accepted, no evidence read from it', () => {
  const tip = addNote('main', '{"schema": "agent-patch-receipt/v1"}');
  const result = push(r.work, ['origin', NOTES], ALICE);
  assert.is(result.status, 0, result.stderr);
  assert.not.match(result.remote.join('\n'), /EPOCH_MISSING|MANIFEST_INVALID/);
  assert.is(refAt(r.bare, NOTES), tip);
});

notes('a non-owner may add notes (fast-forward) but not rewrite or delete refs/notes/receipt-gate', () => {
  addNote('main', 'first');
  assert.is(push(r.work, ['origin', NOTES], ALICE).status, 0);
  // Adding a note on another commit is a fast-forward of the notes history.
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/x', 'main']);
  write(r.work, 'src/x.py', 'x = 1\n');
  const x = commitAll(r.work, 'x');
  const ff = addNote(x, 'second');
  const added = push(r.work, ['origin', NOTES], BOB);
  assert.is(added.status, 0, added.stderr);
  assert.is(refAt(r.bare, NOTES), ff);

  // A rewrite (a notes history that drops what is there) is closed.
  gitValue(r.work, ['update-ref', '-d', NOTES]);
  addNote('main', 'forged');
  const before = serverState(r.bare);
  assertRejected(push(r.work, ['--force', 'origin', NOTES], BOB), 'REF_PROTECTED');
  assertUnchanged(r.bare, before, 'rejected notes rewrite');

  const deleted = push(r.work, ['origin', `:${NOTES}`], BOB);
  const m = assertRejected(deleted, 'REF_PROTECTED');
  assert.ok(m.findings.some((f) => f.ref === NOTES), deleted.stderr);
  assertUnchanged(r.bare, before, 'rejected notes deletion');

  // The owner may rewrite and delete it.
  assert.is(push(r.work, ['--force', 'origin', NOTES], ALICE).status, 0);
  assert.is(push(r.work, ['origin', `:${NOTES}`], ALICE).status, 0);
  assert.is(refAt(r.bare, NOTES), null);
});

notes('a non-owner may not point refs/notes/receipt-gate at a blob', () => {
  const blob = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: 'not notes\n' });
  const before = serverState(r.bare);
  assertRejected(push(r.work, ['origin', `${blob}:${NOTES}`], BOB), 'REF_PROTECTED');
  assertUnchanged(r.bare, before, 'notes ref at a blob');
});

notes('commits reached first through a notes ref are still new when a branch reaches them', () => {
  // Touch a fixture and revert it: only the commits themselves show the touch.
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/launder', 'main']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": 1}]}\n');
  commitAll(r.work, 'touch the fixture');
  gitValue(r.work, ['revert', '--no-edit', 'HEAD'], {});
  const tip = gitValue(r.work, ['rev-parse', 'HEAD']);
  // Another notes ref (not receipt-gate's): judged as notes, accepted for anyone.
  const parked = push(r.work, ['origin', `${tip}:refs/notes/parking`], BOB);
  assert.is(parked.status, 0, parked.stderr);
  const before = serverState(r.bare);
  assertRejected(push(r.work, ['origin', 'feature/launder'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assertUnchanged(r.bare, before, 'laundered branch');
});

notes('a branch that is an alias of a notes ref is judged as code', () => {
  addNote('main', 'a note');
  assert.is(push(r.work, ['origin', NOTES], ALICE).status, 0);
  gitValue(r.bare, ['symbolic-ref', 'refs/heads/notes-alias', NOTES]);
  // Pushing a fixture edit through the branch name writes the notes ref: judged as code.
  gitValue(r.work, ['checkout', '-q', '-B', 'alias', 'main']);
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": 2}]}\n');
  commitAll(r.work, 'fixture via alias');
  gitValue(r.work, ['fetch', '-q', 'origin', `+${NOTES}:refs/remotes/origin/notes`]);
  gitValue(r.work, ['merge', '-q', '--allow-unrelated-histories', '-s', 'ours', '-m', 'keep notes', 'refs/remotes/origin/notes']);
  const before = serverState(r.bare);
  assertRejected(push(r.work, ['origin', 'alias:refs/heads/notes-alias'], BOB), 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assertUnchanged(r.bare, before, 'alias of the notes ref');
});

notes.run();
