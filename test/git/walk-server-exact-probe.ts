// A pre-receive hook for server-walk-first-push.test.ts: for the pushed ref, the new commits by
// newCommitsOnServer (existing tips: every ref before the push), by `git rev-list NEW --not
// --all`, and exactly (`git rev-list NEW` less `git rev-list --all`: the whole sets, so no date
// heuristic can cut them short), in the same hook environment; then, on the same History (as the
// engine asks after the walk), the merge bases of each existing ref's commit and the pushed one
// against `git merge-base --all`. Written as JSON to argv[2].

import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { ObjectStore } from '../../src/git/store';
import { Deadline } from '../../src/deadline';
import { History } from '../../src/git/history/history';
import { newCommitsOnServer } from '../../src/git/history/server-new-commits';
import { mergeBases } from '../../src/git/history/merge-base';

const lines = (b: Buffer) => b.toString().split('\n').filter(Boolean);

async function main(): Promise<void> {
  const store = await ObjectStore.open({ gitdir: process.env.GIT_DIR ?? '.', env: process.env });
  const [, newOid] = readFileSync(0, 'utf8').trim().split(' ') as [string, string, string];
  const history = new History(store);
  const refs = [...store.refs.list().values()];
  const mine = await newCommitsOnServer(history, newOid, refs, Deadline.never());
  const git = lines(execFileSync('git', ['rev-list', newOid, '--not', '--all']));
  const old = new Set(lines(execFileSync('git', ['rev-list', '--all'])));
  const exact = lines(execFileSync('git', ['rev-list', newOid])).filter((c) => !old.has(c));
  const bases: { ref: string; mine: string[]; git: string[] }[] = [];
  for (const ref of new Set(refs)) {
    const commit = await store.commits.peelToCommit(ref);
    const r = spawnSync('git', ['merge-base', '--all', commit, newOid], { encoding: 'utf8' });
    bases.push({ ref: commit, mine: await mergeBases(history, commit, newOid, Deadline.never()), git: r.stdout.split('\n').filter(Boolean) });
  }
  writeFileSync(process.argv[2]!, JSON.stringify({ mine, git, exact, bases }));
  store.close();
}

main().catch((err) => {
  process.stderr.write(String(err && (err as Error).stack));
  process.exit(1);
});
