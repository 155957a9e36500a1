// Objects too large to read inside the deadline: a commit whose message is over 64 MiB is
// LIMIT_EXCEEDED (closed) without being inflated whole, never an INTERNAL_ERROR or a pass.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codes, guardedRepo, runCli } from '../helpers/repo';
import { git } from '../helpers/git';

/** Writes a loose commit on top of main whose message is 65 MiB of 'a' and then `tail`. */
function hugeCommit(repo: string, tail: string): string {
  const tree = git(repo, ['rev-parse', 'main^{tree}']).trim();
  const parent = git(repo, ['rev-parse', 'main']).trim();
  const file = join(repo, '..', 'huge-commit');
  const header = `tree ${tree}\nparent ${parent}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\n`;
  writeFileSync(file, Buffer.concat([Buffer.from(header), Buffer.alloc(65 * 1024 * 1024, 0x61), Buffer.from(tail)]));
  return git(repo, ['hash-object', '-t', 'commit', '-w', '--', file]).trim();
}

test('a commit over 64 MiB is LIMIT_EXCEEDED, naming the commit', () => {
  const repo = guardedRepo();
  const huge = hugeCommit(repo, '\n');
  git(repo, ['update-ref', 'refs/heads/huge', huge]);
  const run = runCli(['verify-ref', 'huge', '--base', 'main', '--now', '2026-11-29', '--json'], { cwd: repo });
  assert.is(run.status, 1, run.stderr);
  assert.equal(codes(run), ['LIMIT_EXCEEDED']);
  assert.match(run.json.findings[0].message, new RegExp(`Commit ${huge} is \\d+ bytes, over the limit`));
});

test('a packed commit over 64 MiB, whole or as a delta, is LIMIT_EXCEEDED from its pack entry headers', () => {
  const repo = guardedRepo();
  const huge = ['first\n', 'second\n'].map((tail) => hugeCommit(repo, tail));
  git(repo, ['update-ref', 'refs/heads/huge-1', huge[0]!]);
  git(repo, ['update-ref', 'refs/heads/huge-2', huge[1]!]);
  git(repo, ['-c', 'pack.compression=1', '-c', 'pack.window=2', 'repack', '-adq', '--window-memory=512m']);
  const packed = git(repo, ['count-objects', '-v']);
  assert.match(packed, /^count: 0$/m, 'every object is packed');
  const packDir = join(git(repo, ['rev-parse', '--absolute-git-dir']).trim(), 'objects', 'pack');
  const deltas = git(repo, ['verify-pack', '-v', join(packDir, readdirSync(packDir).find((f) => f.endsWith('.idx'))!)]);
  for (const oid of huge) {
    const run = runCli(['verify-ref', oid, '--base', 'main', '--now', '2026-11-29', '--json'], { cwd: repo });
    assert.is(run.status, 1, run.stderr);
    assert.equal(codes(run), ['LIMIT_EXCEEDED']);
    assert.match(run.json.findings[0].message, new RegExp(`Commit ${oid} is \\d+ bytes, over the limit`));
  }
  // One of the two is stored as a delta of the other (verify-pack shows its base), so both
  // the whole-entry and the delta header are what refused it.
  assert.ok(huge.some((oid) => new RegExp(`^${oid} commit \\d+ \\d+ \\d+ 1 [0-9a-f]{40}$`, 'm').test(deltas)), deltas.slice(0, 2000));
});

test.run();
