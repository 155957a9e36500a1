// The large-history scenario (`BENCH_REPO=/path/to/git.git npm run bench -- large-history`):
// receipt-gate on a real long history, with and without a commit-graph, side by side with the
// git CLI doing the same computation (bench/reference-pre-receive.sh: `git rev-list`,
// `git merge-base`, `git diff-tree`). Without BENCH_REPO it builds a synthetic history
// (60,000 commits with merges, built once into the cache) and says so.
//
//   verify-ref over 0, 1, ~1,000, ~10,000 and ~13,900 new commits (ranges between releases
//   when BENCH_REPO is git/git; first-parent distances otherwise), and real pushes of 1 and 20
//   commits into a bare copy with the hook `./install.sh --server` installs.
//
//   node bench/run.mjs large-history [--runs N] [--no-build] [--no-verify-ref] [--out FILE.md] [--json FILE]
//   (--no-verify-ref: only the walks and the pushes; the verify-ref rows take minutes)
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FastImport } from './fast-import.mjs';
import { BENCH_TODAY, evidenceFiles } from './evidence.mjs';
import { filesBelow } from './files.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MEASURE = join(ROOT, 'bench', 'measure.py');
const REFERENCE = join(ROOT, 'bench', 'reference-pre-receive.sh');
const CLI = join(ROOT, 'dist', 'cli.js');
const IDENTITY_VARS = ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'];
const log = (msg) => process.stderr.write(`bench large-history: ${msg}\n`);

function git(args, opts = {}) {
  return execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'], ...opts }).trimEnd();
}

function parseArgs(argv) {
  const opts = { runs: 3, build: true, out: null, json: null, verifyRef: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--runs') opts.runs = Number(argv[++i]);
    else if (a === '--no-build') opts.build = false;
    else if (a === '--no-verify-ref') opts.verifyRef = false;
    else if (a === '--out') opts.out = resolve(argv[++i]);
    else if (a === '--json') opts.json = resolve(argv[++i]);
    else throw new Error(`large-history: unknown option '${a}'`);
  }
  if (!(Number.isInteger(opts.runs) && opts.runs >= 1)) throw new Error('--runs needs a positive integer');
  return opts;
}

function env(extra = {}) {
  const e = { ...process.env, RECEIPT_GATE_NOW: BENCH_TODAY, GIT_TERMINAL_PROMPT: '0' };
  for (const v of IDENTITY_VARS) delete e[v];
  delete e.GIT_DIR;
  delete e.GIT_INDEX_FILE;
  return { ...e, ...extra };
}

/** A synthetic long history when there is no BENCH_REPO: a main line with topic merges. */
async function syntheticRepo(cacheDir) {
  const dir = join(cacheDir, 'large-history-synthetic.git');
  if (existsSync(join(dir, 'done'))) return dir;
  rmSync(dir, { recursive: true, force: true });
  git(['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  log('building a synthetic 60,000-commit history (once)');
  const fi = new FastImport(dir);
  let main = null;
  for (let i = 0; i < 12000; i++) {
    // a topic of four commits, merged into main
    let topic = main;
    for (let k = 0; k < 4; k++) {
      const mark = await fi.blob(`topic ${i} step ${k}\n`);
      topic = await fi.commit('refs/heads/topic', { from: topic ?? undefined, message: `topic ${i}.${k}\n`, changes: [{ path: `src/m${i % 97}/f${(i * 7 + k) % 301}.txt`, mark }] });
    }
    main = await fi.commit('refs/heads/main', { from: main ?? topic, merges: main ? [topic] : [], message: `merge topic ${i}\n`, changes: [] });
    if (i % 1000 === 999) await fi.reset(`refs/tags/t${(i + 1) / 1000}`, main);
  }
  await fi.close();
  writeFileSync(join(dir, 'done'), '');
  return dir;
}

/** Ranges to verify: [label, base commit, ref commit]. */
function ranges(src, isGitGit) {
  const rev = (r) => git(['--git-dir', src, 'rev-parse', '--verify', `${r}^{commit}`]);
  if (isGitGit) {
    return [
      ['1,000', rev('v2.37.0'), rev('v2.38.0')],
      ['10,000', rev('v2.16.0'), rev('v2.28.0')],
      ['13,900', rev('v2.10.0'), rev('v2.25.0')],
      ['0', rev('v2.39.0'), rev('v2.20.0')],
    ];
  }
  // tN is N*1000 merged topics of five commits each.
  return [
    ['1,000', rev('refs/tags/t10~200'), rev('refs/tags/t10')],
    ['10,000', rev('refs/tags/t2'), rev('refs/tags/t4')],
    ['15,000', rev('refs/tags/t2'), rev('refs/tags/t5')],
    ['0', rev('refs/tags/t11'), rev('refs/tags/t3')],
  ];
}

/**
 * A bare repository borrowing BENCH_REPO's objects, with its refs, a policy commit on top of
 * each range's base (the bench policy and evidence: the gate has real work), one commit on top
 * of the newest base (the one-commit pull request), and a push source with 1 and 20 commits.
 */
async function prepare(cacheDir, src, rangeList) {
  const dir = join(cacheDir, `large-history-${basename(src).replace(/[^A-Za-z0-9._-]/g, '_')}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const seed = join(dir, 'seed.git');
  git(['init', '--quiet', '--bare', '--initial-branch=main', seed]);
  writeFileSync(join(seed, 'objects', 'info', 'alternates'), join(src, 'objects') + '\n');
  const refs = git(['--git-dir', src, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads', 'refs/tags']).split('\n').filter(Boolean);
  writeFileSync(join(seed, 'packed-refs'), '# pack-refs with: sorted \n' + refs.sort((a, b) => (a.slice(41) < b.slice(41) ? -1 : 1)).join('\n') + '\n');
  const fi = new FastImport(seed);
  const evidence = [];
  for (const [path, bytes] of evidenceFiles('main')) {
    // The whole computation is measured: a 13,900-commit range takes longer than the bench
    // policy's 4 s limit (which would end it with LIMIT_EXCEEDED).
    let content = bytes;
    if (path === '.receipt-gate.json') {
      const policy = JSON.parse(Buffer.from(bytes).toString('utf8'));
      policy.limits = { ...policy.limits, timeoutMs: 600_000 };
      content = JSON.stringify(policy, null, 2) + '\n';
    }
    evidence.push({ path, mark: await fi.blob(content) });
  }
  const head = git(['--git-dir', src, 'rev-parse', 'HEAD^{commit}']);
  await fi.commit('refs/heads/main', { from: head, message: 'receipt-gate bench: policy and evidence\n', changes: evidence });
  for (const [label, base] of rangeList) await fi.commit(`refs/heads/base-${label.replace(/,/g, '')}`, { from: base, message: 'receipt-gate bench: policy and evidence\n', changes: evidence });
  const one = await fi.blob('a one-line change\n');
  await fi.commit('refs/heads/pr-1', { from: 'refs/heads/main', message: 'a one-commit pull request\n', changes: [{ path: 'README.md', mark: one }] });
  await fi.close();
  // The pushes come from a repository of their own: the objects they bring are not in the seed.
  const pushDir = join(dir, 'push.git');
  git(['init', '--quiet', '--bare', '--initial-branch=main', pushDir]);
  writeFileSync(join(pushDir, 'objects', 'info', 'alternates'), join(seed, 'objects') + '\n');
  const main = git(['--git-dir', seed, 'rev-parse', 'refs/heads/main']);
  const pf = new FastImport(pushDir);
  const m1 = await pf.blob('push commit\n');
  await pf.commit('refs/heads/p1', { from: main, message: 'push 1\n', changes: [{ path: 'src/bench-push/one.txt', mark: m1 }] });
  for (let i = 0; i < 20; i++) {
    const m = await pf.blob(`push commit ${i}\n`);
    await pf.commit('refs/heads/p20', { from: i === 0 ? main : undefined, message: `push ${i}\n`, changes: [{ path: `src/bench-push/f${i}.txt`, mark: m }] });
  }
  await pf.close();
  return { dir, seed, pushDir };
}

function measure(cmd, label, { cwd = ROOT, extraEnv = {} } = {}) {
  const out = join(process.env.TMPDIR ?? '/tmp', `large-history-${process.pid}.jsonl`);
  rmSync(out, { force: true });
  const r = spawnSync('python3', [MEASURE, out, label, ...cmd], { cwd, env: env(extraEnv), encoding: 'utf8', maxBuffer: 1 << 28 });
  const line = existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').pop() : null;
  rmSync(out, { force: true });
  if (!line) throw new Error(`${label}: did not run: ${r.stderr}`);
  const m = JSON.parse(line);
  return { ms: m.wall_ms, mb: m.maxrss_kb / 1024, exit: m.exit, output: (r.stdout + r.stderr).trim().split('\n').slice(-3).join(' | ') };
}

function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[s.length >> 1];
}

function withGraph(gitdir, on) {
  const info = join(gitdir, 'objects', 'info');
  rmSync(join(info, 'commit-graph'), { force: true });
  rmSync(join(info, 'commit-graphs'), { recursive: true, force: true });
  if (on) git(['--git-dir', gitdir, 'commit-graph', 'write', '--reachable']);
}

function makeTarget(seed, dir) {
  rmSync(dir, { recursive: true, force: true });
  git(['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  writeFileSync(join(dir, 'objects', 'info', 'alternates'), join(seed, 'objects') + '\n');
  cpSync(join(seed, 'packed-refs'), join(dir, 'packed-refs'));
  for (const line of git(['--git-dir', seed, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/heads']).split('\n')) {
    const [oid, ref] = line.split(' ');
    git(['--git-dir', dir, 'update-ref', ref, oid]);
  }
  git(['--git-dir', dir, 'config', 'receive.autogc', 'false']);
  git(['--git-dir', dir, 'config', 'gc.auto', '0']);
  const hooks = join(dir, 'hooks');
  rmSync(hooks, { recursive: true, force: true });
  mkdirSync(hooks);
  const inst = spawnSync(join(ROOT, 'install.sh'), ['--server', dir], { cwd: ROOT, encoding: 'utf8' });
  if (inst.status !== 0) throw new Error(`./install.sh --server failed: ${inst.stderr}`);
  renameSync(join(hooks, 'pre-receive'), join(hooks, 'pre-receive.gate'));
  cpSync(REFERENCE, join(hooks, 'pre-receive.reference'));
  writeFileSync(
    join(hooks, 'pre-receive'),
    `#!/bin/sh\nexec python3 '${MEASURE}' "$BENCH_MEASURE_OUT" "$BENCH_HOOK" "$(dirname "$0")/pre-receive.$BENCH_HOOK"\n`,
    { mode: 0o755 },
  );
  return dir;
}

function listObjects(gitdir) {
  return filesBelow(join(gitdir, 'objects'));
}

function push(target, pushDir, branch, hook) {
  const out = join(process.env.TMPDIR ?? '/tmp', `large-history-push-${process.pid}.jsonl`);
  rmSync(out, { force: true });
  const before = listObjects(target);
  const r = spawnSync('git', ['--git-dir', pushDir, 'push', '--quiet', target, `refs/heads/${branch}:refs/heads/bench/work`], {
    env: env({ BENCH_HOOK: hook, BENCH_MEASURE_OUT: out }),
    encoding: 'utf8',
  });
  const line = existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').pop() : null;
  rmSync(out, { force: true });
  spawnSync('git', ['--git-dir', target, 'update-ref', '-d', 'refs/heads/bench/work']);
  for (const f of listObjects(target)) if (!before.has(f)) rmSync(f, { force: true });
  if (!line) throw new Error(`push ${branch} (${hook}): the hook did not run: ${r.stderr}`);
  const m = JSON.parse(line);
  return { ms: m.wall_ms, mb: m.maxrss_kb / 1024, exit: m.exit, output: r.stderr.trim().split('\n').slice(-2).join(' | ') };
}

/**
 * The walks alone, in one Node process (no start-up, no tree diffs): newCommits, mergeBase and
 * isAncestor from src/git/history/ through tsx, each beside the git command computing the same
 * (`git rev-list --count REF --not BASE`, `git merge-base`, `git merge-base --is-ancestor`).
 */
export function walkTimings(seed, cases) {
  const code = `
    const { ObjectStore } = require(${JSON.stringify(join(ROOT, 'src/git/store.ts'))});
    const { Deadline } = require(${JSON.stringify(join(ROOT, 'src/deadline.ts'))});
    const { History } = require(${JSON.stringify(join(ROOT, 'src/git/history/history.ts'))});
    const { newCommits } = require(${JSON.stringify(join(ROOT, 'src/git/history/new-commits.ts'))});
    const { isAncestor, mergeBase } = require(${JSON.stringify(join(ROOT, 'src/git/history/merge-base.ts'))});
    (async () => {
      const out = [];
      for (const [base, ref] of ${JSON.stringify(cases)}) {
        const store = await ObjectStore.open({ gitdir: ${JSON.stringify(seed)} });
        const history = new History(store);
        let t = performance.now();
        const b = await store.refs.resolve(base), r = await store.refs.resolve(ref) ?? ref;
        // Opening: the pack index, and the commit-graph read and verified (a trivial walk).
        await newCommits(history, b, [b], Deadline.never());
        const openMs = performance.now() - t;
        t = performance.now();
        const n = (await newCommits(history, r, [b], Deadline.never())).length;
        const newMs = performance.now() - t;
        t = performance.now();
        const mb = await mergeBase(history, b, r, Deadline.never());
        const mbMs = performance.now() - t;
        t = performance.now();
        const anc = await isAncestor(history, r, b, Deadline.never());
        const ancMs = performance.now() - t;
        out.push({ base, ref, n, openMs, newMs, mb, mbMs, anc, ancMs, graph: history.commitGraphFiles().length > 0, rssMb: process.memoryUsage().rss / 2 ** 20 });
        store.close();
      }
      process.stdout.write(JSON.stringify(out));
    })();`;
  const r = spawnSync(join(ROOT, 'node_modules', '.bin', 'tsx'), ['--eval', code], { cwd: ROOT, encoding: 'utf8', maxBuffer: 1 << 26 });
  if (r.status !== 0) throw new Error(`walk timings failed: ${r.stderr}`);
  const timed = (args) => {
    const t = process.hrtime.bigint();
    const res = spawnSync('git', ['--git-dir', seed, ...args], { encoding: 'utf8' });
    return { ms: Number(process.hrtime.bigint() - t) / 1e6, out: res.stdout.trim(), status: res.status };
  };
  return JSON.parse(r.stdout).map((m) => {
    const gitNew = timed(['rev-list', '--count', m.ref, '--not', m.base]);
    const gitMb = timed(['merge-base', m.base, m.ref]);
    const gitAnc = timed(['merge-base', '--is-ancestor', m.ref, m.base]);
    if (Number(gitNew.out) !== m.n || gitMb.out !== (m.mb ?? '') || (gitAnc.status === 0) !== m.anc) throw new Error(`walks disagree with git on ${m.base} ${m.ref}`);
    return { ...m, gitNewMs: gitNew.ms, gitMbMs: gitMb.ms, gitAncMs: gitAnc.ms };
  });
}

export async function main(argv) {
  const opts = parseArgs(argv);
  const cacheDir = join(ROOT, '.bench-cache');
  mkdirSync(cacheDir, { recursive: true });
  if (opts.build) {
    log('building dist/cli.js');
    const b = spawnSync('node', [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`npm run build failed: ${b.stderr}`);
  }
  const userRepo = process.env.BENCH_REPO ? resolve(process.env.BENCH_REPO) : null;
  const src = userRepo ?? (await syntheticRepo(cacheDir));
  const isGitGit = spawnSync('git', ['--git-dir', src, 'rev-parse', '--verify', '-q', 'v2.39.0^{commit}']).status === 0;
  const rangeList = ranges(src, isGitGit);
  log(`preparing ${src} (${isGitGit ? 'git/git release ranges' : 'synthetic ranges'})`);
  const { dir, seed, pushDir } = await prepare(cacheDir, src, rangeList);
  const count = (a, b) => Number(git(['--git-dir', seed, 'rev-list', '--count', b, '--not', a]));
  const rows = [];
  const walks = [];
  const facts = { commits: Number(git(['--git-dir', seed, 'rev-list', '--count', '--all'])), refs: git(['--git-dir', seed, 'for-each-ref']).split('\n').length };
  for (const graph of [true, false]) {
    withGraph(seed, graph);
    const cases = [
      ['1', 'refs/heads/main', 'refs/heads/pr-1'],
      ...rangeList.map(([label, , ref]) => [label, `refs/heads/base-${label.replace(/,/g, '')}`, ref]),
    ];
    for (const [label, base, ref] of opts.verifyRef ? cases : []) {
      const n = count(git(['--git-dir', seed, 'rev-parse', base]), ref);
      const gateCmd = ['node', CLI, 'verify-ref', ref, '--base', base, '--repo', seed];
      const refCmd = ['sh', REFERENCE, '--verify', ref, base];
      const runs = { gate: [], git: [] };
      for (let i = 0; i < opts.runs; i++) {
        runs.gate.push(measure(gateCmd, 'gate', { extraEnv: {} }));
        runs.git.push(measure(refCmd, 'git', { extraEnv: { GIT_DIR: seed } }));
      }
      rows.push(row(`verify-ref ${label} (${n} new)`, graph, runs));
      log(fmt(rows[rows.length - 1]));
    }
    for (const w of walkTimings(seed, cases.map(([, base, ref]) => [base, ref]))) {
      walks.push({ ...w, graph });
      log(`walks ${w.ref.slice(0, 12)} --not ${w.base} (${w.n} new) ${graph ? 'with' : 'without'} graph: newCommits ${w.newMs.toFixed(0)} ms (git rev-list ${w.gitNewMs.toFixed(0)}), mergeBase ${w.mbMs.toFixed(0)} ms (git ${w.gitMbMs.toFixed(0)}), isAncestor ${w.ancMs.toFixed(0)} ms (git ${w.gitAncMs.toFixed(0)})`);
    }
    const target = makeTarget(seed, join(dir, 'target.git'));
    if (graph) {
      // The target borrows the seed's objects; git and the gate read the target's own graph.
      mkdirSync(join(target, 'objects', 'info'), { recursive: true });
      linkSync(join(seed, 'objects', 'info', 'commit-graph'), join(target, 'objects', 'info', 'commit-graph'));
    }
    for (const branch of ['p1', 'p20']) {
      const runs = { gate: [], git: [] };
      push(target, pushDir, branch, 'gate'); // warm-up
      for (let i = 0; i < opts.runs; i++) {
        runs.gate.push(push(target, pushDir, branch, 'gate'));
        runs.git.push(push(target, pushDir, branch, 'reference'));
      }
      rows.push(row(`push ${branch === 'p1' ? 1 : 20} commit${branch === 'p1' ? '' : 's'}`, graph, runs));
      log(fmt(rows[rows.length - 1]));
    }
  }
  const md = render(rows, { src: userRepo ? `BENCH_REPO=${userRepo}` : `synthetic (${relative(ROOT, src)})`, facts, runs: opts.runs }) + renderWalks(walks);
  process.stdout.write(md);
  if (opts.out) writeFileSync(opts.out, md);
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ date: new Date().toISOString(), src, facts, rows, walks }, null, 2) + '\n');
  rmSync(join(dir, 'target.git'), { recursive: true, force: true });
}

function row(name, graph, runs) {
  const g = { ms: median(runs.gate.map((r) => r.ms)), mb: median(runs.gate.map((r) => r.mb)), exit: runs.gate[0].exit, output: runs.gate[0].output };
  const r = { ms: median(runs.git.map((x) => x.ms)), mb: median(runs.git.map((x) => x.mb)), exit: runs.git[0].exit };
  return { name, graph, gate: g, git: r, ratio: g.ms / r.ms, memRatio: g.mb / r.mb };
}

function fmt(r) {
  return `${r.name} ${r.graph ? 'with' : 'without'} commit-graph: gate ${r.gate.ms.toFixed(0)} ms ${r.gate.mb.toFixed(0)} MB (exit ${r.gate.exit}), git ${r.git.ms.toFixed(0)} ms ${r.git.mb.toFixed(0)} MB, ratio ${r.ratio.toFixed(2)}`;
}

function render(rows, { src, facts, runs }) {
  const lines = [
    `Repository: ${src}; ${facts.commits} commits, ${facts.refs} refs. Median of ${runs} runs each, interleaved; memory is peak RSS.`,
    '',
    '| scenario | commit-graph | gate ms | gate MB | gate exit | git ms | git MB | time ratio | memory ratio |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const r of rows) {
    lines.push(`| ${r.name} | ${r.graph ? 'yes' : 'no'} | ${r.gate.ms.toFixed(0)} | ${r.gate.mb.toFixed(0)} | ${r.gate.exit} | ${r.git.ms.toFixed(0)} | ${r.git.mb.toFixed(0)} | ${r.ratio.toFixed(2)} | ${r.memRatio.toFixed(2)} |`);
  }
  return lines.join('\n') + '\n';
}

function renderWalks(walks) {
  const lines = [
    '',
    'The walks alone (one process; "open" is reading the pack index and the commit-graph, once per',
    'process; git is timed as a whole command, its start included):',
    '',
    '| range | commit-graph | new commits | open ms | newCommits ms | git rev-list ms | mergeBase ms | git merge-base ms | isAncestor ms | git --is-ancestor ms |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const w of walks) {
    lines.push(`| ${/^[0-9a-f]{40}$/.test(w.ref) ? w.ref.slice(0, 12) : w.ref} --not ${w.base} | ${w.graph ? 'yes' : 'no'} | ${w.n} | ${w.openMs.toFixed(0)} | ${w.newMs.toFixed(0)} | ${w.gitNewMs.toFixed(0)} | ${w.mbMs.toFixed(0)} | ${w.gitMbMs.toFixed(0)} | ${w.ancMs.toFixed(0)} | ${w.gitAncMs.toFixed(0)} |`);
  }
  return lines.join('\n') + '\n';
}
