// A real pre-receive quarantine: a bare repository whose pre-receive hook runs
// fixtures/quarantine-probe.ts with the object store, on real `git push`es — a small push (its
// objects arrive loose in the quarantine), one over receive.unpackLimit (a pack in the
// quarantine), a merge, and a deletion-only push (no quarantine at all).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { commit } from './helpers';
import { cleanupTempDirs, git, initRepo, tempDir } from '../helpers/git';

const TSX = resolve(__dirname, '../../node_modules/.bin/tsx');
const PROBE = resolve(__dirname, 'fixtures/quarantine-probe.ts');

interface Update {
  ref: string;
  deleted?: boolean;
  newCommits: string[];
  gitNewCommits: string[];
  tipQuarantined: boolean;
  touched: Record<string, string[]>;
  gitTouched: Record<string, string[]>;
  payload: string | null;
  gitPayload: string | null;
}
interface Record_ {
  error?: string;
  gitDirEnv: string | null;
  hasQuarantine: boolean;
  quarantineHasPack: boolean;
  quarantineHasLoose: boolean;
  updates: Update[];
}

function setup(): { work: string; bare: string; log: string; push: (...args: string[]) => Record_ } {
  const bare = initRepo({ bare: true });
  git(bare, ['config', 'receive.unpackLimit', '10']);
  const log = join(tempDir(), 'probe.jsonl');
  const hook = join(bare, 'hooks', 'pre-receive');
  writeFileSync(hook, `#!/bin/sh\nexec "${TSX}" "${PROBE}" "${log}"\n`);
  chmodSync(hook, 0o755);
  const work = initRepo();
  git(work, ['remote', 'add', 'origin', bare]);
  const push = (...args: string[]) => {
    const before = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
    git(work, ['push', '-q', 'origin', ...args]);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    assert.is(lines.length, before + 1, 'the hook ran once');
    const rec = JSON.parse(lines[lines.length - 1]!) as Record_;
    assert.is(rec.error, undefined, rec.error);
    return rec;
  };
  return { work, bare, log, push };
}

function assertAgrees(u: Update): void {
  assert.equal(u.newCommits, u.gitNewCommits, `${u.ref}: new commits`);
  assert.equal(Object.keys(u.touched).sort(), [...u.newCommits].sort());
  for (const c of u.newCommits) assert.equal(u.touched[c], u.gitTouched[c], `${u.ref}: touched paths of ${c}`);
  assert.is(u.payload, u.gitPayload);
}

test.after(cleanupTempDirs);

test('pre-receive: loose and packed quarantines, merges, deletions', async () => {
  const { work, push } = setup();
  // First push: a root commit, small (loose in the quarantine).
  const root = commit(work, { 'payload.txt': 'first\n', 'src/app.ts': 'export {};\n' });
  let rec = push('main');
  assert.is(rec.hasQuarantine, true);
  assert.is(rec.quarantineHasLoose, true);
  assert.is(rec.quarantineHasPack, false);
  assert.is(rec.gitDirEnv, '.', 'git runs the hook with GIT_DIR=. (relative), and the store opens it as given');
  assertAgrees(rec.updates[0]!);
  assert.equal(rec.updates[0]!.newCommits, [root]);
  assert.is(rec.updates[0]!.payload, 'first\n');
  assert.equal(rec.updates[0]!.touched[root], ['payload.txt', 'src/app.ts']);

  // A large push: more objects than receive.unpackLimit, so they arrive as one pack.
  const files: Record<string, string> = { 'payload.txt': 'second\n' };
  for (let i = 0; i < 30; i++) files[`fixtures/f${i}.json`] = `{"i": ${i}}\n`;
  const c2 = commit(work, files);
  commit(work, { 'fixtures/f3.json': '{"i": "changed"}\n', 'src/app.ts': 'export const x = 1;\n' });
  rec = push('main');
  assert.is(rec.quarantineHasPack, true, 'the push arrived as a pack');
  const u = rec.updates[0]!;
  assertAgrees(u);
  assert.is(u.newCommits.length, 2);
  assert.ok(u.newCommits.includes(c2));
  assert.is(u.tipQuarantined, true);
  assert.is(u.payload, 'second\n');

  // A merge of a side branch plus a new branch at an existing commit (nothing new in it).
  git(work, ['checkout', '-q', '-b', 'side', 'HEAD~1']);
  commit(work, { 'side.txt': 'side\n' });
  git(work, ['checkout', '-q', 'main']);
  git(work, ['merge', '-q', '--no-edit', 'side']);
  git(work, ['branch', 'old-point', root]);
  rec = push('main', 'side', 'old-point');
  assert.is(rec.updates.length, 3);
  for (const upd of rec.updates) assertAgrees(upd);
  const mainUpdate = rec.updates.find((x) => x.ref === 'refs/heads/main')!;
  assert.is(mainUpdate.newCommits.length, 2, 'the merge and the side commit');
  const oldPoint = rec.updates.find((x) => x.ref === 'refs/heads/old-point')!;
  assert.equal(oldPoint.newCommits, []);
  assert.is(oldPoint.tipQuarantined, false);

  // Deletion only: git creates no quarantine.
  rec = push('--delete', 'old-point');
  assert.is(rec.hasQuarantine, false);
  assert.equal(rec.updates, [{ ref: 'refs/heads/old-point', deleted: true } as unknown as Update]);
});

test.run();
