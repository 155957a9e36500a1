// Pushes into a namespace (GIT_NAMESPACE on the server, gitnamespaces(7)): pre-receive reads
// the names inside the namespace (refs/heads/main), git applies
// refs/namespaces/<ns>/refs/heads/main. The log records the push under the name git applied,
// as the gate's decision (never as an ungated move), and verify-log checks a namespace's
// protected refs as it checks the repository's own.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, commitAll, push, refOid, write } from '../server/helpers';
import { gitValue } from '../helpers/git';
import { codes, freshRepo, logEntries, startServers, verifyLog, type LogServer } from './helpers';

let server: LogServer;

test.before(async () => {
  server = await startServers('pushlog-namespace');
});

test.after(() => {
  server?.stop();
  cleanup(server?.root);
});

test('a push into GIT_NAMESPACE=proj is logged as refs/namespaces/proj/refs/heads/main, gated, and verify-log checks it', () => {
  const r = freshRepo(server, 'namespace');
  const main = refOid(r.bare, 'refs/heads/main')!;
  const ns = 'refs/namespaces/proj/';
  // The namespace starts as a copy of main (an administrator's set-up, outside the log).
  gitValue(r.bare, ['-c', 'core.hooksPath=/nonexistent', 'update-ref', `${ns}refs/heads/main`, main]);
  gitValue(r.bare, ['symbolic-ref', `${ns}HEAD`, `${ns}refs/heads/main`]);
  const receivePack = '--receive-pack=env GIT_NAMESPACE=proj git-receive-pack';

  gitValue(r.work, ['checkout', '-q', 'main']);
  write(r.work, 'src/orders.py', 'def total(orders):\n    return sum(o["amount"] for o in orders)  # ns\n');
  const head = commitAll(r.work, 'main inside proj');
  let p = push(r.work, [receivePack, `file://${r.bare}`, 'main']);
  assert.is(p.status, 0, p.stderr);
  assert.is(refOid(r.bare, `${ns}refs/heads/main`), head);
  assert.is(refOid(r.bare, 'refs/heads/main'), main);
  const entries = logEntries(r.bare);
  const last = entries[entries.length - 1]!;
  assert.is(last.kind, 'push');
  assert.equal(last.updates.map(({ ref, old, new: next, verdict, protected: isProtected }) => ({ ref, old, new: next, verdict, protected: isProtected })), [
    { ref: `${ns}refs/heads/main`, old: main, new: head, verdict: 'eligible', protected: true },
  ]);

  // verify-log checks the namespace's main (protected by the policy): its move since the
  // set-up above has no entry, the push does.
  let v = verifyLog(r.bare, server.pub, '--every-signature');
  assert.equal(codes(v), ['LOG_GAP'], v.text);
  assert.is(v.findings[0]!.ref, `${ns}refs/heads/main`);
  assert.match(v.findings[0]!.message, /moved from \(absent\)/);
  v = verifyLog(r.bare, server.pub, '--ref', 'main');
  assert.is(v.status, 0, v.text);

  // A protected-path change pushed into the namespace is judged there, and refused.
  write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": 1}]}\n');
  const cheat = commitAll(r.work, 'edit a fixture inside proj');
  p = push(r.work, [receivePack, `file://${r.bare}`, 'main']);
  assert.is.not(p.status, 0, p.stderr);
  assert.is(refOid(r.bare, `${ns}refs/heads/main`), head);
  assert.is(logEntries(r.bare).length, entries.length);
  const audit = readFileSync(join(r.bare, 'receipt-gate', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const rejected = audit.filter((x) => x.event === 'rejected');
  assert.equal(rejected.map((x) => x.updates.map((u: { ref: string; new: string }) => `${u.ref} ${u.new}`)), [[`${ns}refs/heads/main ${cheat}`]]);
  assert.ok(rejected[0].updates[0].findings.includes('PATH_PROTECTED'), JSON.stringify(rejected));
});

test.run();
