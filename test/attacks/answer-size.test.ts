// Answers are bounded in size whatever the input (docs/contract.md §6 Time): a pre-receive line
// with a 10 MB ref name (git check-ref-format accepts it; only the file system refuses it), the
// same name with a byte git refuses, and 3,000 updates with 1,000-character names, fed to the
// installed hook as git runs it (cwd the bare repository, GIT_DIR=.). Each answer stays under
// ANSWER_MAX bytes, every line under LINE_MAX, the machine line last and parseable JSON, names
// shortened with their length, and what was left out counted.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { baseEnv, cleanup, guardedRemote, makeTemplate, ZERO, type Remote } from '../server/helpers';
import { gitValue } from '../helpers/git';

/** The bound this test holds the hook to: the remote: text (a screen of lines of at most
 * LINE_MAX characters) plus the machine line (at most 64 KiB). */
const LINE_MAX = 1024;
const MACHINE_MAX = 64 * 1024;
const ANSWER_MAX = 40 * LINE_MAX + MACHINE_MAX;

let template: Remote;
let r: Remote;
let main = '';
test.before(() => {
  template = makeTemplate();
  r = guardedRemote(template, 'answer-size');
  main = gitValue(r.bare, ['rev-parse', 'main']);
});
test.after(() => {
  cleanup(r?.root);
  cleanup(template?.root);
});

interface Answer {
  status: number | null;
  stderr: string;
  lines: string[];
  machine: {
    verdict: string;
    blocked_paths: string[];
    findings: { code: string; ref: string | null; ref_length?: number; path: string | null }[];
    recommended_action: string;
    omitted?: { findings?: number; blocked_paths?: number; contexts?: number };
  };
}

/** The installed hook run as git runs it, with room for any answer (a bound is what is tested). */
function runHook(input: Buffer, env: Record<string, string> = {}): Answer {
  const res = spawnSync(join(r.bare, 'hooks', 'pre-receive'), [], { cwd: r.bare, env: baseEnv({ GIT_DIR: '.', REMOTE_USER: 'bob', ...env }), input, encoding: 'utf8', maxBuffer: 1 << 30 });
  assert.is(res.error, undefined);
  const lines = res.stderr.replace(/\n$/, '').split('\n');
  const m = /^(?:GL-HOOK-ERR: )?receipt-gate: (\{.*\})$/.exec(lines[lines.length - 1]!);
  assert.ok(m, `the machine line is last: ${lines[lines.length - 1]!.slice(0, 300)}`);
  return { status: res.status, stderr: res.stderr, lines, machine: JSON.parse(m![1]!) };
}

function assertBounded(a: Answer, label: string): void {
  assert.ok(Buffer.byteLength(a.stderr) <= ANSWER_MAX, `${label}: the answer is ${Buffer.byteLength(a.stderr)} bytes, over ${ANSWER_MAX}`);
  const machineLine = a.lines[a.lines.length - 1]!;
  assert.ok(machineLine.length <= MACHINE_MAX, `${label}: the machine line is ${machineLine.length} characters`);
  for (const line of a.lines.slice(0, -1)) assert.ok(line.length <= LINE_MAX, `${label}: a line of ${line.length} characters: ${line.slice(0, 200)}`);
}

test('a 10 MB ref name: the answer is bounded, the name shortened with its length in text and in the machine line', () => {
  const name = `refs/heads/${'a'.repeat(10_000_000)}`;
  for (const env of [{}, { RECEIPT_GATE_NO_SNAPSHOT: '1' }, { GL_PROTOCOL: 'ssh' }] as Record<string, string>[]) {
    const a = runHook(Buffer.from(`${ZERO} ${main} ${name}\n`), env);
    const label = JSON.stringify(env);
    assert.is(a.status, 1, label);
    assertBounded(a, label);
    assert.is(a.machine.verdict, 'closed', label);
    // The name is shortened, and says how long it was.
    assert.match(a.stderr, /refs\/heads\/a{20,}\.\.\. \(10000011 characters\)/, label);
    assert.ok(a.machine.findings.length > 0, label);
    for (const f of a.machine.findings) {
      assert.is(f.ref_length, name.length, `${label}: ${JSON.stringify(f).slice(0, 300)}`);
      assert.ok(name.startsWith(f.ref!) && f.ref!.length < 1024, label);
    }
  }
  assert.is(gitValue(r.bare, ['rev-parse', 'main']), main);
});

test('a 10 MB ref name git would refuse (a ".." at its end): bounded, the name shortened', () => {
  const a = runHook(Buffer.from(`${ZERO} ${main} refs/heads/${'b'.repeat(10_000_000)}..\n`));
  assert.is(a.status, 1);
  assertBounded(a, 'refused name');
  assert.match(a.stderr, /which git would refuse/);
  assert.match(a.stderr, /\.\.\. \(10000013 characters\)/);
});

test('3,000 updates with 1,000-character names: bounded, the findings left out of the machine line counted', () => {
  const input = Array.from({ length: 3000 }, (_, i) => `${ZERO} ${main} refs/heads/${String(i).padStart(4, '0')}/${'c'.repeat(1000)}\n`).join('');
  const a = runHook(Buffer.from(input), { RECEIPT_GATE_HARD_TIMEOUT: '600' });
  assertBounded(a, '3,000 refs');
  const total = a.machine.findings.length + (a.machine.omitted?.findings ?? 0);
  assert.ok(a.machine.findings.length < 3000, `${a.machine.findings.length} findings in the machine line`);
  assert.ok((a.machine.omitted?.findings ?? 0) > 0, JSON.stringify(a.machine.omitted));
  // Every update has its finding (the name is too long for the file system: INTERNAL_ERROR, or
  // the budget ran out: LIMIT_EXCEEDED); those listed and those counted add up.
  assert.is(total, 3000);
});

test.run();
