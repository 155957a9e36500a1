// Attack: commit-date skew against ancestry. Ancestry is exact whatever the commit dates say (docs/contract.md §6 Ancestry): a fast-forward whose
// committer clock is hours behind main is a fast-forward; commits dated before their parents
// are still new. Real pushes into a bare repository with the installed hook.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { assertRejected, commitAll, machine, push, refOid, type Remote, remotePerTest, write } from '../server/helpers';
import { gitValue } from '../helpers/git';

const BOB = { REMOTE_USER: 'bob' };

let r: Remote;
remotePerTest(test, 'skew', (remote) => {
  r = remote;
});

function dated(epochSeconds: number): Record<string, string> {
  const date = `@${epochSeconds} +0000`;
  return { GIT_COMMITTER_DATE: date, GIT_AUTHOR_DATE: date };
}

function tipTime(): number {
  return Number(gitValue(r.work, ['log', '-1', '--format=%ct']));
}

test('a fast-forward of main dated two hours before main is a fast-forward', () => {
  const before = tipTime() - 2 * 3600;
  write(r.work, 'src/a.py', 'a = 1\n');
  const head = commitAll(r.work, 'honest, with a slow clock', dated(before));
  const result = push(r.work, ['origin', 'main'], BOB);
  assert.is(result.status, 0, result.stderr);
  assert.is(refOid(r.bare, 'refs/heads/main'), head);
});

test('a long branch dated days before its parent: every commit is new, a fixture edit deep in it is found', () => {
  const start = tipTime() - 4 * 86400;
  gitValue(r.work, ['checkout', '-q', '-b', 'long']);
  let n = 0;
  for (; n < 30; n++) {
    if (n === 3) write(r.work, 'fixtures/orders/base.json', '{"orders": [{"amount": -1}]}\n');
    else if (n === 4) write(r.work, 'fixtures/orders/base.json', '{"orders": []}\n');
    else write(r.work, `src/f${n}.py`, `x = ${n}\n`);
    commitAll(r.work, `c${n}`, dated(start - n * 60));
  }
  const result = push(r.work, ['origin', 'long'], BOB);
  assert.is.not(result.status, 0, result.stderr);
  const m = machine(result);
  assert.ok(m.findings.some((f) => f.code === 'PATH_PROTECTED' && f.path === 'fixtures/orders/base.json'), result.stderr);
  assert.match(result.stderr, /30 new commits/);
  assert.is(m.verdict, 'closed');
  assert.is(refOid(r.bare, 'refs/heads/long'), null, 'the server is unchanged');
  // The same branch onto main: a fast-forward whatever the dates, and still closed.
  const onMain = push(r.work, ['origin', 'long:main'], BOB);
  assertRejected(onMain, 'PATH_PROTECTED', 'fixtures/orders/base.json');
  assert.not.ok(machine(onMain).findings.some((f) => f.code === 'REF_PROTECTED'), 'not read as a rewrite');
  assert.is(refOid(r.bare, 'refs/heads/main'), gitValue(r.work, ['rev-parse', 'origin/main']));
});

test('a rewind of main dated after main is still a rewrite', () => {
  const future = tipTime() + 86400;
  write(r.work, 'src/a.py', 'a = 1\n');
  commitAll(r.work, 'a');
  assert.is(push(r.work, ['origin', 'main'], { REMOTE_USER: 'alice' }).status, 0);
  const tip = refOid(r.bare, 'refs/heads/main');
  gitValue(r.work, ['reset', '-q', '--hard', 'HEAD~1']);
  write(r.work, 'src/b.py', 'b = 1\n');
  commitAll(r.work, 'b, dated a day after main', dated(future));
  assertRejected(push(r.work, ['--force', 'origin', 'main'], BOB), 'REF_PROTECTED');
  assert.is(refOid(r.bare, 'refs/heads/main'), tip);
});

test('a fast-forward of 300 commits, each dated before its parent, is accepted on main', () => {
  const start = tipTime() - 4 * 86400;
  for (let n = 0; n < 300; n++) {
    write(r.work, 'src/counter.py', `n = ${n}\n`);
    commitAll(r.work, `step ${n}`, dated(start - n * 600));
  }
  const result = push(r.work, ['origin', 'main'], BOB);
  assert.is(result.status, 0, result.stderr);
});

test.run();
