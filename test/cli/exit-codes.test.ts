// Every documented exit code of every command, each path run once through the built CLI in a
// real git repository (README § Exit codes, docs/contract.md §3, docs/client.md, docs/receipts.md):
// 0 eligible, 1 closed (for the authoring tools: a refusal, nothing written), 3 hold, 2 usage or
// setup error (nothing checked). The shared paths (--help, an unknown flag, outside a
// repository) are in errors.test.ts; verify-log's 0 and 1 need the push-log servers and are in
// test/pushlog/log.test.ts.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { EPOCH_ID, guardedRepo, runCli, sha256, type CliRun } from '../helpers/repo';
import { commitAll, git, tempDir, writeFiles } from '../helpers/git';
import { cli as receiptCli, exampleRepo, GRADER } from '../receipt/helpers';

const NOW = '2026-11-29';
const env = { RECEIPT_GATE_NOW: NOW };

interface Case {
  /** What the path is, for the failure message. */
  what: string;
  args: string[];
  code: 0 | 1 | 2 | 3;
  /** What the output must say (stdout and stderr together). */
  says?: RegExp;
  cwd?: string;
  input?: string;
  /** Who runs it (git's user.email for the client hooks). */
  as?: string;
}

function runCases(cwd: string, cases: Case[]): void {
  for (const c of cases) {
    const identity: Record<string, string> = c.as === undefined ? {} : { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.email', GIT_CONFIG_VALUE_0: c.as };
    const r: CliRun = runCli(c.args, { cwd: c.cwd ?? cwd, env: { ...env, ...identity }, input: c.input });
    const out = r.stdout + r.stderr;
    assert.is(r.status, c.code, `${c.what} (receipt-gate ${c.args.join(' ')}): expected exit ${c.code}, got ${r.status}\n${out}`);
    if (c.says) assert.match(out, c.says, c.what);
    if (c.code === 2) assert.ok(r.stderr.trim().length > 0 || /"error"/.test(r.stdout), `${c.what}: exit 2 says why`);
  }
}

/** An observation of a flake whose re-run passed on the pinned epoch, and the keyed freeze
 * that cites it: the gate holds (FREEZE_HELD). */
function heldFlake(id: string): Record<string, string> {
  const witness = `witness of ${id}\n`;
  return {
    [`observations/${id}.json`]: `${JSON.stringify({ id, epoch_id: EPOCH_ID, status: 'flake', rerun_passed: true, witness_sha256: sha256(witness) })}\n`,
    [`observations/${id}.bin`]: witness,
    [`freezes/${id}.json`]: `${JSON.stringify({ observation_id: id, epoch_id: EPOCH_ID, expires_on: '2026-12-05', reason: 'socket timeout on CI' })}\n`,
  };
}

test('verify-ref, pre-commit and pre-push: 0 eligible, 1 closed, 3 hold, 2 nothing checked', () => {
  const dir = tempDir('rg-exit-');
  try {
    const repo = guardedRepo();
    git(repo, ['config', 'user.email', 'agent@example.com']);
    git(dir, ['clone', '-q', '--bare', repo, join(dir, 'origin.git')]);
    git(repo, ['remote', 'add', 'origin', join(dir, 'origin.git')]);
    git(repo, ['fetch', '-q', 'origin']);
    const main = git(repo, ['rev-parse', 'main']).trim();

    // closed: the agent edits a fixture; eligible: a src/ change.
    git(repo, ['checkout', '-q', '-b', 'agent']);
    writeFiles(repo, { 'fixtures/orders/base.json': '{"orders": [1]}\n' });
    commitAll(repo, 'edit a fixture');
    const agent = git(repo, ['rev-parse', 'HEAD']).trim();
    git(repo, ['checkout', '-q', '-b', 'code', 'main']);
    writeFiles(repo, { 'src/alloc.py': 'def allocate(total, weights):\n    return [total, 0]\n' });
    commitAll(repo, 'code');
    const code = git(repo, ['rev-parse', 'HEAD']).trim();
    // hold: an owner's commit on main with a witnessed flake under a keyed freeze.
    git(repo, ['checkout', '-q', '-b', 'held', 'main']);
    writeFiles(repo, heldFlake('o3'));
    commitAll(repo, 'freeze a flake');
    const held = git(repo, ['rev-parse', 'HEAD']).trim();
    const line = (local: string, sha: string, remote: string) => `refs/heads/${local} ${sha} refs/heads/${remote} ${main}\n`;

    runCases(repo, [
      { what: 'verify-ref eligible', args: ['verify-ref', 'code', '--base', 'main'], code: 0, says: /verdict: eligible/ },
      { what: 'verify-ref closed', args: ['verify-ref', 'agent', '--base', 'main'], code: 1, says: /PATH_PROTECTED/ },
      { what: 'verify-ref hold', args: ['verify-ref', 'held', '--base', 'main', '--identity', 'alice'], code: 3, says: /FREEZE_HELD/ },
      { what: 'verify-ref unknown ref', args: ['verify-ref', 'no-such-branch', '--base', 'main'], code: 2, says: /git fetch origin no-such-branch/ },
      { what: 'pre-push eligible', args: ['pre-push', 'origin', join(dir, 'origin.git')], input: line('code', code, 'code'), code: 0 },
      { what: 'pre-push closed', args: ['pre-push', 'origin', join(dir, 'origin.git')], input: line('agent', agent, 'agent'), code: 1, says: /PATH_PROTECTED/ },
      { what: 'pre-push hold (a protected ref)', args: ['pre-push', 'origin', join(dir, 'origin.git')], input: line('held', held, 'main'), as: 'alice', code: 3, says: /FREEZE_HELD/ },
      { what: 'pre-push with nothing to go on', args: ['pre-push'], cwd: join(dir, 'origin.git'), code: 2 },
    ]);

    // pre-commit reads the index: eligible, closed, hold on the base branch, and nothing to go on.
    git(repo, ['checkout', '-q', 'code']);
    writeFiles(repo, { 'src/more.py': 'x = 1\n' });
    git(repo, ['add', 'src/more.py']);
    runCases(repo, [{ what: 'pre-commit eligible', args: ['pre-commit'], code: 0 }]);
    writeFiles(repo, { 'fixtures/orders/base.json': '{"orders": [2]}\n' });
    git(repo, ['add', 'fixtures/orders/base.json']);
    runCases(repo, [{ what: 'pre-commit closed', args: ['pre-commit'], code: 1, says: /PATH_PROTECTED/ }]);
    git(repo, ['reset', '-q', '--hard']);
    git(repo, ['checkout', '-q', '-B', 'main', 'held']);
    writeFiles(repo, { 'src/more.py': 'x = 2\n' });
    git(repo, ['add', 'src/more.py']);
    runCases(repo, [
      { what: 'pre-commit hold on the base branch', args: ['pre-commit'], as: 'alice', code: 3, says: /FREEZE_HELD/ },
      { what: 'pre-commit in a bare repository (no index to judge)', args: ['pre-commit'], cwd: join(dir, 'origin.git'), code: 2 },
    ]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('check 0/1/2, explain 0/2, init 0/1/2 (an invalid policy kept, an install that fails)', () => {
  const repo = guardedRepo();
  const fresh = tempDir('rg-exit-init-');
  try {
    writeFiles(repo, { 'freeze.json': '{"version": 1, "frozen": [{"id": "t"}]}\n' });
    runCases(repo, [
      { what: 'check clean', args: ['check', 'checks/manifest.json'], code: 0 },
      { what: 'check closing finding', args: ['check', 'freeze.json'], code: 1, says: /FREEZE_INVALID/ },
      { what: 'check of a file that does not exist', args: ['check', 'freez.json'], code: 2, says: /did you mean freeze\.json/ },
      { what: 'explain', args: ['explain', 'fixtures/orders/base.json'], code: 0, says: /protected/ },
      { what: 'explain of an unknown base', args: ['explain', 'x', '--base', 'nope'], code: 2, says: /does not name an object/ },
    ]);
    git(repo, ['checkout', '-q', '--', 'freeze.json']);
    // init over an invalid policy is closed (kept, never overwritten); init in a folder below
    // the top is a usage error; init in a fresh project writes the starter set.
    writeFiles(repo, { '.receipt-gate.json': '{"version": 1, "owners": "alice"}\n' });
    mkdirSync(join(fresh, 'sub'));
    git(fresh, ['init', '-q', '-b', 'main']);
    git(fresh, ['config', 'user.email', 'alice@example.com']);
    runCases(repo, [
      { what: 'init over an invalid policy', args: ['init', '--no-install'], code: 1, says: /the existing \.receipt-gate\.json is invalid; fix it first/ },
      { what: 'init below the top level', args: ['init'], cwd: join(fresh, 'sub'), code: 2, says: /run init at the top level/ },
      { what: 'init in a fresh project', args: ['init', '--no-install', '--no-lint-staged'], cwd: fresh, code: 0, says: /next steps:/ },
    ]);
    // An install init runs that fails is exit 1: a pnpm project (its lock file) where pnpm is
    // not on PATH (only git is), with node_modules present so init installs.
    const pnpm = join(fresh, 'pnpm-project');
    const bin = join(fresh, 'bin');
    mkdirSync(pnpm);
    mkdirSync(bin);
    symlinkSync(execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim(), join(bin, 'git'));
    git(pnpm, ['init', '-q', '-b', 'main']);
    writeFiles(pnpm, { 'package.json': '{"name": "shop"}\n', 'pnpm-lock.yaml': "lockfileVersion: '9.0'\n", 'node_modules/.keep': '' });
    const failed = runCli(['init', '--owner', 'alice@example.com', '--no-lint-staged'], { cwd: pnpm, env: { ...env, PATH: bin } });
    assert.is(failed.status, 1, `init whose install fails: ${failed.stdout}${failed.stderr}`);
    assert.match(failed.stdout, /'pnpm install' failed \(.*\): run it again before the next commit; package\.json names husky@9\.1\.7, receipt-gate@/);
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(fresh, { recursive: true, force: true });
  }
});

test('the authoring tools: 0 written, 1 refused (nothing written), 2 a malformed command line; freeze review 0/3/1', () => {
  const repo = guardedRepo({ 'checks/properties.json': `${JSON.stringify({ properties: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], k: 2 })}\n`, ...heldFlake('o9') });
  try {
    git(repo, ['config', 'user.email', 'alice']);
    writeFileSync(join(repo, 'witness.txt'), 'ran green\n');
    const pin = readFileSync(join(repo, 'fixtures/EPOCH'), 'utf8');
    runCases(repo, [
      { what: 'epoch pin reusing an epoch id with another generator', args: ['epoch', 'pin', '--id', EPOCH_ID, '--generator', 'src/alloc.py'], code: 1, says: /nothing written; epoch .* is already pinned/ },
      { what: 'epoch pin without --id', args: ['epoch', 'pin'], code: 2, says: /--id ID is required/ },
      { what: 'epoch pin', args: ['epoch', 'pin', '--id', 'orders-2026-11-29-a'], code: 0, says: /^wrote fixtures\/EPOCH/ },
      { what: 'manifest sample with a k the catalog does not draw', args: ['manifest', 'sample', '--seed', '5', '--k', '3'], code: 1, says: /nothing written; .*MANIFEST_SAMPLE/ },
      { what: 'manifest sample without --seed', args: ['manifest', 'sample'], code: 2, says: /--seed N is required/ },
      { what: 'manifest sample', args: ['manifest', 'sample', '--seed', '5'], code: 0, says: /checks\/manifest\.json/ },
      { what: 'freeze add with a reason outside the policy', args: ['freeze', 'add', '--id', 't1', '--reason', 'flaky', '--expires', '2026-12-01'], code: 1, says: /nothing written: --reason must be one of/ },
      { what: 'freeze add with a malformed date', args: ['freeze', 'add', '--id', 't1', '--reason', 'timing', '--expires', '12/01/2026'], code: 2, says: /--expires must be a UTC calendar date/ },
      { what: 'freeze add of an absent observation (keyed)', args: ['freeze', 'add', '--observation', 'nope', '--expires-on', '2026-12-01', '--reason', 'r'], code: 1, says: /nothing written: there is no observation/ },
      { what: 'freeze add', args: ['freeze', 'add', '--id', 't1', '--reason', 'timing', '--expires', '2026-12-01'], code: 0, says: /froze t1/ },
      { what: 'freeze add of a test already frozen', args: ['freeze', 'add', '--id', 't1', '--reason', 'timing', '--expires', '2026-12-02'], code: 1, says: /already frozen/ },
      { what: 'freeze add past the policy\'s maxDays', args: ['freeze', 'add', '--id', 't2', '--reason', 'timing', '--expires', '2027-01-30'], code: 1, says: /nothing written; the gate would reject the result/ },
      { what: 'freeze add of a keyed freeze that exists', args: ['freeze', 'add', '--observation', 'o9', '--expires-on', '2026-12-01', '--reason', 'r'], code: 1, says: /nothing written: freezes\/o9\.json exists/ },
      { what: 'freeze add of a keyed freeze with a malformed date', args: ['freeze', 'add', '--observation', 'o9', '--expires-on', 'soon', '--reason', 'r'], code: 2, says: /--expires-on must be a UTC calendar date/ },
      { what: 'freeze list', args: ['freeze', 'list'], code: 0, says: /1 frozen, 0 expired/ },
      { what: 'freeze prune with nothing expired', args: ['freeze', 'prune'], code: 0, says: /no expired freezes/ },
      { what: 'freeze review: t1 and the keyed o9 expire within 7 days', args: ['freeze', 'review'], code: 3, says: /2 expiring within 7 days/ },
      { what: 'freeze review: nothing within 1 day', args: ['freeze', 'review', '--expiring', '1d'], code: 0 },
      { what: 'freeze review after t1 expired', args: ['freeze', 'review', '--now', '2026-12-03'], code: 1, says: /1 expired/ },
      { what: 'freeze review with a bad window', args: ['freeze', 'review', '--expiring', 'soon'], code: 2, says: /--expiring takes a number of days/ },
      { what: 'observe', args: ['observe', '--id', 'o1', '--status', 'pass', '--witness', 'witness.txt'], code: 0, says: /wrote observations\/o1\.json/ },
      { what: 'observe with a missing witness', args: ['observe', '--id', 'o2', '--status', 'pass', '--witness', 'nope.txt'], code: 2, says: /cannot read the witness/ },
      { what: 'observe with a bad status', args: ['observe', '--id', 'o2', '--status', 'green', '--witness', 'witness.txt'], code: 2, says: /--status must be pass, fail or flake/ },
    ]);
    assert.is.not(readFileSync(join(repo, 'fixtures/EPOCH'), 'utf8'), pin, 'the successful pin was written');
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('keygen 0/2, receipt 0/1/2, verify-receipt 0/1/2, verify-log 2', async () => {
  const keys = tempDir('rg-exit-keys-');
  const { repo } = exampleRepo();
  try {
    assert.is((await receiptCli(keys, ['keygen', '--out', 'ci'])).code, 0);
    const again = await receiptCli(keys, ['keygen', '--out', 'ci']);
    assert.is(again.code, 2, 'keygen over an existing key');
    assert.match(again.stderr, /exists; pass --force/);

    git(repo, ['checkout', '-q', '-b', 'fixture-edit']);
    const fixture = 'fixtures/weights_v3.json';
    writeFileSync(join(repo, fixture), `${readFileSync(join(repo, fixture), 'utf8')} `);
    commitAll(repo, 'edit a fixture');
    git(repo, ['checkout', '-q', 'main']);
    const key = join(keys, 'ci.key');
    const pub = join(keys, 'ci.pub');
    const ok = await receiptCli(repo, ['receipt', '--ref', 'main', '--base', 'main', ...GRADER, '--sign-key', key, '--out', join(keys, 'main.json'), '--now', NOW]);
    assert.is(ok.code, 0, `receipt eligible: ${ok.stderr}`);
    const closed = await receiptCli(repo, ['receipt', '--ref', 'fixture-edit', '--base', 'main', ...GRADER, '--sign-key', key, '--out', join(keys, 'edit.json'), '--now', NOW]);
    assert.is(closed.code, 1, `receipt closed: ${closed.stderr}`);
    const usage = await receiptCli(repo, ['receipt', '--ref', 'no-such-ref', '--base', 'main', ...GRADER, '--out', join(keys, 'x.json'), '--now', NOW]);
    assert.is(usage.code, 2, 'receipt of an unknown ref');

    const verify = (file: string, ref: string, extra: string[] = []) =>
      receiptCli(repo, ['verify-receipt', join(keys, file), '--ref', ref, '--base', 'main', '--pub', pub, '--now', NOW, ...extra]);
    assert.is((await verify('main.json', 'main')).code, 0, 'verify-receipt holds');
    const wrongCommit = await verify('main.json', 'fixture-edit');
    assert.is(wrongCommit.code, 1, 'a receipt for another commit');
    assert.match(wrongCommit.stdout, /FAILED /);
    const privateKey = await receiptCli(repo, ['verify-receipt', join(keys, 'main.json'), '--ref', 'main', '--base', 'main', '--pub', key]);
    assert.is(privateKey.code, 2, 'a private key as --pub');
    assert.is((await verify('missing.json', 'main')).code, 2, 'an unreadable receipt');

    const log = runCli(['verify-log'], { cwd: repo, env });
    assert.is(log.status, 2, `verify-log without --pub: ${log.stdout}${log.stderr}`);
  } finally {
    rmSync(keys, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
});

test.run();
