// `--context NAME` for the owners' tools on examples/monorepo (billing: owner bob; inventory:
// owner carol, a keyed freeze with a witness), through the built CLI in a real git clone:
// explain judges a path by the context whose root holds it (as the gate does: a verify-ref of
// the same change agrees), the authoring commands write that context's evidence files and
// name its owners, check reads a context's files under its policy, freeze review covers every
// context, and an unknown or missing context name is a usage error that lists the names.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, cleanup, CLI, commitAll, ensureBuilt, manifestDigest, pythonSample, ROOT, write } from '../server/helpers';
import { gitValue, tempDir } from '../helpers/git';

const NOW = '2026-12-05';
ensureBuilt();
const root = tempDir('ctx-cli');
const work = join(root, 'work');
gitValue(root, ['init', '-q', '-b', 'main', work]);
cpSync(join(ROOT, 'examples', 'monorepo'), work, { recursive: true });
commitAll(work, 'the monorepo example');

function cli(args: string[], cwd = work, extra: Record<string, string> = {}) {
  const r = spawnSync('node', [CLI, ...args], { cwd, env: baseEnv({ RECEIPT_GATE_NOW: NOW, GIT_AUTHOR_EMAIL: 'bob', GIT_COMMITTER_EMAIL: 'bob', ...extra }), encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Back to the committed example between tests. */
function reset(): void {
  gitValue(work, ['checkout', '-q', '-f', 'main']);
  gitValue(work, ['reset', '-q', '--hard', 'main']);
  gitValue(work, ['clean', '-fdq']);
}

const read = (path: string) => readFileSync(join(work, path), 'utf8');

test('explain judges a path by the context whose root holds it, as the gate does', () => {
  const asBob = JSON.parse(cli(['explain', 'services/billing/fixtures/two_lines.json', 'services/inventory/fixtures/short_order.json', 'libs/money/round.js', '--identity', 'bob', '--json']).stdout);
  const [billing, inventory, lib] = asBob.paths;
  assert.equal([billing.context, billing.protected, billing.owners, billing.may_change], ['billing', true, ['bob'], true]);
  assert.is(billing.protected_by, 'services/billing/fixtures/**');
  assert.equal([inventory.context, inventory.protected, inventory.owners, inventory.may_change], ['inventory', true, ['carol'], false]);
  assert.equal([lib.context, lib.protected, lib.may_change], [null, false, true]);

  const text = cli(['explain', 'services/inventory/freezes/slow_restock.json', '--identity', 'bob']);
  assert.is(text.status, 0, text.stderr);
  assert.match(text.stdout, /services\/inventory\/freezes\/slow_restock\.json: protected\n {2}in context inventory \(services\/inventory\): its globs and evidence, the repository-wide globs, its owners\n/);
  assert.match(text.stdout, /may be changed by: carol\n {2}as bob: not an owner, a change to it is PATH_PROTECTED/);

  // The gate agrees: bob's change to inventory's fixture is closed, to billing's is not.
  gitValue(work, ['checkout', '-q', '-b', 'bob-edits']);
  write(work, 'services/inventory/fixtures/short_order.json', `${read('services/inventory/fixtures/short_order.json')} `);
  commitAll(work, 'bob edits inventory');
  const gate = JSON.parse(cli(['verify-ref', 'bob-edits', '--base', 'main', '--identity', 'bob', '--json']).stdout);
  const protectedPaths = gate.findings.filter((f: { code: string }) => f.code === 'PATH_PROTECTED').map((f: { path: string; context: string }) => [f.path, f.context]);
  assert.equal(protectedPaths, [['services/inventory/fixtures/short_order.json', 'inventory']]);
  reset();
});

test("verify-ref --json carries every context's identities, an untouched context's too (read from its own files)", () => {
  gitValue(work, ['checkout', '-q', '-b', 'billing-only']);
  write(work, 'services/billing/src/invoice.js', `${read('services/billing/src/invoice.js')}\n// a comment\n`);
  commitAll(work, 'bob edits billing code');
  const gate = JSON.parse(cli(['verify-ref', 'billing-only', '--base', 'main', '--identity', 'bob', '--json']).stdout);
  const byName = new Map(gate.contexts.map((c: { name: string; touched: boolean; identities: { epoch_id: string | null; manifest_sha256: string | null } }) => [c.name, c]));
  for (const name of ['billing', 'inventory']) {
    const pin = JSON.parse(read(`services/${name}/fixtures/EPOCH`)) as { epoch_id: string };
    const manifest = JSON.parse(read(`services/${name}/checks/manifest.json`)) as { seed: number; properties: unknown[] };
    const c = byName.get(name) as { touched: boolean; identities: { epoch_id: string | null; manifest_sha256: string | null } };
    assert.is(c.touched, name === 'billing', name);
    assert.is(c.identities.epoch_id, pin.epoch_id, name);
    assert.is(c.identities.manifest_sha256, manifestDigest(manifest.seed, manifest.properties), name);
  }
  reset();
});

test('explain --context NAME takes PATHs relative to the root (a path under it as it is)', () => {
  const r = JSON.parse(cli(['explain', '--context', 'billing', 'fixtures/two_lines.json', 'services/billing/checks/manifest.json', '--json']).stdout);
  assert.equal(r.paths.map((p: { path: string; context: string; pinned: string | null }) => [p.path, p.context, p.pinned]), [
    ['services/billing/fixtures/two_lines.json', 'billing', null],
    ['services/billing/checks/manifest.json', 'billing', 'services/billing/checks/manifest.json'],
  ]);
});

test('an unknown --context is exit 2 with the nearest name and the list, for every command that takes it', () => {
  const commands: string[][] = [
    ['explain', 'fixtures/a.json'],
    ['check', 'services/billing/freeze.json'],
    ['epoch', 'pin', '--id', 'e9'],
    ['manifest', 'sample', '--seed', '1'],
    ['freeze', 'list'],
    ['freeze', 'review'],
    ['freeze', 'add', '--id', 't', '--reason', 'timing', '--expires', '2026-12-10'],
    ['observe', '--id', 'o1', '--status', 'pass', '--witness', 'README.md'],
  ];
  for (const args of commands) {
    const r = cli([...args, '--context', 'billng']);
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /--context billng: the policy declares no such context; did you mean billing\? It declares billing, inventory: pass one of them/, args.join(' '));
  }
  const receipt = cli(['receipt', '--ref', 'main', '--base', 'main', '--context', 'billng', '--properties-cmd', 'true', '--fixture-cmd', 'cat']);
  assert.is(receipt.status, 2, receipt.stdout + receipt.stderr);
  assert.match(receipt.stderr, /--context billng: the policy at the base declares no such context; did you mean billing\? \(it declares billing, inventory\)/);
  assert.is(gitValue(work, ['status', '--porcelain']), '', 'nothing written');
});

test('without --context, a command that needs one context and cannot infer it says so and lists the names', () => {
  for (const args of [['manifest', 'sample', '--seed', '1'], ['freeze', 'list'], ['freeze', 'add', '--id', 't', '--reason', 'timing', '--expires', '2026-12-10'], ['observe', '--id', 'o1', '--status', 'pass', '--witness', 'README.md'], ['epoch', 'pin', '--id', 'e9']]) {
    const r = cli(args);
    assert.is(r.status, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.stderr, /works in one bounded context, and the contexts? .* own ".*" section: pass --context NAME, one of billing, inventory/, args.join(' '));
  }
  assert.is(gitValue(work, ['status', '--porcelain']), '', 'nothing written');
});

test('epoch pin: the context is inferred from --generator, or named with root-relative paths; the pin lands in that context', () => {
  const generator = 'services/billing/fixtures/generate.js';
  // The blob git stores, hashed here independently of the code under test.
  const blob = spawnSync('git', ['cat-file', 'blob', `HEAD:${generator}`], { cwd: work, env: baseEnv() }).stdout;
  const digest = createHash('sha256').update(blob).digest('hex');
  const inferred = cli(['epoch', 'pin', '--id', 'billing-2026-12-05-a', '--generator', generator]);
  assert.is(inferred.status, 0, inferred.stderr);
  assert.match(inferred.stdout, /^wrote services\/billing\/fixtures\/EPOCH: epoch billing-2026-12-05-a/);
  assert.match(inferred.stdout, /only bob may push it/);
  const pin = JSON.parse(read('services/billing/fixtures/EPOCH'));
  assert.equal([pin.generator, pin.inputs], [generator, ['services/billing/fixtures/inputs/cases.json']]);
  assert.is(pin.generator_sha256, digest);
  reset();

  const named = cli(['epoch', 'pin', '--context', 'inventory', '--id', 'inventory-2026-12-05-a', '--generator', 'fixtures/generate.js', '--input', 'fixtures/inputs/cases.json']);
  assert.is(named.status, 0, named.stderr);
  const inv = JSON.parse(read('services/inventory/fixtures/EPOCH'));
  assert.equal([inv.epoch_id, inv.generator, inv.inputs], ['inventory-2026-12-05-a', 'services/inventory/fixtures/generate.js', ['services/inventory/fixtures/inputs/cases.json']]);
  assert.match(named.stdout, /only carol may push it/);
  assert.equal(gitValue(work, ['status', '--porcelain']), 'M services/inventory/fixtures/EPOCH', 'billing untouched');
  reset();

  const both = cli(['epoch', 'pin', '--id', 'x', '--generator', 'services/billing/fixtures/generate.js', '--context', 'inventory']);
  assert.is(both.status, 2, 'services/inventory/services/billing/… is not in the index');
  assert.match(both.stderr, /services\/inventory\/services\/billing\/fixtures\/generate\.js is not in the index/);
});

test("manifest sample --context: draws from that context's catalog as CPython does and writes its manifest", () => {
  const r = cli(['manifest', 'sample', '--context', 'billing', '--seed', '77']);
  assert.is(r.status, 0, r.stderr);
  const catalog = JSON.parse(read('services/billing/checks/properties.json'));
  const manifest = JSON.parse(read('services/billing/checks/manifest.json'));
  const expected = pythonSample(77, catalog.properties, catalog.k);
  assert.equal(manifest.properties, expected);
  assert.is(manifest.manifest_sha256, manifestDigest(77, expected));
  assert.equal(gitValue(work, ['status', '--porcelain']), 'M services/billing/checks/manifest.json');
  reset();
});

test('freeze --context: add, list and a refusal in that context; review without --context covers every context', () => {
  const add = cli(['freeze', 'add', '--context', 'billing', '--id', 'tests/rounding.test.js', '--reason', 'timing', '--expires', '2026-12-10']);
  assert.is(add.status, 0, add.stderr);
  assert.match(add.stdout, /froze tests\/rounding\.test\.js in services\/billing\/freeze\.json until 2026-12-10/);
  const list = cli(['freeze', 'list', '--context', 'billing']);
  assert.match(list.stdout, /^services\/billing\/freeze\.json on 2026-12-05: 1 frozen, 0 expired\n/);
  const refused = cli(['freeze', 'add', '--context', 'billing', '--id', 'x', '--reason', 'flaky', '--expires', '2026-12-10']);
  assert.is(refused.status, 1, refused.stderr);
  assert.match(refused.stderr, /nothing written: --reason must be one of the policy's freeze reasons/);
  const keyedMissing = cli(['freeze', 'add', '--context', 'billing', '--observation', 'slow_restock', '--expires-on', '2026-12-10', '--reason', 'r']);
  assert.is(keyedMissing.status, 2);
  assert.match(keyedMissing.stderr, /context billing of the policy has no "observations" section/);

  // A keyed freeze without --context: the context whose observations hold the cited one.
  const exists = cli(['freeze', 'add', '--observation', 'slow_restock', '--expires-on', '2026-12-10', '--reason', 'r']);
  assert.is(exists.status, 1, exists.stdout + exists.stderr);
  assert.match(exists.stderr, /nothing written: services\/inventory\/freezes\/slow_restock\.json exists/);
  const keyed = cli(['freeze', 'add', '--observation', 'slow_restock', '--name', 'slow_restock_b', '--expires-on', '2026-12-10', '--reason', 'r'], work, { GIT_AUTHOR_EMAIL: 'carol' });
  assert.is(keyed.status, 0, keyed.stdout + keyed.stderr);
  assert.match(keyed.stdout, /froze observation slow_restock in services\/inventory\/freezes\/slow_restock_b\.json until 2026-12-10/);
  assert.match(keyed.stdout, /only carol may push it/);
  gitValue(work, ['clean', '-fdq', 'services/inventory']);
  const unknown = cli(['freeze', 'add', '--observation', 'nowhere', '--expires-on', '2026-12-10', '--reason', 'r']);
  assert.is(unknown.status, 2);
  assert.match(unknown.stderr, /works in one bounded context, and the context inventory has its own "observations" section \(keyed freezes\): pass --context NAME, one of billing, inventory/);

  const review = JSON.parse(cli(['freeze', 'review', '--json']).stdout);
  assert.equal(review.freezes.map((f: { id: string; context: string; file: string }) => [f.context, f.id, f.file]), [
    ['billing', 'tests/rounding.test.js', 'services/billing/freeze.json'],
    ['inventory', 'slow_restock', 'services/inventory/freezes/slow_restock.json'],
  ]);
  const one = JSON.parse(cli(['freeze', 'review', '--context', 'inventory', '--json']).stdout);
  assert.equal(one.freezes.map((f: { id: string }) => f.id), ['slow_restock']);
  reset();
});

test("observe --context: records in that context's observations folder; a context without one says so", () => {
  write(root, 'witness.txt', 'ok\n');
  const r = cli(['observe', '--context', 'inventory', '--id', 'restock_fast', '--status', 'pass', '--witness', join(root, 'witness.txt')]);
  assert.is(r.status, 0, r.stderr);
  const record = JSON.parse(read('services/inventory/observations/restock_fast.json'));
  assert.is(record.epoch_id, JSON.parse(read('services/inventory/fixtures/EPOCH')).epoch_id);
  assert.is(read('services/inventory/observations/restock_fast.bin'), 'ok\n');
  const none = cli(['observe', '--context', 'billing', '--id', 'x', '--status', 'pass', '--witness', join(root, 'witness.txt')]);
  assert.is(none.status, 2);
  assert.match(none.stderr, /context billing of the policy has no "observations" section/);
  reset();
});

test("check reads a context's evidence under its policy; --context limits it to one root", () => {
  write(work, 'services/billing/freeze.json', '{"version": 1, "frozen": [{"id": "x"}]}\n');
  const r = cli(['check', 'services/billing/freeze.json', '--json']);
  assert.is(r.status, 1, r.stdout + r.stderr);
  const found = JSON.parse(r.stdout).findings;
  assert.ok(found.length > 0);
  assert.ok(found.every((f: { code: string; context: string }) => f.code === 'FREEZE_INVALID' && f.context === 'billing'), r.stdout);
  const inRoot = cli(['check', '--context', 'billing', 'freeze.json'], join(work, 'services', 'billing'));
  assert.is(inRoot.status, 1);
  assert.match(inRoot.stderr, /FREEZE_INVALID \[billing\] services\/billing\/freeze\.json/);
  const wrong = cli(['check', '--context', 'inventory', 'services/billing/freeze.json']);
  assert.is(wrong.status, 2);
  assert.match(wrong.stderr, /services\/billing\/freeze\.json is not under the root services\/inventory of context inventory/);
  reset();
  assert.is(cli(['check', 'services/billing/freeze.json', 'services/inventory/freezes/slow_restock.json']).status, 0);
});

test("check .receipt-gate.json warns about a context's own glob that matches nothing at the base, naming the context", () => {
  const policy = JSON.parse(read('.receipt-gate.json'));
  policy.contexts[0].protected = ['properties/**', 'checks/**', 'fixturs/**'];
  write(work, '.receipt-gate.json', `${JSON.stringify(policy, null, 2)}\n`);
  const r = cli(['check', '.receipt-gate.json']);
  assert.is(r.status, 0, r.stdout + r.stderr);
  const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
  // The typo, and the example's exception for fixture notes (no .md file is there yet).
  assert.equal(warnings.map((w) => w.replace(/\(of \d+ paths\)/, '(of N paths)')), [
    'receipt-gate check: warning: the protected glob "services/billing/fixturs/**" of context billing matches no path at HEAD (of N paths); check it for a typo (did you mean "services/billing/fixtures/**"?)',
    'receipt-gate check: warning: the exceptions glob "services/billing/fixtures/**/*.md" of context billing matches no path at HEAD (of N paths); check it for a typo',
  ]);
  reset();
});

test('--context in a policy without contexts is exit 2 saying to leave it out', () => {
  const plain = tempDir('ctx-plain');
  try {
    gitValue(plain, ['init', '-q', '-b', 'main']);
    write(plain, '.receipt-gate.json', `${JSON.stringify({ version: 1, baseBranch: 'main', protected: ['fixtures/**'], owners: ['bob'], freeze: { path: 'freeze.json' } })}\n`);
    write(plain, 'freeze.json', '{"version": 1, "frozen": []}\n');
    commitAll(plain, 'policy');
    const r = cli(['freeze', 'list', '--context', 'billing'], plain);
    assert.is(r.status, 2);
    assert.match(r.stderr, /--context billing: the policy declares no bounded contexts; run 'freeze list' without --context/);
    assert.is(cli(['freeze', 'list'], plain).status, 0);
  } finally {
    cleanup(plain);
  }
});

test.after(() => cleanup(root));
test.run();
