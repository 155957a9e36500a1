// The trial count is evidence (docs/receipts.md § Trials): the base's policy names the fewest
// trials a receipt may record (grader.minTrials, default 200, the grader's own default). A run
// asked for fewer closes with TRIALS_TOO_FEW before anything runs, and verify-receipt refuses a
// receipt whose property_trials is below the base's minimum, even one that says eligible.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULT_GRADER, parsePolicy } from '../../src/evidence/policy';
import { loadPrivateKey, PAYLOAD_TYPE, signEnvelope, statementFor } from '../../src/receipt/dsse';
import { DEFAULT_TRIALS } from '../../src/receipt/grade';
import { cli, exampleRepo, GRADER } from '../receipt/helpers';
import { commitAll, git, tempDir } from '../helpers/git';

const NOW = ['--now', '2026-11-29'];
const keys = tempDir('trials-keys');
const marker = join(keys, 'properties-ran');
/** The example's property command, leaving a marker outside the tree when it runs (no sandbox). */
const COMMANDS = ['--properties-cmd', `touch '${marker}'; node properties/allocate.properties.js`, '--fixture-cmd', 'node src/allocate-cli.js'];
const NO_SANDBOX = { RECEIPT_GATE_BWRAP: join(keys, 'no-such-bwrap') };

const { repo } = exampleRepo();
git(repo, ['checkout', '-q', '-b', 'honest', 'main']);
writeFileSync(join(repo, 'src/allocate.js'), readFileSync(join(repo, 'src/allocate.js'), 'utf8').replace('// Split an amount', '// Allocation of money. Split an amount'));
commitAll(repo, 'honest');
git(repo, ['checkout', '-q', 'main']);

async function receipt(ref: string, out: string, env: NodeJS.ProcessEnv, base = 'main') {
  rmSync(marker, { force: true });
  const r = await cli(repo, ['receipt', '--ref', ref, '--base', base, ...COMMANDS, '--out', out, '--sign-key', join(keys, 'ci.key'), ...NOW], { ...NO_SANDBOX, ...env });
  const envelope = JSON.parse(readFileSync(out, 'utf8')) as { payload: string };
  return { ...r, ran: existsSync(marker), receipt: JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')).predicate as Record<string, any> };
}

function verify(file: string, base = 'main') {
  return cli(repo, ['verify-receipt', file, '--ref', 'honest', '--base', base, '--pub', join(keys, 'ci.pub')]);
}

test('the default minimum is the grader\'s default trial count, and grader members default', async () => {
  assert.is(DEFAULT_GRADER.minTrials, DEFAULT_TRIALS);
  assert.is(DEFAULT_TRIALS, 200);
  const empty = parsePolicy(Buffer.from('{"version": 1, "grader": {}}'));
  assert.ok(empty.ok);
  if (empty.ok) assert.equal(empty.policy.grader, { minTrials: 200, network: false });
  const none = parsePolicy(Buffer.from('{"version": 1}'));
  assert.ok(none.ok);
  if (none.ok) assert.is(none.policy.grader, undefined, 'absent: the defaults apply where it is read');
  for (const bad of ['{"version": 1, "grader": {"minTrials": 0}}', '{"version": 1, "grader": {"minTrials": 1.5}}', '{"version": 1, "grader": {"network": "yes"}}', '{"version": 1, "grader": {"trials": 5}}']) {
    const r = parsePolicy(Buffer.from(bad));
    assert.not.ok(r.ok, bad);
    if (!r.ok) assert.is(r.findings[0]!.code, 'POLICY_INVALID');
  }
  const r = await cli(keys, ['keygen', '--out', 'ci']);
  assert.is(r.code, 0, r.stderr);
});

test('PROPERTY_TRIALS=1: closed with TRIALS_TOO_FEW, nothing runs, verify-receipt refuses', async () => {
  const out = join(keys, 'one.json');
  const r = await receipt('honest', out, { PROPERTY_TRIALS: '1' });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.not.ok(r.ran, 'the property command must not run');
  assert.is(r.receipt.property_trials, 1);
  assert.is(r.receipt.min_trials, 200);
  assert.is(r.receipt.properties_run, false);
  assert.is(r.receipt.properties_ok, false);
  assert.is(r.receipt.not_run_reason, '1 trials, below the base\'s minimum of 200');
  assert.is(r.receipt.verdict, 'closed');
  const tooFew = r.receipt.findings.filter((f: { code: string }) => f.code === 'TRIALS_TOO_FEW');
  assert.is(tooFew.length, 1);
  assert.is(tooFew[0].severity, 'closed');
  assert.match(tooFew[0].message, /1 trials per property \(PROPERTY_TRIALS\), fewer than the 200 the policy at the base requires/);
  assert.match(r.stdout, /^ {2}properties: not run \(1 trials, below the base's minimum of 200\)$/m);
  assert.match(r.stdout, /TRIALS_TOO_FEW/);
  const v = await verify(out);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED trials: the properties ran 1 trials, fewer than the 200 the policy at the base main requires/m);
});

test('a signed receipt that says eligible with 1 trial (as the grader made them before) is refused', async () => {
  const out = join(keys, 'honest.json');
  const r = await receipt('honest', out, {});
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.ok(r.ran);
  assert.is(r.receipt.property_trials, 200);
  const ok = await verify(out);
  assert.is(ok.code, 0, ok.stdout + ok.stderr);
  // The same facts, with one trial and without the members the older grader did not write,
  // signed by the CI's key: every other fact holds, so only the trial count can refuse it.
  const older: Record<string, unknown> = { ...r.receipt, property_trials: 1 };
  for (const k of ['min_trials', 'properties_run', 'not_run_reason', 'isolation']) delete older[k];
  const sha = git(repo, ['rev-parse', 'honest']).trim();
  const key = loadPrivateKey(readFileSync(join(keys, 'ci.key'), 'utf8'), 'ci.key');
  const envelope = signEnvelope(PAYLOAD_TYPE, Buffer.from(JSON.stringify(statementFor('refs/heads/honest', sha, older))), key);
  const forged = join(keys, 'one-trial-eligible.json');
  writeFileSync(forged, JSON.stringify(envelope));
  const v = await verify(forged);
  assert.is(v.code, 1, v.stdout);
  const failed = v.stdout.split('\n').filter((l) => l.startsWith('FAILED'));
  assert.equal(failed, ['FAILED trials: the properties ran 1 trials, fewer than the 200 the policy at the base main requires (grader.minTrials); re-run receipt without a lower PROPERTY_TRIALS']);
});

test('grader.minTrials at the base sets the minimum, both ways', async () => {
  git(repo, ['checkout', '-q', '-b', 'low-min', 'main']);
  const policy = JSON.parse(readFileSync(join(repo, '.receipt-gate.json'), 'utf8'));
  writeFileSync(join(repo, '.receipt-gate.json'), JSON.stringify({ ...policy, grader: { minTrials: 20 } }, null, 2));
  commitAll(repo, 'policy: 20 trials');
  git(repo, ['checkout', '-q', 'main']);
  git(repo, ['branch', '-f', 'honest-on-low', 'honest']);
  git(repo, ['checkout', '-q', 'honest-on-low']);
  git(repo, ['merge', '-q', '--no-edit', 'low-min']);
  git(repo, ['checkout', '-q', 'main']);

  // 25 trials against a base that asks for 20: eligible, and verify-receipt agrees.
  const out = join(keys, 'twenty-five.json');
  const r = await cli(repo, ['receipt', '--ref', 'honest-on-low', '--base', 'low-min', ...GRADER, '--out', out, '--sign-key', join(keys, 'ci.key'), ...NOW], { ...NO_SANDBOX, PROPERTY_TRIALS: '25' });
  assert.is(r.code, 0, r.stdout + r.stderr);
  const rc = JSON.parse(Buffer.from(JSON.parse(readFileSync(out, 'utf8')).payload, 'base64').toString('utf8')).predicate;
  assert.is(rc.min_trials, 20);
  assert.is(rc.property_trials, 25);
  assert.match(r.stdout, /^ {2}properties: passed \(seed 20260925, 25 trials\)$/m);
  const v = await cli(repo, ['verify-receipt', out, '--ref', 'honest-on-low', '--base', 'low-min', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 0, v.stdout + v.stderr);
  // The same receipt against main (default minimum 200) is refused.
  const strict = await cli(repo, ['verify-receipt', out, '--ref', 'honest-on-low', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(strict.code, 1);
  assert.match(strict.stdout, /^FAILED trials: the properties ran 25 trials, fewer than the 200/m);

  // 10 trials against the same base: closed.
  const low = await cli(repo, ['receipt', '--ref', 'honest-on-low', '--base', 'low-min', ...GRADER, '--out', join(keys, 'ten.json'), ...NOW], { ...NO_SANDBOX, PROPERTY_TRIALS: '10' });
  assert.is(low.code, 1);
  assert.match(low.stdout, /TRIALS_TOO_FEW/);
  assert.match(low.stdout, /properties: not run \(10 trials, below the base's minimum of 20\)/);
});

test('a patch cannot lower the minimum for itself: the base\'s policy is read, and the edit closes', async () => {
  git(repo, ['checkout', '-q', '-b', 'lowers-min', 'honest']);
  const policy = JSON.parse(readFileSync(join(repo, '.receipt-gate.json'), 'utf8'));
  writeFileSync(join(repo, '.receipt-gate.json'), JSON.stringify({ ...policy, grader: { minTrials: 1 } }, null, 2));
  commitAll(repo, 'policy: 1 trial');
  git(repo, ['checkout', '-q', 'main']);
  const out = join(keys, 'lowers.json');
  rmSync(marker, { force: true });
  const r = await cli(repo, ['receipt', '--ref', 'lowers-min', '--base', 'main', ...COMMANDS, '--out', out, ...NOW], { ...NO_SANDBOX, PROPERTY_TRIALS: '1' });
  assert.is(r.code, 1);
  assert.not.ok(existsSync(marker));
  const rc = JSON.parse(readFileSync(out, 'utf8'));
  assert.is(rc.min_trials, 200);
  assert.ok(rc.findings.some((f: { code: string }) => f.code === 'TRIALS_TOO_FEW'));
  assert.ok(rc.findings.some((f: { code: string; path?: string }) => f.code === 'PATH_PROTECTED' && f.path === '.receipt-gate.json'));
});

test.run();
