// Ref names are bytes: how they print. JSON gets the UTF-8 text with `\xHH` for each byte that
// is not part of valid UTF-8 (checked against TextDecoder's own validation, and decoded back
// to the same bytes); human output quotes them as git does (core.quotePath).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { quoteRefName, refNameJson } from '../../src/quote';
import { decodeRefName, encodeRefName } from '../../src/git/refname';

const bytes = (s: string) => decodeRefName(Buffer.from(s, 'latin1'));

const SEED = 20261201;

/** Inverse of refNameJson (a ref name never holds a backslash). */
function fromJson(text: string): Buffer {
  const parts: Buffer[] = [];
  for (const piece of text.split(/(\\x[0-9a-f]{2})/)) {
    parts.push(/^\\x[0-9a-f]{2}$/.test(piece) ? Buffer.from([parseInt(piece.slice(2), 16)]) : Buffer.from(piece, 'utf8'));
  }
  return Buffer.concat(parts);
}

test('property: refNameJson is the UTF-8 text when valid, \\xHH for stray bytes, and decodes back to the bytes', () => {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const arbitrary = fc.uint8Array({ maxLength: 24 }).map((b) => Buffer.from(b.filter((c) => c !== 0x5c)));
  fc.assert(
    fc.property(arbitrary, (b) => {
      const name = decodeRefName(b);
      if (!encodeRefName(name).equals(b)) return false;
      const json = refNameJson(name);
      let valid = true;
      try {
        decoder.decode(b);
      } catch {
        valid = false;
      }
      if (valid && json !== b.toString('utf8')) return false;
      if (!valid && !json.includes('\\x')) return false;
      return fromJson(json).equals(b);
    }),
    { seed: SEED, numRuns: 2000 },
  );
});

test('names print as git quotes them', () => {
  assert.is(quoteRefName('refs/heads/main'), 'refs/heads/main');
  assert.is(quoteRefName(bytes('refs/heads/release/v\xff')), '"refs/heads/release/v\\377"');
  assert.is(quoteRefName(bytes('refs/heads/feature\xc2\xa0x')), '"refs/heads/feature\\302\\240x"');
  assert.is(quoteRefName('refs/heads/feature\u00a0x'), '"refs/heads/feature\\302\\240x"', 'the text form is the same name');
  assert.is(refNameJson(bytes('refs/heads/feature\xc2\xa0x')), 'refs/heads/feature\u00a0x');
  assert.is(refNameJson(bytes('refs/heads/release/v\xff')), 'refs/heads/release/v\\xff');
  assert.is(refNameJson(bytes('refs/heads/\xed\xa0\x80')), 'refs/heads/\\xed\\xa0\\x80', 'a UTF-8 surrogate is not UTF-8');
});

test.run();
