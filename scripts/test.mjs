// `npm test`: runs every test/**/*.test.ts file (uvu suites) in its own process, a few at a
// time, and ends with one closing line "N passed, N failed". Most suites spend their time in
// real git, servers and python3 processes, so running files side by side keeps the suite short
// on two cores; one process per file keeps suites from sharing state.
//
// Longest first: each file's duration is kept in node_modules/.cache/receipt-gate/test-times.json
// and the next run starts the files that took longest (files not timed yet first of all), so a
// long file never starts last and keeps the run waiting alone. No file has a time limit.
//
//   npm test                      all files
//   npm test -- server git        only files whose path contains one of the words
//   TEST_JOBS=1 npm test          one file at a time

import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, relative } from 'node:path';

const root = new URL('..', import.meta.url).pathname;
const filters = process.argv.slice(2);
const jobs = Number(process.env.TEST_JOBS) || Math.max(2, Math.min(4, availableParallelism() + 1));

function find(dir) {
  const out = [];
  for (const name of readdirSync(dir).sort()) {
    const full = join(dir, name);
    if (statSync(full).isDirectory()) {
      if (name !== 'manual' && name !== 'node_modules') out.push(...find(full));
    } else if (name.endsWith('.test.ts')) {
      out.push(full);
    }
  }
  return out;
}

const files = find(join(root, 'test'))
  .map((f) => relative(root, f))
  .filter((f) => filters.length === 0 || filters.some((w) => f.includes(w)));

// Longest first, by the last recorded durations; files never timed count as longest (a new
// suite is more often slow than not), then the folders known to be slow.
const timesFile = join(root, 'node_modules', '.cache', 'receipt-gate', 'test-times.json');
let times = {};
try {
  times = JSON.parse(readFileSync(timesFile, 'utf8'));
} catch {
  /* first run */
}
const slow = ['bench-smoke', 'server/', 'client/', 'receipt/e2e', 'git/differential', 'evidence/pyjson', 'engine/verify-ref'];
const expected = (f) => times[f] ?? Number.POSITIVE_INFINITY;
files.sort(
  (a, b) =>
    expected(b) - expected(a) ||
    slow.findIndex((s) => b.includes(s)) - slow.findIndex((s) => a.includes(s)) ||
    a.localeCompare(b),
);

const tsx = join(root, 'node_modules', '.bin', 'tsx');
const results = [];

function runFile(file) {
  return new Promise((resolveRun) => {
    const started = Date.now();
    const child = spawn(tsx, [file], { cwd: root, env: { ...process.env, FORCE_COLOR: '0' } });
    let output = '';
    child.stdout.on('data', (d) => (output += d));
    child.stderr.on('data', (d) => (output += d));
    child.on('close', (code, signal) => {
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      const count = (label) => Number(new RegExp(`${label}:\\s+(\\d+)`).exec(output)?.[1] ?? 0);
      const total = count('Total');
      const passed = count('Passed');
      const failedTests = Math.max(total - passed - count('Skipped'), 0);
      // A file that crashed, or ran no test, counts as a failure: every file must run its tests.
      const ok = code === 0 && total > 0 && failedTests === 0;
      results.push({ file, ok, total, passed, failed: ok ? failedTests : Math.max(failedTests, 1), seconds: Number(seconds) });
      process.stdout.write(`${ok ? 'ok  ' : 'FAIL'} ${file} (${passed}/${total} in ${seconds}s)\n`);
      if (!ok) {
        process.stdout.write(output.replace(/^/gm, '    | ') + `\n    | exit ${code ?? signal}\n`);
      }
      resolveRun();
    });
  });
}

const queue = [...files];
await Promise.all(
  Array.from({ length: Math.min(jobs, queue.length) }, async () => {
    while (queue.length) await runFile(queue.shift());
  }),
);

const started = Date.now() - process.uptime() * 1000;
for (const r of results) times[r.file] = r.seconds;
try {
  mkdirSync(join(root, 'node_modules', '.cache', 'receipt-gate'), { recursive: true });
  writeFileSync(timesFile, JSON.stringify(times, null, 1) + '\n');
} catch {
  /* a read-only checkout: the next run schedules by folder */
}
if (results.length > 1) {
  const sum = results.reduce((n, r) => n + r.seconds, 0);
  const slowest = [...results].sort((a, b) => b.seconds - a.seconds).slice(0, 8);
  process.stdout.write(
    `\n${results.length} files, ${sum.toFixed(0)} s of file time in ${((Date.now() - started) / 1000).toFixed(0)} s, ${jobs} at a time; longest:\n` +
      slowest.map((r) => `  ${r.seconds.toFixed(1).padStart(6)} s  ${r.file}`).join('\n') +
      '\n',
  );
}

const passed = results.reduce((n, r) => n + r.passed, 0);
const failed = results.reduce((n, r) => n + r.failed, 0);
const failedFiles = results.filter((r) => !r.ok).map((r) => r.file);
if (failedFiles.length) process.stdout.write(`\nfailed files:\n${failedFiles.map((f) => `  ${f}`).join('\n')}\n`);
process.stdout.write(`\n${passed} passed, ${failed} failed\n`);
process.exitCode = failed > 0 || files.length === 0 ? 1 : 0;
