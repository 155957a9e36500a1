// compileProtection's answers do not depend on what it was asked before (src/protection.ts): the
// same questions asked again, in any order and for any kind of entry, get the answers of a
// protection compiled afresh for each question; a symlink or gitlink over a protected folder is
// judged as such even after the same path was asked as a file, and the other way round. (It
// guards any answer a compiled protection may come to keep between questions.) With the run's
// path memory on (a push of more than one commit), the answers are the same, and each path is
// matched once for each of the two kinds of entry the answer depends on.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Deadline } from '../../src/deadline';
import { compileProtection, PATH_ANSWERS_KEPT, type PathMemory } from '../../src/protection';
import { parsePolicy } from '../../src/evidence/policy';
import type { EntryKind } from '../../src/git/types';
import { POLICY } from '../helpers/repo';

const parsed = parsePolicy(Buffer.from(JSON.stringify(POLICY)));
if (!parsed.ok) throw new Error(JSON.stringify(parsed.findings));
const policy = parsed.policy;

const paths = ['fixtures', 'fixtures/orders/base.json', 'fixtures/notes.md', 'src/app.py', 'Fixtures/orders', '.receipt-gate.json', 'src/.gitattributes', 'docs/readme.md', 'tools', 'properties'];
const kinds: (EntryKind | undefined)[] = [undefined, 'file', 'exec', 'symlink', 'gitlink', 'tree'];

function shuffled(): [string, EntryKind | undefined][] {
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
  return questions;
}

for (const memory of [undefined, { on: false }, { on: true }] as (PathMemory | undefined)[]) {
  test(`asked again in any order, every answer is the answer of a fresh protection (memory ${memory === undefined ? 'none' : memory.on ? 'on' : 'off'})`, () => {
    const kept = compileProtection(policy, { memory });
    let covering = 0;
    for (const [p, k] of shuffled()) {
      const fresh = compileProtection(policy).protectedBy(p, k);
      assert.is(kept.protectedBy(p, k), fresh, `${p} as ${k ?? 'a file'}`);
      assert.is(kept.protectedByChange({ path: p, change: 'add', after: { kind: k ?? 'file', mode: '100644', oid: '0'.repeat(40) } } as never), compileProtection(policy).protectedByChange({ path: p, change: 'add', after: { kind: k ?? 'file', mode: '100644', oid: '0'.repeat(40) } } as never), `${p} added as ${k ?? 'a file'}`);
      if (fresh !== null && compileProtection(policy).protectedBy(p, 'file') === null) covering++;
    }
    assert.ok(covering > 0, 'some path is protected only as a symlink or gitlink (a folder it covers)');
  });
}

/** A deadline that never passes and counts its ticks: a protection ticks once per path it
 * matches. */
class CountingDeadline extends Deadline {
  ticks = 0;
  constructor() {
    super(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  }
  override tick(): void {
    this.ticks++;
  }
}

test('with the memory on, each path is matched once for a folder-covering entry and once for any other', () => {
  const deadline = new CountingDeadline();
  const memory: PathMemory = { on: true };
  const kept = compileProtection(policy, { deadline, memory });
  for (const [p, k] of shuffled()) kept.protectedBy(p, k);
  // Per path: one match for symlink/gitlink, one for every other kind (undefined, file, exec, tree).
  assert.is(deadline.ticks, paths.length * 2);
  // Off again, every question is matched.
  memory.on = false;
  const before = deadline.ticks;
  for (const [p, k] of shuffled()) kept.protectedBy(p, k);
  assert.is(deadline.ticks - before, paths.length * kinds.length * 3);
});

test('past PATH_ANSWERS_KEPT paths, a path is matched each time it is asked, with the same answer', () => {
  const deadline = new CountingDeadline();
  const kept = compileProtection(policy, { deadline, memory: { on: true } });
  for (let i = 0; i < PATH_ANSWERS_KEPT; i++) kept.protectedBy(`src/m${i}.py`);
  assert.is(deadline.ticks, PATH_ANSWERS_KEPT);
  kept.protectedBy('src/m0.py'); // remembered
  assert.is(deadline.ticks, PATH_ANSWERS_KEPT);
  assert.is(kept.protectedBy('fixtures/orders/base.json'), compileProtection(policy).protectedBy('fixtures/orders/base.json'));
  assert.is(kept.protectedBy('fixtures/orders/base.json'), compileProtection(policy).protectedBy('fixtures/orders/base.json'));
  assert.is(deadline.ticks, PATH_ANSWERS_KEPT + 2, 'a path past the bound is matched each time');
});

test.run();
