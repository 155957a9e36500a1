// Progress for long commands: one line rewritten in place on a terminal, nothing at all when
// stderr is not a terminal (CI logs, hooks, pipes) or the terminal cannot rewrite a line.
// And the client hooks' outcome text: the terminal form, then the machine line last.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { clientOutcomeText, machineLine, progress } from '../../src/report/index';
import type { Finding } from '../../src/findings';

function capture(opts: { isTTY: boolean; env?: NodeJS.ProcessEnv; columns?: number }) {
  let out = '';
  const p = progress({ write: (t) => (out += t), isTTY: opts.isTTY, env: opts.env ?? {}, columns: opts.columns ?? 80 });
  return { p, out: () => out };
}

test('a terminal gets one line, rewritten and cleared; its text cannot break the line', () => {
  const c = capture({ isTTY: true });
  c.p.step('grading: properties');
  c.p.step('fixture fixtures/a\nb.json');
  c.p.done();
  assert.is(c.out(), '\r\u001b[2Kgrading: properties\r\u001b[2Kfixture fixtures/a\\nb.json\r\u001b[2K');
  const narrow = capture({ isTTY: true, columns: 24 });
  narrow.p.step('x'.repeat(100));
  assert.is(narrow.out(), `\r\u001b[2K${'x'.repeat(20)}...`);
});

test('no terminal, TERM=dumb or CI: nothing is written', () => {
  for (const c of [capture({ isTTY: false }), capture({ isTTY: true, env: { TERM: 'dumb' } }), capture({ isTTY: true, env: { CI: 'true' } })]) {
    c.p.step('working');
    c.p.done();
    assert.is(c.out(), '');
  }
});

test('clientOutcomeText: header, findings, verdict line, then the machine line', () => {
  const f: Finding = { code: 'PATH_PROTECTED', severity: 'closed', ref: 'refs/heads/x', commit: 'a'.repeat(40), path: 'fixtures/a.json', message: 'adds a protected path', fix: 'ask an owner' };
  const result = { verdict: 'closed' as const, findings: [f], policy: { owners: ['alice'] } };
  const lines = clientOutcomeText(result, 'receipt-gate pre-push').trimEnd().split('\n');
  assert.is(lines[0], 'receipt-gate pre-push');
  assert.is(lines[1], '  closed PATH_PROTECTED x aaaaaaa fixtures/a.json: adds a protected path. Fix: ask an owner.');
  assert.match(lines[2]!, /^verdict: closed \(1 closing/);
  assert.is(lines[3], machineLine(result));
});

test.run();
