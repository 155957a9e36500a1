#!/usr/bin/env node
// A 1-commit push whose parent is deep below the tips (a branch forked long ago), measured by
// real `git push`es into a bare server: the gate as `./install.sh --server` installs it, a hook
// that runs only `git rev-list NEW --not --all` (how git decides which commits are new), the
// git-CLI reference hook (bench/reference-pre-receive.sh) and a hook that only starts Node
// (the installed shim on a bundle that answers at once). CPU (user + sys of the hook and its
// children, from wait4) and wall, medians; see BENCHMARKS.md "New commits below the tips".
//
//   node bench/deep-parent.mjs [--runs N] [--bundle FILE] [--commits N] [--back N] [--refs N] [--cache DIR]
//
// The history (built once into the cache): a main line of --commits commits (default 20,000),
// a four-commit topic merged every 50th, a tag every 1,000; the push is one commit on the
// main line's commit --back first-parent steps below the tip (default 10,000), which is not a
// ref's tip nor a tip's parent. `--refs N` adds N refs (`refs/pull/<i>/head`) on commits spread
// evenly over the main line (git/git's clone has about 4,300 refs: set --refs 4000 for its shape;
// the parent stays no ref's tip nor a tip's parent). Rows: without a commit-graph and with one (`git commit-graph
// write --reachable`); for the gate, its first push on a repository without
// receipt-gate-cache/ (what a fetched, mirrored or restored repository pays once) and the
// pushes after it.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FastImport } from './lib/fast-import.mjs';
import { BENCH_TODAY, evidenceFiles } from './lib/evidence.mjs';
import { filesBelow } from './lib/files.mjs';
import { installNodeOnlyHook } from './lib/node-only.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MEASURE = join(ROOT, 'bench', 'measure.py');
const REFERENCE = join(ROOT, 'bench', 'reference-pre-receive.sh');
const IDENTITY_VARS = ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'];
const log = (msg) => process.stderr.write(`bench deep-parent: ${msg}\n`);

function parseArgs(argv) {
  const opts = { runs: 5, bundle: join(ROOT, 'dist', 'cli.js'), commits: 20_000, back: 10_000, refs: 0, cache: join(ROOT, '.bench-cache') };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--bundle') opts.bundle = resolve(argv[++i]);
    else if (a === '--commits') opts.commits = Number(argv[++i]);
    else if (a === '--back') opts.back = Number(argv[++i]);
    else if (a === '--refs') opts.refs = Number(argv[++i]);
    else if (a === '--cache') opts.cache = resolve(argv[++i]);
    else throw new Error(`deep-parent: unknown option '${a}'`);
  }
  if (!(opts.back > 1 && opts.back < opts.commits)) throw new Error('--back must be between 2 and --commits');
  return opts;
}

function git(args, opts = {}) {
  return execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 28, stdio: ['pipe', 'pipe', 'pipe'], ...opts }).trimEnd();
}

function env(extra = {}) {
  const e = { ...process.env, RECEIPT_GATE_NOW: BENCH_TODAY, GIT_TERMINAL_PROMPT: '0' };
  for (const v of IDENTITY_VARS) delete e[v];
  delete e.GIT_DIR;
  delete e.GIT_INDEX_FILE;
  return { ...e, ...extra };
}

/** The seed history and a push source holding the one new commit. */
async function build(opts) {
  const dir = join(opts.cache, `deep-parent-${opts.commits}-${opts.back}${opts.refs > 0 ? `-refs${opts.refs}` : ''}`);
  if (existsSync(join(dir, 'done'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const seed = join(dir, 'seed.git');
  git(['init', '--quiet', '--bare', '--initial-branch=main', seed]);
  log(`building a ${opts.commits.toLocaleString('en-US')}-commit history (once)`);
  const fi = new FastImport(seed);
  const evidence = [];
  for (const [path, bytes] of evidenceFiles('main')) evidence.push({ path, mark: await fi.blob(bytes) });
  let main = await fi.commit('refs/heads/main', { message: 'policy and evidence\n', changes: evidence });
  let made = 1;
  for (let i = 1; made < opts.commits; i++) {
    if (i % 50 === 0) {
      let topic = main;
      for (let k = 0; k < 4; k++, made++) {
        const mark = await fi.blob(`topic ${i} step ${k}\n`);
        topic = await fi.commit('refs/heads/topic', { from: topic, message: `topic ${i}.${k}\n`, changes: [{ path: `src/t${i % 89}/f${k}.txt`, mark }] });
      }
      main = await fi.commit('refs/heads/main', { from: main, merges: [topic], message: `merge topic ${i}\n`, changes: [] });
    } else {
      const mark = await fi.blob(`line ${i}\n`);
      main = await fi.commit('refs/heads/main', { from: main, message: `commit ${i}\n`, changes: [{ path: `src/m${i % 97}/f${i % 301}.txt`, mark }] });
    }
    made++;
    if (i % 1000 === 0) await fi.reset(`refs/tags/t${i / 1000}`, main);
  }
  await fi.reset('refs/heads/topic', 'refs/heads/main');
  await fi.close();
  git(['--git-dir', seed, 'update-ref', '-d', 'refs/heads/topic']);
  if (opts.refs > 0) {
    const line = git(['--git-dir', seed, 'rev-list', '--first-parent', 'main']).split('\n');
    const avoid = new Set([opts.back, opts.back - 1]);
    let updates = '';
    for (let i = 0; i < opts.refs; i++) {
      let k = Math.floor((i * line.length) / opts.refs);
      while (avoid.has(k)) k++;
      updates += `create refs/pull/${i}/head ${line[k]}\n`;
    }
    git(['--git-dir', seed, 'update-ref', '--stdin'], { input: updates });
  }
  git(['--git-dir', seed, 'repack', '-adq']);
  git(['--git-dir', seed, 'pack-refs', '--all']);
  const parent = git(['--git-dir', seed, 'rev-parse', `main~${opts.back}`]);
  const tips = new Set(git(['--git-dir', seed, 'for-each-ref', '--format=%(objectname:short=40)']).split('\n'));
  const kids = git(['--git-dir', seed, 'rev-list', '--children', '-n', String(opts.back + 2), 'main']).split('\n').find((l) => l.startsWith(parent));
  if (tips.has(parent) || (kids ?? '').split(' ').slice(1).some((c) => tips.has(c))) throw new Error('the parent is a tip or a tip\'s parent: pick another --back');
  const push = join(dir, 'push.git');
  git(['init', '--quiet', '--bare', '--initial-branch=main', push]);
  writeFileSync(join(push, 'objects', 'info', 'alternates'), join(seed, 'objects') + '\n');
  const pf = new FastImport(push);
  const m = await pf.blob('a one-line change\n');
  await pf.commit('refs/heads/deep', { from: parent, message: 'one commit on an old parent\n', changes: [{ path: 'src/deep/one.txt', mark: m }] });
  await pf.close();
  writeFileSync(join(dir, 'done'), '');
  return dir;
}

function makeTarget(dir, bundle, graph) {
  const target = join(dir, graph ? 'target-graph.git' : 'target.git');
  rmSync(target, { recursive: true, force: true });
  cpSync(join(dir, 'seed.git'), target, { recursive: true });
  git(['--git-dir', target, 'config', 'receive.autogc', 'false']);
  git(['--git-dir', target, 'config', 'gc.auto', '0']);
  if (graph) git(['--git-dir', target, 'commit-graph', 'write', '--reachable']);
  const hooks = join(target, 'hooks');
  rmSync(hooks, { recursive: true, force: true });
  mkdirSync(hooks);
  const inst = spawnSync(join(ROOT, 'install.sh'), ['--server', target], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, RECEIPT_GATE_BUNDLE_SOURCE: bundle } });
  if (inst.status !== 0) throw new Error(`./install.sh --server failed: ${inst.stderr || inst.stdout}`);
  execFileSync('mv', [join(hooks, 'pre-receive'), join(hooks, 'pre-receive.gate')]);
  cpSync(REFERENCE, join(hooks, 'pre-receive.reference'));
  writeFileSync(join(hooks, 'pre-receive.revlist'), '#!/bin/sh\nwhile read old new ref; do git rev-list "$new" --not --all >/dev/null || exit 1; done\n', { mode: 0o755 });
  installNodeOnlyHook(hooks);
  writeFileSync(join(hooks, 'pre-receive'), `#!/bin/sh\nexec python3 '${MEASURE}' "$BENCH_MEASURE_OUT" "$BENCH_HOOK" "$(dirname "$0")/pre-receive.$BENCH_HOOK"\n`, { mode: 0o755 });
  return { target, objects: listObjects(target) };
}

function listObjects(gitdir) {
  return filesBelow(join(gitdir, 'objects'));
}

/** One push with the hook `hook`; the target is put back as it was (no ref, no new objects). */
function push(dir, t, hook) {
  const out = join(process.env.TMPDIR ?? '/tmp', `deep-parent-${process.pid}.jsonl`);
  rmSync(out, { force: true });
  const r = spawnSync('git', ['--git-dir', join(dir, 'push.git'), 'push', '--quiet', t.target, 'refs/heads/deep:refs/heads/bench/deep'], { env: env({ BENCH_HOOK: hook, BENCH_MEASURE_OUT: out }), encoding: 'utf8' });
  const line = existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').pop() : null;
  rmSync(out, { force: true });
  if (!line) throw new Error(`push (${hook}): the hook did not run: ${r.stderr}`);
  const m = JSON.parse(line);
  spawnSync('git', ['--git-dir', t.target, 'update-ref', '-d', 'refs/heads/bench/deep']);
  for (const f of listObjects(t.target)) if (!t.objects.has(f)) rmSync(f, { force: true });
  if (hook !== 'node' && m.exit !== 0) throw new Error(`push (${hook}) was refused (exit ${m.exit}): ${r.stderr.trim().split('\n').slice(-3).join(' | ')}`);
  return { cpu: m.user_ms + m.sys_ms, wall: m.wall_ms, mb: m.maxrss_kb / 1024 };
}

const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(opts.bundle)) throw new Error(`${opts.bundle} is missing: run npm run build`);
  mkdirSync(opts.cache, { recursive: true });
  const dir = await build(opts);
  const rows = [];
  for (const graph of [false, true]) {
    const t = makeTarget(dir, opts.bundle, graph);
    rmSync(join(t.target, 'receipt-gate-cache'), { recursive: true, force: true });
    const first = push(dir, t, 'gate');
    const runs = { gate: [], revlist: [], reference: [], node: [] };
    for (let i = 0; i < opts.runs; i++) for (const h of Object.keys(runs)) runs[h].push(push(dir, t, h));
    const row = (label, xs) => ({ graph, label, cpu: median(xs.map((x) => x.cpu)), wall: median(xs.map((x) => x.wall)), mb: median(xs.map((x) => x.mb)) });
    rows.push(row('gate, first push (no receipt-gate-cache/)', [first]));
    rows.push(row('gate, later pushes', runs.gate));
    rows.push(row('`git rev-list NEW --not --all` hook', runs.revlist));
    rows.push(row('git-CLI reference hook', runs.reference));
    rows.push(row('Node start (installed shim, no-op bundle)', runs.node));
  }
  const load = readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
  process.stdout.write(`${opts.commits.toLocaleString('en-US')} commits${opts.refs > 0 ? ` and ${opts.refs.toLocaleString('en-US')} more refs` : ''}, push on main~${opts.back}, ${opts.runs} runs (medians), load ${load}, bundle ${opts.bundle}\n\n`);
  process.stdout.write('| commit-graph | hook | CPU ms | wall ms | peak RSS MB |\n| --- | --- | --- | --- | --- |\n');
  for (const r of rows) process.stdout.write(`| ${r.graph ? 'yes' : 'no'} | ${r.label} | ${r.cpu.toFixed(0)} | ${r.wall.toFixed(0)} | ${r.mb.toFixed(0)} |\n`);
}

main().catch((err) => {
  process.stderr.write(`bench deep-parent: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
