// Shared harness for the server tests: the hook installed by scripts/install-server.sh, pushes
// made with real `git push` in the push environment (baseEnv); repositories and git itself come
// from test/helpers/git.ts.

import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { commitAll as commitAllIn, gitResult, gitValue, tempDir, writeFiles } from '../helpers/git';
import { EPOCH_ID, GENERATOR, POLICY as SPEC_POLICY, sha256 } from '../helpers/repo';

export const ROOT = join(__dirname, '..', '..');
/** The bundle the hook runs (RECEIPT_GATE_TEST_BUNDLE: test another build of it). */
export const CLI = process.env.RECEIPT_GATE_TEST_BUNDLE || join(ROOT, 'dist', 'cli.js');
export const INSTALL = join(ROOT, 'scripts', 'install-server.sh');
export const ZERO = '0000000000000000000000000000000000000000';
/** The injected date every test runs at (freeze windows below are around it). */
export const TODAY = '2026-09-10';

/** Builds dist/cli.js when it is missing or older than a source file (npm test builds first). */
export function ensureBuilt(): void {
  if (process.env.RECEIPT_GATE_TEST_BUNDLE) return;
  const newestSource = execFileSync('bash', ['-c', `find "${ROOT}/src" -name '*.ts' -newer "${CLI}" 2>/dev/null | head -1`], { encoding: 'utf8' });
  if (!existsSync(CLI) || newestSource.trim() !== '') {
    execFileSync('node', [join(ROOT, 'scripts', 'build.mjs')], { cwd: ROOT, stdio: 'inherit' });
  }
}

/** A clean environment: nothing of the caller's identity or git configuration leaks in. */
export function baseEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: 'C.UTF-8',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Dev',
    GIT_AUTHOR_EMAIL: 'dev@example.com',
    GIT_COMMITTER_NAME: 'Dev',
    GIT_COMMITTER_EMAIL: 'dev@example.com',
    GIT_TERMINAL_PROMPT: '0',
    RECEIPT_GATE_NOW: TODAY,
    RECEIPT_GATE_HARD_TIMEOUT: '60',
  };
  return { ...env, ...extra };
}

/** One file written into a work tree (folders made as needed). */
export function write(dir: string, path: string, content: string | Buffer): void {
  writeFiles(dir, { [path]: content });
}

export function python(code: string, input?: string): string {
  return execFileSync('python3', ['-c', code], { input, encoding: 'utf8' }).trim();
}

/** README.md's example policy, from the shared test helpers, with a generous deadline: test files run
 * side by side on two cores. The deadline itself is tested with an injected clock
 * (receive.test.ts) and the shim's hard limit with a hanging node. */
export const POLICY = { ...SPEC_POLICY, limits: { timeoutMs: 30000, maxEvidenceBytes: 1048576 } };
export { EPOCH_ID, GENERATOR, sha256 };

/** The manifest digest as Python writes it: sha256 of json.dumps(sort_keys, compact). */
export function manifestDigest(seed: number, properties: unknown[]): string {
  return python(
    'import json,sys,hashlib\nd=json.loads(sys.stdin.read())\nprint(hashlib.sha256(json.dumps(d,sort_keys=True,separators=(",",":")).encode()).hexdigest())',
    JSON.stringify({ seed, properties }),
  );
}

/** CPython's draw: random.Random(seed).sample(catalog, k). */
export function pythonSample(seed: number, catalog: unknown[], k: number): unknown[] {
  return JSON.parse(
    python('import json,sys,random\nd=json.loads(sys.stdin.read())\nprint(json.dumps(random.Random(d["seed"]).sample(d["catalog"], d["k"])))', JSON.stringify({ seed, catalog, k })),
  );
}

export const CATALOG = [
  { name: 'orders_total_nonnegative', bound: 'total >= 0' },
  { name: 'orders_ids_unique', bound: 'unique(id)' },
  { name: 'orders_sorted', bound: 'sorted(created)' },
  { name: 'orders_currency_known', bound: 'currency in ISO4217' },
  { name: 'orders_roundtrip', bound: 'parse(print(x)) == x' },
];
export const SEED = 20260925;

/** Writes a complete, valid set of evidence files (eligible at TODAY) into a work tree. */
export function writeEvidence(work: string): void {
  write(work, '.receipt-gate.json', `${JSON.stringify(POLICY, null, 2)}\n`);
  write(work, 'fixtures/generate_orders.py', GENERATOR);
  write(work, 'fixtures/orders/base.json', '{"orders": []}\n');
  write(work, 'fixtures/README.md', 'Fixtures; regenerate with fixtures/generate_orders.py.\n');
  write(work, 'fixtures/EPOCH', `${JSON.stringify({ epoch_id: EPOCH_ID, generator: 'fixtures/generate_orders.py', generator_sha256: sha256(GENERATOR), inputs: ['fixtures/orders/base.json'] })}\n`);
  const weights = '{"w": [0.25, 0.75]}';
  write(work, 'fixtures/weights_v3.json', `${JSON.stringify({ id: 'weights_v3', input: { w: [0.25, 0.75] }, sha256: sha256(weights) })}\n`);
  write(work, 'checks/properties.json', `${JSON.stringify({ properties: CATALOG, k: 3 })}\n`);
  const properties = pythonSample(SEED, CATALOG, 3);
  write(work, 'checks/manifest.json', `${JSON.stringify({ seed: SEED, properties, manifest_sha256: manifestDigest(SEED, properties) })}\n`);
  write(work, 'freeze.json', `${JSON.stringify({ version: 1, frozen: [{ id: 'tests/test_x.py::test_y', reason: 'timing', expires: '2026-09-20', owner: 'human', added: '2026-09-06' }] })}\n`);
  const witness = 'run 1: pass\n';
  write(work, 'observations/obs-1.bin', witness);
  write(work, 'observations/obs-1.json', `${JSON.stringify({ id: 'obs-1', epoch_id: EPOCH_ID, status: 'pass', rerun_passed: true, witness_sha256: sha256(witness) })}\n`);
  write(work, 'src/orders.py', 'def total(orders):\n    return sum(o["amount"] for o in orders)\n');
  write(work, 'README.md', '# orders\n');
}

export interface Remote {
  /** The bare repository the hook guards. */
  bare: string;
  /** A working clone that pushes to it. */
  work: string;
  root: string;
}

/** A bare repository with the hook installed and main holding a valid guarded history, plus
 * a clone to push from. Built once per test file (`template`), copied per test (fast). */
export function guardedRemote(template: Remote, label: string): Remote {
  const root = tempDir(label);
  cpSync(template.bare, join(root, 'remote.git'), { recursive: true, verbatimSymlinks: true });
  cpSync(template.work, join(root, 'work'), { recursive: true, verbatimSymlinks: true });
  const r = { root, bare: join(root, 'remote.git'), work: join(root, 'work') };
  gitValue(r.work, ['remote', 'set-url', 'origin', `file://${r.bare}`]);
  return r;
}

export function makeTemplate(opts: { evidence?: boolean; install?: boolean } = {}): Remote {
  ensureBuilt();
  const root = tempDir('template');
  const bare = join(root, 'remote.git');
  const work = join(root, 'work');
  gitValue(root, ['init', '-q', '--bare', '-b', 'main', bare]);
  gitValue(root, ['init', '-q', '-b', 'main', work]);
  gitValue(work, ['remote', 'add', 'origin', `file://${bare}`]);
  if (opts.evidence !== false) writeEvidence(work);
  else write(work, 'README.md', '# unguarded\n');
  gitValue(work, ['add', '-A']);
  gitValue(work, ['commit', '-qm', 'guarded start']);
  gitValue(work, ['push', '-q', 'origin', 'main'], { env: baseEnv() });
  if (opts.install !== false) installHook(bare);
  return { root, bare, work };
}

export function installHook(bare: string, ...extra: string[]): string {
  return execFileSync('bash', [INSTALL, '--server', ...extra, bare], { encoding: 'utf8', env: baseEnv({ RECEIPT_GATE_BUNDLE_SOURCE: CLI }) });
}

export interface PushResult {
  status: number;
  stderr: string;
  /** The `remote:` lines, without the prefix. */
  remote: string[];
}

export function push(work: string, args: string[], env: Record<string, string> = {}): PushResult {
  return pushResultOf(gitResult(work, ['push', '--porcelain', ...args], { env: baseEnv(env) }));
}

/** A finished `git push --porcelain` as a PushResult: its status, output and `remote:` lines. */
export function pushResultOf(r: { status: number | null; stderr: string; stdout: string }): PushResult {
  const stderr = `${r.stderr}`;
  const remote = stderr
    .split('\n')
    .filter((l) => l.startsWith('remote: '))
    .map((l) => l.slice('remote: '.length).replace(/\s+$/, ''));
  return { status: r.status ?? -1, stderr: stderr + r.stdout, remote };
}

/** The JSON of the machine line, which must be the last receipt-gate line of the output. */
export function machine(result: PushResult): { verdict: string; blocked_paths: string[]; findings: { code: string; severity: string; ref: string | null; path: string | null; commit: string | null }[]; recommended_action: string } {
  const lines = result.remote.filter((l) => /receipt-gate: /.test(l));
  const last = lines[lines.length - 1] ?? '';
  const m = /receipt-gate: (\{.*\})$/.exec(last);
  if (!m) throw new Error(`the last receipt-gate line is not the machine line:\n${result.stderr}`);
  return JSON.parse(m[1]!);
}

export function refOid(bare: string, ref: string): string | null {
  const r = spawnSync('git', ['--git-dir', bare, 'rev-parse', '--verify', '-q', ref], { encoding: 'utf8', env: baseEnv() });
  return r.status === 0 ? r.stdout.trim() : null;
}

/** Commit all changes in the work tree. */
export function commitAll(work: string, message: string, env: Record<string, string> = {}): string {
  return commitAllIn(work, message, { env: baseEnv(env) });
}

export function cleanup(dir: string | undefined): void {
  if (dir) rmSync(dir, { recursive: true, force: true });
}

export function isFile(p: string): boolean {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
}

/** A free TCP port on 127.0.0.1. */
export async function freePort(): Promise<number> {
  const net = await import('node:net');
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** Waits until something accepts TCP connections on 127.0.0.1:port. */
export async function waitForPort(port: number, timeoutMs = 10_000): Promise<void> {
  const net = await import('node:net');
  const until = Date.now() + timeoutMs;
  for (;;) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = net.connect(port, '127.0.0.1');
      s.on('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return;
    if (Date.now() > until) throw new Error(`nothing listens on 127.0.0.1:${port} after ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The per-file template and per-test copy every push suite uses: `onEach` receives each test's
 * fresh remote (and may prepare it, e.g. check out a branch). */
export function remotePerTest(suite: Test, label: string, onEach: (r: Remote) => void): void {
  let template: Remote | undefined;
  let current: Remote | undefined;
  suite.before(() => {
    template = makeTemplate();
  });
  suite.after(() => cleanup(template?.root));
  suite.before.each(() => {
    current = guardedRemote(template!, label);
    onEach(current);
  });
  suite.after.each(() => cleanup(current?.root));
}

/** A push git refused because the hook said closed, with `code` (on `path`) among the findings. */
export function assertRejected(result: ReturnType<typeof push>, code: string, path?: string): ReturnType<typeof machine> {
  assert.is.not(result.status, 0, `push should be rejected:\n${result.stderr}`);
  assert.match(result.stderr, /pre-receive hook declined/);
  const m = machine(result);
  assert.is(m.verdict, 'closed', result.stderr);
  const hit = m.findings.find((f) => f.code === code && (path === undefined || f.path === path));
  assert.ok(hit, `expected ${code}${path ? ` on ${path}` : ''} in:\n${result.stderr}`);
  return m;
}

/** The smart-HTTP test users' passwords. */
export const PASSWORD = { alice: 'alice-secret', bob: 'bob-secret' } as const;

/** lighttpd serving git-http-backend for the repositories under `projectRoot` at /git/, with
 * basic auth for alice and bob (REMOTE_USER is the pusher): the smart-HTTP server of the tests. */
export function writeLighttpdConfig({ base, port, projectRoot }: { base: string; port: number; projectRoot: string }): void {
  writeFileSync(join(base, 'users'), `alice:${PASSWORD.alice}\nbob:${PASSWORD.bob}\n`);
  writeFileSync(
    join(base, 'lighttpd.conf'),
    `server.document-root = "${base}"
server.bind = "127.0.0.1"
server.port = ${port}
server.pid-file = "${base}/lighttpd.pid"
server.errorlog = "${base}/error.log"
server.modules = ("mod_alias", "mod_setenv", "mod_auth", "mod_authn_file", "mod_cgi")
auth.backend = "plain"
auth.backend.plain.userfile = "${base}/users"
auth.require = ("/git/" => ("method" => "basic", "realm" => "git", "require" => "valid-user"))
alias.url = ("/git/" => "/usr/lib/git-core/git-http-backend/")
$HTTP["url"] =~ "^/git/" {
  cgi.assign = ("" => "")
  setenv.add-environment = (
    "GIT_PROJECT_ROOT" => "${projectRoot}",
    "GIT_HTTP_EXPORT_ALL" => "",
    "RECEIPT_GATE_NOW" => "${TODAY}",
    "RECEIPT_GATE_HARD_TIMEOUT" => "60",
    "PATH" => "${process.env.PATH}"
  )
}
`,
  );
}
