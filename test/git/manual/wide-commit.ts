// Manual measurement (not a test): touchedPaths on a commit that adds FILES files in DIRS
// directories (main~1), and on one that then edits one file in every directory (main), built
// with git fast-import in a temp directory.
//   npx tsx test/git/manual/wide-commit.ts [files=100000] [dirs=2000] [repeat=3]
//   node --cpu-prof --cpu-prof-dir=/tmp/prof --import tsx test/git/manual/wide-commit.ts
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ObjectStore, touchedPaths } from '../../../src/git/index';

const files = Number(process.argv[2] ?? 100000);
const dirs = Number(process.argv[3] ?? 2000);
const repeat = Number(process.argv[4] ?? 3);
const repo = join(tmpdir(), `rg-wide2-${files}-${dirs}`);

function build(): void {
  mkdirSync(repo, { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main', repo]);
  const lines: string[] = [];
  lines.push('blob', 'mark :1', 'data 4', 'one', '');
  lines.push('commit refs/heads/main', 'mark :2', 'committer C <c@example.com> 1800000000 +0000', 'data 4', 'base', 'M 100644 :1 README.md', '');
  lines.push('commit refs/heads/main', 'mark :3', 'committer C <c@example.com> 1800000060 +0000', 'data 5', 'wide', 'from :2');
  for (let f = 0; f < files; f++) {
    const d = f % dirs;
    lines.push(`M 100644 inline src/m${String(d).padStart(4, '0')}/f${String(f).padStart(6, '0')}.txt`, `data ${String(f).length + 1}`, `${f}`);
  }
  lines.push('');
  lines.push('commit refs/heads/main', 'mark :4', 'committer C <c@example.com> 1800000120 +0000', 'data 5', 'edit', 'from :3');
  for (let d = 0; d < dirs; d++) lines.push(`M 100644 inline src/m${String(d).padStart(4, '0')}/f${String(d).padStart(6, '0')}.txt`, 'data 7', 'edited');
  lines.push('');
  execFileSync('git', ['fast-import', '--quiet'], { cwd: repo, input: lines.join('\n') + '\n', maxBuffer: 1 << 30 });
  execFileSync('git', ['repack', '-adq'], { cwd: repo });
}

async function main(): Promise<void> {
  if (!existsSync(join(repo, '.git', 'refs', 'heads', 'main')) && !existsSync(join(repo, '.git', 'packed-refs'))) build();
  for (const rev of ['main~1', 'main']) {
  const head = execFileSync('git', ['rev-parse', rev], { cwd: repo, encoding: 'utf8' }).trim();
  console.log(rev);
  for (let k = 0; k < repeat; k++) {
    const store = await ObjectStore.discover(repo);
    const t0 = process.hrtime.bigint();
    const cpu0 = process.cpuUsage();
    const changes = await touchedPaths(store, head);
    const ms = Number(process.hrtime.bigint() - t0) / 1e6;
    const cpu = process.cpuUsage(cpu0);
    // CPU time is the figure to compare on a shared machine; wall time moves with the load.
    console.log(`touchedPaths: ${changes.length} paths, cpu ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms, wall ${ms.toFixed(0)} ms, rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MB`);
    store.close();
  }
  }
}

void main();
