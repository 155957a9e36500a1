// The server's in-order pack reading of commits (src/git/history/pack-commits.ts): every answer
// it gives is the commit's own (parents and committer date as `git cat-file` and `git log` give
// them), on packs git wrote (repack, a mirror clone's), on a pack whose blobs come before its
// commits (nothing is answered there: the commits are read one by one), and on a pack damaged in
// its commit region (what is answered is still right; the rest is left to the object store).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PackCommits } from '../../src/git/history/pack-commits';
import { buildDag, objectsDir, type DagCommit } from './walk-dag';
import { cleanupTempDirs, git, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

function lines(s: string): string[] {
  return s.split('\n').filter(Boolean);
}

/** Every commit's parents and committer date, as git reads them. */
function truth(repo: string): Map<string, { parents: string[]; time: number }> {
  const out = new Map<string, { parents: string[]; time: number }>();
  for (const l of lines(git(repo, ['log', '--all', '--format=%H %ct %P']))) {
    const [oid, time, ...parents] = l.split(' ');
    out.set(oid!, { parents: parents.filter(Boolean), time: Number(time) });
  }
  return out;
}

/** A history of 200 commits with merges, dates skewed, an annotated tag, repacked by git. */
function packedHistory(): string {
  const spec: DagCommit[] = Array.from({ length: 200 }, (_, i) => ({ back: i === 0 ? [] : i % 9 === 0 ? [1, 5] : [1], dt: i % 10 === 0 ? -4 * 86_400 : 60, ref: i % 50 === 49 }));
  const { repo, commits } = buildDag(spec, { bare: true });
  git(repo, ['tag', '-a', '-m', 'a tag', 'v1', commits[120]!]);
  git(repo, ['repack', '-adq']);
  return repo;
}

function packDir(repo: string): string {
  return join(objectsDir(repo), 'pack');
}

/** Asks `packs` for each of `order`, in that order: every answer must be the commit as git
 * reads it (`want`); how many were answered. */
function answered(packs: PackCommits, order: readonly string[], want: ReturnType<typeof truth>): number {
  let n = 0;
  for (const oid of order) {
    const got = packs.lookup(oid);
    if (got === undefined) continue;
    n++;
    assert.equal({ parents: [...got.parents], time: got.time }, want.get(oid), oid);
  }
  return n;
}

test('a pack git wrote: the commits are answered in walk order, each as git reads it', () => {
  const repo = packedHistory();
  const mirror = join(tempDir(), 'mirror.git');
  git(tempDir(), ['clone', '-q', '--mirror', repo, mirror]);
  for (const r of [repo, mirror]) {
    const want = truth(r);
    const packs = new PackCommits([packDir(r)]);
    // Newest first, as a walk from the refs asks.
    const n = answered(packs, lines(git(r, ['rev-list', '--all', '--date-order'])), want);
    packs.release();
    assert.ok(n >= want.size * 0.9, `most commits answered from the pack (${n} of ${want.size})`);
    // Asked again after release(): what was handed out is not kept, the rest goes on.
    assert.is(new PackCommits([packDir(r)]).lookup('0'.repeat(40)), undefined);
  }
});

test('commits asked out of order: an older one first, then newer ones (read one by one), never a wrong answer', () => {
  const repo = packedHistory();
  const want = truth(repo);
  const order = lines(git(repo, ['rev-list', '--all', '--date-order']));
  const asked = [order[150]!, ...order.slice(0, 150), ...order.slice(151)];
  const n = answered(new PackCommits([packDir(repo)]), asked, want);
  assert.ok(n > 40, `the commits after the first question are answered (${n})`);
});

test('a pack whose blobs come first: nothing is answered (the commits are read one by one)', () => {
  const repo = initRepo({ bare: true });
  let stream = '';
  for (let i = 0; i < 5; i++) stream += `blob\nmark :${i + 1}\ndata 6\nblob${i}\n\n`;
  for (let i = 0; i < 5; i++) {
    const msg = `c${i}\n`;
    stream += `commit refs/heads/main\nmark :${100 + i}\ncommitter C <c@example.com> ${1_800_000_000 + i} +0000\ndata ${msg.length}\n${msg}`;
    if (i > 0) stream += `from :${99 + i}\n`;
    stream += `M 100644 :${i + 1} f${i}.txt\n\n`;
  }
  git(repo, ['fast-import', '--quiet'], { input: stream });
  const packs = new PackCommits([packDir(repo)]);
  for (const oid of lines(git(repo, ['rev-list', '--all']))) assert.is(packs.lookup(oid), undefined, oid);
});

test('a pack written oldest first, commits between trees and blobs (git fast-import): asked newest first, every commit answered as git reads it', () => {
  const repo = initRepo({ bare: true });
  let stream = '';
  for (let i = 0; i < 300; i++) {
    const msg = `c${i}\n`;
    // Dates skewed now and then, a merge every 25 commits.
    const when = 1_800_000_000 + i * 60 - (i % 17 === 0 ? 86_400 : 0);
    stream += `blob\nmark :${i + 1}\ndata ${String(i).length + 6}\nblob ${i}\n\n`;
    stream += `commit refs/heads/main\nmark :${1000 + i}\ncommitter C <c@example.com> ${when} +0000\ndata ${msg.length}\n${msg}`;
    if (i > 0) stream += `from :${999 + i}\n`;
    if (i > 30 && i % 25 === 0) stream += `merge :${1000 + i - 30}\n`;
    stream += `M 100644 :${i + 1} f${i % 7}.txt\n\n`;
  }
  git(repo, ['fast-import', '--quiet'], { input: stream });
  const want = truth(repo);
  const packs = new PackCommits([packDir(repo)]);
  const n = answered(packs, lines(git(repo, ['rev-list', '--all', '--date-order'])), want);
  packs.release();
  assert.is(n, want.size, 'every commit answered from the pack, read backward');
});

test('a pack damaged in its commit region: every answer given is still the commit\'s own', () => {
  const repo = packedHistory();
  const want = truth(repo);
  const order = lines(git(repo, ['rev-list', '--all', '--date-order']));
  const dir = packDir(repo);
  const pack = join(dir, readdirSync(dir).find((n) => n.endsWith('.pack'))!);
  const buf = readFileSync(pack);
  // Bytes flipped a third of the way into the commits (they come first, ~150 bytes each).
  for (const at of [12 + 30 * 150, 12 + 30 * 150 + 7]) buf[at] ^= 0x5a;
  writeFileSync(pack, buf);
  const n = answered(new PackCommits([dir]), order, want);
  assert.ok(n < want.size, `the reading stopped at the damage (${n} of ${want.size})`);
});

test.run();
