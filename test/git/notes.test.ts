// Git notes written through isomorphic-git's addNote, read back by git itself: `git notes
// show`, `git notes list`, the notes commit's author, `git fsck`; replacing a note, a notes
// ref that git has packed, and a store opened on a linked worktree.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { addNote, notesRef } from '../../src/git/notes';
import { ObjectStore } from '../../src/git/store';
import { commit } from './helpers';
import { cleanupTempDirs, git, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

const AUTHOR_ENV = { GIT_AUTHOR_NAME: 'Receipt Bot', GIT_AUTHOR_EMAIL: 'bot@example.com', GIT_AUTHOR_DATE: '1780000000 +0200' };

test('a note git reads back, replaced on the second write, after git packed the notes ref', async () => {
  const repo = initRepo();
  const c1 = commit(repo, { 'a.txt': '1\n' });
  const c2 = commit(repo, { 'a.txt': '2\n' });
  const store = await ObjectStore.discover(repo);
  const first = await addNote(store, { ref: 'receipt-gate', oid: c1, note: '{"verdict": "eligible"}\n', env: AUTHOR_ENV });
  assert.is(git(repo, ['rev-parse', 'refs/notes/receipt-gate']).trim(), first);
  assert.is(git(repo, ['notes', '--ref', 'receipt-gate', 'show', c1]), '{"verdict": "eligible"}\n');
  assert.is(git(repo, ['log', '-1', '--format=%an <%ae> %at %ai', 'refs/notes/receipt-gate']).trim(), 'Receipt Bot <bot@example.com> 1780000000 2026-05-28 22:26:40 +0200');

  git(repo, ['gc', '-q']); // the notes ref and its objects are packed now
  await addNote(store, { ref: 'refs/notes/receipt-gate', oid: c1, note: 'replaced\n', env: AUTHOR_ENV });
  await addNote(join(repo, '.git'), { ref: 'receipt-gate', oid: c2, note: new TextEncoder().encode('second\n'), env: AUTHOR_ENV });
  assert.is(git(repo, ['notes', '--ref', 'receipt-gate', 'show', c1]), 'replaced\n');
  assert.is(git(repo, ['notes', '--ref', 'receipt-gate', 'show', c2]), 'second\n');
  assert.is(git(repo, ['notes', '--ref', 'receipt-gate', 'list']).trim().split('\n').length, 2);
  assert.is(git(repo, ['rev-list', '--count', 'refs/notes/receipt-gate']).trim(), '3');
  git(repo, ['fsck', '--strict', '--no-progress']);
  store.close();
});

test('a linked worktree writes into the common repository; no identity is a sentence', async () => {
  const repo = initRepo();
  const c1 = commit(repo, { 'a.txt': '1\n' });
  const wt = join(tempDir(), 'wt');
  git(repo, ['worktree', 'add', '-q', wt]);
  const store = await ObjectStore.discover(wt);
  await addNote(store, { ref: 'receipt-gate', oid: c1, note: 'from the worktree\n', env: AUTHOR_ENV });
  assert.is(git(repo, ['notes', '--ref', 'receipt-gate', 'show', c1]), 'from the worktree\n');
  try {
    await addNote(store, { ref: 'receipt-gate', oid: c1, note: 'x', env: {} });
    assert.unreachable('no identity anywhere');
  } catch (err) {
    assert.match((err as Error).message, /set user\.name and user\.email/);
  }
  store.close();
});

test('notes refs are expanded as git notes --ref expands them', () => {
  assert.is(notesRef('receipt-gate'), 'refs/notes/receipt-gate');
  assert.is(notesRef('notes/x'), 'refs/notes/x');
  assert.is(notesRef('refs/notes/y'), 'refs/notes/y');
});

test.run();
