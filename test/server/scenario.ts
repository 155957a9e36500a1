// The push scenarios every transport runs: the same hook, reached through git daemon, smart
// HTTP and gitolite over ssh, must give the same answers as over file://.

import * as assert from 'uvu/assert';
import { commitAll, machine, push, refOid, write, type PushResult } from './helpers';
import { gitValue } from '../helpers/git';

export interface Transport {
  /** The bare repository on the server (to read refs after a push). */
  bare: string;
  /** A clone to push from (origin is irrelevant: pushes name their URL). */
  work: string;
  /** The push URL for `user` (who the server will say pushed). */
  url(user: 'alice' | 'bob'): string;
  /** Extra environment for the pushing git (credentials, GIT_SSH_COMMAND). */
  env(user: 'alice' | 'bob'): Record<string, string>;
  /** Whether the server reports the pusher (git daemon has no authentication: nobody). */
  authenticates: boolean;
}

function pushAs(t: Transport, user: 'alice' | 'bob', refspecs: string[], flags: string[] = []): PushResult {
  return push(t.work, [...flags, t.url(user), ...refspecs], t.env(user));
}

function rejected(result: PushResult, code: string, path?: string): void {
  assert.is.not(result.status, 0, `push should be rejected:\n${result.stderr}`);
  const m = machine(result);
  assert.is(m.verdict, 'closed', result.stderr);
  assert.ok(m.findings.some((f) => f.code === code && (path === undefined || f.path === path)), result.stderr);
}

export function honestBranchAccepted(t: Transport): void {
  gitValue(t.work, ['checkout', '-q', '-B', 'feature/honest', 'main']);
  write(t.work, 'src/orders.py', 'def total(orders):\n    return sum(o.get("amount", 0) for o in orders)\n');
  const head = commitAll(t.work, 'tolerate missing amounts');
  const result = pushAs(t, 'bob', ['feature/honest']);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.remote.join('\n'), /push accepted: eligible/);
  if (t.authenticates) assert.match(result.remote.join('\n'), /pusher bob/);
  assert.is(refOid(t.bare, 'refs/heads/feature/honest'), head);
}

export function fixtureEditRejected(t: Transport): void {
  gitValue(t.work, ['checkout', '-q', '-B', 'feature/cheat', 'main']);
  write(t.work, 'fixtures/orders/base.json', '{"orders": [{"amount": 1000000}]}\n');
  const head = commitAll(t.work, 'make the test pass');
  const result = pushAs(t, 'bob', ['feature/cheat']);
  rejected(result, 'PATH_PROTECTED', 'fixtures/orders/base.json');
  const text = result.remote.join('\n');
  assert.ok(text.includes(head.slice(0, 7)), text);
  assert.match(text, /may only be changed by: alice, release-bot/);
  if (t.authenticates) assert.match(text, /as bob, who is not an owner/);
  assert.is(refOid(t.bare, 'refs/heads/feature/cheat'), null);
}

export function ownerFixtureEditAccepted(t: Transport): void {
  gitValue(t.work, ['checkout', '-q', '-B', 'feature/owner', 'main']);
  write(t.work, 'fixtures/orders/base.json', '{"orders": [{"amount": 5}]}\n');
  const head = commitAll(t.work, 'owner refreshes fixture');
  const result = pushAs(t, 'alice', ['feature/owner']);
  assert.is(result.status, 0, result.stderr);
  assert.is(refOid(t.bare, 'refs/heads/feature/owner'), head);
}

export function forcePushAndDeleteOfMainRejected(t: Transport): void {
  gitValue(t.work, ['checkout', '-q', '-B', 'rewrite', 'main']);
  gitValue(t.work, ['commit', '-q', '--amend', '-m', 'rewritten history']);
  rejected(pushAs(t, 'bob', ['rewrite:main'], ['--force']), 'REF_PROTECTED');
  rejected(pushAs(t, 'bob', [':main']), 'REF_PROTECTED');
  assert.ok(refOid(t.bare, 'refs/heads/main'));
}

export function tagsAndMultiRef(t: Transport): void {
  gitValue(t.work, ['checkout', '-q', '-B', 'feature/tagged', 'main']);
  write(t.work, 'fixtures/weights_v3.json', '{"id": "weights_v3", "input": {}, "sha256": "x"}\n');
  commitAll(t.work, 'weights');
  gitValue(t.work, ['tag', '-f', '-a', '-m', 'tag', 'v9']);
  gitValue(t.work, ['checkout', '-q', '-B', 'feature/fine', 'main']);
  write(t.work, 'src/fine.py', 'ok = True\n');
  commitAll(t.work, 'fine');
  const result = pushAs(t, 'bob', ['feature/fine', 'refs/tags/v9']);
  rejected(result, 'PATH_PROTECTED', 'fixtures/weights_v3.json');
  assert.is(refOid(t.bare, 'refs/heads/feature/fine'), null, 'git rejects every ref of the push');
  assert.is(refOid(t.bare, 'refs/tags/v9'), null);
}

export function largePushInQuarantinePack(t: Transport): void {
  gitValue(t.bare, ['config', 'receive.unpackLimit', '1']);
  gitValue(t.work, ['checkout', '-q', '-B', 'feature/large', 'main']);
  for (let i = 0; i < 12; i++) {
    write(t.work, `src/mod${i}.py`, `n = ${i}\n`);
    if (i === 5) write(t.work, 'checks/manifest.json', '{"seed": 1, "properties": [], "manifest_sha256": "0"}\n');
    commitAll(t.work, `mod ${i}`);
  }
  rejected(pushAs(t, 'bob', ['feature/large']), 'PATH_PROTECTED', 'checks/manifest.json');
  gitValue(t.bare, ['config', '--unset', 'receive.unpackLimit']);
}
