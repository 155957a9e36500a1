// Shared harness for the attack regression suite (test/attacks/*.test.ts): one guarded bare
// repository per file, made with the git CLI and guarded by the hook scripts/install-server.sh
// installs; every attack is a real `git push` as a non-owner, and every test checks that the
// push was closed with the expected code and that the server is exactly as it was.

import type { Test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { assertRejected, cleanup, commitAll, makeTemplate, machine, POLICY, push, type PushResult, type Remote, write } from '../server/helpers';
import { gitValue } from '../helpers/git';

export * from '../server/helpers';

/** A pusher the example policy of README.md does not list as an owner, and one it does. */
export const BOB = { REMOTE_USER: 'bob' };
export const ALICE = { REMOTE_USER: 'alice' };

/** Every ref of the bare repository with what it points at (symbolic refs by their target). */
export function serverRefs(bare: string): string {
  const refs = gitValue(bare, ['for-each-ref', '--format=%(refname) %(objectname) %(symref)']);
  const head = gitValue(bare, ['symbolic-ref', '-q', 'HEAD']);
  return `${refs}\nHEAD -> ${head}`;
}

/** The one guarded repository of a test file, and the state its refs must stay in. */
export interface Arena extends Remote {
  /** The refs as they stood after `prepare` (or after the last `accept`). */
  refs: string;
}

/**
 * One guarded bare repository and a clone for the whole file:
 * `prepare` may add to the server before the attacks (and then `arena.refs` is taken).
 * Each test starts from the clone's `main` as the server has it, on a fresh branch `attack`.
 */
export function arenaPerFile(suite: Test, prepare: (a: Arena) => void = () => {}): () => Arena {
  let arena: Arena | undefined;
  suite.before(() => {
    const t = makeTemplate();
    arena = { ...t, refs: '' };
    gitValue(arena.work, ['remote', 'set-url', 'origin', `file://${arena.bare}`]);
    prepare(arena);
    arena.refs = serverRefs(arena.bare);
  });
  suite.after(() => cleanup(arena?.root));
  suite.before.each(() => {
    const a = arena!;
    gitValue(a.work, ['fetch', '-q', 'origin']);
    gitValue(a.work, ['checkout', '-q', '-f', '-B', 'attack', 'origin/main']);
    gitValue(a.work, ['clean', '-qfdx']);
  });
  return () => arena!;
}

/**
 * The push was closed by the hook with `code` (on `path`, when given) in its machine line,
 * and the server's refs are exactly as they were. Returns the machine line.
 */
export function assertClosed(a: Arena, result: PushResult, code: string, path?: string): ReturnType<typeof machine> {
  const m = assertRejected(result, code, path);
  assert.is(serverRefs(a.bare), a.refs, 'the server\'s refs did not change');
  return m;
}

/** `git show main:path` on the server: what a clone of main has at `path` (null: nothing). */
export function serverFile(a: Arena, path: string, ref = 'main'): string | null {
  try {
    return gitValue(a.bare, ['show', `${ref}:${path}`]);
  } catch {
    return null;
  }
}

/** Replaces `path` in the work tree with a symlink to `target`. */
export function symlinkAt(work: string, target: string, path: string): void {
  const full = join(work, path);
  mkdirSync(dirname(full), { recursive: true });
  rmSync(full, { force: true, recursive: true });
  symlinkSync(target, full);
}

/** Pushes `refspecs` to origin as `who` (default: the non-owner bob). */
export function pushAs(a: Arena, refspecs: string[], who: Record<string, string> = BOB): PushResult {
  return push(a.work, ['origin', ...refspecs], who);
}

/** An accepted push; `arena.refs` is taken again (the new state is the one to keep). */
export function accept(a: Arena, result: PushResult): void {
  assert.is(result.status, 0, `push should be accepted:\n${result.stderr}`);
  a.refs = serverRefs(a.bare);
}

/** The policy with `timeoutMs`, pushed to main by its owner. */
export function budget(r: Arena, timeoutMs: number): void {
  write(r.work, '.receipt-gate.json', `${JSON.stringify({ ...POLICY, limits: { timeoutMs, maxEvidenceBytes: 1048576 } }, null, 2)}\n`);
  commitAll(r.work, `a ${timeoutMs} ms budget`);
  accept(r, push(r.work, ['origin', 'HEAD:main'], ALICE));
}

/** A branch `name` of `count` commits on main, each changing one of 50 files (fast-import). */
export function longBranch(r: Arena, name: string, count: number): void {
  const main = gitValue(r.work, ['rev-parse', 'HEAD']);
  let stream = '';
  for (let i = 0; i < count; i++) {
    const body = `${name} ${i}\n`;
    stream += `commit refs/heads/${name}\nmark :${i + 1}\ncommitter T <t@example.com> ${1700000000 + i} +0000\ndata 2\nc\n`;
    stream += i === 0 ? `from ${main}\n` : `from :${i}\n`;
    stream += `M 100644 inline src/f${i % 50}.txt\ndata ${Buffer.byteLength(body)}\n${body}\n`;
  }
  gitValue(r.work, ['fast-import', '--quiet'], { input: stream });
}
