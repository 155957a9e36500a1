// A large pinned generator (docs/engine.md, "Large generators and witnesses"; docs/contract.md
// §6 "Time"): up to 64 MiB it is read whole and hashed in slices within the run's budget, on a
// real push, under the default limits.timeoutMs (4000 ms of CPU). (Over 64 MiB it is not read:
// test/attacks/limits-cpu.test.ts, the repository closed until an owner re-pins.) The bytes are
// incompressible (xorshift32, seed 29), so git stores them at full size.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accept, ALICE, arenaPerFile, BOB, commitAll, EPOCH_ID, GENERATOR, machine, POLICY, push, sha256, write } from './harness';
import { gitValue } from '../helpers/git';
import { MAX_BLOB_BYTES } from '../../src/evidence/types';

const arena = arenaPerFile(test);
const MiB = 1024 * 1024;

/** `length` pseudo-random bytes from xorshift32 with `seed`. */
function noise(length: number, seed: number): Buffer {
  const out = Buffer.alloc(length);
  let x = seed >>> 0 || 1;
  for (let i = 0; i + 4 <= length; i += 4) {
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    out.writeUInt32LE(x, i);
  }
  return out;
}

test('a 63 MiB generator of incompressible bytes, pinned by an owner, is hashed within the default 4000 ms budget; a later push keeping it is judged too', () => {
  const r = arena();
  write(r.work, '.receipt-gate.json', `${JSON.stringify({ ...POLICY, limits: { timeoutMs: 4000, maxEvidenceBytes: 1048576 } }, null, 2)}\n`);
  const big = Buffer.concat([Buffer.from(`${GENERATOR}# `), noise(63 * MiB - GENERATOR.length - 2, 29)]);
  assert.is(big.length, 63 * MiB);
  assert.ok(big.length < MAX_BLOB_BYTES);
  const id = `${EPOCH_ID}-large`;
  write(r.work, 'fixtures/generate_orders.py', big);
  write(r.work, 'fixtures/EPOCH', `${JSON.stringify({ epoch_id: id, generator: 'fixtures/generate_orders.py', generator_sha256: sha256(big), inputs: ['fixtures/orders/base.json'] })}\n`);
  const witness = 'run 1: pass\n';
  write(r.work, 'observations/obs-1.json', `${JSON.stringify({ id: 'obs-1', epoch_id: id, status: 'pass', rerun_passed: true, witness_sha256: sha256(witness) })}\n`);
  commitAll(r.work, 'a 63 MiB generator, a new epoch, a 4000 ms budget');
  const pinned = push(r.work, ['origin', 'HEAD:main'], ALICE);
  accept(r, pinned);
  assert.is(machine(pinned).verdict, 'eligible', pinned.stderr);
  assert.not.match(pinned.stderr, /LIMIT_EXCEEDED|notice: the check needs more/);

  // The answer names the new epoch: its generator was read and its digest matched the pin.
  assert.match(pinned.remote.join('\n'), new RegExp(`identities: epoch ${id}`), pinned.stderr);

  // A non-owner's change beside it: judged with the large generator in the tree.
  write(r.work, 'src/orders.py', 'def total(orders):\n    return 4\n');
  commitAll(r.work, 'an unrelated change');
  const later = push(r.work, ['origin', 'HEAD:refs/heads/topic'], BOB);
  accept(r, later);
  assert.is(machine(later).verdict, 'eligible', later.stderr);
  assert.is(gitValue(r.bare, ['rev-parse', 'refs/heads/topic']), gitValue(r.work, ['rev-parse', 'HEAD']));
});

test.run();
