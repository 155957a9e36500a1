// compileProtection's answers do not depend on what it was asked before (src/protection.ts): the
// same questions asked again, in any order and for any kind of entry, get the answers of a
// protection compiled afresh for each question; a symlink or gitlink over a protected folder is
// judged as such even after the same path was asked as a file, and the other way round. (It
// guards any answer a compiled protection may come to keep between questions.)

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileProtection } from '../../src/protection';
import { parsePolicy } from '../../src/evidence/policy';
import type { EntryKind } from '../../src/git/types';
import { POLICY } from '../helpers/repo';

const parsed = parsePolicy(Buffer.from(JSON.stringify(POLICY)));
if (!parsed.ok) throw new Error(JSON.stringify(parsed.findings));
const policy = parsed.policy;

const paths = ['fixtures', 'fixtures/orders/base.json', 'fixtures/notes.md', 'src/app.py', 'Fixtures/orders', '.receipt-gate.json', 'src/.gitattributes', 'docs/readme.md', 'tools', 'properties'];
const kinds: (EntryKind | undefined)[] = [undefined, 'file', 'exec', 'symlink', 'gitlink', 'tree'];

test('asked again in any order, every answer is the answer of a fresh protection', () => {
  const kept = compileProtection(policy);
  // Seeded order (a fixed linear congruential sequence, seed 20261204): each (path, kind) asked
  // three times, interleaved.
  let seed = 20261204;
  const questions: [string, EntryKind | undefined][] = [];
  for (let round = 0; round < 3; round++) for (const p of paths) for (const k of kinds) questions.push([p, k]);
  for (let i = questions.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [questions[i], questions[j]] = [questions[j]!, questions[i]!];
  }
  let covering = 0;
  for (const [p, k] of questions) {
    const fresh = compileProtection(policy).protectedBy(p, k);
    assert.is(kept.protectedBy(p, k), fresh, `${p} as ${k ?? 'a file'}`);
    if (fresh !== null && compileProtection(policy).protectedBy(p, 'file') === null) covering++;
  }
  assert.ok(covering > 0, 'some path is protected only as a symlink or gitlink (a folder it covers)');
});

test.run();
