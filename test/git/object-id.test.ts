// An object's name (src/git/object-id.ts) against git's own: `git hash-object --literally` on
// the same bytes, for the four types, empty and large contents (over the one-call buffer, and
// after a large one has grown it), in a seeded random order (fast-check seed 20261205).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { objectId } from '../../src/git/object-id';

function gitName(type: string, content: Uint8Array): string {
  return execFileSync('git', ['hash-object', '--literally', '-t', type, '--stdin'], { input: content, encoding: 'utf8' }).trim();
}

test('objectId is the name git gives the same bytes', () => {
  const sizes = fc.oneof(fc.constantFrom(0, 1, 64 * 1024, (1 << 20) - 20, 1 << 20, (1 << 20) + 1, 3 << 20), fc.nat(9000));
  const cases = fc.sample(fc.tuple(fc.constantFrom('blob', 'tree', 'commit', 'tag'), sizes, fc.nat(255)), { seed: 20261205, numRuns: 40 });
  for (const [type, size, fill] of cases) {
    const content = Buffer.alloc(size);
    for (let i = 0; i < size; i++) content[i] = (fill + i * 31) & 0xff;
    assert.is(objectId(type, content), gitName(type, content), `${type} of ${size} bytes`);
    // A view into a larger buffer, as objects read from a pack are.
    const wide = Buffer.concat([Buffer.from('xyz'), content, Buffer.from('!')]);
    assert.is(objectId(type, wide.subarray(3, 3 + size)), gitName(type, content), `${type} of ${size} bytes, a view`);
  }
});

test.run();
