// Real projects for the client tests: receipt-gate is built, packed with `npm pack` and
// installed with husky and lint-staged into a temporary project from the npm cache (once per
// process); each scenario then gets a bare "server" repository and clones whose node_modules
// link to that installation. Hooks run as a developer's would: git runs husky's hook, husky
// runs .husky/pre-commit, which runs lint-staged and `receipt-gate pre-commit`.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';

export const REPO_ROOT = resolve(__dirname, '..', '..');
export const TODAY = '2026-11-29';
export const OWNER_EMAIL = 'alice@example.com';
export const AGENT_EMAIL = 'agent@example.com';

export interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

let packed: { root: string; tarball: string } | null = null;
const installations = new Map<string, { root: string; project: string }>();

/** Builds and packs receipt-gate once per process (the package under test is this worktree's). */
export function packedTarball(): { root: string; tarball: string } {
  if (packed) return packed;
  const root = mkdtempSync(join(tmpdir(), 'rg-client-'));
  process.on('exit', () => rmSync(root, { recursive: true, force: true }));
  const packDir = join(root, 'pack');
  mkdirSync(packDir);
  withBuildLock(() => {
    buildIfStale();
    must(
      spawnSync('npm', ['pack', '--silent', '--pack-destination', packDir], { cwd: REPO_ROOT, encoding: 'utf8' }),
      'npm pack',
    );
  });
  const tarball = readdirSync(packDir).find((f) => f.endsWith('.tgz'));
  if (!tarball) throw new Error(`npm pack wrote no tarball into ${packDir}`);
  packed = { root, tarball: join(packDir, tarball) };
  return packed;
}

/**
 * Installs the packed receipt-gate with `packages` (exact npm specs) into a temporary project,
 * once per process and name. Install scripts are not run (lefthook's postinstall would run
 * `lefthook install` in whatever directory npm was started from); each test switches its
 * manager's hooks on itself, as a developer does.
 */
export function installedWith(name: string, packages: string[]): { root: string; project: string } {
  const done = installations.get(name);
  if (done) return done;
  const { root, tarball } = packedTarball();
  const project = join(root, `installed-${name}`);
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), `${JSON.stringify({ name: 'guarded-project', version: '1.0.0', private: true }, null, 2)}\n`);
  must(
    spawnSync(
      'npm',
      ['install', '--prefer-offline', '--no-audit', '--no-fund', '--ignore-scripts', '--save-exact', '--loglevel=error', tarball, ...packages],
      { cwd: project, encoding: 'utf8', env: { ...process.env, npm_config_update_notifier: 'false' } },
    ),
    `npm install of the packed tarball with ${packages.join(' ')}`,
  );
  const installation = { root, project };
  installations.set(name, installation);
  return installation;
}

/** Builds, packs and installs receipt-gate (with husky and lint-staged) once per process. */
export function installedProject(): { root: string; project: string } {
  const devDeps = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')).devDependencies as Record<string, string>;
  return installedWith('husky9', [`husky@${devDeps.husky}`, `lint-staged@${devDeps['lint-staged']}`]);
}

/**
 * Test files run side by side (scripts/test.mjs): one building dist/cli.js while another packs
 * it would pack half a file. Build and pack hold a lock directory, one process at a time.
 */
export function withBuildLock<T>(fn: () => T): T {
  const lock = join(tmpdir(), `receipt-gate-build-${createHash('sha256').update(REPO_ROOT).digest('hex').slice(0, 12)}.lock`);
  const nap = new Int32Array(new SharedArrayBuffer(4));
  for (;;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      // A lock left by a killed process is stale after ten minutes (a build takes seconds).
      try {
        if (Date.now() - statSync(lock).mtimeMs > 600_000) rmSync(lock, { recursive: true, force: true });
      } catch {
        // gone meanwhile
      }
      Atomics.wait(nap, 0, 0, 100);
    }
  }
  try {
    return fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Builds dist/cli.js when it is missing or older than a source file (`npm test` has built it). */
export function buildIfStale(): void {
  const cli = join(REPO_ROOT, 'dist', 'cli.js');
  const stale = (dir: string, than: number): boolean =>
    readdirSync(dir, { withFileTypes: true }).some((e) =>
      e.isDirectory() ? stale(join(dir, e.name), than) : statSync(join(dir, e.name)).mtimeMs > than,
    );
  if (existsSync(cli) && !stale(join(REPO_ROOT, 'src'), statSync(cli).mtimeMs) && !stale(join(REPO_ROOT, 'schemas'), statSync(cli).mtimeMs)) return;
  must(spawnSync('node', ['scripts/build.mjs'], { cwd: REPO_ROOT, encoding: 'utf8' }), 'npm run build');
}

function must(run: ReturnType<typeof spawnSync>, what: string): void {
  if (run.status !== 0) {
    throw new Error(`${what} failed (status ${run.status}): ${String(run.stderr)}${String(run.stdout)}`);
  }
}

/** One scenario: a bare repository with the server hook, and clones of it. */
export class Sandbox {
  readonly dir: string;
  readonly bare: string;
  readonly env: NodeJS.ProcessEnv;
  private readonly project: string;

  constructor(name: string, installation: { root: string; project: string } = installedProject()) {
    const { root, project } = installation;
    this.project = project;
    this.dir = mkdtempSync(join(root, `${name}-`));
    this.bare = join(this.dir, 'server.git');
    const gitconfig = join(this.dir, 'gitconfig');
    writeFileSync(gitconfig, '[init]\n\tdefaultBranch = main\n[user]\n\tname = Test\n[advice]\n\tdetachedHead = false\n');
    const env: NodeJS.ProcessEnv = { ...process.env };
    for (const key of Object.keys(env)) {
      if (/^(GIT_|HUSKY|RECEIPT_GATE_|GITHUB_USER_LOGIN|GL_|GITEA_|REMOTE_USER|LINT_STAGED)/.test(key)) delete env[key];
    }
    this.env = {
      ...env,
      GIT_CONFIG_NOSYSTEM: '1',
      GIT_CONFIG_GLOBAL: gitconfig,
      RECEIPT_GATE_NOW: TODAY,
      FORCE_COLOR: '0',
      NO_COLOR: '1',
    };
    this.git(this.dir, 'init', '-q', '--bare', '-b', 'main', this.bare);
  }

  run(cmd: string, args: string[], cwd: string, extraEnv: NodeJS.ProcessEnv = {}, input?: string): Run {
    const r = spawnSync(cmd, args, { cwd, env: { ...this.env, ...extraEnv }, encoding: 'utf8', input, maxBuffer: 64 * 1024 * 1024 });
    if (r.error) throw r.error;
    return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  }

  git(cwd: string, ...args: string[]): string {
    const r = this.run('git', args, cwd);
    if (r.status !== 0) throw new Error(`git ${args.join(' ')} failed in ${cwd}: ${r.stderr}${r.stdout}`);
    return r.stdout;
  }

  /** Installs the server's pre-receive hook into the bare repository (./install.sh --server). */
  installServerHook(): void {
    const r = this.run(join(REPO_ROOT, 'install.sh'), ['--server', this.bare], REPO_ROOT);
    if (r.status !== 0) throw new Error(`install.sh --server failed: ${r.stderr}${r.stdout}`);
  }

  /** A clone with its own identity, node_modules linked to the installation, hooks switched
   * on as `npm install` would (husky's prepare) when the project already uses husky. */
  clone(name: string, email: string, activate?: (dir: string) => void): string {
    const dir = join(this.dir, name);
    this.run('git', ['clone', '-q', this.bare, dir], this.dir);
    if (!existsSync(dir)) throw new Error(`git clone into ${dir} failed`);
    this.git(dir, 'config', 'user.email', email);
    symlinkSync(join(this.project, 'node_modules'), join(dir, 'node_modules'), 'dir');
    if (activate) {
      activate(dir);
    } else if (existsSync(join(dir, '.husky'))) {
      const r = this.run(join(dir, 'node_modules', '.bin', 'husky'), [], dir);
      if (r.status !== 0) throw new Error(`husky failed in ${dir}: ${r.stderr}${r.stdout}`);
    }
    return dir;
  }

  /** The installed project's package.json (it names receipt-gate, husky and lint-staged). */
  projectPackageJson(): string {
    return readFileSync(join(this.project, 'package.json'), 'utf8');
  }

  /** `npx receipt-gate ARGS` in `cwd`, through the installed bin. */
  receiptGate(cwd: string, args: string[], extraEnv: NodeJS.ProcessEnv = {}): Run {
    return this.run('npx', ['--no', 'receipt-gate', ...args], cwd, extraEnv);
  }

  write(dir: string, path: string, content: string | Uint8Array): void {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  }

  read(dir: string, path: string): string {
    return readFileSync(join(dir, path), 'utf8');
  }

  /** The owner's first commit: package.json, .gitignore, `receipt-gate init --guard-absent` (the
   * project has no fixtures yet; the owner protects them, and the other guards, before they
   * exist), committed through the hooks and pushed as the owner. Returns the owner's clone. */
  guardedRepository(): string {
    this.installServerHook();
    const owner = this.clone('owner', OWNER_EMAIL);
    this.write(owner, 'package.json', this.projectPackageJson());
    this.write(owner, '.gitignore', 'node_modules\n');
    this.write(owner, 'src/app.js', 'module.exports = 1;\n');
    const init = this.receiptGate(owner, ['init', '--guard-absent', '--owner', OWNER_EMAIL, '--owner', 'alice']);
    if (init.status !== 0) throw new Error(`receipt-gate init failed: ${init.stderr}${init.stdout}`);
    this.git(owner, 'add', '-A');
    this.commit(owner, 'Guard evidence with receipt-gate');
    this.push(owner, 'alice', ['origin', 'main'], true);
    return owner;
  }

  commit(dir: string, message: string, extra: string[] = [], extraEnv: NodeJS.ProcessEnv = {}): Run {
    const r = this.run('git', ['commit', '-q', '-m', message, ...extra], dir, extraEnv);
    return r;
  }

  /** git push as `login` (the server's identity variable); `mustPass` throws on a rejection. */
  push(dir: string, login: string | null, args: string[], mustPass = false): Run {
    const r = this.run('git', ['push', ...args], dir, login === null ? {} : { GITHUB_USER_LOGIN: login });
    if (mustPass && r.status !== 0) throw new Error(`git push ${args.join(' ')} failed: ${r.stderr}${r.stdout}`);
    return r;
  }
}

/** The last `receipt-gate: {...}` line of some output (`remote: ` prefixes removed), parsed. */
export function machineLineOf(output: string): MachineLine | null {
  const lines = output
    .split('\n')
    .map((l) => l.replace(/^remote: /, '').trim())
    .filter((l) => l.startsWith('receipt-gate: {'));
  const last = lines[lines.length - 1];
  return last === undefined ? null : (JSON.parse(last.slice('receipt-gate: '.length)) as MachineLine);
}

export interface MachineLine {
  verdict: string;
  blocked_paths: string[];
  findings: { code: string; severity: string; ref: string | null; commit: string | null; path: string | null }[];
  recommended_action: string;
}

export function sh(cmd: string, args: string[], cwd: string): string {
  return execFileSync(cmd, args, { cwd, encoding: 'utf8' });
}
