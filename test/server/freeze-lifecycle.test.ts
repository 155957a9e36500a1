// The freeze lifecycle end to end on a real server (docs/evidence.md, The freeze lifecycle): a
// bare repository with the installed pre-receive hook, the owner's and an agent's clones, the
// date injected (RECEIPT_GATE_NOW on the server, --now for the CLI). The owner observes a flake
// and freezes it (hold on main, accepted as the owner's push); an agent's patch on top is held;
// past the freeze's expires_on the same patch is closed; the owner lifts the freeze (witness and
// observation kept, archived) and the patch is eligible; the same flake again is a new
// observation, closed until frozen. At every step the server, verify-ref, receipt and
// verify-receipt give the same verdict for the same commit and identity (docs/contract.md §2).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, cleanup, CLI, commitAll, guardedRemote, machine, makeTemplate, push, type PushResult, refOid, type Remote, sha256, TODAY, write } from './helpers';
import { gitValue } from '../helpers/git';

const ALICE = { REMOTE_USER: 'alice' };
const AGENT = { REMOTE_USER: 'agent' };
/** The keyed freeze's last day, and a day past it (the template's freeze.json row runs to 2026-09-20). */
const EXPIRES_ON = '2026-09-15';
const EXPIRED = '2026-09-16';
const WITNESS = 'tests/test_orders.py::test_total_timing\nrun 1: FAILED (timeout after 2.0 s)\nrun 2: passed\n';
/** The fixture command and the property command `receipt` runs (the template's fixture record is
 * weights_v3, whose output is its input as Python's json.dumps writes it). */
const FIXTURE_CMD = 'python3 -c "import json,sys; sys.stdout.write(json.dumps(json.load(sys.stdin)))"';
const PROPERTIES_CMD = 'true';

let template: Remote | undefined;
let r: Remote;
/** The flake's observation id, the owner's freeze commit, and the agent's patch. */
let observation = '';
let patch = '';
/** The receipt graded on the held patch (step b). */
let heldReceipt = '';

interface Run {
  status: number;
  stdout: string;
  stderr: string;
}

function cli(args: string[], now: string, cwd = r.work): Run {
  const run = spawnSync(process.execPath, [CLI, ...args, '--now', now], { cwd, env: baseEnv({ RECEIPT_GATE_NOW: now }), encoding: 'utf8' });
  return { status: run.status ?? -1, stdout: run.stdout, stderr: run.stderr };
}

function pushAt(now: string, args: string[], who: Record<string, string>): PushResult {
  return push(r.work, args, { ...who, RECEIPT_GATE_NOW: now });
}

const EXIT: Record<string, number> = { eligible: 0, closed: 1, hold: 3 };

/** verify-ref, receipt and verify-receipt on `ref` against `base` as a non-owner (a receipt
 * carries no identity: it grades as nobody, no owner): each verdict, and the exit code of
 * verify-ref and receipt, must be `verdict`. Returns the receipt's path and verify-ref's codes. */
function agreeOffline(ref: string, base: string, now: string, verdict: string): { receipt: string; codes: string[] } {
  const v = cli(['verify-ref', ref, '--base', base, '--identity', 'agent', '--json'], now);
  const report = JSON.parse(v.stdout) as { verdict: string; findings: { code: string }[] };
  assert.is(report.verdict, verdict, `verify-ref: ${v.stdout}${v.stderr}`);
  assert.is(v.status, EXIT[verdict], `verify-ref exit: ${v.stderr}`);
  const text = cli(['verify-ref', ref, '--base', base, '--identity', 'agent'], now);
  assert.match(text.stdout, /identities: /, 'verify-ref prints the three identities');

  const out = join(r.root, `receipt-${ref.replace(/\W/g, '_')}-${now}.json`);
  const rc = cli(['receipt', '--ref', ref, '--base', base, '--properties-cmd', PROPERTIES_CMD, '--fixture-cmd', FIXTURE_CMD, '--out', out], now);
  assert.is(rc.status, EXIT[verdict], `receipt exit: ${rc.stdout}${rc.stderr}`);
  const receipt = JSON.parse(readFileSync(out, 'utf8')) as { verdict: string; git_sha: string };
  assert.is(receipt.verdict, verdict, `receipt: ${rc.stdout}`);
  assert.is(receipt.git_sha, gitValue(r.work, ['rev-parse', ref]));
  assert.match(rc.stdout, new RegExp(`witness ${observation} sha256 ${sha256(WITNESS)}`), 'receipt prints the flake\'s witness digest');

  // The merge bot's check: merges only an eligible receipt, and names any other verdict.
  const vr = cli(['verify-receipt', out, '--ref', ref, '--base', base, '--allow-unsigned'], now);
  if (verdict === 'eligible') {
    assert.is(vr.status, 0, `verify-receipt: ${vr.stdout}${vr.stderr}`);
    assert.match(vr.stdout, /eligible/);
  } else {
    assert.is(vr.status, 1, `verify-receipt refuses a ${verdict} receipt: ${vr.stdout}${vr.stderr}`);
    assert.match(vr.stdout, new RegExp(`^FAILED verdict: the receipt's verdict is ${verdict}\\b`, 'm'), vr.stdout);
  }
  return { receipt: out, codes: report.findings.map((f) => f.code).sort() };
}

function codesOf(result: PushResult): string[] {
  return machine(result).findings.map((f) => f.code).sort();
}

/** A non-owner's patch on top of origin/main: one line of src/orders.py. */
function agentPatch(branch: string, line: string): string {
  gitValue(r.work, ['fetch', '-q', 'origin'], { env: baseEnv() });
  gitValue(r.work, ['checkout', '-q', '-B', branch, 'origin/main']);
  write(r.work, 'src/orders.py', `def total(orders):\n    return sum(o["amount"] for o in orders${line})\n`);
  return commitAll(r.work, `orders: ${branch}`, { GIT_AUTHOR_NAME: 'agent', GIT_COMMITTER_NAME: 'agent' });
}

/** The owner's work tree on origin/main. */
function ownerOnMain(): void {
  gitValue(r.work, ['fetch', '-q', 'origin'], { env: baseEnv() });
  gitValue(r.work, ['checkout', '-q', '-B', 'main', 'origin/main']);
}

test.before(() => {
  template = makeTemplate();
  r = guardedRemote(template, 'freeze-lifecycle');
});
test.after(() => {
  cleanup(r?.root);
  cleanup(template?.root);
});

test('(a) the owner observes a flake and freezes it: the push to main is accepted with a notice (hold)', () => {
  ownerOnMain();
  const witness = join(r.root, 'rerun.log');
  writeFileSync(witness, WITNESS);
  const obs = cli(['observe', '--status', 'flake', '--rerun-passed', '--witness', witness], TODAY);
  assert.is(obs.status, 0, obs.stdout + obs.stderr);
  const m = /^wrote observations\/(\S+)\.json and observations\/\S+\.bin: /m.exec(obs.stdout);
  assert.ok(m, obs.stdout);
  observation = m[1]!;
  assert.is(observation, `obs-${TODAY}-001`);
  assert.match(obs.stdout, /FLAKE_UNFROZEN/, 'observe says the gate closes on the flake until it is frozen');
  const record = JSON.parse(readFileSync(join(r.work, `observations/${observation}.json`), 'utf8'));
  assert.is(record.witness_sha256, sha256(WITNESS));
  assert.is(record.status, 'flake');
  assert.is(record.rerun_passed, true);

  const frozen = cli(['freeze', 'add', '--observation', observation, '--expires-on', EXPIRES_ON, '--reason', 'network timeout on the shared runner; the re-run passed'], TODAY);
  assert.is(frozen.status, 0, frozen.stdout + frozen.stderr);
  const freezes = gitValue(r.work, ['status', '--porcelain', '-uall', '--', 'freezes']);
  assert.match(freezes, /^\?\? freezes\/\S+\.json$/m);
  const head = commitAll(r.work, `freeze ${observation}`);

  // The same commit as a non-owner: closed at the server (the evidence is the owners' to change),
  // and so from verify-ref --identity agent, on a receipt and in verify-receipt.
  const byAgent = pushAt(TODAY, ['origin', 'main:refs/heads/agent/freeze'], AGENT);
  assert.is.not(byAgent.status, 0, byAgent.stderr);
  assert.is(machine(byAgent).verdict, 'closed');
  assert.equal(machine(byAgent).blocked_paths, [...gitValue(r.work, ['diff', '--name-only', 'HEAD~1', 'HEAD']).split('\n')].sort());
  gitValue(r.work, ['fetch', '-q', 'origin'], { env: baseEnv() });
  const agent = agreeOffline('main', 'origin/main', TODAY, 'closed');
  assert.ok(agent.codes.includes('PATH_PROTECTED'), agent.codes.join(' '));

  const result = pushAt(TODAY, ['origin', 'main:main'], ALICE);
  assert.is(result.status, 0, result.stderr);
  assert.match(result.remote.join('\n'), /push accepted with a notice: hold .*accepted on a protected ref as an owner's push/);
  assert.is(machine(result).verdict, 'hold');
  assert.ok(codesOf(result).includes('FREEZE_HELD'), result.stderr);
  assert.is(refOid(r.bare, 'refs/heads/main'), head);

  // The owner's verify-ref of what main holds now: the same hold.
  const v = cli(['verify-ref', 'main', '--base', `${head}~1`, '--identity', 'alice', '--json'], TODAY);
  assert.is(v.status, 3, v.stdout + v.stderr);
  assert.is(JSON.parse(v.stdout).verdict, 'hold');
});

test("(b) an agent's patch on top of the held main: hold on a work branch, refused on main naming the owners; verify-ref, receipt and verify-receipt say hold", () => {
  const main = refOid(r.bare, 'refs/heads/main');
  patch = agentPatch('agent/patch', ' if o');
  const onWork = pushAt(TODAY, ['origin', 'agent/patch:refs/heads/agent/patch'], AGENT);
  assert.is(onWork.status, 0, onWork.stderr);
  assert.is(machine(onWork).verdict, 'hold');
  assert.match(onWork.remote.join('\n'), /push accepted with a notice: hold/);
  assert.ok(codesOf(onWork).includes('FREEZE_HELD'), onWork.stderr);

  const onMain = pushAt(TODAY, ['origin', 'agent/patch:main'], AGENT);
  assert.is.not(onMain.status, 0, onMain.stderr);
  assert.is(machine(onMain).verdict, 'hold');
  assert.match(onMain.remote.join('\n'), /push REJECTED: hold on a protected ref \(a frozen flake waits for an owner: alice, release-bot\)/);
  assert.is(refOid(r.bare, 'refs/heads/main'), main);

  const { receipt, codes } = agreeOffline('agent/patch', 'origin/main', TODAY, 'hold');
  assert.ok(codes.includes('FREEZE_HELD'), codes.join(' '));
  heldReceipt = receipt;
});

test('(c) past the freeze\'s expires_on the same patch is closed (FREEZE_EXPIRED) everywhere', () => {
  gitValue(r.work, ['checkout', '-q', 'agent/patch']);
  gitValue(r.work, ['fetch', '-q', 'origin'], { env: baseEnv() });
  const result = pushAt(EXPIRED, ['origin', 'agent/patch:refs/heads/agent/patch-2'], AGENT);
  assert.is.not(result.status, 0, result.stderr);
  assert.is(machine(result).verdict, 'closed');
  assert.ok(codesOf(result).includes('FREEZE_EXPIRED'), result.stderr);
  assert.is(refOid(r.bare, 'refs/heads/agent/patch-2'), null);
  // An expired freeze closes the owners' pushes too: only a lift (or a renewed freeze) opens main.
  const byOwner = pushAt(EXPIRED, ['origin', 'agent/patch:main'], ALICE);
  assert.is.not(byOwner.status, 0, byOwner.stderr);
  assert.is(machine(byOwner).verdict, 'closed');
  assert.ok(codesOf(byOwner).includes('FREEZE_EXPIRED'), byOwner.stderr);

  const { codes } = agreeOffline('agent/patch', 'origin/main', EXPIRED, 'closed');
  assert.ok(codes.includes('FREEZE_EXPIRED'), codes.join(' '));
  // The receipt graded before the expiry still says hold, and the merge bot still refuses it.
  const old = cli(['verify-receipt', heldReceipt, '--ref', 'agent/patch', '--base', 'origin/main', '--allow-unsigned'], EXPIRED);
  assert.is(old.status, 1, old.stdout + old.stderr);
  assert.match(old.stdout, /^FAILED verdict: the receipt's verdict is hold\b/m, old.stdout);
});

test('(d) the owner lifts the freeze: accepted; observation and witness kept, archived; the patch is eligible everywhere', () => {
  ownerOnMain();
  const witnessBefore = readFileSync(join(r.work, `observations/${observation}.bin`));
  const lifted = cli(['freeze', 'lift', observation, '--by', 'alice'], EXPIRED);
  assert.is(lifted.status, 0, lifted.stdout + lifted.stderr);
  gitValue(r.work, ['add', '-A', 'freezes', 'observations']);
  const head = commitAll(r.work, `lift the freeze of ${observation}`);
  const result = pushAt(EXPIRED, ['origin', 'main:main'], ALICE);
  assert.is(result.status, 0, result.stderr);
  assert.is(machine(result).verdict, 'eligible', result.stderr);
  assert.ok(codesOf(result).includes('OBSERVATION_ARCHIVED'), result.stderr);
  assert.is(refOid(r.bare, 'refs/heads/main'), head);

  // In main's tree: no keyed freeze; the observation archived (who, when, which freeze), its witness byte for byte.
  assert.is(gitValue(r.work, ['ls-tree', '--name-only', 'main', 'freezes/']), '');
  const files = gitValue(r.work, ['ls-tree', '--name-only', 'main', 'observations/']).split('\n');
  assert.ok(files.includes(`observations/${observation}.json`) && files.includes(`observations/${observation}.bin`), files.join(' '));
  const record = JSON.parse(gitValue(r.work, ['show', `main:observations/${observation}.json`]));
  assert.is(record.archived.lifted_by, 'alice');
  assert.is(record.archived.lifted_on, EXPIRED);
  assert.is(record.archived.expires_on, EXPIRES_ON);
  assert.match(record.archived.freeze, /^freezes\/\S+\.json$/);
  assert.equal(readFileSync(join(r.work, `observations/${observation}.bin`)), witnessBefore);
  assert.is(record.witness_sha256, sha256(WITNESS));

  // The agent's patch, on top of the lifted main: eligible at the server and everywhere else.
  const rebased = agentPatch('agent/patch-3', ' if o');
  const onMain = pushAt(EXPIRED, ['origin', 'agent/patch-3:main'], AGENT);
  assert.is(onMain.status, 0, onMain.stderr);
  assert.is(machine(onMain).verdict, 'eligible', onMain.stderr);
  assert.is(refOid(r.bare, 'refs/heads/main'), rebased);
  // Checked against the base it was pushed onto (main before the patch).
  gitValue(r.work, ['branch', '-f', 'lifted', head]);
  const { codes } = agreeOffline(rebased, 'lifted', EXPIRED, 'eligible');
  assert.equal(codes, ['FREEZE_ACTIVE', 'OBSERVATION_ARCHIVED']);
  assert.is.not(patch, rebased);
});

test('(e) the same flake again is a new observation: closed (FLAKE_UNFROZEN) until an owner freezes it', () => {
  ownerOnMain();
  const witness = join(r.root, 'rerun-2.log');
  writeFileSync(witness, WITNESS);
  const obs = cli(['observe', '--status', 'flake', '--rerun-passed', '--witness', witness], EXPIRED);
  assert.is(obs.status, 0, obs.stdout + obs.stderr);
  const m = /^wrote observations\/(\S+)\.json /m.exec(obs.stdout);
  assert.ok(m, obs.stdout);
  const again = m[1]!;
  assert.is.not(again, observation);
  assert.is(again, `obs-${EXPIRED}-001`);
  // Recording it under the archived id is refused: the archived record stays as it is.
  const reuse = cli(['observe', '--id', observation, '--status', 'flake', '--rerun-passed', '--witness', witness], EXPIRED);
  assert.is(reuse.status, 1, reuse.stdout + reuse.stderr);
  assert.match(reuse.stderr, /is archived/);
  const head = commitAll(r.work, `observe ${again}`);

  // The owner's push of the unfrozen flake is closed: nobody's push lands it unfrozen.
  const result = pushAt(EXPIRED, ['origin', 'main:main'], ALICE);
  assert.is.not(result.status, 0, result.stderr);
  assert.is(machine(result).verdict, 'closed');
  assert.ok(codesOf(result).includes('FLAKE_UNFROZEN'), result.stderr);
  const v = cli(['verify-ref', head, '--base', 'origin/main', '--identity', 'alice', '--json'], EXPIRED);
  assert.is(v.status, 1, v.stdout + v.stderr);
  assert.ok(JSON.parse(v.stdout).findings.some((f: { code: string }) => f.code === 'FLAKE_UNFROZEN'), v.stdout);

  // Frozen again (a new keyed freeze citing the new observation): the owner's push is a hold, accepted.
  const frozen = cli(['freeze', 'add', '--observation', again, '--expires-on', '2026-09-25', '--reason', 'network timeout on the shared runner; the re-run passed'], EXPIRED);
  assert.is(frozen.status, 0, frozen.stdout + frozen.stderr);
  commitAll(r.work, `freeze ${again}`);
  const refrozen = pushAt(EXPIRED, ['origin', 'main:main'], ALICE);
  assert.is(refrozen.status, 0, refrozen.stderr);
  assert.is(machine(refrozen).verdict, 'hold');
  assert.ok(existsSync(join(r.work, `observations/${observation}.bin`)), 'the first witness is still kept');
});

test.run();
