// The proc-receive hook creates a push's new refs in one transaction only for names that both
// git's check_refname_format (what `git update-ref` applies) and receive-pack's own check
// (check_refname_format of the name after `refs/`, one level not allowed: "funny refname")
// accept: batchSafeRef must never say yes where either says no. Differential against
// `git check-ref-format`, on seeded names built from the bytes that matter.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { baseEnv } from '../server/helpers';
import { batchSafeRef } from '../../src/pushlog/batch';

const SEED = 20261204;
const PIECES = ['a', 'Z', '0', '.', '..', '/', '//', '@', '@{', '{', '*', '-', '_', '+', '.lock', 'lock', ' ', '\t', '\x01', '\x7f', '~', '^', ':', '?', '[', '\\', '\xc3\xa9', 'heads', 'tags', 'v1.2'];
const tail = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 7 }).map((p) => p.join(''));
const names = fc.tuple(fc.constantFrom('refs/', 'refs/heads/', 'refs/tags/', 'refs/tags/v', '', 'refs'), tail).map(([p, t]) => p + t);

function gitAccepts(list: string[], flags: string): boolean[] {
  const input = Buffer.concat(list.map((n) => Buffer.concat([Buffer.from(n, 'latin1'), Buffer.from([0])])));
  const script = `while IFS= read -r -d '' n; do if git check-ref-format ${flags} "$n" 2>/dev/null; then printf 1; else printf 0; fi; done`;
  const out = execFileSync('bash', ['-c', script], { input, env: baseEnv(), encoding: 'latin1' });
  assert.is(out.length, list.length);
  return [...out].map((c) => c === '1');
}

test('batchSafeRef says yes only where git check-ref-format accepts the name and receive-pack the name after refs/ (seeded)', () => {
  const sample = [...fc.sample(names, { seed: SEED, numRuns: 400 }), 'refs/tags/v1.0', 'refs/heads/feature/x', 'refs/foo', 'refs/tags/a..b', 'refs/tags/x.lock', 'refs/tags/.x', 'refs/tags/x/', 'refs/tags/x.'];
  const whole = gitAccepts(sample, '');
  const after = gitAccepts(sample.map((n) => (n.startsWith('refs/') ? n.slice(5) : '')), '');
  let yes = 0;
  sample.forEach((n, i) => {
    if (!batchSafeRef(n)) return;
    yes++;
    assert.ok(n.startsWith('refs/') && whole[i] && after[i], `batchSafeRef accepted ${JSON.stringify(n)}, which git refuses`);
  });
  // The pattern is not empty: ordinary tag and branch names are batched.
  assert.ok(yes >= 10, `only ${yes} names batched`);
  assert.ok(batchSafeRef('refs/tags/v1.0') && batchSafeRef('refs/heads/feature/x'));
  assert.not.ok(batchSafeRef('refs/foo'), 'receive-pack refuses a name one level below refs/');
});

test.run();
