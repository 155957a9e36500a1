// The push-log scenario (`npm run bench -- push-log`): what the signed push log costs a push,
// and how long verify-log takes over a long log.
//
//   append     one append (lock, one signed entry, loose objects, ref rename), in process,
//              1,000 times on one log: median and p95
//   push       real pushes of one commit into a bare repository with the hooks installed by
//              ./install.sh --server, interleaved: the log on (the entry pre-receive signed,
//              appended by the shell hook), the log on through the Node logger
//              (RECEIPT_GATE_LOG_NO_FAST=1), the log off; medians (CPU: user + system of the
//              push and every process it waited for, by wait4 in bench/measure.py) and each
//              one's difference from the log off
//   verify     `receipt-gate verify-log` over a log of 10,000 entries on a 10,000-commit main,
//              loose objects and after `git gc`
//
//   node bench/run.mjs push-log [--entries N] [--pushes N] [--appends N] [--no-build]
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { BENCH_ENV } from './env.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const TSX = join(ROOT, 'node_modules', '.bin', 'tsx');
const WORKER = join(ROOT, 'bench', 'lib', 'push-log-worker.ts');
const MEASURE = join(ROOT, 'bench', 'measure.py');
const log = (msg) => process.stderr.write(`bench push-log: ${msg}\n`);

const ENV = BENCH_ENV;

function git(args, opts = {}) {
  return execFileSync('git', args, { encoding: 'utf8', env: ENV, maxBuffer: 1 << 28, stdio: ['pipe', 'pipe', 'pipe'], ...opts }).trimEnd();
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

function p95(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(s.length * 0.95))];
}

const ms = (x) => `${x.toFixed(1)} ms`;

function parseArgs(argv) {
  const opts = { entries: 10_000, pushes: 15, appends: 1000, build: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--entries') opts.entries = Number(argv[++i]);
    else if (a === '--pushes') opts.pushes = Number(argv[++i]);
    else if (a === '--appends') opts.appends = Number(argv[++i]);
    else if (a === '--no-build') opts.build = false;
    else throw new Error(`push-log: unknown option '${a}'`);
  }
  return opts;
}

function worker(args, input) {
  return execFileSync(TSX, [WORKER, ...args], { encoding: 'utf8', env: ENV, input, maxBuffer: 1 << 28 });
}

/** Runs `cmd` under bench/measure.py (wait4(2)): wall ms, and CPU ms (user + system, the
 * process and every child it waited for: receive-pack and its hooks for a push over file://). */
function timed(cmd, opts = {}) {
  const out = join(tmpdir(), `rg-bench-time-${process.pid}.jsonl`);
  rmSync(out, { force: true });
  const r = spawnSync('python3', [MEASURE, out, 'push-log', ...cmd], { env: ENV, encoding: 'utf8', maxBuffer: 1 << 26, ...opts });
  const m = JSON.parse(readFileSync(out, 'utf8').trim().split('\n').pop());
  rmSync(out, { force: true });
  return { wall: m.wall_ms, cpu: m.user_ms + m.sys_ms, r };
}

function pushOnce(work, bare, label, env = ENV) {
  writeFileSync(join(work, 'file.txt'), `${label}\n`);
  git(['-C', work, 'commit', '-qam', label]);
  const t = timed(['git', '-C', work, 'push', '-q', bare, 'HEAD:main'], { env });
  if (t.r.status !== 0) throw new Error(`push failed: ${t.r.stderr}`);
  return t;
}

function pushTimes(work, bare, n, label) {
  const wall = [];
  const cpu = [];
  for (let i = 0; i < n; i++) {
    const t = pushOnce(work, bare, `${label} ${i}`);
    wall.push(t.wall);
    cpu.push(t.cpu);
  }
  return { wall, cpu };
}

export async function main(argv) {
  const opts = parseArgs(argv);
  if (opts.build) execFileSync('node', [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'rg-bench-pushlog-'));
  try {
    execFileSync('node', [CLI, 'keygen', '--out', join(dir, 'log')], { env: ENV, stdio: 'ignore' });
    const key = join(dir, 'log.key');
    const pub = join(dir, 'log.pub');
    const rows = [];

    // 1. The append alone, in process.
    const appendRepo = join(dir, 'append.git');
    git(['init', '-q', '--bare', appendRepo]);
    const appendTimes = JSON.parse(worker(['append', appendRepo, key, String(opts.appends)]));
    rows.push(['append, in process (lock, verify the tip, sign, 2 loose objects, rename)', `${opts.appends} appends`, `wall median ${ms(median(appendTimes.wall))}, p95 ${ms(p95(appendTimes.wall))}; CPU median ${ms(median(appendTimes.cpu))}`]);
    log(`append: median ${ms(median(appendTimes.wall))} wall, ${ms(median(appendTimes.cpu))} CPU`);

    // 2. Real pushes with the hooks, with and without the log.
    const bare = join(dir, 'push.git');
    const work = join(dir, 'work');
    git(['init', '-q', '--bare', '-b', 'main', bare]);
    git(['init', '-q', '-b', 'main', work]);
    writeFileSync(join(work, 'file.txt'), 'start\n');
    git(['-C', work, 'add', '-A']);
    git(['-C', work, 'commit', '-qm', 'start']);
    git(['-C', work, 'push', '-q', bare, 'main']);
    execFileSync('bash', [join(ROOT, 'scripts', 'install-server.sh'), '--server', '--log-key', key, bare], { env: ENV, stdio: 'ignore' });
    pushTimes(work, bare, 2, 'warm');
    // Interleaved rounds (the machine's load changes under a long run): the log on (the
    // prepared entry appended by the shell hook), the log on through the Node logger
    // (RECEIPT_GATE_LOG_NO_FAST=1: the hook's slow path), the log off (reference-transaction
    // hook and state folder aside; those pushes are gaps in the log, as they should be).
    const series = { on: { wall: [], cpu: [] }, node: { wall: [], cpu: [] }, off: { wall: [], cpu: [] } };
    const add = (s, t) => {
      s.wall.push(t.wall);
      s.cpu.push(t.cpu);
    };
    for (let i = 0; i < opts.pushes; i++) {
      add(series.on, pushOnce(work, bare, `log ${i}`));
      add(series.node, pushOnce(work, bare, `node ${i}`, { ...ENV, RECEIPT_GATE_LOG_NO_FAST: '1' }));
      if (i === 0) {
        const v0 = spawnSync('node', [CLI, 'verify-log', '--repo', bare, '--pub', pub, '--ref', 'main'], { env: ENV, encoding: 'utf8' });
        if (v0.status !== 0) throw new Error(`verify-log of the pushed log failed: ${v0.stdout}${v0.stderr}`);
      }
      renameSync(join(bare, 'hooks', 'reference-transaction'), join(dir, 'reference-transaction.off'));
      renameSync(join(bare, 'receipt-gate'), join(dir, 'receipt-gate.off'));
      add(series.off, pushOnce(work, bare, `nolog ${i}`));
      renameSync(join(dir, 'reference-transaction.off'), join(bare, 'hooks', 'reference-transaction'));
      renameSync(join(dir, 'receipt-gate.off'), join(bare, 'receipt-gate'));
    }
    const med = (s) => ({ wall: median(s.wall), cpu: median(s.cpu) });
    const on = med(series.on);
    const viaNode = med(series.node);
    const off = med(series.off);
    const signed = (x) => `${x >= 0 ? '+' : ''}${ms(x)}`;
    // Besides the difference of the medians, the median of each round's own difference (the
    // pushes of a round run back to back, so a burst of load on the machine moves both).
    const paired = (s, k) => median(s[k].map((x, i) => x - series.off[k][i]));
    const diff = (a, s) =>
      `wall median ${ms(a.wall)} (${signed(a.wall - off.wall)}); CPU median ${ms(a.cpu)} (${signed(a.cpu - off.cpu)}); paired by round ${signed(paired(s, 'wall'))} wall, ${signed(paired(s, 'cpu'))} CPU`;
    rows.push(['push of 1 commit over file://, hooks installed, log off', `${opts.pushes} pushes`, `wall median ${ms(off.wall)}; CPU median ${ms(off.cpu)}`]);
    rows.push(['push of 1 commit over file://, log on (entry signed in pre-receive, appended by the shell hook)', `${opts.pushes} pushes`, diff(on, series.on)]);
    rows.push(['push of 1 commit over file://, log on through the Node logger (RECEIPT_GATE_LOG_NO_FAST=1)', `${opts.pushes} pushes`, diff(viaNode, series.node)]);
    log(`push: off ${ms(off.wall)} / ${ms(off.cpu)} CPU, on ${ms(on.wall)} / ${ms(on.cpu)} CPU, node logger ${ms(viaNode.wall)} / ${ms(viaNode.cpu)} CPU`);
    const lastLog = spawnSync('git', ['--git-dir', bare, 'log', '-1', '--format=%s', 'refs/receipt-gate/log'], { env: ENV, encoding: 'utf8' }).stdout;
    if (!lastLog.includes('push')) throw new Error(`the last push was not logged: ${lastLog}`);

    // 3. verify-log over a long log.
    const big = join(dir, 'big.git');
    git(['init', '-q', '--bare', '-b', 'main', big]);
    const stream = [];
    for (let i = 0; i < opts.entries + 1; i++) {
      stream.push(`commit refs/heads/main\nmark :${i + 1}\ncommitter Bench <bench@example.com> ${1764000000 + i} +0000\ndata ${`c ${i}\n`.length}\nc ${i}\n`);
      if (i > 0) stream.push(`from :${i}\n`);
      stream.push(`M 644 inline f\ndata ${`${i}\n`.length}\n${i}\n\n`);
    }
    execFileSync('git', ['--git-dir', big, 'fast-import', '--quiet'], { env: ENV, input: stream.join('') });
    const commits = git(['--git-dir', big, 'rev-list', '--reverse', '--first-parent', 'main']);
    mkdirSync(join(big, 'receipt-gate'));
    const t0 = performance.now();
    worker(['build', big, key, 'refs/heads/main'], `${commits}\n`);
    log(`built a log of ${opts.entries} entries in ${ms(performance.now() - t0)}`);
    const verifyTimes = (label) => {
      const wall = [];
      const cpu = [];
      for (let i = 0; i < 3; i++) {
        const t = timed(['node', CLI, 'verify-log', '--repo', big, '--pub', pub, '--ref', 'main', '--json']);
        if (t.r.status !== 0) throw new Error(`verify-log failed (${label}): ${t.r.stdout.slice(0, 2000)}${t.r.stderr}`);
        wall.push(t.wall);
        cpu.push(t.cpu);
      }
      return { wall: median(wall), cpu: median(cpu) };
    };
    const loose = verifyTimes('loose');
    rows.push([`verify-log, ${opts.entries} entries + genesis, loose objects`, '3 runs', `wall median ${ms(loose.wall)}; CPU median ${ms(loose.cpu)}`]);
    git(['--git-dir', big, 'gc', '-q']);
    const packed = verifyTimes('packed');
    rows.push([`verify-log, ${opts.entries} entries + genesis, after git gc`, '3 runs', `wall median ${ms(packed.wall)}; CPU median ${ms(packed.cpu)}`]);
    log(`verify: loose ${ms(loose.wall)} / ${ms(loose.cpu)} CPU, packed ${ms(packed.wall)} / ${ms(packed.cpu)} CPU`);

    rows.push(['load average (1 min) at the end', '', loadavg()[0].toFixed(1)]);
    const table = ['| what | runs | time |', '| --- | --- | --- |', ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
    process.stdout.write(`${table}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
