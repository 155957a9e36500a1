// isOid (src/types.ts) is a loop over the characters, asked for every object a push reads; it
// must answer as the expression it stands for, /^[0-9a-f]{40}$/ (JavaScript's `$` without the
// m flag: the end of the text only). Seeded strings (fast-check seed 20261205): 40 hex digits
// with one character changed to any code unit, other lengths, and the edge characters.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { isOid } from '../../src/types';

const RE = /^[0-9a-f]{40}$/;
const hex = fc.constantFrom(...'0123456789abcdef');

test('isOid answers as /^[0-9a-f]{40}$/', () => {
  const oid = fc.array(hex, { minLength: 40, maxLength: 40 }).map((a) => a.join(''));
  const changed = fc.tuple(oid, fc.nat(39), fc.integer({ min: 0, max: 0xffff })).map(([o, at, c]) => o.slice(0, at) + String.fromCharCode(c) + o.slice(at + 1));
  const edges = fc.tuple(oid, fc.nat(39), fc.constantFrom('/', ':', '`', 'g', 'A', 'F', '0', '9', 'a', 'f', '\n', '\0')).map(([o, at, c]) => o.slice(0, at) + c + o.slice(at + 1));
  const lengths = fc.array(hex, { maxLength: 45 }).map((a) => a.join(''));
  const trailing = oid.map((o) => `${o}\n`);
  let yes = 0;
  let no = 0;
  fc.assert(
    fc.property(fc.oneof(oid, changed, edges, lengths, trailing, fc.string()), (s) => {
      assert.is(isOid(s), RE.test(s), JSON.stringify(s));
      if (RE.test(s)) yes++;
      else no++;
    }),
    { seed: 20261205, numRuns: 20_000 },
  );
  assert.ok(yes > 1000 && no > 1000, `both answers met (${yes} / ${no})`);
});

test.run();
