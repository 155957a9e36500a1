// npm run demo works on a fresh build, shows verify-ref eligible then closed, and the real
// remote: output of an accepted and a rejected push, in under 30 seconds.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from './helpers';

test('npm run demo: verify-ref eligible then closed, push accepted then rejected', () => {
  ensureBuilt();
  const started = Date.now();
  const r = spawnSync('node', [join(ROOT, 'scripts', 'demo.mjs')], { encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  const out = r.stdout + r.stderr;
  assert.is(r.status, 0, out);
  assert.ok(Date.now() - started < 30_000);
  assert.match(out, /verdict: eligible[\s\S]*\(exit 0\)[\s\S]*PATH_PROTECTED[\s\S]*\(exit 1\)/);
  assert.match(out, /remote: receipt-gate: push accepted: eligible/);
  assert.match(out, /remote: receipt-gate: push REJECTED: closed[\s\S]*\[remote rejected\] agent\/cheat/);
  assert.match(out, /demo: done/);
});

test.run();
