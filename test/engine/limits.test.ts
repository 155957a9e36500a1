// Objects too large to read inside the deadline: a commit whose message is over 64 MiB is
// LIMIT_EXCEEDED (closed) without being inflated whole, never an INTERNAL_ERROR or a pass.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { codes, git, guardedRepo, runCli } from '../helpers/repo';

test('a commit over 64 MiB is LIMIT_EXCEEDED, naming the commit', () => {
  const repo = guardedRepo();
  const tree = git(repo, ['rev-parse', 'main^{tree}']).trim();
  const parent = git(repo, ['rev-parse', 'main']).trim();
  const file = join(repo, '..', 'huge-commit');
  const header = `tree ${tree}\nparent ${parent}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\n`;
  writeFileSync(file, Buffer.concat([Buffer.from(header), Buffer.alloc(65 * 1024 * 1024, 0x61), Buffer.from('\n')]));
  const huge = git(repo, ['hash-object', '-t', 'commit', '-w', '--', file]).trim();
  git(repo, ['update-ref', 'refs/heads/huge', huge]);
  const run = runCli(['verify-ref', 'huge', '--base', 'main', '--now', '2026-11-29', '--json'], { cwd: repo });
  assert.is(run.status, 1, run.stderr);
  assert.equal(codes(run), ['LIMIT_EXCEEDED']);
  assert.match(run.json.findings[0].message, new RegExp(`Commit ${huge} is \\d+ bytes, over the limit`));
});

test.run();
