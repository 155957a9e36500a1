// A pre-receive hook for walk-cases.test.ts: for each pushed ref, the new commits by
// newCommitsOnServer (existing tips: every ref before the push) and by `git rev-list --not
// --all` in the same hook environment, written as JSON to argv[2].

import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { ObjectStore } from '../../src/git/store';
import { Deadline } from '../../src/deadline';
import { History } from '../../src/git/history/history';
import { newCommitsOnServer } from '../../src/git/history/server-new-commits';

async function main(): Promise<void> {
  const store = await ObjectStore.open({ gitdir: process.env.GIT_DIR ?? '.', env: process.env });
  const [, newOid] = readFileSync(0, 'utf8').trim().split(' ') as [string, string, string];
  const mine = await newCommitsOnServer(new History(store), newOid, [...store.refs.list().values()], Deadline.never());
  const git = execFileSync('git', ['rev-list', newOid, '--not', '--all']).toString().split('\n').filter(Boolean);
  const quarantined = await Promise.all(mine.map((c) => store.objects.isQuarantined(c)));
  writeFileSync(process.argv[2]!, JSON.stringify({ mine, git, quarantined }));
}

main().catch((err) => {
  process.stderr.write(String(err && (err as Error).stack));
  process.exit(1);
});
