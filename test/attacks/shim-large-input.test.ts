// The hook shim under a large push: 6,000 refs of distinct commits through a real `git push`
// into the installed hook (with its startup snapshot, and with a chained hook that must get the
// same stdin), and one 10 MB pre-receive line fed to the installed hook as git runs it. The
// shim copies neither the input nor the answer into the shell: the answer arrives whole, the
// machine line last, and the push lands or not as the gate decided.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, cleanup, guardedRemote, machine, makeTemplate, push, ZERO, type PushResult, type Remote } from '../server/helpers';
import { gitValue } from '../helpers/git';

const REFS = 6000;
const BOB = { REMOTE_USER: 'bob' };

let template: Remote;
let r: Remote;
/** The oid of each refs/heads/many/NNNN in the work clone, in name order. */
let tips: string[] = [];

/** Pushes of 6,000 refs take seconds of the gate's time on a busy machine: the policy's
 * deadline and the hook's hard timeout are raised here, so that what is tested is the shim's
 * plumbing, not the gate's speed (bench/run.mjs measures that). */
const SLOW = { RECEIPT_GATE_HARD_TIMEOUT: '1200' };

test.before(() => {
  template = makeTemplate();
  // An owner raises limits.timeoutMs on main (the policy comes from the base).
  const policyFile = join(template.work, '.receipt-gate.json');
  const policy = JSON.parse(readFileSync(policyFile, 'utf8')) as { limits: { timeoutMs: number } };
  policy.limits.timeoutMs = 1_200_000;
  writeFileSync(policyFile, `${JSON.stringify(policy, null, 2)}\n`);
  gitValue(template.work, ['commit', '-qam', 'policy: a longer deadline for the large pushes']);
  const raised = push(template.work, ['origin', 'main'], { GITHUB_USER_LOGIN: 'alice' });
  assert.is(raised.status, 0, raised.stderr);
  r = guardedRemote(template, 'shim-large');
  assert.ok(existsSync(join(r.bare, 'hooks', 'receipt-gate.blob')), 'the install left a startup snapshot');
  // 6,000 branches, each one commit on main that adds its own file (git fast-import).
  const main = gitValue(r.work, ['rev-parse', 'main']);
  const stream: string[] = [];
  for (let i = 0; i < REFS; i++) {
    const name = `many/${String(i).padStart(4, '0')}`;
    const body = `n = ${i}\n`;
    stream.push(
      `commit refs/heads/${name}`,
      `committer Dev <dev@example.com> ${1788000000 + i} +0000`,
      `data ${`ref ${i}\n`.length}`,
      `ref ${i}`,
      `from ${main}`,
      `M 100644 inline src/many/m${i}.py`,
      `data ${body.length}`,
      body,
    );
  }
  gitValue(r.work, ['fast-import', '--quiet'], { input: `${stream.join('\n')}\n` });
  tips = gitValue(r.work, ['for-each-ref', '--format=%(objectname)', 'refs/heads/many/']).split('\n');
  assert.is(new Set(tips).size, REFS, 'distinct commits');
});
test.after(() => {
  cleanup(r?.root);
  cleanup(template?.root);
});

/** `git push origin REFSPEC` as bob (the harness's push, with room for 6,000 refs' output). */
function pushBig(work: string, refspec: string): PushResult {
  const res = spawnSync('git', ['push', 'origin', refspec], { cwd: work, env: baseEnv({ ...BOB, ...SLOW }), encoding: 'utf8', maxBuffer: 1 << 28 });
  assert.is(res.error, undefined);
  const remote = res.stderr
    .split('\n')
    .filter((l) => l.startsWith('remote: '))
    .map((l) => l.slice('remote: '.length).replace(/\s+$/, ''));
  return { status: res.status ?? -1, stderr: res.stderr, remote };
}

function landed(bare: string): number {
  const out = gitValue(bare, ['for-each-ref', '--format=%(refname)', 'refs/heads/many/']);
  return out === '' ? 0 : out.split('\n').length;
}

function assertMachineLast(result: PushResult): void {
  const last = result.remote[result.remote.length - 1] ?? '';
  assert.match(last, /^receipt-gate: \{"verdict":/, `the machine line is the last line:\n${result.stderr.slice(-2000)}`);
}

test('6,000 refs of distinct commits: accepted, every ref named in the answer, the machine line last; the chained hook gets the same stdin', () => {
  const hooks = join(r.bare, 'hooks');
  const seen = join(r.root, 'chained-stdin');
  writeFileSync(join(hooks, 'pre-receive.receipt-gate-chained'), `#!/bin/sh\ncat > '${seen}'\necho "chained hook ran"\n`, { mode: 0o755 });
  const result = pushBig(r.work, 'refs/heads/many/*:refs/heads/many/*');
  assert.is(result.status, 0, result.stderr.slice(-3000));
  assert.is(landed(r.bare), REFS);
  assert.match(result.remote[0]!, new RegExp(`^receipt-gate: push accepted: eligible \\(${REFS} refs, ${REFS} new commits, pusher bob\\)`));
  // The machine line came whole, right before the chained hook's: bounded (64 KiB, docs/contract.md
  // §6 Time), so it lists the first findings and counts the others; together they name every ref.
  const m = /^receipt-gate: (\{.*\})$/.exec(result.remote[result.remote.length - 2]!);
  assert.ok(m, result.stderr.slice(-2000));
  assert.ok(m![0].length <= 64 * 1024, `the machine line is ${m![0].length} characters`);
  const answer = JSON.parse(m![1]!) as { verdict: string; findings: { ref: string }[]; omitted?: { findings?: number } };
  assert.is(answer.verdict, 'eligible');
  assert.ok(answer.findings.length > 0);
  assert.is(new Set(answer.findings.map((f) => f.ref)).size + (answer.omitted?.findings ?? 0), REFS);
  // The chained hook ran after the gate, on the stdin git gave the hook: one line per ref.
  assert.is(result.remote[result.remote.length - 1], 'chained hook ran');
  const lines = readFileSync(seen, 'utf8').split('\n');
  assert.is(lines.pop(), '');
  const expected = tips.map((tip, i) => `${ZERO} ${tip} refs/heads/many/${String(i).padStart(4, '0')}`);
  assert.equal([...lines].sort(), expected.sort());
  assert.equal(readdirSync(r.root).filter((f) => f.startsWith('receipt-gate-push.')), [], 'no spool file left');
});

test('6,000 refs, one of them editing a fixture: the whole push is rejected, the machine line last', () => {
  const r2 = guardedRemote(template, 'shim-large-reject');
  try {
    gitValue(r2.work, ['fetch', '-q', r.work, 'refs/heads/many/*:refs/heads/many/*']);
    gitValue(r2.work, ['checkout', '-q', '-b', 'many/cheat', 'main']);
    writeFileSync(join(r2.work, 'fixtures', 'orders', 'base.json'), '{"orders": ["cheat"]}\n');
    gitValue(r2.work, ['commit', '-qam', 'cheat']);
    const result = pushBig(r2.work, 'refs/heads/many/*:refs/heads/many/*');
    assert.is.not(result.status, 0);
    assertMachineLast(result);
    const m = machine(result);
    assert.is(m.verdict, 'closed');
    assert.equal(m.blocked_paths, ['fixtures/orders/base.json'], result.remote.filter((l) => !l.includes('{')).join('\n').slice(0, 3000));
    assert.ok(result.remote.some((l) => /refs\/heads\/many\/cheat/.test(l) && /PATH_PROTECTED|fixtures\/orders\/base\.json/.test(l)) || /PATH_PROTECTED/.test(result.remote.join('\n')));
    assert.is(landed(r2.bare), 0, 'no ref of a rejected push lands');
  } finally {
    cleanup(r2.root);
  }
});

test('600 protected paths in one rejection: the answer arrives whole, every path in the machine line', () => {
  const r3 = guardedRemote(template, 'shim-large-600');
  try {
    gitValue(r3.work, ['checkout', '-q', '-b', 'feature/600', 'main']);
    const paths: string[] = [];
    for (let i = 0; i < 600; i++) {
      const p = `fixtures/orders/case-${String(i).padStart(3, '0')}.json`;
      paths.push(p);
      writeFileSync(join(r3.work, ...p.split('/')), `{"case": ${i}}\n`);
    }
    gitValue(r3.work, ['add', '-A']);
    gitValue(r3.work, ['commit', '-qm', '600 fixtures']);
    const result = push(r3.work, ['origin', 'feature/600'], BOB);
    assert.is.not(result.status, 0);
    assertMachineLast(result);
    const m = machine(result);
    assert.equal([...m.blocked_paths].sort(), paths);
    // What node wrote is what the pusher got: the same bundle, run by hand on the same question
    // in a copy of the repository that holds the pushed objects under no ref, answers the same.
    const copy = join(r3.root, 'copy.git');
    cpSync(r3.bare, copy, { recursive: true });
    gitValue(copy, ['fetch', '-q', r3.work, 'feature/600']);
    const direct = spawnSync('node', [join(copy, 'hooks', 'receipt-gate.cjs'), 'pre-receive'], {
      cwd: copy,
      env: baseEnv({ ...BOB, GIT_DIR: '.' }),
      input: `${ZERO} ${gitValue(r3.work, ['rev-parse', 'HEAD'])} refs/heads/feature/600\n`,
      encoding: 'utf8',
      maxBuffer: 1 << 26,
    });
    assert.is(direct.status, 1, direct.stderr);
    const expected = direct.stderr.replace(/\n$/, '').split('\n').map((l) => l.replace(/\s+$/, ''));
    assert.equal(result.remote, expected);
  } finally {
    cleanup(r3.root);
  }
});

/** The installed hook run as git runs it: in the repository, GIT_DIR=., `input` on stdin. */
function runHook(bare: string, input: Buffer, env: Record<string, string> = {}): { status: number | null; stderr: string } {
  const res = spawnSync(join(bare, 'hooks', 'pre-receive'), [], { cwd: bare, env: baseEnv({ GIT_DIR: '.', ...BOB, ...env }), input, encoding: 'utf8', maxBuffer: 1 << 28 });
  return { status: res.status, stderr: res.stderr };
}

test('one 10 MB pre-receive line: rejected, with the machine line as the last line (snapshot, plain bundle, chained hook)', () => {
  const r4 = guardedRemote(template, 'shim-large-line');
  try {
    const main = gitValue(r4.bare, ['rev-parse', 'main']);
    const inputs = [
      Buffer.from(`${ZERO} ${main} refs/heads/${'a'.repeat(10_000_000)}\n`),
      Buffer.from(`${'x'.repeat(10_000_000)}`), // no newline, no fields
    ];
    const chained = join(r4.bare, 'hooks', 'pre-receive.receipt-gate-chained');
    writeFileSync(chained, `#!/bin/sh\necho "the chained hook must not run" >&2\nexit 0\n`, { mode: 0o755 });
    for (const input of inputs) {
      const envs: Record<string, string>[] = [{}, { RECEIPT_GATE_NO_SNAPSHOT: '1' }, { GL_PROTOCOL: 'ssh' }];
      for (const env of envs) {
        const res = runHook(r4.bare, input, env);
        const label = `${input.length} bytes ${JSON.stringify(env)}`;
        assert.is(res.status, 1, label);
        const lines = res.stderr.replace(/\n$/, '').split('\n');
        const m = /^(?:GL-HOOK-ERR: )?receipt-gate: (\{.*\})$/.exec(lines[lines.length - 1]!);
        assert.ok(m, `${label}: the machine line is last: ${lines[lines.length - 1]!.slice(0, 300)}`);
        assert.is(JSON.parse(m![1]!).verdict, 'closed', label);
        assert.not.match(res.stderr, /the chained hook must not run|startup snapshot receipt-gate\.blob could not be used/, label);
      }
    }
    assert.is(gitValue(r4.bare, ['rev-parse', 'main']), main);
    assert.equal(readdirSync(r4.bare).filter((f) => f.startsWith('receipt-gate-push.')), [], 'no spool file left');
  } finally {
    cleanup(r4.root);
  }
});

test.run();
