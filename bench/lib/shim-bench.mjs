// The hook shim under large inputs and answers (`node bench/run.mjs shim`): what the pusher
// waits for beyond node's own work. Three scenarios through the real installed hook:
//   refs-6000     a push of 6,000 refs of distinct commits (git push, a non-owner)
//   findings-600  a push whose one commit adds 600 protected paths (a rejection listing them)
//   line-10mb     one 10 MB pre-receive line, fed to the installed hook as git runs it
// Each runs three hooks, interleaved: `gate` (the installed shim, what a push runs), `direct`
// (the same node command the shim runs, from the snapshot when there is one, without the shim:
// node's own time) and `node` (the shim on a bundle that answers at once: node's start). All
// are measured from outside (bench/measure.py: wall, CPU of the process tree). The policy has
// the default limits.timeoutMs, 4000 ms: docs/contract.md §6 wants each answer within 4000 + 250 ms of the
// hook's start.
//
//   node bench/run.mjs shim [--runs N] [--smoke] [--tree DIR] [--out FILE.md] [--json FILE]
//   --tree DIR: install from another checkout (its scripts/install-server.sh, server-hooks/ and
//               dist/cli.js), e.g. an older commit, for before/after numbers
//   --smoke: 600 refs, 60 paths, a 1 MB line
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_TODAY, evidenceFiles } from './evidence.mjs';
import { installNodeOnlyHook } from './node-only.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
const MEASURE = join(ROOT, 'bench', 'measure.py');
const ZERO = '0'.repeat(40);
const TIMEOUT_MS = 4000; // the bench policy's limits.timeoutMs
const HOOKS = ['gate', 'direct', 'node'];
/** A hook run longer than this is stopped and recorded as such (the old shim on a 10 MB line). */
const GIVE_UP_S = 180;

const log = (msg) => process.stderr.write(`bench shim: ${msg}\n`);

function parseArgs(argv) {
  const opts = { runs: 3, smoke: false, tree: ROOT, out: null, json: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => argv[++i] ?? (log(`${a} needs a value`), process.exit(2));
    if (a === '--runs') opts.runs = Number(value());
    else if (a === '--smoke') opts.smoke = true;
    else if (a === '--tree') opts.tree = resolve(value());
    else if (a === '--out') opts.out = resolve(value());
    else if (a === '--json') opts.json = resolve(value());
    else {
      log(`unknown option '${a}'`);
      process.exit(2);
    }
  }
  if (!(Number.isInteger(opts.runs) && opts.runs >= 1)) {
    log('--runs needs a positive integer');
    process.exit(2);
  }
  return opts;
}

function env(extra = {}) {
  const e = { ...process.env, RECEIPT_GATE_NOW: BENCH_TODAY, GIT_TERMINAL_PROMPT: '0', GIT_CONFIG_NOSYSTEM: '1', RECEIPT_GATE_HARD_TIMEOUT: String(GIVE_UP_S) };
  for (const v of ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER', 'GIT_DIR', 'GL_PROTOCOL', 'RECEIPT_GATE_NODE', 'RECEIPT_GATE_BUNDLE', 'RECEIPT_GATE_NO_SNAPSHOT']) delete e[v];
  return { ...e, ...extra };
}

const git = (cwd, args, input) => execFileSync('git', args, { cwd, env: env(), input, encoding: 'utf8', maxBuffer: 1 << 28 }).trim();

/** A bare target with the hook installed from `tree`, the three hooks behind bench/measure.py. */
function makeTarget(work, tree) {
  const bare = join(work, 'target.git');
  git(work, ['init', '-q', '--bare', '-b', 'main', bare]);
  const src = join(work, 'src');
  git(work, ['init', '-q', '-b', 'main', src]);
  for (const [path, bytes] of evidenceFiles('main')) {
    mkdirSync(dirname(join(src, path)), { recursive: true });
    writeFileSync(join(src, path), bytes);
  }
  git(src, ['add', '-A']);
  git(src, ['-c', 'user.name=Dev', '-c', 'user.email=dev@example.com', 'commit', '-qm', 'guarded start']);
  git(src, ['push', '-q', bare, 'main']);
  const out = spawnSync('bash', [join(tree, 'scripts', 'install-server.sh'), '--server', bare], {
    cwd: tree,
    env: env({ RECEIPT_GATE_BUNDLE_SOURCE: join(tree, 'dist', 'cli.js') }),
    encoding: 'utf8',
  });
  if (out.status !== 0) throw new Error(`install from ${tree} failed: ${out.stderr}${out.stdout}`);
  const hooks = join(bare, 'hooks');
  renameSync(join(hooks, 'pre-receive'), join(hooks, 'pre-receive.gate'));
  const flags = /^node_flags='(.*)'$/m.exec(readFileSync(join(hooks, 'pre-receive.gate'), 'utf8'))?.[1] ?? '';
  writeFileSync(
    join(hooks, 'pre-receive.direct'),
    '#!/bin/sh\n# receipt-gate bench: the node command the shim runs, without the shim.\nd=${0%/*}\n' +
      `if [ -f "$d/receipt-gate.blob" ]; then exec node ${flags} --snapshot-blob "$d/receipt-gate.blob" "$d/receipt-gate.cjs" pre-receive; fi\n` +
      `exec node ${flags} "$d/receipt-gate.cjs" pre-receive\n`,
    { mode: 0o755 },
  );
  installNodeOnlyHook(hooks);
  writeFileSync(
    join(hooks, 'pre-receive'),
    `#!/bin/sh\nexec timeout -s KILL ${GIVE_UP_S + 30} python3 '${MEASURE}' "$BENCH_MEASURE_OUT" "$BENCH_HOOK" "\${0%/*}/pre-receive.$BENCH_HOOK"\n`,
    { mode: 0o755 },
  );
  return { bare, src, snapshot: existsSync(join(hooks, 'receipt-gate.blob')) };
}

/** The push sources in the work clone: `many/NNNN` branches and `feature/paths`. */
function makePushes(target, refs, paths) {
  const main = git(target.src, ['rev-parse', 'main']);
  const stream = [];
  for (let i = 0; i < refs; i++) {
    const body = `n = ${i}\n`;
    stream.push(`commit refs/heads/many/${String(i).padStart(4, '0')}`, `committer Dev <dev@example.com> ${1788000000 + i} +0000`, `data ${`ref ${i}\n`.length}`, `ref ${i}`, `from ${main}`, `M 100644 inline src/many/m${i}.py`, `data ${body.length}`, body);
  }
  stream.push('commit refs/heads/feature/paths', 'committer Dev <dev@example.com> 1788100000 +0000', `data ${`${paths} paths\n`.length}`, `${paths} paths`, `from ${main}`);
  for (let i = 0; i < paths; i++) {
    const body = `{"case": ${i}}\n`;
    stream.push(`M 100644 inline fixtures/orders/case-${String(i).padStart(3, '0')}.json`, `data ${body.length}`, body);
  }
  git(target.src, ['fast-import', '--quiet'], `${stream.join('\n')}\n`);
}

function measured(file) {
  if (!existsSync(file)) return null;
  const lines = readFileSync(file, 'utf8').trim().split('\n').filter(Boolean);
  rmSync(file);
  return lines.length ? JSON.parse(lines[lines.length - 1]) : null;
}

function verdictOf(stderr) {
  const lines = stderr.split('\n').reverse();
  for (const line of lines) {
    const m = /receipt-gate: (\{.*\})\s*$/.exec(line);
    if (!m) continue;
    try {
      const p = JSON.parse(m[1]);
      const codes = [...new Set((p.findings ?? []).filter((f) => f.severity !== 'info').map((f) => f.code))];
      return codes.length ? `${p.verdict}: ${codes.join(', ')}` : String(p.verdict);
    } catch {
      /* not the machine line */
    }
  }
  return 'no machine line';
}

/** The machine line is the last line the hook wrote (docs/contract.md §2). */
function machineLast(stderr) {
  const lines = stderr
    .split('\n')
    .map((l) => l.replace(/^remote: /, '').replace(/\s+$/, ''))
    .filter((l) => l !== '' && !/^(To |Everything up-to-date| ! |error: )/.test(l) && !/^ \* |^ - /.test(l));
  return /^receipt-gate: \{/.test(lines[lines.length - 1] ?? '');
}

function run(target, scenario, hook, measureFile) {
  const t0 = process.hrtime.bigint();
  let res;
  const e = env({ BENCH_HOOK: hook, BENCH_MEASURE_OUT: measureFile, ...(scenario.env ?? {}) });
  if (scenario.kind === 'push') {
    res = spawnSync('git', ['push', target.bare, scenario.refspec], { cwd: target.src, env: e, encoding: 'utf8', maxBuffer: 1 << 28 });
    // Put the target back: the refs of the push go (its objects stay, unreferenced: still new).
    const landed = git(target.bare, ['for-each-ref', '--format=delete %(refname)', 'refs/heads/many/', 'refs/heads/feature/']);
    if (landed) git(target.bare, ['update-ref', '--stdin'], `${landed}\n`);
  } else {
    res = spawnSync(join(target.bare, 'hooks', 'pre-receive'), [], { cwd: target.bare, env: { ...e, GIT_DIR: '.' }, input: scenario.input, encoding: 'utf8', maxBuffer: 1 << 28 });
  }
  const outerMs = Number(process.hrtime.bigint() - t0) / 1e6;
  const m = measured(measureFile);
  const stopped = m === null || m.exit === -9;
  return {
    wallMs: m ? m.wall_ms : outerMs,
    cpuMs: m ? m.user_ms + m.sys_ms : null,
    exit: m ? m.exit : null,
    stopped,
    verdict: stopped ? `stopped after ${GIVE_UP_S + 30} s` : verdictOf(res.stderr),
    machineLast: machineLast(res.stderr),
    outputBytes: Buffer.byteLength(res.stderr),
  };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const k = s.length >> 1;
  return s.length % 2 ? s[k] : (s[k - 1] + s[k]) / 2;
};

export async function main(argv) {
  const opts = parseArgs(argv);
  const refs = opts.smoke ? 600 : 6000;
  const paths = opts.smoke ? 60 : 600;
  const lineBytes = opts.smoke ? 1e6 : 10e6;
  const work = mkdtempSync(join(tmpdir(), 'rg-bench-shim-'));
  process.on('exit', () => rmSync(work, { recursive: true, force: true }));
  log(`installing from ${opts.tree}`);
  const target = makeTarget(work, opts.tree);
  makePushes(target, refs, paths);
  const main = git(target.bare, ['rev-parse', 'main']);
  const scenarios = [
    { id: `refs-${refs}`, label: `${refs.toLocaleString('en')} refs of distinct commits`, kind: 'push', refspec: 'refs/heads/many/*:refs/heads/many/*' },
    { id: `findings-${paths}`, label: `one rejection listing ${paths} protected paths`, kind: 'push', refspec: 'refs/heads/feature/paths:refs/heads/feature/paths' },
    { id: `line-${lineBytes / 1e6}mb`, label: `one ${lineBytes / 1e6} MB pre-receive line`, kind: 'hook', input: Buffer.from(`${ZERO} ${main} refs/heads/${'a'.repeat(lineBytes - 100)}\n`) },
  ];
  const measureFile = join(work, 'measure.jsonl');
  const rows = [];
  for (const s of scenarios) {
    const runs = { gate: [], direct: [], node: [] };
    for (let i = 0; i < opts.runs; i++) {
      for (let k = 0; k < HOOKS.length; k++) {
        const hook = HOOKS[(i + k) % HOOKS.length];
        const r = run(target, s, hook, measureFile);
        runs[hook].push(r);
        log(`${s.id} ${hook}: ${r.wallMs.toFixed(0)} ms wall, ${r.cpuMs === null ? '?' : r.cpuMs.toFixed(0)} ms CPU, ${r.verdict}${r.machineLast ? '' : ' (machine line NOT last)'}`);
      }
    }
    const sum = (hook) => {
      const rs = runs[hook];
      return {
        wallMs: median(rs.map((r) => r.wallMs)),
        minMs: Math.min(...rs.map((r) => r.wallMs)),
        maxMs: Math.max(...rs.map((r) => r.wallMs)),
        cpuMs: rs.some((r) => r.cpuMs === null) ? null : median(rs.map((r) => r.cpuMs)),
        verdicts: [...new Set(rs.map((r) => r.verdict))],
        machineLast: rs.every((r) => r.machineLast),
        outputBytes: median(rs.map((r) => r.outputBytes)),
      };
    };
    rows.push({ ...s, input: undefined, gate: sum('gate'), direct: sum('direct'), node: sum('node'), inTime: runs.gate.every((r) => !r.stopped && r.wallMs <= TIMEOUT_MS + 250) });
  }
  const fmt = (x) => (x === null ? '?' : x.toFixed(0));
  const md = [
    `### Shim under large inputs (${new Date().toISOString().slice(0, 10)}, ${opts.runs} run(s), installed from ${opts.tree === ROOT ? 'this checkout' : opts.tree}${target.snapshot ? ', with the startup snapshot' : ', no snapshot'})`,
    '',
    `\`node bench/run.mjs shim ${argv.join(' ')}\`. Wall and CPU: medians, ms, measured around each hook process (bench/measure.py). \`gate\`: the installed hook; \`direct\`: the node command it runs, without the shim; \`node\`: the shim on a bundle that answers at once. In time: every gate run answered within limits.timeoutMs + 250 ms = ${TIMEOUT_MS + 250} ms.`,
    '',
    '| scenario | gate wall (min–max) | gate CPU | direct wall | direct CPU | shim adds (gate − direct) | node start | gate / node start | verdict | machine line last | answer bytes | in time |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows.map(
      (r) =>
        `| ${r.label} | ${fmt(r.gate.wallMs)} (${fmt(r.gate.minMs)}–${fmt(r.gate.maxMs)}) | ${fmt(r.gate.cpuMs)} | ${fmt(r.direct.wallMs)} | ${fmt(r.direct.cpuMs)} | ${fmt(r.gate.wallMs - r.direct.wallMs)} | ${fmt(r.node.wallMs)} | ${(r.gate.wallMs / r.node.wallMs).toFixed(1)} | ${r.gate.verdicts.join(' / ')} | ${r.gate.machineLast ? 'yes' : 'NO'} | ${r.gate.outputBytes} | ${r.inTime ? 'yes' : 'NO'} |`,
    ),
    '',
  ].join('\n');
  process.stdout.write(md);
  if (opts.out) writeFileSync(opts.out, md);
  if (opts.json) writeFileSync(opts.json, `${JSON.stringify({ date: new Date().toISOString(), tree: opts.tree, runs: opts.runs, rows }, null, 2)}\n`);
}
