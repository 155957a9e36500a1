// The three identities in the server's answer (docs/contract.md §4, "printed in every text log"):
// the epoch id, the manifest digest and each witness digest, on an accepted push and on a
// rejected one, computed here independently (the manifest digest as Python's json.dumps and the
// witness as SHA-256 of its bytes), never copied from the output. Real pushes into a bare
// repository with the installed hook.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { CATALOG, commitAll, EPOCH_ID, manifestDigest, push, pythonSample, type Remote, remotePerTest, SEED, sha256, write } from './helpers';
import { gitValue } from '../helpers/git';

let r: Remote;
remotePerTest(test, 'identities', (remote) => {
  r = remote;
  gitValue(r.work, ['checkout', '-q', '-B', 'work', 'main']);
});

function expectedLines(): string[] {
  const digest = manifestDigest(SEED, pythonSample(SEED, CATALOG, 3));
  return [`identities: epoch ${EPOCH_ID}, manifest sha256 ${digest}, 1 witness`, `  witness obs-1 sha256 ${sha256('run 1: pass\n')}`];
}

test('an accepted push prints the epoch id, the manifest digest and each witness digest', () => {
  write(r.work, 'src/orders.py', 'def total(orders):\n    return sum(o["amount"] for o in orders)  # honest\n');
  commitAll(r.work, 'honest');
  const result = push(r.work, ['origin', 'work'], { REMOTE_USER: 'bob' });
  assert.is(result.status, 0, result.stderr);
  const lines = result.remote.map((l) => l.trim());
  for (const line of expectedLines()) assert.ok(lines.includes(line.trim()), `missing "${line}" in:\n${result.remote.join('\n')}`);
});

test('a rejected push prints them too, before the machine line', () => {
  write(r.work, 'fixtures/orders/base.json', '[]\n');
  commitAll(r.work, 'a fixture edit');
  const result = push(r.work, ['origin', 'work'], { REMOTE_USER: 'bob' });
  assert.is.not(result.status, 0, result.stderr);
  const lines = result.remote.map((l) => l.trim());
  const at = lines.indexOf(expectedLines()[0]!);
  assert.ok(at > 0, result.remote.join('\n'));
  assert.ok(lines.findIndex((l) => l.startsWith('receipt-gate: {')) > at, result.remote.join('\n'));
});

test.run();
