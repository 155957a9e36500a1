// The remote: text of a push decision: verdict first, then per ref and per finding the ref,
// short commit, path, rule and fix; one screen at most, a summary line per repeated rule, and
// the machine line last.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import type { GateResult, RefResult } from '../../src/results';
import type { Finding, FindingCode, Severity } from '../../src/findings';
import { machineLine } from '../../src/report/machine';
import { verdictOf } from '../../src/verdict';
import { remoteAnswer, remoteText, type MessageOptions } from '../../src/report/remote';
import { decide } from '../../src/server/decide';

/** The answer to a push judged as `r`: decided (src/server/decide.ts), then printed. */
const decidePush = (r: GateResult, options?: MessageOptions) => remoteAnswer(decide(r), options);

const OLD = '1'.repeat(40);
const NEW = '2'.repeat(40);

function result(findings: Finding[], opts: { protectedRef?: boolean; ref?: string } = {}): GateResult {
  const ref = opts.ref ?? 'refs/heads/feature';
  const refs: RefResult[] = [
    {
      update: { old: OLD, new: NEW, ref },
      isProtectedRef: opts.protectedRef ?? false,
      verdict: verdictOf(findings),
      findings,
      identities: { epoch_id: null, generator_sha256: null, manifest_sha256: null, freeze_file_sha256: null, witnesses: {} },
      newCommits: [NEW],
      evidence: null,
    },
  ];
  return { unguarded: false, policy: null, identity: 'bob', refs, findings, verdict: verdictOf(findings) };
}

function pathFinding(path: string, code: FindingCode = 'PATH_PROTECTED', severity: Severity = 'closed'): Finding {
  return {
    code,
    severity,
    ref: 'refs/heads/feature',
    commit: NEW,
    path,
    message: `changes a protected path (fixtures/**) as bob, who is not an owner`,
    fix: 'fixtures/** may only be changed by: alice, release-bot',
  };
}

test('a typical rejection names ref, short commit, path, rule and what to do, then the machine line', () => {
  const r = result([pathFinding('fixtures/a.json')]);
  const d = decidePush(r);
  assert.is(d.accepted, false);
  assert.match(d.lines[0]!, /^receipt-gate: push REJECTED: closed/);
  assert.ok(d.lines.includes('  PATH_PROTECTED feature 2222222 fixtures/a.json'), d.lines.join('\n'));
  assert.ok(d.lines.includes('    what to do: fixtures/** may only be changed by: alice, release-bot'));
  assert.is(d.lines[d.lines.length - 1], machineLine(r));
});

test('many findings of one kind: a few in full, then one summary line naming the rest', () => {
  const findings = Array.from({ length: 40 }, (_, i) => pathFinding(`fixtures/f${String(i).padStart(2, '0')}.json`));
  const d = decidePush(result(findings));
  assert.ok(d.lines.length <= 21, `${d.lines.length} lines`);
  const summary = d.lines.find((l) => l.includes('... and 38 more PATH_PROTECTED findings'));
  assert.ok(summary, d.lines.join('\n'));
  assert.match(summary!, /fixtures\/f02\.json, fixtures\/f03\.json/);
  const machine = JSON.parse(d.lines[d.lines.length - 1]!.slice('receipt-gate: '.length));
  assert.is(machine.blocked_paths.length, 40, 'the machine line lists every blocked path');
});

test('a summary line repeats a fix only when it differs from the ones shown', () => {
  const same = Array.from({ length: 6 }, (_, i) => pathFinding(`fixtures/s${i}.json`));
  const other = { ...pathFinding('zz/c.json'), fix: 'zz/** may only be changed by: alice' };
  const withSame = decidePush(result(same)).lines.find((l) => l.includes('more PATH_PROTECTED'));
  assert.match(withSame!, /what to do: the same as above$/);
  const mixed = decidePush(result([...same, other])).lines.find((l) => l.includes('more PATH_PROTECTED'));
  assert.match(mixed!, /what to do: fixtures\/\*\* may only be changed by: alice, release-bot \/ zz\/\*\* may only be changed by: alice$/);
  assert.match(mixed!, /zz\/c\.json/);
});

test('hold on a work branch is accepted with a notice; on a protected ref it is rejected', () => {
  const held = [{ ...pathFinding('freezes/f1.json', 'FREEZE_HELD', 'hold') }];
  const work = decidePush(result(held));
  assert.is(work.accepted, true);
  assert.match(work.lines[0]!, /accepted with a notice: hold/);
  const main = decidePush(result(held, { protectedRef: true, ref: 'refs/heads/main' }));
  assert.is(main.accepted, false);
  assert.match(main.lines[0]!, /REJECTED: hold on a protected ref/);
});

test("hold on a protected ref: a non-owner's update is rejected naming the owners, an owner's accepted with a notice", () => {
  const held = [{ ...pathFinding('freezes/f1.json', 'FREEZE_HELD', 'hold'), ref: 'refs/heads/main' }];
  const policy = { owners: ['alice', 'release-bot'] } as unknown as NonNullable<GateResult['policy']>;
  const as = (identity: string | null) => ({ ...result(held, { protectedRef: true, ref: 'refs/heads/main' }), policy, identity });
  const bob = decide(as('bob'));
  assert.is(bob.accepted, false);
  assert.equal(bob.refs.map((d) => [d.outcome, d.reason]), [['rejected', 'hold-protected']]);
  assert.equal(bob.holdOwners, ['alice', 'release-bot']);
  const bobText = remoteAnswer(bob).lines;
  assert.match(bobText[0]!, /REJECTED: hold on a protected ref \(a frozen flake waits for an owner: alice, release-bot\)/);
  assert.match(bobText[bobText.length - 1]!, /"recommended_action":"a witnessed flake is frozen: only alice, release-bot may update protected refs/);
  const alice = decide(as('alice'));
  assert.is(alice.accepted, true);
  assert.equal(alice.refs.map((d) => [d.outcome, d.reason]), [['notice', 'hold-owner']]);
  const aliceText = remoteAnswer(alice).lines;
  assert.match(aliceText[0]!, /^receipt-gate: push accepted with a notice: hold .*accepted on a protected ref as an owner's push/);
  assert.match(aliceText[aliceText.length - 1]!, /"recommended_action":"none: accepted as an owner's push/);
  // Identities compare exactly; nobody owns nothing.
  assert.is(decide(as('Alice')).accepted, false);
  assert.is(decide(as(null)).accepted, false);
});

test('GitLab: GL-HOOK-ERR: on every line of a rejection, none on an acceptance', () => {
  const rejected = decidePush(result([pathFinding('fixtures/a.json')]));
  const text = remoteText(rejected, { GL_PROTOCOL: 'ssh' });
  for (const line of text.trimEnd().split('\n')) assert.ok(line.startsWith('GL-HOOK-ERR: '), line);
  assert.not.match(remoteText(rejected, {}), /GL-HOOK-ERR/);
  const accepted = decidePush(result([]));
  assert.not.match(remoteText(accepted, { GL_PROTOCOL: 'ssh' }), /GL-HOOK-ERR/);
});

test('an unguarded repository gets exactly one notice line', () => {
  const r: GateResult = { ...result([]), unguarded: true };
  const d = decidePush(r);
  assert.is(d.accepted, true);
  assert.is(d.lines.length, 1);
  assert.match(d.lines[0]!, /unguarded/);
});

const CODES: FindingCode[] = ['PATH_PROTECTED', 'PATH_UNSAFE', 'EPOCH_MISMATCH', 'FREEZE_EXPIRED', 'WITNESS_MISMATCH', 'FLAKE_UNFROZEN', 'FREEZE_HELD', 'FREEZE_ACTIVE'];

test('property: one screen, machine line last, every blocking finding shown or counted', () => {
  const arbFinding = fc.record({
    code: fc.constantFrom(...CODES),
    path: fc.stringMatching(/^[a-z]{1,12}(\/[a-z]{1,12}){0,3}$/),
  });
  fc.assert(
    fc.property(fc.array(arbFinding, { maxLength: 120 }), fc.integer({ min: 8, max: 30 }), (raw, maxLines) => {
      const findings = raw.map((f) =>
        pathFinding(f.path, f.code, f.code === 'FREEZE_HELD' ? 'hold' : f.code === 'FREEZE_ACTIVE' ? 'info' : 'closed'),
      );
      const r = result(findings);
      const d = decidePush(r, { maxLines });
      if (d.lines[d.lines.length - 1] !== machineLine(r)) return false;
      if (d.lines.length > maxLines + 1) return false;
      const blocking = findings.filter((f) => f.severity !== 'info').length;
      let counted = 0;
      for (const line of d.lines) {
        if (/^ {2}[A-Z_]+ feature 2222222 /.test(line)) counted += 1;
        const more = /^ {2}(?:\.\.\. and )?(\d+) (?:more )?[A-Z_]+ findings?:/.exec(line);
        if (more) counted += Number(more[1]);
        const rest = /^ {2}\.\.\. and (\d+) more findings?:/.exec(line);
        if (rest) counted += Number(rest[1]);
      }
      return counted === blocking;
    }),
    { seed: 20261129, numRuns: 300 },
  );
});

test('property: no byte of a pushed name or a message can start a remote: line or steer a terminal', () => {
  const nasty = fc.string({ unit: fc.constantFrom('a', '/', '\n', '\r', '\u001b', '[', '2', 'K', '\u0085', '\u009b', '\u2028', '\u202e', '"', '\\', 'ä', ' ') as fc.Arbitrary<string>, minLength: 1, maxLength: 30 });
  fc.assert(
    fc.property(fc.array(nasty, { minLength: 1, maxLength: 12 }), nasty, (paths, identity) => {
      const findings = paths.map((p) => ({ ...pathFinding(`fixtures/${p}`), message: `adds fixtures/${p} (fixtures/**)` }));
      const r = { ...result(findings), identity };
      const text = remoteText(decidePush(r, { maxLines: 12 }), {});
      // Every line is one of ours: each starts as decidePush writes them, and nothing else in
      // the text can break or move a line.
      // (The pattern looks for raw control characters.)
      if (/[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e]/.test(text)) return false;
      return text.trimEnd().split('\n').every((l) => /^(receipt-gate: | {2})/.test(l));
    }),
    { seed: 20261201, numRuns: 300 },
  );
});

test('remote: text never names the server\'s quarantine or repository directory', () => {
  const env = { GIT_DIR: '/srv/git/orders.git', GIT_QUARANTINE_PATH: '/srv/git/orders.git/objects/incoming-Ab12Cd', GIT_OBJECT_DIRECTORY: '/srv/git/orders.git/objects/incoming-Ab12Cd' };
  const f = { ...pathFinding('fixtures/a.json'), code: 'INTERNAL_ERROR' as const, message: `cannot read /srv/git/orders.git/objects/incoming-Ab12Cd/ab/cdef: short read; packed-refs at /srv/git/orders.git/packed-refs` };
  const text = remoteText(decidePush(result([f])), env);
  assert.not.match(text, /\/srv\/git/);
  assert.match(text, /cannot read <quarantine>\/ab\/cdef: short read; packed-refs at <repository>\/packed-refs/);
});

test('remote: text never names the repository\'s absolute path when the hook runs with GIT_DIR=. inside it', () => {
  // git runs pre-receive in the repository with GIT_DIR=.: the absolute path is the working
  // directory, which node:fs names in its errors (here: this process's).
  const repo = process.cwd();
  const env = { GIT_DIR: '.', GIT_QUARANTINE_PATH: `${repo}/./objects/tmp_objdir-incoming-Xy`, GIT_ALTERNATE_OBJECT_DIRECTORIES: `${repo}/./objects` };
  const f = { ...pathFinding('fixtures/a.json'), code: 'INTERNAL_ERROR' as const, message: `EACCES: permission denied, open '${repo}/packed-refs'; also ${repo}/./objects/pack/pack-1.pack` };
  const text = remoteText(decidePush(result([f])), env);
  assert.not.ok(text.includes(repo), text);
  assert.match(text, /open '<repository>\/packed-refs'; also <repository>\/\.\/objects\/pack\/pack-1\.pack/);
});

test('paths are shown as git quotes them; the machine line keeps them exact, in ASCII', () => {
  const evil = 'fixtures/a\nreceipt-gate: push accepted: eligible\u001b[2K.json';
  const r = result([pathFinding(evil), pathFinding('fixtures/ä.json')]);
  const d = decidePush(r);
  assert.ok(d.lines.includes('  PATH_PROTECTED feature 2222222 "fixtures/a\\nreceipt-gate: push accepted: eligible\\033[2K.json"'), d.lines.join('\n'));
  assert.ok(d.lines.includes('  PATH_PROTECTED feature 2222222 "fixtures/\\303\\244.json"'), d.lines.join('\n'));
  const machine = d.lines[d.lines.length - 1]!;
  assert.match(machine, /^[\x20-\x7e]+$/);
  assert.equal(JSON.parse(machine.slice('receipt-gate: '.length)).blocked_paths, [evil, 'fixtures/ä.json']);
});

test.run();
