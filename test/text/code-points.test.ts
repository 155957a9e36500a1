// compareCodePoints against the plain definition: the two strings as arrays of code points
// (`Array.from` splits a string at code points and keeps a lone surrogate as one of its own, as
// Python's str does), compared element by element, then by length.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { compareCodePoints } from '../../src/code-points';

const SEED = 20261202;

function reference(a: string, b: string): number {
  const x = Array.from(a, (c) => c.codePointAt(0)!);
  const y = Array.from(b, (c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return x.length === y.length ? 0 : x.length < y.length ? -1 : 1;
}

// Units that meet at every boundary the order cares about: ASCII, the top of the BMP, high and
// low surrogates (paired or lone), and U+E000 just above the surrogates.
const unit = fc.constantFrom('a', 'b', '\u00e4', '\ud7ff', '\ue000', '\uffff', '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00', '\ud800\udc00');
const text = fc.array(unit, { maxLength: 6 }).map((units) => units.join(''));

test('compareCodePoints orders as the code point sequences do, lone surrogates included', () => {
  fc.assert(
    fc.property(text, text, (a, b) => {
      assert.is(Math.sign(compareCodePoints(a, b)), reference(a, b), JSON.stringify([a, b]));
    }),
    { seed: SEED, numRuns: 5000, endOnFailure: true },
  );
});

test('a shared high surrogate is read with the unit after it', () => {
  // [U+D800, U+E000] against [U+10000]: U+D800 < U+10000, though U+E000 > U+DC00 unit by unit.
  assert.ok(compareCodePoints('\ud800\ue000', '\ud800\udc00') < 0);
  assert.ok(compareCodePoints('\ud800', '\ud800\udc00') < 0);
  assert.ok(compareCodePoints('\uff5e', '\ud83d\ude00') < 0);
  assert.is(compareCodePoints('\ud800x', '\ud800x'), 0);
});

test.run();
