// The startup snapshot's warm-up (src/server/warmup.ts): the repository it builds without git is
// one git itself accepts (fsck, verify-pack, the quarantine as receive-pack leaves it), and the
// pushes it judges take the paths the snapshot is meant to compile: an honest push accepted as
// eligible, a fixture edit rejected with PATH_PROTECTED, and an honest push into a monorepo of
// three bounded contexts that touches one of them (the other two judged on their freezes alone).
// A warm-up that rotted (evidence that no longer validates, a pack the reader refuses, a context
// judged in full where the untouched path was meant) would only exercise another path.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WARMUP_CONTEXTS, warmUp, warmupMonorepo, warmupRepository } from '../../src/server/warmup';
import { run } from '../../src/entries/pre-receive';
import { git, gitResult, gitValue } from '../helpers/git';

test('the warm-up repository is one git accepts: fsck --strict, verify-pack, the delta entries', () => {
  const push = warmupRepository();
  try {
    const fsck = gitResult(push.gitdir, ['fsck', '--strict', '--no-dangling'], { env: push.env });
    assert.is(fsck.status, 0, fsck.stderr);
    const packDir = join(push.gitdir, 'objects', 'pack');
    const idx = readdirSync(packDir).filter((f) => f.endsWith('.idx'));
    assert.is(idx.length, 1);
    const verify = git(push.gitdir, ['verify-pack', '-v', join(packDir, idx[0]!)]);
    // verify-pack -v names each delta with its depth and base: the history's changed trees.
    assert.match(verify, /chain length = 1: [1-9]\d* objects?/);
    const [oldOid, honestOid] = push.honest.trim().split(' ');
    assert.is(gitValue(push.gitdir, ['rev-parse', 'refs/heads/main']), oldOid);
    // The pushed commits are in the quarantine only, as receive-pack leaves them.
    assert.is(gitValue(push.gitdir, ['cat-file', '-t', honestOid!], { env: push.env }), 'commit');
    assert.is(gitResult(push.gitdir, ['cat-file', '-e', honestOid!]).status, 1);
    assert.is(gitValue(push.gitdir, ['rev-list', '--count', `${oldOid}..${honestOid}`], { env: push.env }), '1');
    // The honest commit changes one source file; the other edits a protected fixture.
    const cheatOid = push.cheat.trim().split(' ')[1]!;
    assert.is(gitValue(push.gitdir, ['diff', '--name-only', oldOid!, honestOid!], { env: push.env }), 'src/orders.py');
    assert.is(gitValue(push.gitdir, ['diff', '--name-only', oldOid!, cheatOid], { env: push.env }), 'fixtures/orders/base.json');
  } finally {
    push.remove();
  }
});

test('the warm-up monorepo is one git accepts, and its push changes one source file of the first context', () => {
  const push = warmupMonorepo();
  try {
    const fsck = gitResult(push.gitdir, ['fsck', '--strict', '--no-dangling'], { env: push.env });
    assert.is(fsck.status, 0, fsck.stderr);
    const packDir = join(push.gitdir, 'objects', 'pack');
    const idx = readdirSync(packDir).filter((f) => f.endsWith('.idx'));
    assert.is(idx.length, 1);
    assert.match(git(push.gitdir, ['verify-pack', '-v', join(packDir, idx[0]!)]), /chain length = 1: [1-9]\d* objects?/);
    const [oldOid, newOid] = push.honest.trim().split(' ');
    assert.is(gitValue(push.gitdir, ['rev-parse', 'refs/heads/main']), oldOid);
    assert.is(gitResult(push.gitdir, ['cat-file', '-e', newOid!]).status, 1);
    assert.is(gitValue(push.gitdir, ['diff', '--name-only', oldOid!, newOid!], { env: push.env }), `services/${WARMUP_CONTEXTS[0]}/src/orders.py`);
    // The policy declares the three contexts, and each root holds a freeze file; the untouched
    // contexts' are one blob.
    const policy = JSON.parse(git(push.gitdir, ['show', `${oldOid}:.receipt-gate.json`])) as { version: number; contexts: { name: string; root: string }[] };
    assert.is(policy.version, 2);
    assert.equal(policy.contexts.map((c) => c.name), [...WARMUP_CONTEXTS]);
    const freezeBlob = (name: string) => gitValue(push.gitdir, ['rev-parse', `${oldOid}:services/${name}/freeze.json`]);
    assert.is(freezeBlob(WARMUP_CONTEXTS[1]), freezeBlob(WARMUP_CONTEXTS[2]));
    assert.is.not(freezeBlob(WARMUP_CONTEXTS[0]), freezeBlob(WARMUP_CONTEXTS[1]));
  } finally {
    push.remove();
  }
});

test('the warm-up judges the honest push eligible, the fixture edit closed and the monorepo push eligible, then removes its repositories', async () => {
  const { runs, push, monorepo } = await warmUp(run);
  assert.is(runs.length, 3);
  assert.is(runs[0]!.code, 0, runs[0]!.stderr);
  assert.match(runs[0]!.stderr, /push accepted: eligible/);
  assert.is(runs[1]!.code, 1, runs[1]!.stderr);
  assert.match(runs[1]!.stderr, /PATH_PROTECTED main \w+ fixtures\/orders\/base\.json/);
  // Every evidence rule ran and found the evidence in order: the live freeze is the one finding
  // beside the fixture edit.
  type Machine = { findings: { code: string; severity: string; path: string; context?: string }[]; contexts?: { context: string; touched: boolean; verdict: string }[] };
  const machineOf = (stderr: string) => JSON.parse(/^receipt-gate: (\{"verdict".*)$/m.exec(stderr)![1]!) as Machine;
  const codes = (stderr: string) => machineOf(stderr).findings.map((f) => f.code);
  assert.equal(codes(runs[0]!.stderr), ['FREEZE_ACTIVE']);
  assert.equal(codes(runs[1]!.stderr), ['PATH_PROTECTED', 'FREEZE_ACTIVE']);
  // The monorepo: the touched context judged in full (its live freeze is reported), the two
  // untouched ones on their freezes alone (their expired row as info, their live row not
  // reported: a full judgement would list it).
  assert.is(runs[2]!.code, 0, runs[2]!.stderr);
  const [touched, ...untouched] = WARMUP_CONTEXTS;
  assert.match(runs[2]!.stderr, new RegExp(`contexts: ${touched} eligible, ${untouched.map((c) => `${c} eligible \\(untouched\\)`).join(', ')}`));
  const mono = machineOf(runs[2]!.stderr);
  assert.equal(
    mono.findings.map((f) => `${f.code} ${f.severity} ${f.context} ${f.path}`),
    [`FREEZE_ACTIVE info ${touched} services/${touched}/freeze.json`, ...untouched.map((c) => `FREEZE_EXPIRED info ${c} services/${c}/freeze.json`)],
  );
  assert.equal(
    mono.contexts!.map((c) => `${c.context} ${c.touched} ${c.verdict}`),
    [`${touched} true eligible`, ...untouched.map((c) => `${c} false eligible`)],
  );
  for (const gitdir of [push.gitdir, monorepo.gitdir]) assert.is(gitResult('/', ['--git-dir', gitdir, 'rev-parse', '--git-dir']).status, 128);
});

test.run();
