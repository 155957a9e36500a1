#!/usr/bin/env node
// What the signed push log costs a push of many refs (BENCHMARKS.md, "Push log: many refs in
// one push"): N new tags at one commit in one plain `git push`, into a bare repository with
// the hooks installed by ./install.sh --server:
//
//   off     the gate alone (install.sh --server, no --log-key: no reference-transaction hook)
//   idle    the hooks of a log, with the log off for the repository (install.sh --server
//           --log-key KEY, then REPO.git/receipt-gate/ removed): the proc-receive hook hands
//           the tags back to receive-pack, which applies each in a ref transaction of its own,
//           so git starts the reference-transaction hook 2·N times and each run exits at once;
//           what git's hook runs alone cost
//   per-ref the push log without its proc-receive hook (receive.procReceiveRefs unset): one
//           ref transaction and one entry per tag, as before the batch (only for N up to
//           --per-ref-max, default 1,000: it takes minutes beyond)
//   on      the gate and the push log as installed: the proc-receive hook creates the N tags
//           in one transaction, one entry
//
// Wall and CPU (user + system of the push and every process it waited for: receive-pack and
// its hooks, by wait4 in bench/measure.py), per N, with the ratio on/off. After each logged
// push the log is checked to hold one entry per tag.
//
//   node bench/pushlog-refs.mjs [--counts 100,1000,10000] [--runs N] [--per-ref-max N] [--bundle FILE] [--no-build]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_ENV } from './lib/env.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MEASURE = join(ROOT, 'bench', 'measure.py');
const INSTALL = join(ROOT, 'scripts', 'install-server.sh');
const log = (msg) => process.stderr.write(`bench pushlog-refs: ${msg}\n`);

const ENV = BENCH_ENV;

function parseArgs(argv) {
  const opts = { counts: [100, 1000, 10_000], runs: 1, perRefMax: 1000, bundle: join(ROOT, 'dist', 'cli.js'), build: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--counts') opts.counts = argv[++i].split(',').map(Number);
    else if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--per-ref-max') opts.perRefMax = Number(argv[++i]);
    else if (a === '--bundle') {
      opts.bundle = resolve(argv[++i]);
      opts.build = false;
    } else if (a === '--no-build') opts.build = false;
    else throw new Error(`pushlog-refs: unknown option '${a}'`);
  }
  return opts;
}

function git(args, opts = {}) {
  return execFileSync('git', args, { encoding: 'utf8', env: ENV, maxBuffer: 1 << 28, stdio: ['pipe', 'pipe', 'pipe'], ...opts }).trimEnd();
}

/** `cmd` under bench/measure.py: wall ms and CPU ms (the process and every child it waited for). */
function timed(cmd) {
  const out = join(tmpdir(), `rg-bench-refs-${process.pid}.jsonl`);
  rmSync(out, { force: true });
  const r = spawnSync('python3', [MEASURE, out, 'pushlog-refs', ...cmd], { env: ENV, encoding: 'utf8', maxBuffer: 1 << 28 });
  if (r.status !== 0) throw new Error(`${cmd.join(' ')} failed: ${r.stdout}${r.stderr}`.slice(0, 4000));
  const m = JSON.parse(readFileSync(out, 'utf8').trim().split('\n').pop());
  rmSync(out, { force: true });
  return { wall: m.wall_ms, cpu: m.user_ms + m.sys_ms };
}

const s = (x) => `${(x / 1000).toFixed(2)} s`;

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.build) execFileSync('node', [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  const dir = mkdtempSync(join(tmpdir(), 'rg-bench-refs-'));
  try {
    execFileSync('node', [opts.bundle, 'keygen', '--out', join(dir, 'log')], { env: ENV, stdio: 'ignore' });
    const work = join(dir, 'work');
    git(['init', '-q', '-b', 'main', work]);
    writeFileSync(join(work, 'file.txt'), 'start\n');
    git(['-C', work, 'add', '-A']);
    git(['-C', work, 'commit', '-qm', 'start']);
    const head = git(['-C', work, 'rev-parse', 'HEAD']);
    // The two servers' templates: main pushed, hooks installed.
    const templates = {};
    for (const mode of ['off', 'idle', 'per-ref', 'on']) {
      const bare = join(dir, `template-${mode}.git`);
      git(['init', '-q', '--bare', '-b', 'main', bare]);
      git(['-C', work, 'push', '-q', bare, 'main']);
      const extra = mode === 'off' ? [] : ['--log-key', join(dir, 'log.key')];
      execFileSync('bash', [INSTALL, '--server', ...extra, bare], { env: { ...ENV, RECEIPT_GATE_BUNDLE_SOURCE: opts.bundle }, stdio: 'ignore' });
      if (mode === 'idle') rmSync(join(bare, 'receipt-gate'), { recursive: true, force: true });
      if (mode === 'per-ref') git(['--git-dir', bare, 'config', '--unset-all', 'receive.procReceiveRefs']);
      templates[mode] = bare;
    }
    const rows = [];
    for (const n of opts.counts) {
      // The tags, in the work repository.
      git(['-C', work, 'for-each-ref', '--format=delete %(refname)', 'refs/tags/']).split('\n').filter(Boolean).length &&
        git(['-C', work, 'update-ref', '--stdin'], { input: `${git(['-C', work, 'for-each-ref', '--format=delete %(refname)', 'refs/tags/'])}\n` });
      git(['-C', work, 'update-ref', '--stdin'], { input: Array.from({ length: n }, (_, i) => `create refs/tags/t${String(i).padStart(5, '0')} ${head}\n`).join('') });
      const got = { off: [], idle: [], 'per-ref': [], on: [] };
      const modes = n <= opts.perRefMax ? ['off', 'idle', 'per-ref', 'on'] : ['off', 'idle', 'on'];
      for (let run = 0; run < opts.runs; run++) {
        for (const mode of modes) {
          const bare = join(dir, `push-${mode}.git`);
          rmSync(bare, { recursive: true, force: true });
          cpSync(templates[mode], bare, { recursive: true, verbatimSymlinks: true });
          const t = timed(['git', '-C', work, 'push', '-q', bare, 'refs/tags/*:refs/tags/*']);
          got[mode].push(t);
          log(`${n} tags, log ${mode}: ${s(t.wall)} wall, ${s(t.cpu)} CPU`);
          if (mode === 'on' || mode === 'per-ref') {
            // Every tag recorded: one entry for all of them (on), one each (per-ref); verify-log
            // checks the first and the last tag against the log.
            const entries = Number(git(['--git-dir', bare, 'rev-list', '--count', 'refs/receipt-gate/log']));
            const want = mode === 'on' ? 2 : n + 1;
            if (entries !== want) throw new Error(`the log holds ${entries} entries after a push of ${n} tags (${want} expected)`);
            const last = `refs/tags/t${String(n - 1).padStart(5, '0')}`;
            const v = spawnSync('node', [opts.bundle, 'verify-log', '--pub', join(dir, 'log.pub'), '--repo', bare, '--ref', 'refs/tags/t00000', '--ref', last], { env: ENV, encoding: 'utf8' });
            if (v.status !== 0) throw new Error(`verify-log after a push of ${n} tags (${mode}): ${v.stdout}${v.stderr}`.slice(0, 2000));
          }
        }
      }
      const med = (xs) => {
        const v = [...xs].sort((a, b) => a - b);
        return v[Math.floor((v.length - 1) / 2)];
      };
      const of = (mode) => ({ wall: med(got[mode].map((t) => t.wall)), cpu: med(got[mode].map((t) => t.cpu)) });
      const [off, idle, on] = [of('off'), of('idle'), of('on')];
      const perRef = got['per-ref'].length ? of('per-ref') : null;
      const cell = (t) => (t ? `${s(t.wall)} / ${s(t.cpu)}` : '—');
      const ratio = (a, b) => `${(a.wall / b.wall).toFixed(2)}× / ${(a.cpu / b.cpu).toFixed(2)}×`;
      rows.push(`| ${n.toLocaleString('en')} | ${cell(off)} | ${cell(idle)} | ${cell(perRef)} | ${cell(on)} | ${ratio(on, off)} |`);
    }
    process.stdout.write(['| tags in one push | off (wall / CPU) | idle (wall / CPU) | per-ref (wall / CPU) | on (wall / CPU) | on ÷ off (wall / CPU) |', '| ---: | ---: | ---: | ---: | ---: | ---: |', ...rows, ''].join('\n'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

main();
