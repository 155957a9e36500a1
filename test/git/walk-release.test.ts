// A walk on the server that the deadline ends (DeadlineExceeded in the middle of a merge-base
// paint over thousands of commits read from the packs, no commit cache yet) still writes what
// it read to the commit cache and lets go of the pack files it read (no descriptor left open
// in the process once the store is closed), as a walk that finishes does.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { ObjectStore } from '../../src/git/store';
import { Deadline, DeadlineExceeded } from '../../src/deadline';
import { History } from '../../src/git/history/history';
import { mergeBases } from '../../src/git/history/merge-base';
import { CommitCache, commitCachePath } from '../../src/git/history/commit-cache';
import { buildDag, objectsDir, type DagCommit } from './walk-dag';
import { cleanupTempDirs } from '../helpers/git';

test.after(cleanupTempDirs);

/** Files under `dir` this process holds open. */
function openUnder(dir: string): string[] {
  const out: string[] = [];
  for (const fd of readdirSync('/proc/self/fd')) {
    try {
      const target = readlinkSync(join('/proc/self/fd', fd));
      if (target.startsWith(dir)) out.push(target);
    } catch {
      // closed while listed
    }
  }
  return out;
}

test('a merge-base walk ended by the deadline saves what it read and closes the packs', async () => {
  // A line of 3,001 commits and a branch from its root: their merge base is 3,000 commits down.
  const spec: DagCommit[] = Array.from({ length: 3001 }, (_, i) => ({ back: i === 0 ? [] : [1], dt: 60, ref: i === 3000 }));
  spec.push({ back: [3001], dt: 60, ref: true });
  const { repo, commits } = buildDag(spec, { bare: true });
  const objects = objectsDir(repo);
  const store = await ObjectStore.open({ gitdir: repo, env: {} });
  try {
    const history = new History(store);
    await history.useCommitCache();
    let clock = 0;
    // Ends after about a thousand steps of the walk (checked every 256).
    const deadline = new Deadline(4, 4, () => clock++);
    let err: unknown = null;
    try {
      await mergeBases(history, commits[3000]!, commits[3001]!, deadline);
    } catch (e) {
      err = e;
    }
    assert.instance(err, DeadlineExceeded, 'the deadline ended the walk');
    const cache = commitCachePath(store.objects.ownDirectory);
    assert.ok(existsSync(cache), 'the commit cache was written');
    assert.ok(CommitCache.open(cache).size > 500, 'with the commits the walk read');
  } finally {
    store.close();
  }
  // The store's own pack files are closed with it; the walk's must be closed already.
  assert.equal(openUnder(join(objects, 'pack')), [], 'no pack file left open');
});

test.run();
