// receivePush driven directly (no child process) on a real bare repository made with git:
// malformed input, an empty push, the deadline, and a bad clock setting all answer with a
// rejection sentence and the machine line, never a pass.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, makeTemplate, TODAY, type Remote } from './helpers';
import { receivePush } from '../../src/server/receive';
import { remoteLines } from '../../src/report/remote';
import { machineLine } from '../../src/report/machine';
import { gitValue } from '../helpers/git';

let template: Remote;
test.before(() => {
  template = makeTemplate({ install: false });
});
test.after(() => cleanup(template?.root));

function ctx(over: Partial<Parameters<typeof receivePush>[0]> = {}) {
  return { gitdir: template.bare, env: { REMOTE_USER: 'bob' }, today: () => TODAY, ...over };
}

test('a malformed input line rejects the push and names the line', async () => {
  const out = await receivePush(ctx(), 'this is not a ref update\n');
  assert.is(out.accepted, false);
  assert.match(remoteLines(out).join('\n'), /pre-receive input line 1 is not '<old-oid> <new-oid> <ref>'/);
  assert.is(remoteLines(out)[remoteLines(out).length - 1], machineLine(out.result));
});

test('no ref updates: nothing to judge, accepted silently', async () => {
  const out = await receivePush(ctx(), '');
  assert.is(out.accepted, true);
  assert.equal(remoteLines(out), []);
});

test('the deadline passing rejects the push with LIMIT_EXCEEDED (fail closed)', async () => {
  const main = gitValue(template.bare, ['rev-parse', 'main']);
  let calls = 0;
  // The first reading starts the clock; every later one is 10 s on: the budget is gone.
  const now = () => (calls++ === 0 ? 1_000_000 : 1_010_000);
  const out = await receivePush(ctx({ now }), `${main} ${main} refs/heads/feature\n`);
  assert.is(out.accepted, false);
  assert.is(out.result.verdict, 'closed');
  assert.ok(out.result.findings.some((f) => f.code === 'LIMIT_EXCEEDED'), remoteLines(out).join('\n'));
  assert.match(remoteLines(out).join('\n'), /did not finish within its time budget/);
});

test('a bad clock setting rejects the push with the reason', async () => {
  const main = gitValue(template.bare, ['rev-parse', 'main']);
  const out = await receivePush(
    ctx({ today: () => { throw new Error('RECEIPT_GATE_NOW must be a UTC date YYYY-MM-DD, got \'soon\''); } }),
    `${main} ${main} refs/heads/feature\n`,
  );
  assert.is(out.accepted, false);
  assert.match(remoteLines(out).join('\n'), /RECEIPT_GATE_NOW must be a UTC date/);
});

test('a gitdir that is not a repository rejects the push', async () => {
  const main = gitValue(template.bare, ['rev-parse', 'main']);
  const out = await receivePush(ctx({ gitdir: template.root }), `${main} ${main} refs/heads/feature\n`);
  assert.is(out.accepted, false);
  assert.ok(out.result.findings.some((f) => f.code === 'INTERNAL_ERROR'));
});

test.run();
