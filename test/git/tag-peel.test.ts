// ObjectStore.peel over annotated tag chains: any depth is followed (git's deref_tag has no
// limit), the deadline is checked on the way, and a tag whose type line is not its object's
// type is refused as git refuses it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Deadline, DeadlineExceeded } from '../../src/deadline';
import { ObjectInvalidError, ObjectStore } from '../../src/git/store';
import { hashObject } from './helpers';
import { cleanupTempDirs, git, initRepo } from '../helpers/git';

test.after(cleanupTempDirs);

const IDENT = 'A <a@example.com> 1700000000 +0000';

function chain(repo: string, target: string, depth: number): string[] {
  const tags: string[] = [];
  let object = target;
  let type = 'commit';
  for (let i = 0; i < depth; i++) {
    object = hashObject(repo, 'tag', Buffer.from(`object ${object}\ntype ${type}\ntag t${i}\ntagger ${IDENT}\n\nlevel ${i}\n`));
    type = 'tag';
    tags.push(object);
  }
  return tags;
}

test('a 300-deep chain peels to its commit, every tag listed; the deadline ends a long peel', async () => {
  const repo = initRepo();
  const tree = git(repo, ['mktree'], { input: '' }).trim();
  const commit = git(repo, ['commit-tree', tree, '-m', 'c']).trim();
  const tags = chain(repo, commit, 300);
  const top = tags[tags.length - 1]!;
  assert.is(git(repo, ['rev-parse', `${top}^{commit}`]).trim(), commit);
  const store = await ObjectStore.discover(repo);
  const peeled = await store.commits.peel(top, Deadline.never());
  assert.equal({ type: peeled.type, oid: peeled.oid }, { type: 'commit', oid: commit });
  assert.equal(peeled.tags, [...tags].reverse());
  assert.is(await store.commits.peelToCommit(top), commit);
  let now = 0;
  const fresh = await ObjectStore.discover(repo);
  try {
    await fresh.commits.peel(top, new Deadline(3, 3, () => now++));
    assert.unreachable('the deadline passed');
  } catch (err) {
    assert.instance(err, DeadlineExceeded);
  }
});

test('a tag whose type line names another type than its object\'s is refused, as git refuses it', async () => {
  const repo = initRepo();
  const tree = git(repo, ['mktree'], { input: '' }).trim();
  const commit = git(repo, ['commit-tree', tree, '-m', 'c']).trim();
  const liar = hashObject(repo, 'tag', Buffer.from(`object ${commit}\ntype tree\ntag v\ntagger ${IDENT}\n\nm\n`));
  const r = git(repo, ['cat-file', '--batch-check'], { input: `${liar}^{}\n` }).trim();
  assert.is(r, `${liar}^{} missing`, 'git does not peel it');
  const store = await ObjectStore.discover(repo);
  await store.commits.record(commit); // a commit already known as one is no shortcut
  try {
    await store.commits.peel(liar);
    assert.unreachable('refused');
  } catch (err) {
    assert.instance(err, ObjectInvalidError);
    assert.ok((err as ObjectInvalidError).oid === liar);
    assert.match((err as Error).message, new RegExp(`Tag ${liar} names ${commit} as a tree, but that object is a commit`));
  }
});

test.run();
