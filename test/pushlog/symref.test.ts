// A push through a symbolic ref on the server (refs/heads/alias -> refs/heads/main): git moves
// the ref the symbolic one names, and its reference-transaction hook reports both names. The
// gate judged the push as an update of main, so the log records main's move under that
// decision (a `push` entry), never as an update no gate decision covers, and verify-log
// agrees with the ref.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { baseEnv, cleanup, commitAll, push, refOid, write } from '../server/helpers';
import { gitResult, gitValue } from '../helpers/git';
import { freshRepo, logEntries, startServers, verifyLog, type LogServer } from './helpers';

let server: LogServer;

test.before(async () => {
  server = await startServers('pushlog-symref');
});

test.after(() => {
  server?.stop();
  cleanup(server?.root);
});

test('a push through a symbolic ref is logged as the move of the ref it names, under the gate\'s decision', () => {
  const r = freshRepo(server, 'symref');
  const sym = gitResult(r.bare, ['symbolic-ref', 'refs/heads/alias', 'refs/heads/main'], { env: baseEnv() });
  assert.is(sym.status, 0, sym.stderr);
  const before = logEntries(r.bare).length;
  gitValue(r.work, ['checkout', '-q', 'main']);
  write(r.work, 'src/through-alias.py', 'x = 1\n');
  const oid = commitAll(r.work, 'an honest change, pushed to the alias');
  const p = push(r.work, [`file://${r.bare}`, 'HEAD:refs/heads/alias']);
  assert.is(p.status, 0, p.stderr);
  assert.is(refOid(r.bare, 'refs/heads/main'), oid, 'main moved through the alias');
  const entries = logEntries(r.bare);
  assert.is(entries.length, before + 1, 'one entry for the push');
  const last = entries[entries.length - 1]!;
  assert.is(last.kind, 'push');
  assert.equal(
    last.updates.map((u) => [u.ref, u.new, u.verdict]),
    [['refs/heads/main', oid, 'eligible']],
  );
  const v = verifyLog(r.bare, server.pub, '--ref', 'main');
  assert.is(v.status, 0, v.text);
  assert.is(v.verdict, 'eligible', v.text);
});

test('a push through a symbolic ref that names no ref yet creates it, in one batch with a tag, logged under the decision', () => {
  const r = freshRepo(server, 'symref-new');
  const sym = gitResult(r.bare, ['symbolic-ref', 'refs/heads/alias', 'refs/heads/fresh'], { env: baseEnv() });
  assert.is(sym.status, 0, sym.stderr);
  const before = logEntries(r.bare).length;
  gitValue(r.work, ['checkout', '-q', 'main']);
  write(r.work, 'src/fresh.py', 'x = 2\n');
  const oid = commitAll(r.work, 'a new branch, pushed through the alias');
  gitValue(r.work, ['tag', 'v-fresh', oid]);
  const p = push(r.work, [`file://${r.bare}`, 'HEAD:refs/heads/alias', 'refs/tags/v-fresh']);
  assert.is(p.status, 0, p.stderr);
  assert.is(refOid(r.bare, 'refs/heads/fresh'), oid, 'the ref the alias names was created');
  const entries = logEntries(r.bare).slice(before);
  assert.ok(entries.length >= 1, 'the push was logged');
  assert.ok(entries.every((e) => e.kind === 'push'), `every entry is a push entry: ${entries.map((e) => e.kind).join(', ')}`);
  const moved = entries.flatMap((e) => e.updates.map((u) => [u.ref, u.new, u.verdict]));
  assert.equal(moved.sort(), [['refs/heads/fresh', oid, 'eligible'], ['refs/tags/v-fresh', oid, 'eligible']]);
  const v = verifyLog(r.bare, server.pub, '--ref', 'refs/heads/fresh', '--ref', 'refs/tags/v-fresh');
  assert.is(v.status, 0, v.text);
});

test('a push through a chain of symbolic refs (alias -> alias2 -> main) is logged as the move of main, under the decision', () => {
  const r = freshRepo(server, 'symref-chain');
  for (const [from, to] of [['refs/heads/alias2', 'refs/heads/main'], ['refs/heads/alias', 'refs/heads/alias2']]) {
    const sym = gitResult(r.bare, ['symbolic-ref', from!, to!], { env: baseEnv() });
    assert.is(sym.status, 0, sym.stderr);
  }
  const before = logEntries(r.bare).length;
  gitValue(r.work, ['checkout', '-q', 'main']);
  write(r.work, 'src/through-chain.py', 'x = 3\n');
  const oid = commitAll(r.work, 'an honest change, pushed through two aliases');
  const p = push(r.work, [`file://${r.bare}`, 'HEAD:refs/heads/alias']);
  assert.is(p.status, 0, p.stderr);
  assert.is(refOid(r.bare, 'refs/heads/main'), oid, 'main moved through both aliases');
  const entries = logEntries(r.bare).slice(before);
  assert.equal(entries.map((e) => e.kind), ['push']);
  assert.equal(entries[0]!.updates.map((u) => [u.ref, u.new, u.verdict]), [['refs/heads/main', oid, 'eligible']]);
  const v = verifyLog(r.bare, server.pub, '--ref', 'main');
  assert.is(v.status, 0, v.text);
});

test.run();
