#!/usr/bin/env node
// Many pushes in a row through the installed hook, to catch what a median hides: a hook that
// answers and then does not exit (seen once with a V8 code-cache loader), a crash one run in a
// hundred. Each push is the benchmark's 1-commit push into a copy of a cached repository (run
// `npm run bench -- --build-only --only @wide` first); after each one the branch and the new
// objects are removed again.
//
// The hook is what `./install.sh --server` installs: the shim, the bundle and, unless
// --no-snapshot, the startup snapshot built from it (receipt-gate.blob).
//
//   node bench/soak.mjs [--pushes N] [--repo wide] [--node SCRIPT] [--bundle FILE] [--no-snapshot]
//   --node SCRIPT: install and run with SCRIPT instead of node (RECEIPT_GATE_NODE)
//   --bundle FILE: install FILE instead of dist/cli.js (RECEIPT_GATE_BUNDLE_SOURCE)
//   --no-snapshot: install without the snapshot (RECEIPT_GATE_NO_SNAPSHOT=1), a control run
//
// Prints one line per 100 pushes and a summary: verdicts, the slowest pushes, how many took
// longer than --slow-ms (default 3000), how many were stopped by the shim's hard timeout and
// how many the shim had to check again with the plain bundle because the snapshot gave no answer.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_TODAY } from './lib/evidence.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const opt = (name, fallback) => {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : fallback;
};
const pushes = Number(opt('--pushes', '1000'));
const repoName = opt('--repo', 'wide');
const nodeScript = opt('--node', null);
const bundle = opt('--bundle', null);
const slowMs = Number(opt('--slow-ms', '3000'));
const noSnapshot = args.includes('--no-snapshot');

const git = (a) => execFileSync('git', a, { encoding: 'utf8' }).trim();
const meta = JSON.parse(readFileSync(join(ROOT, '.bench-cache', repoName, 'meta.json'), 'utf8'));
const work = join(ROOT, '.bench-cache', 'work', `soak-${process.pid}`);
mkdirSync(work, { recursive: true });
process.on('exit', () => rmSync(work, { recursive: true, force: true }));
const target = join(work, 'target.git');
execFileSync('cp', ['-al', meta.seedDir, target]);
git(['--git-dir', target, 'config', 'receive.autogc', 'false']);
rmSync(join(target, 'hooks'), { recursive: true, force: true });
mkdirSync(join(target, 'hooks'));
const installEnv = {
  ...process.env,
  ...(bundle ? { RECEIPT_GATE_BUNDLE_SOURCE: resolve(bundle) } : {}),
  ...(nodeScript ? { RECEIPT_GATE_NODE: resolve(nodeScript) } : {}),
  ...(noSnapshot ? { RECEIPT_GATE_NO_SNAPSHOT: '1' } : {}),
};
delete installEnv.RECEIPT_GATE_BUNDLE;
const installed = execFileSync(join(ROOT, 'install.sh'), ['--server', target], { cwd: ROOT, env: installEnv, encoding: 'utf8' });
process.stderr.write(installed.replace(/^/gm, 'soak: '));
const snapshot = existsSync(join(target, 'hooks', 'receipt-gate.blob'));

const listObjects = () => {
  const out = new Set();
  const walk = (d) => {
    for (const e of readdirSync(d, { withFileTypes: true })) e.isDirectory() ? walk(join(d, e.name)) : out.add(relative(target, join(d, e.name)));
  };
  walk(join(target, 'objects'));
  return out;
};
git(['--git-dir', target, 'update-ref', 'refs/heads/bench/work', meta.mainTip]);
const before = listObjects();
const env = { ...process.env, RECEIPT_GATE_NOW: BENCH_TODAY, ...(nodeScript ? { RECEIPT_GATE_NODE: resolve(nodeScript) } : {}) };
for (const v of ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER', 'GIT_DIR', 'RECEIPT_GATE_BUNDLE', 'RECEIPT_GATE_NO_SNAPSHOT']) delete env[v];

const verdicts = new Map();
const times = [];
let slow = 0;
let killed = 0;
let fallbacks = 0;
const started = Date.now();
for (let i = 1; i <= pushes; i++) {
  const t0 = process.hrtime.bigint();
  const res = spawnSync('git', ['--git-dir', meta.pushDir, 'push', '--quiet', target, `${meta.pushes.p1.ref}:refs/heads/bench/work`], { env, encoding: 'utf8' });
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  times.push(ms);
  const machine = /receipt-gate: (\{.*\})\s*$/m.exec(res.stderr.split('\n').filter((l) => l.includes('receipt-gate: {')).pop() ?? '');
  const verdict = machine ? JSON.parse(machine[1]).verdict : `no machine line (exit ${res.status})`;
  verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
  if (ms > slowMs) slow++;
  if (/did not answer within/.test(res.stderr)) killed++;
  if (/startup snapshot receipt-gate\.blob could not be used/.test(res.stderr)) fallbacks++;
  git(['--git-dir', target, 'update-ref', 'refs/heads/bench/work', meta.mainTip]);
  for (const f of listObjects()) if (!before.has(f)) rmSync(join(target, f), { force: true });
  if (i % 100 === 0) process.stderr.write(`soak: ${i}/${pushes} pushes, ${slow} over ${slowMs} ms, ${killed} stopped by the shim, ${fallbacks} snapshot fallbacks\n`);
}
const sorted = [...times].sort((a, b) => a - b);
const summary = {
  pushes,
  seconds: Math.round((Date.now() - started) / 1000),
  node: nodeScript ?? 'node',
  bundle: bundle ?? 'dist/cli.js',
  snapshot,
  verdicts: Object.fromEntries(verdicts),
  medianMs: Math.round(sorted[sorted.length >> 1]),
  p99Ms: Math.round(sorted[Math.floor(sorted.length * 0.99)]),
  maxMs: Math.round(sorted[sorted.length - 1]),
  overSlowMs: slow,
  stoppedByShim: killed,
  snapshotFallbacks: fallbacks,
};
process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
process.exitCode = killed > 0 || fallbacks > 0 || verdicts.size !== 1 || snapshot === noSnapshot ? 1 : 0;
