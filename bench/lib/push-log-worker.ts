// In-process half of the push-log benchmark (bench/lib/push-log.mjs runs it with tsx):
//   append GITDIR KEY N      N appends of a one-update entry; prints the per-append times (ms)
//   build GITDIR KEY REF     a genesis entry, then one `push` entry per commit of REF's
//                            first-parent history read on stdin (oldest first), REF at the last
import { readFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { appendEntries } from '../../src/pushlog/append';
import type { LogPredicate } from '../../src/pushlog/entry';
import { loadPrivateKey } from '../../src/receipt/dsse';

const ZERO = '0'.repeat(40);
const [mode, gitdir, keyPath, arg] = process.argv.slice(2) as [string, string, string, string];
const key = loadPrivateKey(readFileSync(keyPath, 'utf8'), keyPath);

function entry(ref: string, old: string, next: string): Omit<LogPredicate, 'seq' | 'prev'> {
  return {
    schema: 'receipt-gate-push-log/v1',
    kind: 'push',
    time: new Date().toISOString(),
    tool_version: 'bench',
    identity: 'bench',
    policy_blob: null,
    updates: [{ ref, old, new: next, verdict: 'eligible', findings: [], protected: true }],
    push_certificate: null,
  };
}

async function main(): Promise<void> {
  if (mode === 'append') {
    const n = Number(arg);
    const wall: number[] = [];
    const cpu: number[] = [];
    let old = ZERO;
    for (let i = 0; i < n; i++) {
      const next = (i + 1).toString(16).padStart(40, '0');
      const t0 = performance.now();
      const c0 = process.cpuUsage();
      await appendEntries(gitdir, key, () => [entry('refs/heads/bench', old, next)]);
      const c = process.cpuUsage(c0);
      wall.push(performance.now() - t0);
      cpu.push((c.user + c.system) / 1000);
      old = next;
    }
    process.stdout.write(`${JSON.stringify({ wall, cpu })}\n`);
  } else if (mode === 'build') {
    const commits = readFileSync(0, 'utf8').split('\n').filter(Boolean);
    const ref = arg;
    const genesis: Omit<LogPredicate, 'seq' | 'prev'> = { ...entry(ref, ZERO, ZERO), kind: 'genesis', updates: [], refs: { [ref]: commits[0]! } };
    await appendEntries(gitdir, key, () => [genesis]);
    for (let i = 1; i < commits.length; i += 500) {
      const batch: Omit<LogPredicate, 'seq' | 'prev'>[] = [];
      for (let j = i; j < Math.min(i + 500, commits.length); j++) batch.push(entry(ref, commits[j - 1]!, commits[j]!));
      await appendEntries(gitdir, key, () => batch);
    }
  }
}

void main();
