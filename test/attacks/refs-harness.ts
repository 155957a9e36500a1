// Shared by the test/attacks/refs-*.test.ts files: what the server holds (every ref, as bytes,
// and every object), so a test can say a rejected push changed nothing; running the installed
// pre-receive hook directly, as git runs it, for input `git push` cannot produce; and pushes
// whose ref names are bytes node's argv cannot carry.

import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { baseEnv, machine, pushResultOf, type PushResult } from '../server/helpers';

/** Every ref (name as a byte string, its oid) and every object of the bare repository. */
export function serverState(bare: string): { refs: string; objects: string } {
  const refs = execFileSync('git', ['--git-dir', bare, 'for-each-ref', '--format=%(objectname) %(refname)'], { env: baseEnv(), encoding: 'latin1' });
  const objects = execFileSync('git', ['--git-dir', bare, 'cat-file', '--batch-all-objects', '--batch-check=%(objectname)'], { env: baseEnv(), encoding: 'latin1' });
  return { refs, objects };
}

/** Asserts that the server holds exactly what it held before (`before = serverState(bare)`). */
export function assertUnchanged(bare: string, before: { refs: string; objects: string }, what: string): void {
  const now = serverState(bare);
  assert.is(now.refs, before.refs, `${what}: the server's refs changed`);
  assert.is(now.objects, before.objects, `${what}: the server's objects changed`);
}

/** The installed hook run as git runs it: cwd the bare repository, GIT_DIR=., `stdin` bytes. */
export function runHook(bare: string, stdin: Buffer | string, env: Record<string, string> = {}): PushResult {
  const r = spawnSync(join(bare, 'hooks', 'pre-receive'), [], { cwd: bare, env: baseEnv({ GIT_DIR: '.', ...env }), input: stdin, encoding: 'utf8' });
  const stderr = `${r.stderr ?? ''}`;
  const remote = stderr.split('\n').map((l) => l.replace(/\s+$/, ''));
  return { status: r.status ?? -1, stderr, remote };
}

/** The installed bundle's pre-receive entry run as the hook shim runs it (node, the bundle
 * beside the hook, cwd the bare repository, GIT_DIR=.): the engine's answer to the bytes
 * without the shim in between. */
export function runBundle(bare: string, stdin: Buffer, env: Record<string, string> = {}): PushResult {
  const r = spawnSync('node', [join(bare, 'hooks', 'receipt-gate.cjs'), 'pre-receive'], { cwd: bare, env: baseEnv({ GIT_DIR: '.', ...env }), input: stdin, encoding: 'utf8' });
  const stderr = `${r.stderr ?? ''}`;
  return { status: r.status ?? -1, stderr, remote: stderr.split('\n').map((l) => l.replace(/\s+$/, '')) };
}

/** A hook run that refused the input: non-zero exit, the machine line last, verdict closed. */
export function assertHookRefused(result: PushResult, pattern: RegExp): ReturnType<typeof machine> {
  assert.is.not(result.status, 0, `the hook should refuse:\n${result.stderr}`);
  assert.match(result.stderr, pattern);
  const m = machine(result);
  assert.is(m.verdict, 'closed', result.stderr);
  return m;
}

/** `git push` from `work` with refspecs given as byte strings (one char per byte): node would
 * send argv as UTF-8, so they go through bash's printf. */
export function pushBytes(work: string, refspecs: string[], env: Record<string, string> = {}, flags: string[] = []): PushResult {
  const vars: Record<string, string> = {};
  const args = refspecs.map((spec, i) => {
    vars[`S${i}`] = [...Buffer.from(spec, 'latin1')].map((c) => `\\x${c.toString(16).padStart(2, '0')}`).join('');
    return `"$(printf %b "$S${i}")"`;
  });
  const script = `exec git push --porcelain ${flags.join(' ')} origin ${args.join(' ')}`;
  return pushResultOf(spawnSync('bash', ['-c', script], { cwd: work, env: baseEnv({ ...env, ...vars }), encoding: 'latin1' }));
}

/** The oid a ref holds on the server (name as a byte string), or null. */
export function refAt(bare: string, name: string): string | null {
  const line = serverState(bare)
    .refs.split('\n')
    .find((l) => l.slice(41) === name);
  return line ? line.slice(0, 40) : null;
}
