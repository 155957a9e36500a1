#!/usr/bin/env node
// receipt-gate benchmark (`npm run bench`): the hook under real `git push`es, measured from
// outside its process, interleaved with a reference hook that does the same path check with
// the git CLI and with a hook that only starts Node. See BENCHMARKS.md for what the numbers mean.
//
//   node bench/run.mjs [--smoke] [--runs N] [--only SUBSTRING,...] [--out FILE.md] [--json FILE]
//                      [--no-build] [--build-only] [--cache DIR] [--bundle FILE] [--list]
//   --only: scenarios whose id contains one of the words (push-1@wide, adv-commits, json-canada)
//   --list: print the scenario ids and exit
//   --bundle FILE: measure FILE (a candidate build of dist/cli.js) instead of dist/cli.js
//   --pyjson FILE.ts: the JSON scenarios measure FILE instead of src/evidence/pyjson.ts
//   --profile DIR: also write a V8 CPU profile of every gate run to DIR/<scenario>/ (slower:
//                  for finding where the time goes, not for the table; see bench/profile.mjs)
//   BENCH_REPO=path/to/bare.git node bench/run.mjs     adds a repository of your own
//   node bench/run.mjs large-history [--runs N]       long histories (bench/lib/large-history.mjs)
//   node bench/run.mjs shim [--runs N] [--tree DIR]    6,000 refs, 600 findings, a 10 MB line
//                                                       through the shim (bench/lib/shim-bench.mjs)
//   node bench/run.mjs scale [--tiny] [--runs N]      git/git's scale: 1M refs, deep parents,
//                                                       10k commits, wide trees (bench/scale.mjs)
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readFileSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureRepo, finishRepo, git, repoFacts, repoSpecs, SEED } from './lib/generate.mjs';
import { FastImport } from './lib/fast-import.mjs';
import { BENCH_TODAY, evidenceFiles } from './lib/evidence.mjs';
import { renderMarkdown, summarise, summariseJson } from './lib/report.mjs';
import { adversarialIds, adversarialSpecs, ensureAdversarial } from './lib/adversarial.mjs';
import { JSON_SCENARIOS, prepareJson, runJson } from './lib/json-bench.mjs';
import { CONTEXT_IDS, ensureContextRepos } from './lib/contexts.mjs';
import { NOOP_SOURCE, installNodeOnlyHook } from './lib/node-only.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const MEASURE = join(ROOT, 'bench', 'measure.py');
const REFERENCE = join(ROOT, 'bench', 'reference-pre-receive.sh');
let CLI = join(ROOT, 'dist', 'cli.js');
const IDENTITY_VARS = ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'];

function parseArgs(argv) {
  const opts = { smoke: false, runs: null, only: null, out: null, json: null, build: true, buildOnly: false, cache: null, bundle: null, list: false, pyjson: null, profile: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--smoke') opts.smoke = true;
    else if (a === '--runs') opts.runs = Number(value());
    else if (a === '--only') opts.only = value();
    else if (a === '--out') opts.out = resolve(value());
    else if (a === '--json') opts.json = resolve(value());
    else if (a === '--cache') opts.cache = resolve(value());
    else if (a === '--no-build') opts.build = false;
    else if (a === '--bundle') opts.bundle = resolve(value());
    else if (a === '--build-only') opts.buildOnly = true;
    else if (a === '--list') opts.list = true;
    else if (a === '--pyjson') opts.pyjson = resolve(value());
    else if (a === '--profile') opts.profile = resolve(value());
    else if (a === '-h' || a === '--help') usage(null);
    else usage(`unknown option '${a}'`);
  }
  if (opts.runs !== null && !(Number.isInteger(opts.runs) && opts.runs >= 1)) usage('--runs needs a positive integer');
  opts.runs ??= opts.smoke ? 2 : 5;
  return opts;
}

function usage(problem) {
  const lines = readFileSync(fileURLToPath(import.meta.url), 'utf8').split('\n').slice(1);
  const text = lines.slice(0, lines.findIndex((l) => !l.startsWith('//'))).join('\n').replace(/^\/\/ ?/gm, '');
  if (problem) process.stderr.write(`bench: ${problem}\n`);
  (problem ? process.stderr : process.stdout).write(`${text}\n`);
  process.exit(problem ? 2 : 0);
}

const log = (msg) => process.stderr.write(`bench: ${msg}\n`);

function machine() {
  const cpu = cpus();
  const version = (cmd, args) => {
    try {
      return execFileSync(cmd, args, { encoding: 'utf8' }).trim().split('\n')[0];
    } catch {
      return 'unknown';
    }
  };
  return {
    cpu: cpu[0]?.model ?? 'unknown',
    cores: cpu.length,
    memoryGiB: Math.round((totalmem() / 2 ** 30) * 10) / 10,
    node: process.version,
    git: version('git', ['--version']),
    python: version('python3', ['--version']),
    kernel: version('uname', ['-sr']),
  };
}

// ---------------------------------------------------------------------------------------------
// Targets: a copy of a seed repository (hard links; git never rewrites a pack or a packed-refs
// file in place) with the gate and the reference hook installed behind a measuring wrapper.

function listObjects(gitdir) {
  const files = new Set();
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      const p = join(dir, e.name);
      if (e.isDirectory()) walk(p);
      else files.add(relative(gitdir, p));
    }
  };
  walk(join(gitdir, 'objects'));
  return files;
}

function makeTarget(seedDir, targetDir, mainTip) {
  rmSync(targetDir, { recursive: true, force: true });
  mkdirSync(dirname(targetDir), { recursive: true });
  try {
    execFileSync('cp', ['-al', seedDir, targetDir]);
  } catch {
    cpSync(seedDir, targetDir, { recursive: true });
  }
  git(['--git-dir', targetDir, 'config', 'receive.autogc', 'false']);
  git(['--git-dir', targetDir, 'config', 'gc.auto', '0']);
  git(['--git-dir', targetDir, 'update-ref', 'refs/heads/bench/work', mainTip]);
  installHooks(targetDir);
  return { gitdir: targetDir, mainTip, objects: listObjects(targetDir) };
}

/** hooks/pre-receive.gate is what `./install.sh --server` installs; hooks/pre-receive measures
 * the one BENCH_HOOK names. */
function installHooks(gitdir) {
  const hooks = join(gitdir, 'hooks');
  rmSync(hooks, { recursive: true, force: true });
  mkdirSync(hooks);
  const installer = join(ROOT, 'install.sh');
  // The bundle measured is the one installed, so its startup snapshot (receipt-gate.blob) is
  // built from it too; a bundle that cannot be snapshot is installed without one.
  const env = { ...process.env, RECEIPT_GATE_BUNDLE_SOURCE: CLI };
  const out = spawnSync(installer, ['--server', gitdir], { cwd: ROOT, encoding: 'utf8', env });
  if (out.status !== 0) throw new Error(`./install.sh --server ${gitdir} failed: ${out.stderr || out.stdout}`);
  const noSnapshot = /installed without the startup snapshot.*/.exec(out.stdout);
  if (noSnapshot) process.stderr.write(`bench: ${noSnapshot[0]}\n`);
  renameSync(join(hooks, 'pre-receive'), join(hooks, 'pre-receive.gate'));
  cpSync(REFERENCE, join(hooks, 'pre-receive.reference'));
  // Node's own start: the installed shim, on a bundle that answers at once.
  installNodeOnlyHook(hooks);
  writeFileSync(
    join(hooks, 'pre-receive'),
    '#!/bin/sh\n# receipt-gate bench: runs the hook named by BENCH_HOOK, measured from outside.\n' +
      `exec python3 '${MEASURE}' "$BENCH_MEASURE_OUT" "$BENCH_HOOK" "$(dirname "$0")/pre-receive.$BENCH_HOOK"\n`,
    { mode: 0o755 },
  );
}

let NOOP = null; // written into the run's work directory

/** The three hooks of every scenario. */
const HOOKS = ['gate', 'reference', 'node'];

/** Puts the target back as it was before a push: the branch, and no new object files. */
function restoreTarget(target) {
  git(['--git-dir', target.gitdir, 'update-ref', 'refs/heads/bench/work', target.mainTip]);
  for (const f of listObjects(target.gitdir)) {
    if (!target.objects.has(f)) rmSync(join(target.gitdir, f), { force: true });
  }
}

function benchEnv(extra) {
  const env = { ...process.env, RECEIPT_GATE_NOW: BENCH_TODAY, GIT_TERMINAL_PROMPT: '0' };
  for (const v of IDENTITY_VARS) delete env[v]; // the pusher is nobody unless a scenario says
  delete env.GIT_DIR;
  delete env.GIT_INDEX_FILE;
  return { ...env, ...extra };
}

/**
 * The gate's answer, from its machine line (`receipt-gate: {"verdict": ...}`): the verdict and
 * the codes of its blocking findings, e.g. "closed: LIMIT_EXCEEDED". The reference hook has no
 * machine line: its answer is the push's fate.
 */
function verdictOf(stderr, accepted) {
  const lines = stderr.split('\n').reverse();
  for (const line of lines) {
    const m = /receipt-gate: (\{.*\})\s*$/.exec(line);
    if (!m) continue;
    try {
      const payload = JSON.parse(m[1]);
      const codes = [...new Set((payload.findings ?? []).filter((f) => f.severity !== 'info').map((f) => f.code))];
      return codes.length ? `${payload.verdict}: ${codes.join(', ')}` : String(payload.verdict);
    } catch {
      /* not the machine line */
    }
  }
  return accepted ? 'accepted' : 'rejected';
}

function lastMeasurement(file) {
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
  rmSync(file);
  return lines.length ? JSON.parse(lines[lines.length - 1]) : null;
}

function tail(text, n = 6) {
  return text.trim().split('\n').slice(-n).join('\n');
}

// ---------------------------------------------------------------------------------------------
// One measured run of a scenario with one hook ('gate' or 'reference').

/** With --profile: the node the gate runs under writes a CPU profile per run. */
let PROFILE_DIR = null;

function profiledNode(scenario) {
  const dir = join(PROFILE_DIR, scenario.id.replace(/[^A-Za-z0-9@+._-]/g, '_'));
  mkdirSync(dir, { recursive: true });
  const script = join(dir, 'node.sh');
  writeFileSync(script, `#!/bin/sh\nexec node --cpu-prof --cpu-prof-interval 100 --cpu-prof-dir='${dir}' "$@"\n`, { mode: 0o755 });
  return { script, dir };
}

function runPush(scenario, hook, measureFile) {
  const { target, push } = scenario;
  const profile = PROFILE_DIR && hook === 'gate' ? { RECEIPT_GATE_NODE: profiledNode(scenario).script } : {};
  const t0 = process.hrtime.bigint();
  const res = spawnSync('git', ['--git-dir', scenario.pushDir, 'push', '--quiet', target.gitdir, `+${push.ref}:refs/heads/bench/work`], {
    env: benchEnv({ ...scenario.env, ...profile, BENCH_HOOK: hook, BENCH_MEASURE_OUT: measureFile }),
    encoding: 'utf8',
    maxBuffer: 1 << 28,
  });
  const pushMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const m = lastMeasurement(measureFile);
  const landed = git(['--git-dir', target.gitdir, 'rev-parse', 'refs/heads/bench/work']) === push.tip;
  restoreTarget(target);
  if (!m) throw new Error(`${scenario.id}: the ${hook} hook did not run (git push exit ${res.status}): ${tail(res.stderr)}`);
  const accepted = landed && res.status === 0;
  return { wallMs: m.wall_ms, rssKb: m.maxrss_kb, cpuMs: m.user_ms + m.sys_ms, exit: m.exit, pushMs, accepted, verdict: verdictOf(res.stderr, accepted), output: res.status === 0 ? '' : tail(res.stderr) };
}

function runCommand(scenario, hook, measureFile) {
  let cmd = hook === 'gate' ? scenario.gateCmd : hook === 'node' ? ['node', NOOP] : scenario.referenceCmd;
  if (PROFILE_DIR && hook === 'gate') cmd = [profiledNode(scenario).script, ...cmd.slice(1)];
  const res = spawnSync('python3', [MEASURE, measureFile, hook, ...cmd], {
    cwd: scenario.cwd,
    env: benchEnv(scenario.env ?? {}),
    encoding: 'utf8',
    maxBuffer: 1 << 26,
  });
  const m = lastMeasurement(measureFile);
  if (!m) throw new Error(`${scenario.id}: ${hook} did not run: ${tail(res.stderr)}`);
  const accepted = m.exit === 0;
  return { wallMs: m.wall_ms, rssKb: m.maxrss_kb, cpuMs: m.user_ms + m.sys_ms, exit: m.exit, pushMs: null, accepted, verdict: verdictOf(res.stdout + res.stderr, accepted), output: accepted ? '' : tail(res.stdout + res.stderr) };
}

// ---------------------------------------------------------------------------------------------
// A repository of the user's (BENCH_REPO): a seed that borrows its objects and refs, with the
// bench policy and evidence committed on top of its HEAD so the gate has work to do.

async function prepareUserRepo(cacheDir, userRepo, spec) {
  const src = resolve(userRepo);
  const isBare = git(['--git-dir', src, 'rev-parse', '--is-bare-repository']) === 'true';
  if (!isBare) throw new Error(`BENCH_REPO=${userRepo}: not a bare repository (clone it with --bare or --mirror)`);
  const head = git(['--git-dir', src, 'rev-parse', '--verify', 'HEAD^{commit}']);
  const branch = git(['--git-dir', src, 'symbolic-ref', '--short', 'HEAD']);
  const dir = join(cacheDir, `user-${basename(src).replace(/[^A-Za-z0-9._-]/g, '_')}`);
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const seedDir = join(dir, 'seed.git');
  git(['init', '--quiet', '--bare', `--initial-branch=${branch}`, seedDir]);
  writeFileSync(join(seedDir, 'objects', 'info', 'alternates'), join(src, 'objects') + '\n');
  const refs = git(['--git-dir', src, 'for-each-ref', '--format=%(objectname) %(refname)']).split('\n').filter(Boolean);
  writeFileSync(join(seedDir, 'packed-refs'), '# pack-refs with: sorted \n' + refs.sort((a, b) => (a.slice(41) < b.slice(41) ? -1 : 1)).join('\n') + '\n');
  const fi = new FastImport(seedDir);
  const changes = [];
  for (const [path, bytes] of evidenceFiles(branch)) changes.push({ path, mark: await fi.blob(bytes) });
  await fi.commit(`refs/heads/${branch}`, { from: head, message: 'receipt-gate bench: policy and evidence\n', changes });
  await fi.close();
  const mainTip = git(['--git-dir', seedDir, 'rev-parse', `refs/heads/${branch}`]);
  const meta = await finishRepo(dir, seedDir, mainTip, spec, log);
  // The seed borrows the user's objects: count them where they are.
  const own = repoFacts(src);
  meta.facts = { ...meta.facts, objects: own.objects + meta.facts.objects, packBytes: own.packBytes + meta.facts.packBytes };
  return meta;
}

// ---------------------------------------------------------------------------------------------

/** The ids scenariosFor gives a repository spec, known before it is built. */
function candidateIds(spec) {
  const [s1, s20, sN] = spec.pushSizes;
  const ids = [s1, s20, sN].map((n) => `push-${n}@${spec.name}`);
  for (const refs of spec.refCurve ?? []) ids.push(`push-${s1}@${spec.name}+${refs}refs`, `push-${s20}@${spec.name}+${refs}refs`);
  ids.push(`verify-ref-${sN}@${spec.name}`);
  if (spec.withWorktree) ids.push(`pre-commit@${spec.name}`);
  return ids;
}

/** Whether --only (comma-separated substrings of scenario ids) selects any of `ids`. */
function wantedIds(only, ids) {
  if (!only) return true;
  const words = only.split(',');
  return ids.some((id) => words.some((w) => id.includes(w)));
}

function scenariosFor(repo, workDir, smoke) {
  const list = [];
  const target = makeTarget(repo.seedDir, join(workDir, `${repo.name}.git`), repo.mainTip);
  const facts = repo.facts;
  for (const key of ['p1', 'p20', 'pN']) {
    const push = repo.pushes[key];
    list.push({
      id: `push-${push.commits}@${repo.name}`,
      kind: 'push',
      commits: push.commits,
      repo: repo.name,
      facts,
      target,
      push,
      pushDir: repo.pushDir,
      curve: key === 'p1' ? 'size' : null,
    });
  }
  for (const variant of repo.refVariants) {
    const vt = makeTarget(variant.gitdir, join(workDir, `${repo.name}-refs-${variant.refs}.git`), repo.mainTip);
    const vfacts = { ...facts, refs: variant.refs };
    for (const key of smoke ? ['p1'] : ['p1', 'p20']) {
      const push = repo.pushes[key];
      list.push({ id: `push-${push.commits}@${repo.name}+${variant.refs}refs`, kind: 'push', commits: push.commits, repo: `${repo.name} (${variant.refs} refs)`, facts: vfacts, target: vt, push, pushDir: repo.pushDir, curve: key === 'p1' ? 'refs' : null });
    }
  }
  if (!smoke || repo.name === 'long') {
    const n = repo.pushes.pN.commits;
    list.push({
      id: `verify-ref-${n}@${repo.name}`,
      kind: 'verify-ref',
      commits: n,
      repo: repo.name,
      facts,
      cwd: repo.verifyDir,
      gateCmd: ['node', CLI, 'verify-ref', 'refs/heads/work', '--base', 'refs/heads/main', '--repo', repo.verifyDir],
      referenceCmd: ['sh', REFERENCE, '--verify', 'refs/heads/work', 'refs/heads/main'],
      env: { GIT_DIR: repo.verifyDir },
    });
  }
  if (repo.worktree) {
    list.push({
      id: `pre-commit@${repo.name}`,
      kind: 'pre-commit',
      commits: 0,
      repo: repo.name,
      facts,
      cwd: repo.worktree,
      gateCmd: ['node', CLI, 'pre-commit'],
      referenceCmd: ['sh', REFERENCE, '--index'],
    });
  }
  return list;
}

/** The adversarial scenarios of one seed: one target, one push branch each. */
function adversarialScenarios(spec, keys, meta, workDir) {
  const target = makeTarget(meta.seedDir, join(workDir, `${spec.name}.git`), meta.mainTip);
  return spec.scenarios
    .filter((x) => keys.has(x.key))
    .map((x) => ({
      id: `adv-${x.key}`,
      kind: 'push',
      adversarial: true,
      label: x.label,
      commits: null,
      repo: spec.name,
      facts: meta.facts,
      target,
      push: meta.pushes[x.key],
      pushDir: meta.pushDir,
      env: x.env ?? {},
      timeoutMs: spec.timeoutMs,
      maxRuns: 3,
    }));
}

async function main() {
  if (process.argv[2] === 'large-history') return (await import('./lib/large-history.mjs')).main(process.argv.slice(3));
  if (process.argv[2] === 'shim') return (await import('./lib/shim-bench.mjs')).main(process.argv.slice(3));
  if (process.argv[2] === 'push-log') return (await import('./lib/push-log.mjs')).main(process.argv.slice(3));
  if (process.argv[2] === 'scale') return (await import('./scale.mjs')).main(process.argv.slice(3));
  const opts = parseArgs(process.argv.slice(2));
  const cacheDir = opts.cache ?? (opts.smoke ? join(ROOT, '.bench-cache', 'smoke') : join(ROOT, '.bench-cache'));
  mkdirSync(cacheDir, { recursive: true });
  const started = new Date();

  if (opts.list) {
    const ids = [...repoSpecs(opts.smoke).flatMap(candidateIds), ...CONTEXT_IDS, ...adversarialIds(opts.smoke), ...JSON_SCENARIOS.map((j) => j.id)];
    process.stdout.write(ids.join('\n') + '\n');
    return;
  }

  if (opts.bundle) {
    if (!existsSync(opts.bundle)) throw new Error(`--bundle ${opts.bundle}: no such file`);
    CLI = opts.bundle;
    opts.build = false;
  }
  if (opts.build && !opts.buildOnly) {
    log('building dist/cli.js');
    const b = spawnSync('node', [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, encoding: 'utf8' });
    if (b.status !== 0) throw new Error(`npm run build failed: ${b.stderr}`);
  }
  if (!opts.buildOnly && !existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build`);

  // Only the repositories the selected scenarios need are built (or read from the cache).
  const repos = [];
  for (const spec of repoSpecs(opts.smoke)) {
    if (wantedIds(opts.only, candidateIds(spec))) repos.push(await ensureRepo(cacheDir, spec, log));
  }
  if (process.env.BENCH_REPO) {
    const spec = { name: `BENCH_REPO:${basename(resolve(process.env.BENCH_REPO))}`, pushSizes: opts.smoke ? [1, 20, 60] : [1, 20, 1000] };
    log(`preparing BENCH_REPO=${process.env.BENCH_REPO}`);
    repos.push(await prepareUserRepo(cacheDir, process.env.BENCH_REPO, spec));
  }
  const contextRepos = wantedIds(opts.only, CONTEXT_IDS) ? ensureContextRepos(cacheDir, log) : [];
  const adversarial = [];
  for (const spec of adversarialSpecs(opts.smoke)) {
    const keys = new Set(spec.scenarios.filter((x) => wantedIds(opts.only, [`adv-${x.key}`])).map((x) => x.key));
    if (keys.size) adversarial.push({ spec, keys, meta: await ensureAdversarial(cacheDir, spec, keys, log) });
  }
  if (opts.buildOnly) {
    log('repositories ready');
    return;
  }

  // Targets of this run only: two runs sharing a cache must not push into each other's copies.
  const workDir = join(cacheDir, 'work', String(process.pid));
  rmSync(workDir, { recursive: true, force: true });
  mkdirSync(workDir, { recursive: true });
  process.on('exit', () => rmSync(workDir, { recursive: true, force: true }));
  NOOP = join(workDir, 'noop.cjs');
  PROFILE_DIR = opts.profile;
  writeFileSync(NOOP, NOOP_SOURCE);
  let scenarios = repos.flatMap((r) => scenariosFor(r, workDir, opts.smoke));
  for (const { spec, keys, meta } of adversarial) scenarios.push(...adversarialScenarios(spec, keys, meta, workDir));
  // Bounded contexts: the same 1-commit push into a monorepo guarded with 0, 1 and 20 contexts.
  for (const c of contextRepos) {
    const target = makeTarget(c.seedDir, join(workDir, `${c.name}.git`), c.mainTip);
    scenarios.push({ id: `push-1@${c.name}`, kind: 'push', commits: 1, repo: `monorepo, ${c.contexts === 0 ? 'no contexts (v1 policy)' : `${c.contexts} context${c.contexts === 1 ? '' : 's'}`}`, facts: c.facts, target, push: c.push, pushDir: c.pushDir, curve: null });
  }
  if (opts.only) {
    const wanted = opts.only.split(',');
    scenarios = scenarios.filter((s) => wanted.some((w) => s.id.includes(w)));
  }
  const jsonWanted = JSON_SCENARIOS.filter((j) => wantedIds(opts.only, [j.id]));
  const measureFile = join(workDir, 'measure.jsonl');

  const results = [];
  for (const s of scenarios) {
    const runOne = (hook) => (s.kind === 'verify-ref' || s.kind === 'pre-commit' ? runCommand(s, hook, measureFile) : runPush(s, hook, measureFile));
    // One warm-up of each (page cache, first-run costs), then interleaved measured runs, the
    // order rotating so that no hook always runs right after another.
    if (!opts.smoke && !s.adversarial) for (const hook of HOOKS) runOne(hook);
    const runs = { gate: [], reference: [], node: [] };
    const n = s.maxRuns ? Math.min(opts.runs, s.maxRuns) : opts.runs;
    for (let i = 0; i < n; i++) {
      for (let k = 0; k < HOOKS.length; k++) {
        const hook = HOOKS[(i + k) % HOOKS.length];
        runs[hook].push(runOne(hook));
      }
    }
    const row = summarise(s, runs);
    results.push(row);
    log(
      `${s.id}: gate ${row.gate.medianMs.toFixed(0)} ms / ${row.gate.rssMedianMb.toFixed(0)} MB (${row.gate.verdict}), ` +
        `node ${row.node.medianMs.toFixed(0)} ms, reference ${row.reference.medianMs.toFixed(0)} ms, ratio ${row.ratio.toFixed(2)}` +
        (s.adversarial ? (row.inTime ? ', in time' : ', NOT in time') : row.gate.allAccepted ? '' : ' (gate REJECTED the push)'),
    );
  }

  const jsonResults = [];
  if (jsonWanted.length) {
    const prepared = await prepareJson(opts.pyjson ?? join(ROOT, 'src', 'evidence', 'pyjson.ts'), cacheDir, jsonWanted);
    for (const s of prepared) {
      if (!opts.smoke) {
        runJson(s, 'pyjson');
        runJson(s, 'python');
      }
      const runs = { pyjson: [], python: [] };
      for (let i = 0; i < opts.runs; i++) {
        for (const side of i % 2 === 0 ? ['pyjson', 'python'] : ['python', 'pyjson']) runs[side].push(runJson(s, side));
      }
      const row = summariseJson(s, runs);
      jsonResults.push(row);
      log(`${s.id}: pyjson ${row.pyjson.medianMs.toFixed(1)} ms, python ${row.python.medianMs.toFixed(1)} ms${row.sameDigest ? '' : ' (DIGESTS DIFFER)'}`);
    }
  }

  const report = {
    tool: 'receipt-gate bench',
    date: started.toISOString(),
    seconds: Math.round((Date.now() - started.getTime()) / 1000),
    smoke: opts.smoke,
    runs: opts.runs,
    seed: SEED,
    today: BENCH_TODAY,
    command: `node bench/run.mjs ${process.argv.slice(2).join(' ')}`.trim(),
    bundle: relative(ROOT, CLI),
    pyjson: relative(ROOT, opts.pyjson ?? join(ROOT, 'src', 'evidence', 'pyjson.ts')),
    benchRepo: process.env.BENCH_REPO ?? null,
    machine: machine(),
    repos: repos.map((r) => ({ name: r.name, facts: r.facts, pushes: r.pushes, buildSeconds: r.buildSeconds ?? null })),
    scenarios: results,
    json: jsonResults,
  };
  const md = renderMarkdown(report);
  process.stdout.write(md);
  if (opts.out) writeFileSync(opts.out, md);
  if (opts.json) writeFileSync(opts.json, JSON.stringify(report, null, 2) + '\n');
  const resultsDir = join(cacheDir, 'results');
  mkdirSync(resultsDir, { recursive: true });
  writeFileSync(join(resultsDir, `${started.toISOString().replace(/[:.]/g, '-')}.json`), JSON.stringify(report, null, 2) + '\n');
}

main().catch((err) => {
  process.stderr.write(`bench: ${err instanceof Error ? err.message : String(err)}\n`);
  if (process.env.BENCH_DEBUG && err instanceof Error) process.stderr.write(`${err.stack}\n`);
  process.exit(1);
});
