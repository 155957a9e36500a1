// `npm run bench -- --smoke`: the benchmark keeps working. It builds tiny repositories with git
// fast-import, pushes into them with the installed hook, the git CLI reference hook and a hook
// that only starts Node, and writes its table. No time is asserted and no child has a time
// limit (a busy machine only makes this slower): what is asserted is that every number came from
// a real, measured run, that every push got the gate's own verdict, that the repositories have
// the shape the generator promises (counted with the git CLI), that the reference hook really
// checks what it claims to, and that the JSON scenarios' two sides wrote the same bytes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(__dirname, '..');
const tmp = mkdtempSync(join(tmpdir(), 'rg-bench-smoke-'));
const cache = join(tmp, 'cache');

interface Side {
  runs: { wallMs: number; rssKb: number; exit: number; accepted: boolean; verdict: string }[];
  medianMs: number;
  allAccepted: boolean;
  verdicts: string[];
  output: string;
}
interface Row {
  id: string;
  kind: string;
  adversarial: boolean;
  repo: string;
  commits: number;
  gate: Side;
  reference: Side;
  node: Side;
  ratio: number;
  overNodeMs: number;
  limitMs: number | null;
  inTime: boolean | null;
}
interface JsonSide {
  runs: { parseMs: number; dumpMs: number; sha256: string }[];
  medianMs: number;
}
interface JsonRow {
  id: string;
  pyjson: JsonSide;
  python: JsonSide;
  sameDigest: boolean;
}
interface Report {
  smoke: boolean;
  runs: number;
  scenarios: Row[];
  json: JsonRow[];
  repos: { name: string; facts: { commits: number; refs: number } }[];
}

let report: Report;
let markdown: string;

const git = (args: string[], opts: { cwd?: string; input?: string; env?: NodeJS.ProcessEnv } = {}) =>
  execFileSync('git', args, { encoding: 'utf8', ...opts }).trim();

test.before(() => {
  assert.ok(existsSync(join(ROOT, 'dist', 'cli.js')), 'dist/cli.js is missing: run npm run build before this test');
  const res = spawnSync(
    'node',
    ['bench/run.mjs', '--smoke', '--no-build', '--runs', '1', '--cache', cache, '--json', join(tmp, 'report.json'), '--out', join(tmp, 'report.md')],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.is(res.status, 0, `bench --smoke failed:\n${res.stderr}`);
  report = JSON.parse(readFileSync(join(tmp, 'report.json'), 'utf8'));
  markdown = readFileSync(join(tmp, 'report.md'), 'utf8');
  assert.is(res.stdout, markdown, 'the table on stdout is the one written to --out');
});

test.after(() => rmSync(tmp, { recursive: true, force: true }));

test('every scenario of the smoke variant ran, with the requested number of runs per hook', () => {
  const ids = report.scenarios.map((r) => r.id).sort();
  assert.equal(ids, [
    'adv-commits', 'adv-extglob', 'adv-files-100k', 'adv-files-400k', 'adv-manifest', 'adv-message', 'adv-witnesses',
    'pre-commit@wide',
    'push-1@contexts-0', 'push-1@contexts-1', 'push-1@contexts-20',
    'push-1@heavy', 'push-1@long', 'push-1@long+400refs', 'push-1@wide',
    'push-20@heavy', 'push-20@long', 'push-20@wide',
    'push-60@heavy', 'push-60@long', 'push-60@wide',
    'verify-ref-60@long',
  ]);
  assert.equal(report.json.map((r) => r.id).sort(), ['json-canada-1mib', 'json-canada-2mib', 'json-manifest-1mib']);
  assert.ok(report.smoke);
  for (const row of report.scenarios) {
    for (const side of [row.gate, row.reference, row.node]) {
      assert.is(side.runs.length, report.runs, row.id);
      for (const run of side.runs) {
        assert.ok(Number.isFinite(run.wallMs) && run.wallMs > 0, `${row.id}: wall ${run.wallMs}`);
        // Any process that ran has a resident set; 0 would mean nothing was measured.
        assert.ok(Number.isInteger(run.rssKb) && run.rssKb > 1000, `${row.id}: rss ${run.rssKb}`);
      }
    }
    assert.ok(Math.abs(row.ratio - row.gate.medianMs / row.reference.medianMs) < 1e-9, row.id);
    assert.ok(Math.abs(row.overNodeMs - (row.gate.medianMs - row.node.medianMs)) < 1e-9, row.id);
    if (row.adversarial) assert.is(row.inTime, row.gate.runs.every((r) => r.wallMs <= row.limitMs!), row.id);
  }
});

test('the node-only hook runs the installed shim and lets every push through', () => {
  for (const row of report.scenarios.filter((r) => r.kind === 'push')) {
    assert.ok(row.node.allAccepted, `${row.id}: ${row.node.output}`);
    assert.equal(row.node.verdicts, ['eligible'], row.id);
  }
});

test('every push got the gate\'s own verdict (its machine line), never a crash or a kill by the shim', () => {
  for (const row of report.scenarios.filter((r) => r.kind === 'push')) {
    for (const run of row.gate.runs) {
      assert.ok(/^(eligible|hold|closed)\b/.test(run.verdict), `${row.id}: verdict ${run.verdict}`);
      assert.not.match(run.verdict, /INTERNAL_ERROR/, row.id);
    }
  }
  const verdicts = (id: string) => report.scenarios.find((r) => r.id === id)!.gate.verdicts;
  // Honest pushes a non-owner may make: eligible, unless time ran out.
  for (const id of ['adv-commits', 'adv-message', 'adv-files-100k', 'adv-files-400k']) {
    for (const v of verdicts(id)) assert.ok(v === 'eligible' || v === 'closed: LIMIT_EXCEEDED', `${id}: ${v}`);
  }
  // The manifest's digest is not the real one: never eligible, however fast.
  for (const v of verdicts('adv-manifest')) assert.match(v, /^closed: /, `adv-manifest: ${v}`);
});

test('the JSON scenarios: pyjson and CPython wrote the same canonical bytes in every run', () => {
  for (const row of report.json) {
    assert.is(row.pyjson.runs.length, report.runs, row.id);
    assert.is(row.python.runs.length, report.runs, row.id);
    const digests = new Set([...row.pyjson.runs, ...row.python.runs].map((r) => r.sha256));
    assert.is(digests.size, 1, `${row.id}: ${[...digests].join(' ')}`);
    assert.ok(row.sameDigest, row.id);
    for (const r of [...row.pyjson.runs, ...row.python.runs]) assert.ok(r.parseMs > 0 && r.dumpMs > 0, row.id);
  }
});

test('both hooks accept every benchmark push (a non-owner touching no protected path, valid evidence)', () => {
  for (const row of report.scenarios.filter((r) => !r.adversarial)) {
    assert.ok(row.reference.allAccepted, `${row.id}: the reference hook rejected: ${row.reference.output}`);
    assert.ok(row.gate.allAccepted, `${row.id}: receipt-gate rejected a clean push: ${row.gate.output}`);
  }
});

test('the Markdown table has one well-formed row per scenario', () => {
  const lines = markdown.split('\n');
  const header = lines.findIndex((l) => l.startsWith('| scenario | repository |'));
  assert.ok(header >= 0, 'results table header');
  const cells = (l: string) => l.split('|').length;
  const width = cells(lines[header]);
  assert.ok(/^\|( -+:? \|)+$/.test(lines[header + 1].replace(/---:/g, '--:')), `separator: ${lines[header + 1]}`);
  const regular = report.scenarios.filter((r) => !r.adversarial);
  const rows = lines.slice(header + 2, header + 2 + regular.length);
  assert.is(rows.length, regular.length);
  assert.is(lines[header + 2 + regular.length], '', 'the table ends after its rows');
  rows.forEach((row, i) => {
    assert.is(cells(row), width, row);
    const r = regular[i]!;
    assert.ok(row.includes(`| ${r.repo} |`), `${r.id} row names its repository: ${row}`);
    assert.ok(row.includes(`| ${r.ratio.toFixed(2)} |`), `${r.id} row carries its ratio: ${row}`);
  });
  assert.ok(markdown.includes('### The same 1-commit push, by repository size'));
  assert.ok(markdown.includes('### Adversarial pushes'));
  assert.ok(markdown.includes('### Python-exact JSON'));
  assert.ok(markdown.includes('### The same 1-commit push, by ref count'));
});

test('the generated repositories have the promised shape (counted by the git CLI)', () => {
  const long = join(cache, 'long');
  assert.is(git(['--git-dir', join(long, 'seed.git'), 'rev-list', '--count', '--all']), '400');
  assert.is(git(['--git-dir', join(long, 'seed.git'), 'for-each-ref', '--format=x']).split('\n').length, 41);
  assert.ok(Number(git(['--git-dir', join(long, 'seed.git'), 'rev-list', '--count', '--merges', 'main'])) >= 15);
  const main = git(['--git-dir', join(long, 'seed.git'), 'rev-parse', 'main']);
  const push = join(long, 'push.git');
  assert.is(git(['--git-dir', push, 'rev-list', '--count', 'refs/heads/p1', '--not', main]), '1');
  assert.is(git(['--git-dir', push, 'diff-tree', '-r', '--name-only', '--no-commit-id', 'refs/heads/p1']).split('\n').length, 3);
  assert.is(git(['--git-dir', push, 'rev-list', '--count', 'refs/heads/pN', '--not', main]), '60');
  assert.ok(Number(git(['--git-dir', push, 'rev-list', '--count', '--merges', 'refs/heads/pN', '--not', main])) >= 2);
  assert.is(git(['--git-dir', join(cache, 'wide', 'seed.git'), 'ls-tree', '-r', '--name-only', 'main']).split('\n').length, 614);
  // heavy: the big incompressible blob sits beside the evidence files.
  const heavy = join(cache, 'heavy', 'seed.git');
  assert.is(git(['--git-dir', heavy, 'cat-file', '-s', 'main:fixtures/orders/weights.bin']), String(4 << 20));
  // Fixed seed: a second build of the same specs makes the same objects.
  const again = join(tmp, 'cache-again'); // one repository is enough to show the build is deterministic
  const b = spawnSync('node', ['bench/run.mjs', '--smoke', '--build-only', '--only', '@long', '--cache', again], { cwd: ROOT, encoding: 'utf8' });
  assert.is(b.status, 0, b.stderr);
  for (const name of ['long']) {
    for (const [repo, ref] of [['seed.git', 'main'], ['push.git', 'refs/heads/pN']]) {
      assert.is(
        git(['--git-dir', join(again, name, repo), 'rev-parse', ref]),
        git(['--git-dir', join(cache, name, repo), 'rev-parse', ref]),
        `${name}/${repo} ${ref}`,
      );
    }
  }
  // The evidence validates the way Python computes it: the manifest digest is CPython's.
  const manifest = git(['--git-dir', join(long, 'seed.git'), 'cat-file', 'blob', 'main:checks/manifest.json']);
  const py = execFileSync(
    'python3',
    ['-c', 'import json,sys,hashlib; m=json.load(sys.stdin); print(hashlib.sha256(json.dumps({"seed":m["seed"],"properties":m["properties"]},sort_keys=True,separators=(",",":")).encode()).hexdigest()==m["manifest_sha256"])'],
    { input: manifest, encoding: 'utf8' },
  ).trim();
  assert.is(py, 'True');
});

test('measure.py reports wall time and peak RSS of the command it runs', () => {
  const out = join(tmp, 'm.jsonl');
  const run = (cmd: string[]) => spawnSync('python3', [join(ROOT, 'bench', 'measure.py'), out, 'x', ...cmd], { encoding: 'utf8' });
  assert.is(run(['python3', '-c', 'import time; b = bytearray(150 * 1024 * 1024); b[::4096] = b"x" * len(b[::4096]); time.sleep(0.2)']).status, 0);
  assert.is(run(['sh', '-c', 'exit 7']).status, 7);
  const [big, fail] = readFileSync(out, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(big.maxrss_kb >= 150 * 1024, `maxrss ${big.maxrss_kb}`);
  assert.ok(big.wall_ms >= 200, `wall ${big.wall_ms}`);
  assert.is(fail.exit, 7);
  assert.ok(fail.maxrss_kb < 100 * 1024);
});

test('the reference hook rejects a protected path and a generator that no longer matches its pin', () => {
  const bare = join(tmp, 'ref.git');
  const work = join(tmp, 'ref-work');
  git(['clone', '-q', '--bare', join(cache, 'long', 'seed.git'), bare]);
  execFileSync('cp', [join(ROOT, 'bench', 'reference-pre-receive.sh'), join(bare, 'hooks', 'pre-receive')]);
  git(['clone', '-q', bare, work]);
  git(['-C', work, 'config', 'user.name', 'T']);
  git(['-C', work, 'config', 'user.email', 't@example.com']);
  const push = () => spawnSync('git', ['-C', work, 'push', 'origin', 'HEAD:refs/heads/topic'], { encoding: 'utf8' });
  const env = { ...process.env };

  writeFileSync(join(work, 'Fixtures-note.txt'), 'not protected\n');
  git(['-C', work, 'add', '.']);
  git(['-C', work, 'commit', '-q', '-m', 'free'], { env });
  assert.is(push().status, 0, 'an unprotected change is accepted');

  writeFileSync(join(work, 'fixtures', 'README.md'), 'an exception: anyone may edit\n');
  git(['-C', work, 'commit', '-q', '-am', 'readme'], { env });
  assert.is(push().status, 0, 'fixtures/**/*.md is an exception');

  writeFileSync(join(work, 'fixtures', 'generate_orders.py'), 'print("changed")\n');
  git(['-C', work, 'commit', '-q', '-am', 'generator'], { env });
  const r = push();
  assert.is.not(r.status, 0);
  assert.match(r.stderr, 'PATH_PROTECTED fixtures/generate_orders.py');
  assert.match(r.stderr, 'EPOCH_MISMATCH fixtures/generate_orders.py');

  git(['-C', work, 'reset', '-q', '--hard', 'origin/topic']);
  git(['-C', work, 'mv', 'checks', 'CHECKS2']);
  git(['-C', work, 'commit', '-q', '-m', 'rename'], { env });
  const renamed = push();
  assert.is.not(renamed.status, 0);
  assert.match(renamed.stderr, 'PATH_PROTECTED checks/manifest.json');
});

test('BENCH_REPO adds a repository of the user\'s, guarded on top of its own HEAD branch', () => {
  // A small project on `master`, with no policy of its own.
  const work = join(tmp, 'user-work');
  git(['init', '-q', '--initial-branch=master', work]);
  git(['-C', work, 'config', 'user.name', 'T']);
  git(['-C', work, 'config', 'user.email', 't@example.com']);
  for (let i = 0; i < 5; i++) {
    writeFileSync(join(work, `file-${i}.txt`), `content ${i}\n`);
    git(['-C', work, 'add', '.']);
    git(['-C', work, 'commit', '-q', '-m', `commit ${i}`]);
  }
  const bare = join(tmp, 'user.git');
  git(['clone', '-q', '--bare', work, bare]);
  const before = git(['--git-dir', bare, 'for-each-ref', '--format=%(objectname) %(refname)']);
  const out = join(tmp, 'user.json');
  const res = spawnSync(
    'node',
    ['bench/run.mjs', '--smoke', '--no-build', '--cache', join(tmp, 'user-cache'), '--only', 'BENCH_REPO', '--runs', '1', '--json', out],
    { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BENCH_REPO: bare } },
  );
  assert.is(res.status, 0, res.stderr);
  const user: Report = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(user.scenarios.map((r) => r.id), ['push-1@BENCH_REPO:user.git', 'push-20@BENCH_REPO:user.git', 'push-60@BENCH_REPO:user.git']);
  for (const row of user.scenarios) {
    assert.ok(row.reference.allAccepted, `${row.id}: ${row.reference.output}`);
    assert.ok(row.gate.allAccepted, `${row.id}: ${row.gate.output}`);
  }
  // The five commits of the project plus the bench's evidence commit; the user's repository
  // itself is left as it was.
  assert.is(user.repos.find((r) => r.name === 'BENCH_REPO:user.git')?.facts.commits, 6);
  assert.is(git(['--git-dir', bare, 'for-each-ref', '--format=%(objectname) %(refname)']), before);
});

test('npm run bench -- scale on a tiny size: every case and hook measured (Node\'s start included), honest pushes accepted, first pushes without the commit cache, the repositories of the promised shape, the targets put back', () => {
  const out = join(tmp, 'scale.json');
  const res = spawnSync(
    'node',
    ['bench/run.mjs', 'scale', '--tiny', '--runs', '1', '--no-build', '--cache', join(tmp, 'scale-cache'), '--json', out, '--out', join(tmp, 'scale.md')],
    { cwd: ROOT, encoding: 'utf8' },
  );
  assert.is(res.status, 0, `bench scale --tiny failed:\n${res.stderr}`);
  type ScaleRun = { cpuMs: number; wallMs: number; rssMb: number; exit: number; verdict: string | null; cacheBefore?: boolean };
  type Median = { cpuMs: number; wallMs: number; rssMb: number };
  const scale = JSON.parse(readFileSync(out, 'utf8')) as {
    sizes: { deep: number; refs: number; tags: number; c1010: number; c10009: number };
    cases: {
      id: string;
      label: string;
      firstPush: boolean;
      warmup: ScaleRun | null;
      runs: Record<string, ScaleRun[]>;
      gate: Median;
      reference: Median;
      node: Median;
      targetMs: number | null;
      withinTarget: boolean | null;
    }[];
    targets: { plain: string; refs: string; graph: string };
    seed: string;
    pushDir: string;
    oneCommitTags: { prefix: string; at: string };
  };
  assert.equal(scale.cases.map((c) => c.id), ['deep', 'deepgraph', 'deepfirst', 'deepgraphfirst', 'c1010', 'c10009', 'refs1m', 'rename', 'rewrite', 'tags50k', 'tags1c']);
  for (const c of scale.cases) {
    assert.equal(Object.keys(c.runs).sort(), ['floor', 'gate', 'node', 'reference', 'revlist']);
    for (const [side, runs] of Object.entries(c.runs)) {
      assert.is(runs.length, 1, `${c.id} ${side}`);
      assert.ok(runs[0]!.wallMs > 0 && runs[0]!.rssMb > 0, `${c.id} ${side}: measured`);
      if (side !== 'reference') assert.is(runs[0]!.exit, 0, `${c.id} ${side} accepted`);
    }
    assert.is(c.runs.gate![0]!.verdict, 'eligible', `${c.id}: the gate judged the honest push eligible`);
    assert.ok(c.runs.gate![0]!.cpuMs > 0, `${c.id}: the gate's CPU time was measured`);
    // Node's start through the installed shim: the node-only bundle's own answer.
    assert.is(c.runs.node![0]!.verdict, 'eligible', `${c.id}: the node-only hook answered`);
    assert.ok(c.runs.node![0]!.cpuMs > 0, `${c.id}: Node's CPU time was measured`);
    // Issue 29's target, from the reference's and Node's CPU (at tiny size the reference runs
    // in every case).
    assert.ok(c.reference.cpuMs > 0, `${c.id}: the reference ran`);
    assert.is(c.targetMs, 2 * c.reference.cpuMs + c.node.cpuMs, `${c.id}: target`);
    assert.is(c.withinTarget, c.gate.cpuMs <= c.targetMs!, `${c.id}: gate ≤ target`);
  }
  // The deep cases: one unmeasured gate push first, eligible. The steady ones then start with
  // what it left in $GIT_DIR/receipt-gate-cache/ (the commit cache, or the record of the
  // commit-graph checked whole); a first push starts without it, every time.
  for (const id of ['deep', 'deepgraph', 'deepfirst', 'deepgraphfirst']) {
    const c = scale.cases.find((x) => x.id === id)!;
    assert.is(c.warmup?.verdict, 'eligible', `${id}: warm-up push`);
    assert.is(c.warmup?.cacheBefore, false, `${id}: a new target has no commit cache`);
    assert.is(c.firstPush, id.endsWith('first'), id);
    for (const run of c.runs.gate!) assert.is(run.cacheBefore, !c.firstPush, `${id}: commit cache present before a measured push`);
    if (c.firstPush) assert.match(c.label, 'first push (no commit cache)');
  }
  // What the gate left in the targets after its last push: a commit cache in the one without a
  // commit-graph, the record of the checked graph in the other.
  assert.ok(existsSync(join(scale.targets.plain, 'receipt-gate-cache', 'commit-index')));
  assert.ok(existsSync(join(scale.targets.graph, 'receipt-gate-cache', 'commit-graph-verified')));
  // The table: a column per new number, and the gate's CPU of every run listed under it.
  const md = readFileSync(join(tmp, 'scale.md'), 'utf8');
  assert.match(md, '| node CPU | target (2× reference + node) | gate ≤ target? |');
  const perRun = md.split('\n').filter((l) => l.startsWith('- '));
  assert.equal(perRun.map((l) => l.slice(2, l.indexOf(':'))), scale.cases.map((c) => c.id));
  const count = (args: string[]) => git(args).split('\n').filter(Boolean).length;
  // The shapes, counted by the git CLI.
  assert.is(Number(git(['--git-dir', scale.seed, 'rev-list', '--count', 'refs/heads/main'])), scale.sizes.deep + 1);
  assert.is(git(['--git-dir', scale.pushDir, 'rev-parse', 'refs/heads/p-deep^']), git(['--git-dir', scale.seed, 'rev-list', '--max-parents=0', 'refs/heads/main']));
  assert.is(Number(git(['--git-dir', scale.pushDir, 'rev-list', '--count', 'refs/heads/p-c10009', '--not', git(['--git-dir', scale.seed, 'rev-parse', 'refs/heads/main'])])), scale.sizes.c10009);
  assert.is(count(['--git-dir', scale.targets.refs, 'for-each-ref', '--format=%(refname)', 'refs/pull/']), scale.sizes.refs);
  assert.is(count(['--git-dir', scale.pushDir, 'for-each-ref', '--format=%(refname)', 'refs/tags/']), scale.sizes.tags);
  assert.equal([...new Set(git(['--git-dir', scale.pushDir, 'for-each-ref', '--format=%(objectname)', scale.oneCommitTags.prefix]).split('\n'))], [scale.oneCommitTags.at]);
  assert.is(count(['--git-dir', scale.pushDir, 'for-each-ref', '--format=%(refname)', scale.oneCommitTags.prefix]), scale.sizes.tags);
  // deepgraph's target has a commit-graph of its own (the gate reads only that one); plain has none.
  assert.ok(existsSync(join(scale.targets.graph, 'objects', 'info', 'commit-graph')));
  assert.not.ok(existsSync(join(scale.targets.plain, 'objects', 'info', 'commit-graph')));
  // Every push was undone: no branch or tag the pushes made is left in the targets.
  assert.is(count(['--git-dir', scale.targets.plain, 'for-each-ref', '--format=%(refname)', 'refs/tags/', 'refs/heads/bench/']), 0);
  assert.is(count(['--git-dir', scale.targets.refs, 'for-each-ref', '--format=%(refname)', 'refs/heads/bench/']), 0);
});

test('the scale table: a push the reference is not run on has no target ("—"), one it is run on has one', async () => {
  const scaleModule = join(ROOT, 'bench', 'scale.mjs'); // a path, so TypeScript leaves the .mjs untyped
  const { issueTarget, render } = await import(scaleModule);
  const side = (cpuMs: number) => ({ cpuMs, wallMs: cpuMs, rssMb: 50 });
  const row = (id: string, reference: number) => {
    const sum = { gate: side(300), reference: side(reference), node: side(80), floor: side(20), revlist: side(10) };
    return { id, label: `case ${id}`, firstPush: false, warmup: null, runs: { gate: [{ cpuMs: 300 }] }, ...sum, ...issueTarget(sum), ratioReference: 300 / reference, ratioRevlist: 30, ratioFloor: 15, verdicts: ['eligible'] };
  };
  const noReference = row('tags', NaN);
  assert.ok(Number.isNaN(noReference.targetMs));
  assert.is(noReference.withinTarget, null);
  // 2 × 100 + 80 = 280 < 300; 2 × 110 + 80 = 300, the gate exactly at the target.
  assert.is(row('under', 100).withinTarget, false);
  assert.is(row('at', 110).targetMs, 300);
  assert.is(row('at', 110).withinTarget, true);
  const md: string = render([noReference, row('at', 110)], { size: {}, sizeName: 'tiny', runs: 1, graph: false });
  const lines = md.split('\n');
  assert.ok(lines.includes('| case tags | 300 ms | 300 ms | 50 MB | not run | 80 ms | — | — | 20 ms | 10 ms | — | 30.0× | eligible |'), md);
  assert.ok(lines.includes('| case at | 300 ms | 300 ms | 50 MB | 110 ms | 80 ms | 300 ms | yes | 20 ms | 10 ms | 2.7× | 30.0× | eligible |'), md);
});

test.run();
