// What a platform engineer meets adopting the push log from docs/push-log.md: the docs' first
// command (keygen into a folder that does not exist yet) works and says where the server's key
// belongs; verify-log speaks of refs and the log, never of a patch, in every human form; the
// docs name the entry's fields as the entries spell them.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, commitAll, installHook, makeTemplate, push, refOid, ROOT, write, type Remote } from '../server/helpers';
import { execCli, logEntries } from './helpers';
import { gitValue } from '../helpers/git';

let r: Remote;
let keys: string;

test.before(() => {
  r = makeTemplate({ install: false });
  keys = join(r.root, 'etc', 'receipt-gate');
});

test.after(() => cleanup(r?.root));

test("keygen --log --out DIR/log creates DIR (0700) and says the key stays on the git server, not in a CI's secrets", () => {
  const k = execCli(['keygen', '--log', '--out', join(keys, 'log')]);
  assert.is(k.status, 0, k.stderr);
  assert.is(statSync(keys).mode & 0o777, 0o700);
  assert.is(statSync(join(keys, 'log.key')).mode & 0o777, 0o600);
  assert.ok(statSync(join(keys, 'log.pub')).isFile());
  assert.not.match(k.stdout, /CI secret|secret of the CI|CI's secret/i);
  assert.match(k.stdout, /keep it on the git server only, outside every repository/);
  assert.match(k.stdout, /install\.sh --server --log-key /);
  assert.match(k.stdout, /verify-log --pub/);
  // A receipt key is still the CI's secret, and its message points to --log for the server's.
  const ci = execCli(['keygen', '--out', join(r.root, 'ci', 'nested', 'ci')]);
  assert.is(ci.status, 0, ci.stderr);
  assert.match(ci.stdout, /keep it as a CI secret/);
  assert.match(ci.stdout, /keygen --log/);
});

test('verify-log: text, GitHub and JUnit speak of the ref and the log, never of a patch, closed or eligible', () => {
  installHook(r.bare, '--log-key', join(keys, 'log.key'));
  const pub = join(keys, 'log.pub');
  const forms = () => ['text', 'github', 'junit'].map((format) => execCli(['verify-log', '--repo', r.bare, '--pub', pub, '--format', format]));
  for (const out of forms()) {
    assert.is(out.status, 0, out.stdout + out.stderr);
    assert.not.match(out.stdout, /patch/i);
    assert.match(out.stdout, /every move of each checked ref is a signed entry of the push log that the gate allowed/);
  }
  gitValue(r.work, ['checkout', '-q', 'main']);
  write(r.work, 'src/orders.py', 'def total(orders):\n    return 0\n');
  const m1 = commitAll(r.work, 'main 1');
  assert.is(push(r.work, ['origin', 'main']).status, 0);
  gitValue(r.bare, ['-c', 'core.hooksPath=/dev/null', 'update-ref', 'refs/heads/main', refOid(r.bare, 'refs/heads/main~1')!, m1]);
  for (const out of forms()) {
    assert.is(out.status, 1, out.stdout + out.stderr);
    assert.not.match(out.stdout, /patch/i);
    assert.match(out.stdout, /the push log does not account for every move: the ref may not be trusted/);
  }
});

test("docs/push-log.md: the entry's per-update finding codes are `findings`, as the entries hold them; its first command is keygen --log", () => {
  const docs = readFileSync(join(ROOT, 'docs', 'push-log.md'), 'utf8');
  const row = docs.split('\n').find((l) => l.startsWith('| `updates` |'))!;
  assert.match(row, /`findings`/);
  assert.not.match(row, /`codes`/);
  const entry = logEntries(r.bare).find((e) => e.kind === 'push')!;
  assert.ok(Array.isArray(entry.updates[0]!.findings), JSON.stringify(entry));
  assert.not.ok('codes' in entry.updates[0]!);
  assert.match(docs, /receipt-gate keygen --log --out \/etc\/receipt-gate\/log/);
});

test.run();
