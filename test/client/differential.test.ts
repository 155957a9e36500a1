// pre-push and verify-ref must agree: for random pushes (random commits touching code,
// protected paths and evidence, by an owner or not, to the base branch or a new branch), the
// husky pre-push hook run by a real `git push --dry-run` reports the same verdict and the same
// findings as `receipt-gate verify-ref` of the same branch against the same base.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { chmodSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { AGENT_EMAIL, machineLineOf, OWNER_EMAIL, Sandbox, TODAY } from './harness';

const sandbox = new Sandbox('differential');
const owner = sandbox.guardedRepository();
// The owner switches on the epoch and observation rules, so pushes can also hold.
{
  const policy = JSON.parse(sandbox.read(owner, '.receipt-gate.json'));
  policy.epoch = { pin: 'fixtures/EPOCH' };
  policy.observations = { dir: 'observations', freezes: 'freezes' };
  sandbox.write(owner, '.receipt-gate.json', `${JSON.stringify(policy, null, 2)}\n`);
  sandbox.write(owner, 'fixtures/gen.py', 'print("orders")\n');
  sandbox.git(owner, 'add', '-A');
  const pin = sandbox.receiptGate(owner, ['epoch', 'pin', '--id', 'orders-1', '--generator', 'fixtures/gen.py']);
  if (pin.status !== 0) throw new Error(`epoch pin failed: ${pin.stderr}`);
  sandbox.git(owner, 'add', '-A');
  const commit = sandbox.commit(owner, 'Pin the fixture epoch; record observations');
  if (commit.status !== 0) throw new Error(`owner commit failed: ${commit.stdout}${commit.stderr}`);
  sandbox.push(owner, 'alice', ['origin', 'main'], true);
}
const clone = sandbox.clone('pusher', AGENT_EMAIL);
const cli = join(clone, 'node_modules', 'receipt-gate', 'dist', 'cli.js');

const OPS = [
  'code',
  'fixture',
  'fixture-readme',
  'freeze-valid',
  'freeze-expired',
  'freeze-bad-reason',
  'freeze-delete',
  'husky',
  'workflow',
  'policy-broken',
  'exec-bit',
  'conftest',
  'flake-frozen',
  'flake-unfrozen',
  'observation-failed',
  'generator-edit',
] as const;
type Op = (typeof OPS)[number];

function freezeFile(rows: object[]): string {
  return `${JSON.stringify({ version: 1, frozen: rows }, null, 2)}\n`;
}

function apply(dir: string, op: Op, n: number): void {
  switch (op) {
    case 'code':
      return sandbox.write(dir, 'src/app.js', `module.exports = ${n};\n`);
    case 'fixture':
      return sandbox.write(dir, 'fixtures/data.json', `{"n": ${n}}\n`);
    case 'fixture-readme':
      return sandbox.write(dir, 'fixtures/README.md', `# fixtures ${n}\n`);
    case 'freeze-valid':
      return sandbox.write(dir, 'freeze.json', freezeFile([{ id: `t${n}`, reason: 'timing', expires: '2026-12-03', added: TODAY }]));
    case 'freeze-expired':
      return sandbox.write(dir, 'freeze.json', freezeFile([{ id: `t${n}`, reason: 'infra', expires: '2026-11-20', added: '2026-11-10' }]));
    case 'freeze-bad-reason':
      return sandbox.write(dir, 'freeze.json', freezeFile([{ id: `t${n}`, reason: 'because', expires: '2026-12-01' }]));
    case 'freeze-delete':
      return rmSync(join(dir, 'freeze.json'), { force: true });
    case 'husky':
      return sandbox.write(dir, '.husky/pre-commit', 'exit 0\n');
    case 'workflow':
      return sandbox.write(dir, '.github/workflows/ci.yml', `on: push # ${n}\n`);
    case 'policy-broken':
      return sandbox.write(dir, '.receipt-gate.json', '{"version": 2}\n');
    case 'exec-bit':
      sandbox.write(dir, 'src/run.sh', '#!/bin/sh\n');
      return chmodSync(join(dir, 'src/run.sh'), n % 2 ? 0o755 : 0o644);
    case 'conftest':
      return sandbox.write(dir, 'tests/conftest.py', `# ${n}\n`);
    case 'flake-frozen':
      observation(dir, 'flaky', 'flake', n);
      return sandbox.write(dir, 'freezes/flaky.json', `{"observation_id": "flaky", "epoch_id": "orders-1", "expires_on": "2026-12-04", "reason": "green on re-run ${n}"}\n`);
    case 'flake-unfrozen':
      return observation(dir, 'wobbly', 'flake', n);
    case 'observation-failed':
      return observation(dir, 'broken', 'fail', n);
    case 'generator-edit':
      return sandbox.write(dir, 'fixtures/gen.py', `print("orders", ${n})\n`);
  }
}

function observation(dir: string, id: string, status: string, n: number): void {
  const witness = `run ${n}\n`;
  sandbox.write(dir, `observations/${id}.bin`, witness);
  const record = { id, epoch_id: 'orders-1', status, rerun_passed: true, witness_sha256: createHash('sha256').update(witness).digest('hex') };
  sandbox.write(dir, `observations/${id}.json`, `${JSON.stringify(record)}\n`);
}

type Row = { code: string; severity: string; ref: string | null; commit: string | null; path: string | null };
const key = (f: Row) => `${f.severity} ${f.code} ${f.ref} ${f.commit} ${f.path}`;

let runs = 0;

test('pre-push (git push --dry-run through husky) and verify-ref agree on random pushes (fixed seed)', async () => {
  // Code edits and witnessed frozen flakes are drawn more often, so eligible and hold pushes
  // are as common as closed ones.
  const opArb = fc.oneof(
    { arbitrary: fc.constantFrom<Op>('code', 'fixture-readme'), weight: 5 },
    { arbitrary: fc.constant<Op>('flake-frozen'), weight: 3 },
    { arbitrary: fc.constantFrom(...OPS), weight: 4 },
  );
  const commitArb = fc.array(opArb, { minLength: 1, maxLength: 3 });
  await fc.assert(
    fc.asyncProperty(
      fc.array(commitArb, { minLength: 1, maxLength: 3 }),
      fc.boolean(),
      fc.boolean(),
      async (commits, asOwner, toMain) => {
        runs++;
        const branch = toMain ? 'main' : `feature/run-${runs}`;
        const email = asOwner ? OWNER_EMAIL : AGENT_EMAIL;
        sandbox.git(clone, 'fetch', '-q', 'origin');
        sandbox.git(clone, 'checkout', '-q', '-f', '-B', branch, 'origin/main');
        sandbox.git(clone, 'clean', '-q', '-fd');
        sandbox.git(clone, 'config', 'user.email', email);
        commits.forEach((ops, i) => {
          ops.forEach((op, j) => apply(clone, op, runs * 100 + i * 10 + j));
          sandbox.git(clone, 'add', '-A');
          sandbox.git(clone, 'commit', '-q', '--allow-empty', '--no-verify', '-m', `commit ${i}: ${ops.join(', ')}`);
        });

        const push = sandbox.run('git', ['push', '--dry-run', 'origin', branch], clone);
        const clientLine = machineLineOf(push.stderr);
        const audit = sandbox.run('node', [cli, 'verify-ref', branch, '--base', 'refs/remotes/origin/main', '--identity', email, '--json'], clone);
        const json = JSON.parse(audit.stdout) as { verdict: string; findings: Row[] };
        const context = `${branch} as ${email}: ${JSON.stringify(commits)}\n${push.stderr}\n${audit.stdout}`;

        if (clientLine === null) {
          assert.is(json.verdict, 'eligible', context);
          assert.equal(json.findings, [], context);
          assert.is(push.status, 0, context);
          return;
        }
        assert.is(clientLine.verdict, json.verdict, context);
        const ours = clientLine.findings.map(key).sort();
        const theirs = json.findings.map(key).sort();
        assert.equal(ours, theirs, context);
        // The hook's answer: closed always stops the push; hold stops it on the base branch only.
        const stops = json.verdict === 'closed' || (json.verdict === 'hold' && toMain);
        assert.is(push.status !== 0, stops, context);
      },
    ),
    { seed: 20261129, numRuns: 20 },
  );
  assert.ok(runs >= 20);
});

test('the owner clone is untouched by the runs', () => {
  assert.is(sandbox.git(owner, 'status', '--porcelain'), '');
});

test.run();
