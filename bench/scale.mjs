// The scale benchmark (`npm run bench -- scale`): receipt-gate at git/git's scale, on a
// synthetic history of git/git's shape (built once with git fast-import, no network), every
// push a real `git push` into a bare repository with the hook `./install.sh --server` installs.
// Each push is measured from outside the hook (bench/measure.py: CPU user+sys of the hook and
// everything it waited for, wall, peak RSS), interleaved with:
//   reference  bench/reference-pre-receive.sh: the same path work with `rev-list`/`diff-tree`
//   floor      reads every pushed commit and tree once (`rev-list --objects --filter=blob:none
//              NEW... --not --all | cat-file --batch`, one call for all the push's refs)
//   rev-list   git's own `rev-list NEW... --not --all` alone (what deciding the new commits
//              costs git)
//   node       the installed shim and Node's own start, on a bundle that answers at once
//              (bench/lib/node-only.mjs)
// Issue 29's target for a push is 2× the reference's CPU plus Node's: the table has it beside
// the gate's CPU, with whether the gate is within it.
// The reference hook runs git a few times per ref: it is left out of a push of more than
// 1,000 refs (the tags case at full size; its column then says so).
//
// Cases (full size; --tiny divides every size for the smoke test):
//   deep       1 commit whose parent is 20,000 commits below the tips (a branch forked long ago)
//   deepgraph  the same into a repository with a commit-graph (`git commit-graph write
//              --reachable` in the target, where the gate and git both read it)
//              Both are the steady state: one unmeasured push of the gate first writes what
//              the gate keeps in $GIT_DIR/receipt-gate-cache/ (its commit cache, the record
//              of a commit-graph it checked whole).
//   deepfirst, deepgraphfirst  the same pushes as first pushes: before every gate push
//              (warm-up and measured) $GIT_DIR/receipt-gate-cache/ is removed, as on a server
//              whose history arrived without the gate (a fetch, a mirror, a restore)
//   c1010      1,010 commits on top of main          c10009   10,009 commits on top of main
//   refs1m     1 commit on top of main, the repository holding 1,000,000 packed refs
//   rename     a tree of --tree-files files (default 100,000; git/git's 1M with
//              --tree-files 1000000) in 1,000 folders: 1 commit renaming 100 folders
//   rewrite    same tree: 1 commit rewriting every file of 100 folders
//   tags50k    50,000 tags in one push, on 20,001 commits of main (2 or 3 tags each)
//   tags1c     50,000 tags in one push, all on one commit (main~1000)
//
//   node bench/run.mjs scale [--tiny] [--runs N] [--only ID,...] [--tree-files N] [--no-build]
//                            [--cache DIR] [--bundle FILE] [--out FILE.md] [--json FILE]
//   --graph: write a commit-graph into every target (default: none, as a server that never
//            ran maintenance has; deepgraph has one either way)
//   --tree-files 1000000: git/git's 1M-file tree for rename and rewrite (the default is
//            100,000). Building that seed (once) took under 2 minutes on 2 loaded cores and
//            105 MB in .bench-cache/scale-full-tree1000000/ (see BENCHMARKS.md, At git's scale).
//
// Built repositories are cached under .bench-cache/scale-<size>[-tree<N>]/ (gitignored); the
// seed is rebuilt only when its recipe changes (a recipe file records the sizes).
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, openSync, writeSync, closeSync } from 'node:fs';
import { cpus } from 'node:os';
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
const ZERO = '0'.repeat(40);
const log = (msg) => process.stderr.write(`bench scale: ${msg}\n`);

const SIZES = {
  full: { deep: 20_000, c1010: 1010, c10009: 10_009, refs: 1_000_000, treeFiles: 100_000, folders: 1000, tags: 50_000 },
  tiny: { deep: 200, c1010: 11, c10009: 31, refs: 3000, treeFiles: 2000, folders: 20, tags: 60 },
};
export const CASE_IDS = ['deep', 'deepgraph', 'deepfirst', 'deepgraphfirst', 'c1010', 'c10009', 'refs1m', 'rename', 'rewrite', 'tags50k', 'tags1c'];
/** The tags of the tag cases live in the push repository under these names. */
const ONE_COMMIT_TAGS = 'refs/one-commit-tags/';
const SIDES = ['gate', 'reference', 'floor', 'revlist', 'node'];
/** What the gate keeps between pushes in a repository (src/git/history/commit-cache.ts). */
const gateCache = (gitdir) => join(gitdir, 'receipt-gate-cache');

function git(args, opts = {}) {
  return execFileSync('git', args, { encoding: 'utf8', maxBuffer: 1 << 30, stdio: ['pipe', 'pipe', 'pipe'], ...opts }).trimEnd();
}

function parseArgs(argv) {
  const opts = { tiny: false, runs: 3, only: null, treeFiles: null, build: true, cache: null, bundle: null, out: null, json: null, graph: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`scale: ${a} needs a value`);
      return argv[++i];
    };
    if (a === '--tiny') opts.tiny = true;
    else if (a === '--runs') opts.runs = Number(value());
    else if (a === '--only') opts.only = value().split(',').filter(Boolean);
    else if (a === '--tree-files') opts.treeFiles = Number(value());
    else if (a === '--no-build') opts.build = false;
    else if (a === '--cache') opts.cache = resolve(value());
    else if (a === '--bundle') opts.bundle = resolve(value());
    else if (a === '--out') opts.out = resolve(value());
    else if (a === '--json') opts.json = resolve(value());
    else if (a === '--graph') opts.graph = true;
    else throw new Error(`scale: unknown option '${a}'`);
  }
  if (!(Number.isInteger(opts.runs) && opts.runs >= 1)) throw new Error('scale: --runs needs a positive integer');
  if (opts.treeFiles !== null && !(Number.isInteger(opts.treeFiles) && opts.treeFiles >= 100)) throw new Error('scale: --tree-files needs an integer >= 100');
  for (const id of opts.only ?? []) if (!CASE_IDS.includes(id)) throw new Error(`scale: --only ${id}: the cases are ${CASE_IDS.join(', ')}`);
  return opts;
}

function env(extra = {}) {
  const e = { ...process.env, RECEIPT_GATE_NOW: BENCH_TODAY, GIT_TERMINAL_PROMPT: '0' };
  for (const v of IDENTITY_VARS) delete e[v];
  for (const v of ['GIT_DIR', 'GIT_INDEX_FILE', 'GIT_NAMESPACE', 'GIT_OBJECT_DIRECTORY', 'GIT_ALTERNATE_OBJECT_DIRECTORIES']) delete e[v];
  return { ...e, ...extra };
}

/** The file of folder `k`, number `j`, and its first content. */
const treePath = (k, j) => `d${String(k).padStart(4, '0')}/f${String(j).padStart(4, '0')}.txt`;

/**
 * The seed: main = the bench policy and evidence, then `deep` commits of small changes (a
 * history of git/git's depth); refs/heads/bigtree = main's root plus a tree of `treeFiles`
 * files in `folders` folders.
 */
async function buildSeed(dir, size) {
  rmSync(dir, { recursive: true, force: true });
  git(['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  log(`building the seed: ${size.deep} commits, a ${size.treeFiles}-file tree (once)`);
  const fi = new FastImport(dir);
  const evidence = [];
  for (const [path, bytes] of evidenceFiles('main')) evidence.push({ path, mark: await fi.blob(bytes) });
  const root = await fi.commit('refs/heads/main', { message: 'receipt-gate bench: policy and evidence\n', changes: evidence });
  for (let i = 0; i < size.deep; i++) {
    const m = await fi.blob(`line ${i}\n`);
    await fi.commit('refs/heads/main', { message: `change ${i}\n`, changes: [{ path: `src/c${i % 97}.txt`, mark: m }] });
  }
  const perFolder = Math.ceil(size.treeFiles / size.folders);
  const files = [];
  for (let k = 0; k < size.folders; k++) {
    for (let j = 0; j < perFolder; j++) files.push({ path: treePath(k, j), mark: await fi.blob(`${k}/${j}\n`) });
  }
  await fi.commit('refs/heads/bigtree', { from: root, message: 'a wide tree\n', changes: files });
  await fi.close();
  git(['--git-dir', dir, 'pack-refs', '--all']);
}

/** The commits pushed, in a repository of their own (alternates to the seed). */
async function buildPushes(dir, seed, size) {
  rmSync(dir, { recursive: true, force: true });
  git(['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  writeFileSync(join(dir, 'objects', 'info', 'alternates'), join(seed, 'objects') + '\n');
  const main = git(['--git-dir', seed, 'rev-parse', 'refs/heads/main']);
  const old = git(['--git-dir', seed, 'rev-parse', `refs/heads/main~${size.deep}`]);
  const bigtree = git(['--git-dir', seed, 'rev-parse', 'refs/heads/bigtree']);
  const fi = new FastImport(dir);
  const one = await fi.blob('push commit\n');
  await fi.commit('refs/heads/p-deep', { from: old, message: 'a branch forked long ago\n', changes: [{ path: 'src/bench-push/one.txt', mark: one }] });
  await fi.commit('refs/heads/p-one', { from: main, message: 'one commit\n', changes: [{ path: 'src/bench-push/one.txt', mark: one }] });
  for (const [ref, n] of [['p-c1010', size.c1010], ['p-c10009', size.c10009]]) {
    for (let i = 0; i < n; i++) {
      const m = await fi.blob(`${ref} ${i}\n`);
      await fi.commit(`refs/heads/${ref}`, { from: i === 0 ? main : undefined, message: `push ${i}\n`, changes: [{ path: `src/bench-push/f${i % 211}.txt`, mark: m }] });
    }
  }
  const moved = Math.max(1, Math.floor(size.folders / 10));
  const renames = [];
  for (let k = 0; k < moved; k++) renames.push(`R d${String(k).padStart(4, '0')} moved/d${String(k).padStart(4, '0')}\n`);
  await fi.write(`commit refs/heads/p-rename\nauthor Bench <bench@example.com> 1764100000 +0000\ncommitter Bench <bench@example.com> 1764100000 +0000\ndata 16\nrename folders\n\nfrom ${bigtree}\n${renames.join('')}\n`);
  const perFolder = Math.ceil(size.treeFiles / size.folders);
  const rewrites = [];
  for (let k = 0; k < moved; k++) for (let j = 0; j < perFolder; j++) rewrites.push({ path: treePath(k, j), mark: await fi.blob(`${k}/${j} rewritten\n`) });
  await fi.commit('refs/heads/p-rewrite', { from: bigtree, message: 'rewrite files\n', changes: rewrites });
  await fi.close();
  // The tags: lightweight tags on commits of main's history, written as git's packed-refs.
  const chain = git(['--git-dir', seed, 'rev-list', '--first-parent', 'refs/heads/main']).split('\n');
  const lines = [];
  for (let i = 0; i < size.tags; i++) lines.push(`${chain[i % chain.length]} refs/tags/t${String(i).padStart(6, '0')}`);
  for (const line of git(['--git-dir', dir, 'for-each-ref', '--format=%(objectname) %(refname)']).split('\n')) lines.push(line);
  lines.sort((a, b) => (a.slice(41) < b.slice(41) ? -1 : 1));
  writeFileSync(join(dir, 'packed-refs'), `# pack-refs with: peeled fully-peeled sorted \n${lines.join('\n')}\n`);
  for (const ref of ['p-deep', 'p-one', 'p-c1010', 'p-c10009', 'p-rename', 'p-rewrite']) rmSync(join(dir, 'refs', 'heads', ref), { force: true });
}

/** tags1c's tags in the push repository: `count` names under ONE_COMMIT_TAGS, all on the
 * commit `depth` below main's tip, written into its packed-refs (idempotent). */
function addOneCommitTags(dir, seed, count, depth) {
  const at = git(['--git-dir', seed, 'rev-parse', `refs/heads/main~${depth}`]);
  const file = join(dir, 'packed-refs');
  const lines = readFileSync(file, 'utf8').split('\n').filter((l) => l !== '' && !l.startsWith('#') && !l.slice(41).startsWith(ONE_COMMIT_TAGS));
  for (let i = 0; i < count; i++) lines.push(`${at} ${ONE_COMMIT_TAGS}t${String(i).padStart(6, '0')}`);
  lines.sort((a, b) => (a.slice(41) < b.slice(41) ? -1 : a.slice(41) > b.slice(41) ? 1 : 0));
  writeFileSync(file, `# pack-refs with: peeled fully-peeled sorted \n${lines.join('\n')}\n`);
  return at;
}

/** The hooks of a target: the installed gate and the four others, behind the measurer. */
function installHooks(gitdir, bundle) {
  const hooks = join(gitdir, 'hooks');
  rmSync(hooks, { recursive: true, force: true });
  mkdirSync(hooks);
  const e = bundle ? { ...process.env, RECEIPT_GATE_BUNDLE_SOURCE: bundle } : process.env;
  const out = spawnSync(join(ROOT, 'install.sh'), ['--server', gitdir], { cwd: ROOT, encoding: 'utf8', env: e });
  if (out.status !== 0) throw new Error(`./install.sh --server ${gitdir} failed: ${out.stderr || out.stdout}`);
  renameSync(join(hooks, 'pre-receive'), join(hooks, 'pre-receive.gate'));
  cpSync(REFERENCE, join(hooks, 'pre-receive.reference'));
  installNodeOnlyHook(hooks);
  writeFileSync(
    join(hooks, 'pre-receive.floor'),
    '#!/bin/sh\n# receipt-gate bench: reads every pushed commit and tree once.\n' +
      `while read old new ref; do [ "$new" = ${ZERO} ] || echo "$new"; done | git rev-list --objects --no-object-names --filter=blob:none --stdin --not --all | git cat-file --batch >/dev/null\n`,
    { mode: 0o755 },
  );
  writeFileSync(
    join(hooks, 'pre-receive.revlist'),
    '#!/bin/sh\n# receipt-gate bench: git\'s own decision of the new commits, alone.\n' +
      `while read old new ref; do [ "$new" = ${ZERO} ] || echo "$new"; done | git rev-list --stdin --not --all >/dev/null\n`,
    { mode: 0o755 },
  );
  writeFileSync(
    join(hooks, 'pre-receive'),
    '#!/bin/sh\n# receipt-gate bench: runs the hook named by BENCH_HOOK, measured from outside.\n' +
      `exec python3 '${MEASURE}' "$BENCH_MEASURE_OUT" "$BENCH_HOOK" "$(dirname "$0")/pre-receive.$BENCH_HOOK"\n`,
    { mode: 0o755 },
  );
}

/** A target: a bare repository borrowing the seed's objects, with its refs (plus `extraRefs`
 * packed refs of the GitHub pull-request shape, on commits of main's history). */
function makeTarget(dir, seed, extraRefs, bundle) {
  rmSync(dir, { recursive: true, force: true });
  git(['init', '--quiet', '--bare', '--initial-branch=main', dir]);
  writeFileSync(join(dir, 'objects', 'info', 'alternates'), join(seed, 'objects') + '\n');
  git(['--git-dir', dir, 'config', 'receive.autogc', 'false']);
  git(['--git-dir', dir, 'config', 'gc.auto', '0']);
  const seedRefs = git(['--git-dir', seed, 'for-each-ref', '--format=%(objectname) %(refname)']).split('\n');
  if (extraRefs === 0) {
    writeFileSync(join(dir, 'packed-refs'), `# pack-refs with: peeled fully-peeled sorted \n${seedRefs.join('\n')}\n`);
  } else {
    const chain = git(['--git-dir', seed, 'rev-list', '--first-parent', 'refs/heads/main']).split('\n');
    const lines = [...seedRefs];
    for (let i = 0; i < extraRefs; i++) lines.push(`${chain[i % chain.length]} refs/pull/${i}/head`);
    lines.sort((a, b) => (a.slice(41) < b.slice(41) ? -1 : a.slice(41) > b.slice(41) ? 1 : 0));
    const fd = openSync(join(dir, 'packed-refs'), 'w');
    writeSync(fd, '# pack-refs with: peeled fully-peeled sorted \n');
    for (let i = 0; i < lines.length; i += 50_000) writeSync(fd, lines.slice(i, i + 50_000).join('\n') + '\n');
    closeSync(fd);
  }
  installHooks(dir, bundle);
}

function listRefFiles(gitdir) {
  return filesBelow(join(gitdir, 'refs'));
}

function listObjects(gitdir) {
  return filesBelow(join(gitdir, 'objects'));
}

/** One push of `refspecs` from the push repository into `target`, measured with `hook`; the
 * target is put back as it was (the refs the push made deleted, its object files removed).
 * A first-push case removes the gate's commit cache before every push of the gate; a gate run
 * records whether the cache was there when it started. */
function push(c, hook) {
  const out = join(process.env.TMPDIR ?? '/tmp', `bench-scale-${process.pid}.jsonl`);
  rmSync(out, { force: true });
  if (hook === 'gate' && c.firstPush) rmSync(gateCache(c.target), { recursive: true, force: true });
  const cacheBefore = existsSync(gateCache(c.target));
  const before = listObjects(c.target);
  const refsBefore = listRefFiles(c.target);
  const packedBefore = readFileSync(join(c.target, 'packed-refs'));
  const r = spawnSync('git', ['--git-dir', c.pushDir, 'push', '--quiet', '--no-verify', c.target, ...c.refspecs], {
    env: env({ BENCH_HOOK: hook, BENCH_MEASURE_OUT: out }),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const line = existsSync(out) ? readFileSync(out, 'utf8').trim().split('\n').pop() : null;
  rmSync(out, { force: true });
  // The refs the push made are removed as files (50,000 deletions through update-ref take
  // minutes): every loose ref file that was not there before, and packed-refs as it was.
  for (const f of listRefFiles(c.target)) if (!refsBefore.has(f)) rmSync(f, { force: true });
  if (!readFileSync(join(c.target, 'packed-refs')).equals(packedBefore)) writeFileSync(join(c.target, 'packed-refs'), packedBefore);
  for (const f of listObjects(c.target)) if (!before.has(f)) rmSync(f, { force: true });
  if (!line) throw new Error(`${c.id} (${hook}): the hook did not run: ${r.stderr}`);
  const m = JSON.parse(line);
  const said = /"verdict":"([a-z_]+)"/.exec(r.stderr)?.[1] ?? null;
  const finding = /"code":"([A-Z_]+)","severity":"closed"/.exec(r.stderr)?.[1] ?? null;
  // A refused push names its first closing finding (LIMIT_EXCEEDED when the budget ran out).
  const verdict = said !== null && said !== 'eligible' && finding !== null ? `${said} (${finding})` : said;
  const run = { cpuMs: Math.round(m.user_ms + m.sys_ms), wallMs: Math.round(m.wall_ms), rssMb: Math.round(m.maxrss_kb / 1024), exit: m.exit, verdict, finding };
  return hook === 'gate' ? { ...run, cacheBefore } : run;
}

/** When each target's commit-graph was written. The gate records a graph file it checked whole
 * only when the file was last changed two seconds or more before (src/git/history/
 * commit-graph.ts, VerifiedGraphs), as a server's graph written by maintenance long ago is: a
 * case on a target waits until its graph is that old, so that its warm-up push leaves the record
 * a steady-state push has. */
const graphWritten = new Map();
function writeGraph(gitdir) {
  git(['--git-dir', gitdir, 'commit-graph', 'write', '--reachable']);
  graphWritten.set(gitdir, Date.now());
}
function settleGraph(gitdir) {
  const left = (graphWritten.get(gitdir) ?? -Infinity) + 2500 - Date.now();
  if (left > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, left);
}

/** Issue 29's target for a push, from the medians of its sides: 2× the reference's CPU plus
 * Node's own start, and whether the gate's CPU is within it. No target (NaN, null) where the
 * reference was not run. */
export function issueTarget(sum) {
  const targetMs = 2 * sum.reference.cpuMs + sum.node.cpuMs;
  return { targetMs, withinTarget: Number.isNaN(targetMs) ? null : sum.gate.cpuMs <= targetMs };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[s.length >> 1] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function main(argv) {
  const opts = parseArgs(argv);
  const sizeName = opts.tiny ? 'tiny' : 'full';
  const size = { ...SIZES[sizeName] };
  if (opts.treeFiles !== null) size.treeFiles = opts.treeFiles;
  if (opts.build) {
    const b = spawnSync('npm', ['run', 'build', '--silent'], { cwd: ROOT, stdio: 'inherit' });
    if (b.status !== 0) throw new Error('npm run build failed');
  }
  const bundle = opts.bundle ?? join(ROOT, 'dist', 'cli.js');
  if (!existsSync(bundle)) throw new Error(`${bundle} is missing: run npm run build`);
  // A tree size of its own gets a cache of its own (the 1M-file seed is not rebuilt each time
  // the default one is used, nor the other way round).
  const treeTag = size.treeFiles === SIZES[sizeName].treeFiles ? '' : `-tree${size.treeFiles}`;
  const cache = opts.cache ?? join(ROOT, '.bench-cache', `scale-${sizeName}${treeTag}`);
  mkdirSync(cache, { recursive: true });
  const seed = join(cache, 'seed.git');
  const pushDir = join(cache, 'push.git');
  const recipe = JSON.stringify({ version: 1, size });
  const recipeFile = join(cache, 'recipe.json');
  if (!existsSync(recipeFile) || readFileSync(recipeFile, 'utf8') !== recipe) {
    rmSync(recipeFile, { force: true });
    await buildSeed(seed, size);
    await buildPushes(pushDir, seed, size);
    writeFileSync(recipeFile, recipe);
  }
  const oneCommitDepth = Math.min(1000, Math.floor(size.deep / 2));
  const oneCommit = addOneCommitTags(pushDir, seed, size.tags, oneCommitDepth);
  // The gate reads the commit-graph of the repository's own object folder, git also those of
  // its alternates: the seed has none, a target that should have one gets its own.
  const info = join(seed, 'objects', 'info');
  rmSync(join(info, 'commit-graph'), { force: true });
  rmSync(join(info, 'commit-graphs'), { recursive: true, force: true });

  const work = (name) => join(cache, 'targets', name);
  const plain = work('plain.git');
  const many = work('refs.git');
  const graphed = work('graph.git');
  const ids = opts.only ?? CASE_IDS;
  log(`installing the hooks (${bundle})`);
  const targets = [];
  if (ids.some((id) => !['refs1m', 'deepgraph', 'deepgraphfirst'].includes(id))) {
    makeTarget(plain, seed, 0, bundle);
    targets.push(plain);
  }
  if (ids.includes('refs1m')) {
    makeTarget(many, seed, size.refs, bundle);
    targets.push(many);
  }
  if (ids.includes('deepgraph') || ids.includes('deepgraphfirst')) {
    makeTarget(graphed, seed, 0, bundle);
    writeGraph(graphed);
  }
  if (opts.graph) for (const t of targets) writeGraph(t);
  const deepLabel = `1 commit whose parent is ${size.deep.toLocaleString('en')} commits deep`;
  const deepPush = ['refs/heads/p-deep:refs/heads/bench/work'];
  const FIRST = 'first push (no commit cache)';
  // The deep cases start with one unmeasured push of the gate: the steady cases' rows are then
  // the pushes after the first (which writes the commit cache), the first-push cases' rows
  // pushes on a page cache as warm as theirs.
  const cases = {
    deep: { label: `${deepLabel}${opts.graph ? ', with a commit-graph' : ', no commit-graph'}`, target: plain, refspecs: deepPush, warmup: true },
    deepgraph: { label: `${deepLabel}, with a commit-graph`, target: graphed, refspecs: deepPush, warmup: true },
    deepfirst: { label: `${deepLabel}${opts.graph ? ', with a commit-graph' : ', no commit-graph'}, ${FIRST}`, target: plain, refspecs: deepPush, warmup: true, firstPush: true },
    deepgraphfirst: { label: `${deepLabel}, with a commit-graph, ${FIRST}`, target: graphed, refspecs: deepPush, warmup: true, firstPush: true },
    c1010: { label: `${size.c1010.toLocaleString('en')} commits`, target: plain, refspecs: ['refs/heads/p-c1010:refs/heads/bench/work'] },
    c10009: { label: `${size.c10009.toLocaleString('en')} commits`, target: plain, refspecs: ['refs/heads/p-c10009:refs/heads/bench/work'] },
    refs1m: { label: `1 commit, ${size.refs.toLocaleString('en')} packed refs`, target: many, refspecs: ['refs/heads/p-one:refs/heads/bench/work'] },
    rename: { label: `${size.treeFiles.toLocaleString('en')}-file tree, rename of ${Math.max(1, Math.floor(size.folders / 10))} folders`, target: plain, refspecs: ['refs/heads/p-rename:refs/heads/bench/work'] },
    rewrite: { label: `${size.treeFiles.toLocaleString('en')}-file tree, rewrite of ${Math.max(1, Math.floor(size.folders / 10))} folders`, target: plain, refspecs: ['refs/heads/p-rewrite:refs/heads/bench/work'] },
    tags50k: { label: `${size.tags.toLocaleString('en')} tags in one push, on ${Math.min(size.tags, size.deep + 1).toLocaleString('en')} commits of main`, target: plain, refspecs: ['refs/tags/*:refs/tags/*'] },
    tags1c: { label: `${size.tags.toLocaleString('en')} tags in one push, all on one commit (main~${oneCommitDepth})`, target: plain, refspecs: [`${ONE_COMMIT_TAGS}*:refs/tags/*`], at: oneCommit },
  };
  const rows = [];
  for (const id of ids) {
    const c = { id, pushDir, ...cases[id] };
    log(`${id}: ${c.label}`);
    const sides = id.startsWith('tags') && size.tags > 1000 ? SIDES.filter((s) => s !== 'reference') : SIDES;
    settleGraph(c.target);
    const warmup = c.warmup ? push(c, 'gate') : null;
    const runs = Object.fromEntries(sides.map((s) => [s, []]));
    for (let r = 0; r < opts.runs; r++) for (const side of sides) runs[side].push(push(c, side));
    const none = { cpuMs: NaN, wallMs: NaN, rssMb: NaN };
    const sum = Object.fromEntries(
      SIDES.map((s) => [s, runs[s] ? { cpuMs: median(runs[s].map((x) => x.cpuMs)), wallMs: median(runs[s].map((x) => x.wallMs)), rssMb: median(runs[s].map((x) => x.rssMb)) } : none]),
    );
    rows.push({
      id,
      label: c.label,
      firstPush: Boolean(c.firstPush),
      warmup,
      runs,
      ...sum,
      ...issueTarget(sum),
      ratioReference: sum.gate.cpuMs / sum.reference.cpuMs,
      ratioRevlist: sum.gate.cpuMs / sum.revlist.cpuMs,
      ratioFloor: sum.gate.cpuMs / sum.floor.cpuMs,
      verdicts: runs.gate.map((x) => x.verdict ?? x.finding ?? `exit ${x.exit}`),
    });
  }
  const md = render(rows, { size, sizeName, runs: opts.runs, graph: opts.graph });
  process.stdout.write(md);
  if (opts.out) writeFileSync(opts.out, md);
  if (opts.json) writeFileSync(opts.json, JSON.stringify({ size: sizeName, sizes: size, runs: opts.runs, graph: opts.graph, cases: rows, targets: { plain, refs: ids.includes('refs1m') ? many : null, graph: ids.includes('deepgraph') ? graphed : null }, seed, pushDir, oneCommitTags: { prefix: ONE_COMMIT_TAGS, at: oneCommit } }, null, 2));
}

export function render(rows, { size, sizeName, runs, graph }) {
  const f = (ms) => (Number.isNaN(ms) ? 'not run' : ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${Math.round(ms)} ms`);
  const x = (r) => (Number.isNaN(r) ? '—' : `${r.toFixed(1)}×`);
  const lines = [
    `receipt-gate scale benchmark (${sizeName}; ${runs} run${runs === 1 ? '' : 's'} per hook, interleaved; medians; ${graph ? 'with' : 'no'} commit-graph; ${cpus().length} cores)`,
    '',
    '| case | gate CPU | gate wall | gate RSS | reference CPU | node CPU | target (2× reference + node) | gate ≤ target? | floor CPU | rev-list CPU | gate / reference | gate / rev-list | gate verdicts |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const r of rows) {
    const target = Number.isNaN(r.targetMs) ? '—' : f(r.targetMs);
    const within = r.withinTarget === null ? '—' : r.withinTarget ? 'yes' : 'no';
    lines.push(
      `| ${r.label} | ${f(r.gate.cpuMs)} | ${f(r.gate.wallMs)} | ${r.gate.rssMb} MB | ${f(r.reference.cpuMs)} | ${f(r.node.cpuMs)} | ${target} | ${within} | ${f(r.floor.cpuMs)} | ${f(r.revlist.cpuMs)} | ${x(r.ratioReference)} | ${x(r.ratioRevlist)} | ${r.verdicts.join(', ')} |`,
    );
  }
  // The runs behind each median, in the order they ran.
  lines.push('', 'gate CPU per run:', '');
  for (const r of rows) {
    const warm = r.warmup ? `warm-up (not counted) ${f(r.warmup.cpuMs)}; ` : '';
    const first = r.firstPush ? ' (each a first push: the commit cache removed before it)' : '';
    lines.push(`- ${r.id}: ${warm}${r.runs.gate.map((run) => f(run.cpuMs)).join(', ')}${first}`);
  }
  lines.push('', `sizes: ${JSON.stringify(size)}`, '');
  return lines.join('\n');
}
