// Manual check (see docs/object-store.md): reads the blob at SMALL_PATH from HEAD of REPO with
// the object store and reports time and RSS growth, then (optionally) measures BIG_PATH without
// reading it. Exits 1 when the small blob differs from `git cat-file` or RSS grew over the limit.
//   npx tsx test/git/manual/read-beside.ts REPO SMALL_PATH [BIG_PATH] [RSS_LIMIT_MB]

import { execFileSync } from 'node:child_process';
import { ObjectStore } from '../../../src/git/index';

async function main(): Promise<number> {
  const [repo, smallPath, bigPath, limitArg] = process.argv.slice(2);
  if (!repo || !smallPath) {
    console.error('usage: read-beside.ts REPO SMALL_PATH [BIG_PATH] [RSS_LIMIT_MB]');
    return 2;
  }
  const limit = Number(limitArg ?? 64) * 1024 * 1024;
  const expected = execFileSync('git', ['-C', repo, 'cat-file', 'blob', `HEAD:${smallPath}`]);
  const rss0 = process.memoryUsage().rss;
  const t0 = performance.now();
  const store = await ObjectStore.discover(repo);
  const head = store.refs.resolve('HEAD')!;
  const tree = (await store.commits.read(head)).tree;
  const entry = (await store.trees.entryAt(tree, smallPath))!;
  const bytes = Buffer.from(await store.objects.readBlob(entry.oid, 1 << 20));
  const t1 = performance.now();
  const grew = process.memoryUsage().rss - rss0;
  console.log(`read ${smallPath} (${bytes.length} bytes) in ${(t1 - t0).toFixed(1)} ms, RSS +${(grew / 1048576).toFixed(1)} MiB`);
  if (bigPath) {
    const big = (await store.trees.entryAt(tree, bigPath))!;
    const t2 = performance.now();
    const info = await store.objects.objectInfo(big.oid);
    console.log(`objectInfo ${bigPath}: ${JSON.stringify(info)} in ${(performance.now() - t2).toFixed(1)} ms`);
  }
  if (!bytes.equals(expected)) {
    console.error('FAIL: the small blob differs from git cat-file');
    return 1;
  }
  if (grew > limit) {
    console.error(`FAIL: RSS grew by more than ${limit / 1048576} MiB`);
    return 1;
  }
  console.log('OK');
  return 0;
}

// No rejection handler on purpose: a throw in main() is an unhandled rejection, which prints
// its stack and exits non-zero, the failure a manual run needs to see.
void main().then((code) => process.exit(code));
