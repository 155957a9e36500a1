// pre-receive lines git never writes (`git push` cannot produce them: a crafted client or a
// broken wrapper can) are fed to the installed hook as git runs it (cwd the bare repository,
// GIT_DIR=.). Each closes the push with a sentence naming the line and the machine line; a
// line git would write is accepted, so the refusals are the lines' own.

import { suite } from 'uvu';
import * as assert from 'uvu/assert';
import { remotePerTest, ZERO, type Remote } from '../server/helpers';
import { assertHookRefused, assertUnchanged, runBundle, runHook, serverState } from './refs-harness';
import { gitValue } from '../helpers/git';

const lines = suite('pre-receive lines');
let r: Remote;
let main = '';
remotePerTest(lines, 'attack-stdin', (remote) => {
  r = remote;
  main = gitValue(r.bare, ['rev-parse', 'main']);
});

const BOB = { REMOTE_USER: 'bob' };

lines('a line git would write is accepted (control)', () => {
  const ok = runHook(r.bare, `${main} ${main} refs/heads/main\n${ZERO} ${main} refs/heads/feature/ok\n`, BOB);
  assert.is(ok.status, 0, ok.stderr);
});

const MALFORMED: [string, Buffer, RegExp][] = [
  ['a missing field', Buffer.from(`${'0'.repeat(40)} refs/heads/x\n`), /line 1 .*has 2 fields, not 3/],
  ['an extra field', Buffer.from(`${'0'.repeat(40)} MAIN refs/heads/x extra\n`), /line 1 .*has 4 space-separated fields/],
  ['an upper-case oid', Buffer.from(`${'0'.repeat(40)} ${'A'.repeat(40)} refs/heads/x\n`), /new object id is not 40 lower-case hex digits/],
  ['a short oid', Buffer.from(`${'0'.repeat(39)} MAIN refs/heads/x\n`), /old object id is not 40 lower-case hex digits/],
  ['a CR before the LF', Buffer.from(`${'0'.repeat(40)} MAIN refs/heads/x\r\n`), /names the ref "refs\/heads\/x\\r", which git would refuse/],
  ['an empty line between updates', Buffer.from(`${'0'.repeat(40)} MAIN refs/heads/x\n\n${'0'.repeat(40)} MAIN refs/heads/y\n`), /line 2 .*the line is empty/],
];

for (const [what, input, message] of MALFORMED) {
  lines(`${what}: closed with the line named`, () => {
    const text = Buffer.from(input.toString('latin1').replace(/MAIN/g, main), 'latin1');
    const before = serverState(r.bare);
    const m = assertHookRefused(runHook(r.bare, text, BOB), message);
    assert.ok(m.findings.some((f) => f.code === 'INTERNAL_ERROR'), JSON.stringify(m));
    assertUnchanged(r.bare, before, what);
  });
}

lines('a NUL byte in a line: closed with the line named', () => {
  // git never writes a NUL to pre-receive (a ref name is a C string). The shim passes stdin's
  // bytes to node untouched, so the installed hook sees the NUL; the bundle's entry is also run
  // as the shim runs it.
  const before = serverState(r.bare);
  for (const line of [`${ZERO} ${main} refs/heads/a\0refs/heads/main\n`, `${ZERO}\0${main} refs/heads/x\n`, `${ZERO} ${main} refs/heads/x\0\n`]) {
    for (const run of [runHook, runBundle]) {
      const m = assertHookRefused(run(r.bare, Buffer.from(line, 'latin1'), BOB), /line 1 is not '<old-oid> <new-oid> <ref>': the line holds a NUL byte/);
      assert.ok(m.findings.some((f) => f.code === 'INTERNAL_ERROR'), JSON.stringify(m));
    }
  }
  assertUnchanged(r.bare, before, 'NUL');
});

const REFUSED_NAMES = ['refs/heads/a..b', 'refs/heads/x.lock', 'refs/heads/@{1}', 'refs/heads/.hidden', 'refs/heads/a b', 'refs/heads/tilde~1', 'refs/heads/', 'refs/heads//x', 'refs/heads/end.', 'refs/heads/star*', 'refs/heads/a\\b', 'refs/heads/\x7f', 'main', 'HEADS', 'refs/heads/x\x1b[2J'];

lines('a name git check-ref-format refuses closes the push, quoted as git quotes it', () => {
  for (const name of REFUSED_NAMES) {
    const before = serverState(r.bare);
    const line = name.includes(' ') ? `${ZERO} ${main} ${name}\n` : `${ZERO} ${main} ${name}\n`;
    const result = runHook(r.bare, Buffer.from(line, 'latin1'), BOB);
    const pattern = name.includes(' ') ? /space-separated fields/ : /which git would refuse/;
    assertHookRefused(result, pattern);
    assert.not.match(result.stderr, /\x1b/, 'no byte of the name reaches the terminal raw');
    assertUnchanged(r.bare, before, JSON.stringify(name));
  }
});

lines('every update of a push with one malformed line is refused, valid ones included', () => {
  const result = runHook(r.bare, `${ZERO} ${main} refs/heads/feature/fine\n${ZERO} ${main} refs/heads/bad..name\n`, BOB);
  assertHookRefused(result, /line 2 names the ref refs\/heads\/bad\.\.name, which git would refuse/);
});

lines.run();
