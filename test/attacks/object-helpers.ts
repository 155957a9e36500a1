// What the object attack tests (commit-*, tag-*, tree-zero-padded-modes) share: crafted objects
// written byte for byte with `git hash-object --literally`, pushed with a real `git push` into
// the bare repository the installed hook guards, and the same refs judged by verify-ref.

import * as assert from 'uvu/assert';
import { baseEnv, machine, push, refOid, TODAY, type PushResult, type Remote } from '../server/helpers';
import { runCli, type CliRun } from '../helpers/repo';
import { gitResult, gitValue } from '../helpers/git';

export const BOB = { REMOTE_USER: 'bob' }; // not an owner in the test policy
export const ALICE = { REMOTE_USER: 'alice' }; // an owner

export const IDENT = 'Dev <dev@example.com> 1788000000 +0000';

/** Writes an object exactly as given and returns its oid. */
export function writeObject(work: string, type: 'commit' | 'tag' | 'tree' | 'blob', content: string | Buffer): string {
  return gitValue(work, ['hash-object', '--literally', '-w', '-t', type, '--stdin'], { input: content });
}

/** main's tree on the server with fixtures/orders/base.json replaced by `json`. */
export function treeWithFixture(work: string, json: string): string {
  const blob = gitValue(work, ['hash-object', '-w', '--stdin'], { input: json });
  const orders = gitValue(work, ['ls-tree', 'main:fixtures/orders']).split('\n').map((l) => (l.endsWith('\tbase.json') ? l.replace(/[0-9a-f]{40}/, blob) : l));
  const ordersTree = gitValue(work, ['mktree'], { input: `${orders.join('\n')}\n` });
  const fixtures = gitValue(work, ['ls-tree', 'main:fixtures']).split('\n').map((l) => (l.endsWith('\torders') ? l.replace(/[0-9a-f]{40}/, ordersTree) : l));
  const fixturesTree = gitValue(work, ['mktree'], { input: `${fixtures.join('\n')}\n` });
  const root = gitValue(work, ['ls-tree', 'main']).split('\n').map((l) => (l.endsWith('\tfixtures') ? l.replace(/[0-9a-f]{40}/, fixturesTree) : l));
  return gitValue(work, ['mktree'], { input: `${root.join('\n')}\n` });
}

/** The evil fixture the attacks try to slip in. */
export const EVIL_FIXTURE = '{"orders": [{"amount": 1000000}]}\n';

/** A push the hook closed with OBJECT_INVALID naming `oid` and git fsck's `msgId`. */
export function assertObjectInvalid(result: PushResult, oid: string, msgId: string): void {
  assert.is.not(result.status, 0, `push should be rejected:\n${result.stderr}`);
  assert.match(result.stderr, /pre-receive hook declined/);
  const m = machine(result);
  assert.is(m.verdict, 'closed', result.stderr);
  const hit = m.findings.find((f) => f.code === 'OBJECT_INVALID' && f.commit === oid);
  assert.ok(hit, `OBJECT_INVALID on ${oid} in:\n${result.stderr}`);
  const text = result.remote.join('\n');
  assert.ok(text.includes(oid), `the message names ${oid}:\n${text}`);
  assert.match(text, new RegExp(msgId), `the message names ${msgId}`);
}

/** The server's main still holds the original fixture bytes. */
export function assertMainUntouched(r: Remote, mainBefore: string): void {
  assert.is(refOid(r.bare, 'refs/heads/main'), mainBefore, 'main did not move');
  const shown = gitResult(r.bare, ['show', 'main:fixtures/orders/base.json'], { env: baseEnv() });
  assert.is(shown.status, 0, shown.stderr);
  assert.is.not(shown.stdout, EVIL_FIXTURE);
  assert.is(shown.stdout, gitValue(r.work, ['show', `${mainBefore}:fixtures/orders/base.json`]) + '\n');
}

/** verify-ref on `ref` of the clone against main, as bob. */
export function verifyRef(r: Remote, ref: string): CliRun {
  return runCli(['verify-ref', ref, '--base', 'main', '--identity', 'bob', '--now', TODAY, '--json'], { cwd: r.work });
}

export function findingOf(run: CliRun, code: string, oid?: string): { code: string; message: string; commit?: string } | undefined {
  return (run.json?.findings ?? []).find((f: { code: string; commit?: string }) => f.code === code && (oid === undefined || f.commit === oid));
}

export { push, refOid, machine, type Remote };
