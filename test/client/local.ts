// In-process runs of the CLI against real git repositories in temporary folders, for the tests
// that need no npm installation (authoring commands, init's merges, the hook entries).

import { execFileSync, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { main } from '../../src/cli';
import { bufferedIO } from '../../src/io';

export const TODAY = '2026-11-29';

export function cleanEnv(extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const key of Object.keys(env)) {
    if (/^(GIT_|HUSKY|RECEIPT_GATE_|GITHUB_USER_LOGIN|GL_|GITEA_|REMOTE_USER)/.test(key)) delete env[key];
  }
  return {
    ...env,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_AUTHOR_NAME: 'Test',
    GIT_COMMITTER_NAME: 'Test',
    GIT_AUTHOR_EMAIL: 'author@example.com',
    GIT_COMMITTER_EMAIL: 'author@example.com',
    RECEIPT_GATE_NOW: TODAY,
    ...extra,
  };
}

export class LocalRepo {
  readonly dir: string;
  env: NodeJS.ProcessEnv;

  constructor(name: string, email: string | null = 'alice@example.com') {
    this.dir = mkdtempSync(join(tmpdir(), `rg-${name}-`));
    this.env = cleanEnv();
    this.git('init', '-q', '-b', 'main');
    if (email !== null) this.git('config', 'user.email', email);
  }

  git(...args: string[]): string {
    return execFileSync('git', args, { cwd: this.dir, env: this.env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  }

  gitBytes(...args: string[]): Buffer {
    return execFileSync('git', args, { cwd: this.dir, env: this.env, stdio: ['ignore', 'pipe', 'pipe'] });
  }

  /** git with its exit status (for commits a hook may refuse). */
  gitRun(args: string[], extraEnv: NodeJS.ProcessEnv = {}): { status: number; out: string } {
    const r = spawnSync('git', args, { cwd: this.dir, env: { ...this.env, ...extraEnv }, encoding: 'utf8' });
    return { status: r.status ?? -1, out: `${r.stdout}${r.stderr}` };
  }

  write(path: string, content: string | Uint8Array): void {
    mkdirSync(dirname(join(this.dir, path)), { recursive: true });
    writeFileSync(join(this.dir, path), content);
  }

  read(path: string): string {
    return readFileSync(join(this.dir, path), 'utf8');
  }

  json(path: string): unknown {
    return JSON.parse(this.read(path));
  }

  /** Runs `receipt-gate ARGS` in-process. */
  async cli(args: string[], extraEnv: NodeJS.ProcessEnv = {}, stdin = ''): Promise<{ code: number; stdout: string; stderr: string }> {
    const buffered = bufferedIO({ env: { ...this.env, ...extraEnv }, cwd: this.dir, stdin });
    const code = await main(args, buffered.io);
    return { code, stdout: buffered.stdout(), stderr: buffered.stderr() };
  }

  remove(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Runs python3 with a script; the independent implementation for differential tests. */
export function python(script: string, opts: { cwd?: string; input?: string | Buffer } = {}): string {
  return execFileSync('python3', ['-c', script], { cwd: opts.cwd, input: opts.input ?? '', encoding: 'utf8' });
}

/** A policy with every evidence section, owners alice@example.com and alice. */
export function fullPolicy(extra: Record<string, unknown> = {}): string {
  return `${JSON.stringify(
    {
      version: 1,
      baseBranch: 'main',
      protected: ['fixtures/**', 'checks/**', 'freeze.json', 'freezes/**', 'observations/**'],
      owners: ['alice@example.com', 'alice'],
      epoch: { pin: 'fixtures/EPOCH' },
      manifest: { path: 'checks/manifest.json', catalog: 'checks/properties.json' },
      freeze: { path: 'freeze.json', reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 },
      observations: { dir: 'observations', freezes: 'freezes' },
      ...extra,
    },
    null,
    2,
  )}\n`;
}
