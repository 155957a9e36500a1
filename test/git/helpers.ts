// Real git repositories for the object-store tests, built with the git CLI in temp dirs.

import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { writeFiles } from '../helpers/repo';
import { join } from 'node:path';

export const BASE_ENV: NodeJS.ProcessEnv = {
  PATH: process.env.PATH,
  HOME: tmpdir(),
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Test Author',
  GIT_AUTHOR_EMAIL: 'author@example.com',
  GIT_COMMITTER_NAME: 'Test Committer',
  GIT_COMMITTER_EMAIL: 'committer@example.com',
  LANG: 'C',
};

const dirs: string[] = [];

export function tempDir(prefix = 'rg-git-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

export function cleanup(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

let clock = Date.parse('2026-01-01T00:00:00Z') / 1000;

/** Runs git with a fixed identity; each call gets a later, fixed commit date. */
export function git(cwd: string, args: string[], opts: { input?: string | Buffer; env?: NodeJS.ProcessEnv } = {}): string {
  return gitBuf(cwd, args, opts).toString('utf8');
}

export function gitBuf(cwd: string, args: string[], opts: { input?: string | Buffer; env?: NodeJS.ProcessEnv } = {}): Buffer {
  clock += 60;
  const date = `${clock} +0000`;
  return execFileSync('git', args, {
    cwd,
    input: opts.input,
    env: { ...BASE_ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date, ...opts.env },
    stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 1024 * 1024 * 1024,
  });
}

export function initRepo(opts: { bare?: boolean; dir?: string } = {}): string {
  const dir = opts.dir ?? tempDir();
  git(dir, ['init', '-q', '-b', 'main', ...(opts.bare ? ['--bare'] : [])]);
  return dir;
}

/** Writes files, stages everything and commits; returns the commit oid. */
export function commit(repo: string, files: Record<string, string | Buffer>, message = 'change'): string {
  writeFiles(repo, files);
  git(repo, ['add', '-A']);
  git(repo, ['commit', '-q', '--allow-empty', '-m', message]);
  return git(repo, ['rev-parse', 'HEAD']).trim();
}

/** Every object of a repository as `git cat-file --batch-all-objects` lists it. */
export function allObjects(repo: string): { oid: string; type: string; size: number }[] {
  return git(repo, ['cat-file', '--batch-all-objects', '--batch-check'])
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [oid, type, size] = line.split(' ');
      return { oid: oid!, type: type!, size: Number(size) };
    });
}

/** Writes a raw object with `git hash-object --literally` and returns its oid. */
export function hashObject(repo: string, type: string, content: Buffer): string {
  return git(repo, ['hash-object', '--literally', '-w', '-t', type, '--stdin'], { input: content }).trim();
}

/** Builds raw tree content from entries (names as raw bytes). */
export function rawTree(entries: { mode: string; name: Buffer | string; oid: string }[]): Buffer {
  return Buffer.concat(
    entries.flatMap((e) => [Buffer.from(`${e.mode} `), Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name), Buffer.from([0]), Buffer.from(e.oid, 'hex')]),
  );
}

export { writeFiles };
