// The push log's test harness: guarded bare repositories with the pre-receive and
// reference-transaction hooks and a signing key installed by install.sh --server --log-key,
// served by git daemon and by smart HTTP (lighttpd + git http-backend) on loopback.

import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, freePort, installHook, makeTemplate, waitForPort, writeLighttpdConfig, PASSWORD, type Remote } from '../server/helpers';
import type { LogPredicate } from '../../src/pushlog/entry';
import { gitValue } from '../helpers/git';

export interface LogServer {
  root: string;
  key: string;
  pub: string;
  template: Remote;
  daemonPort: number;
  httpPort: number;
  stop(): void;
}

export { PASSWORD } from '../server/helpers';

export async function startServers(label: string): Promise<LogServer> {
  const template = makeTemplate({ install: false });
  const root = template.root;
  const key = join(root, 'keys', 'log');
  mkdirSync(join(root, 'keys'));
  execCli(['keygen', '--out', key]);
  installHook(template.bare, '--log-key', `${key}.key`);
  const repos = join(root, 'srv', 'repos');
  mkdirSync(repos, { recursive: true });

  const daemonPort = await freePort();
  const daemon: ChildProcess = spawn(
    'git',
    ['daemon', '--reuseaddr', '--export-all', '--enable=receive-pack', '--listen=127.0.0.1', `--port=${daemonPort}`, `--base-path=${repos}`, repos],
    { env: baseEnv(), stdio: 'ignore' },
  );
  const httpPort = await freePort();
  const base = join(root, 'srv');
  writeLighttpdConfig({ base, port: httpPort, projectRoot: repos });
  const http: ChildProcess = spawn('lighttpd', ['-D', '-f', join(base, 'lighttpd.conf')], { env: baseEnv(), stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForPort(daemonPort);
  await waitForPort(httpPort);
  void label;
  return {
    root,
    key: `${key}.key`,
    pub: `${key}.pub`,
    template,
    daemonPort,
    httpPort,
    stop() {
      daemon.kill();
      http.kill();
    },
  };
}

export interface LogRepo {
  bare: string;
  work: string;
  daemonUrl: string;
  httpUrl(user: 'alice' | 'bob'): string;
}

let count = 0;

/** A fresh copy of the template (hooks, key config, started log) served by both servers. */
export function freshRepo(server: LogServer, name: string): LogRepo {
  const id = `${name}-${++count}`;
  const bare = join(server.root, 'srv', 'repos', `${id}.git`);
  cpSync(server.template.bare, bare, { recursive: true, verbatimSymlinks: true });
  const work = join(server.root, 'clones', id);
  cpSync(server.template.work, work, { recursive: true, verbatimSymlinks: true });
  gitValue(work, ['remote', 'set-url', 'origin', `file://${bare}`]);
  return {
    bare,
    work,
    daemonUrl: `git://127.0.0.1:${server.daemonPort}/${id}.git`,
    httpUrl: (user) => `http://${user}:${PASSWORD[user]}@127.0.0.1:${server.httpPort}/git/${id}.git`,
  };
}

export function execCli(args: string[], opts: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): { status: number; stdout: string; stderr: string } {
  const r = spawnSync('node', [CLI, ...args], { cwd: opts.cwd, env: opts.env ?? baseEnv(), encoding: 'utf8' });
  if (r.status === null) throw new Error(`receipt-gate ${args.join(' ')} did not finish: ${r.error}`);
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

export interface VerifyOutput {
  status: number;
  verdict: string;
  findings: { code: string; ref: string | null; commit: string | null; message: string }[];
  text: string;
}

export function verifyLog(repo: string, pub: string, ...extra: string[]): VerifyOutput {
  const r = execCli(['verify-log', '--repo', repo, '--pub', pub, '--json', ...extra]);
  let json: { verdict: string; findings: VerifyOutput['findings'] };
  try {
    json = JSON.parse(r.stdout);
  } catch {
    throw new Error(`verify-log printed no JSON (exit ${r.status}):\n${r.stdout}\n${r.stderr}`);
  }
  return { status: r.status, verdict: json.verdict, findings: json.findings, text: `${r.stdout}\n${r.stderr}` };
}

/** The log's entries, oldest first, decoded without checking (the tests check what the hook
 * wrote; verify-log checks signatures). */
export function logEntries(bare: string): (LogPredicate & { commit: string })[] {
  const r = spawnSync('git', ['--git-dir', bare, 'log', '--reverse', '--format=%H%n%B%x00', 'refs/receipt-gate/log'], { encoding: 'utf8', env: baseEnv() });
  if (r.status !== 0) return [];
  return r.stdout
    .split('\0')
    .map((chunk) => chunk.trim())
    .filter(Boolean)
    .map((chunk) => {
      const lines = chunk.split('\n').filter(Boolean);
      const envelope = JSON.parse(lines[lines.length - 1]!) as { payload: string };
      const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')) as { predicate: LogPredicate };
      return { ...statement.predicate, commit: lines[0]! };
    });
}

export function codes(v: VerifyOutput): string[] {
  return v.findings.map((f) => f.code).sort();
}

/** A node wrapper for RECEIPT_GATE_NODE that notes each start (its arguments, a line each) in
 * `starts`, so that a test can tell which path of the hooks ran node. */
export function nodeRecorder(server: LogServer): { wrapper: string; starts: string } {
  const starts = join(server.root, 'node-starts.txt');
  const wrapper = join(server.root, 'node-wrapper.sh');
  writeFileSync(wrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${starts}'\nexec node "$@"\n`);
  chmodSync(wrapper, 0o755);
  return { wrapper, starts };
}
