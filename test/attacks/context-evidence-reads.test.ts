// Bounded contexts: a path a context's evidence reads outside its root (docs/contexts.md). The
// pin of billing names a generator and an input under inventory's root; a commit that changes
// only those paths lies under inventory's root, yet it changes billing's evidence. Real pushes
// into a bare repository guarded by the installed hook, verify-ref, and receipt +
// verify-receipt --all on the same commit: billing is touched, judged in full, and only its
// owner may change what its pin names.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gitValue, tempDir } from '../helpers/git';
import { assertClosed, baseEnv, cleanup, CLI, commitAll, ensureBuilt, installHook, machine, push, serverFile, serverRefs, write, type Arena, type PushResult } from './harness';

const NOW = '2026-12-05';
/** bob owns billing, carol owns inventory, platform-bot the repository; dave owns nothing. */
const BOB = { REMOTE_USER: 'bob', RECEIPT_GATE_NOW: NOW };
const CAROL = { REMOTE_USER: 'carol', RECEIPT_GATE_NOW: NOW };
const DAVE = { REMOTE_USER: 'dave', RECEIPT_GATE_NOW: NOW };

const GEN = 'services/inventory/src/gen.js';
const TABLE = 'services/inventory/src/table.json';
const BILLING_PIN = 'services/billing/fixtures/EPOCH';

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const POLICY = {
  version: 2,
  baseBranch: 'main',
  protectedRefs: ['refs/heads/main'],
  protected: ['.github/workflows/**'],
  owners: ['platform-bot'],
  contexts: [
    { name: 'billing', root: 'services/billing', owners: ['bob'], protected: ['fixtures/**'], epoch: { pin: 'fixtures/EPOCH' } },
    { name: 'inventory', root: 'services/inventory', owners: ['carol'], protected: ['fixtures/**'], epoch: { pin: 'fixtures/EPOCH' } },
  ],
};

const GENERATOR = 'module.exports = (order) => ({ ...order, total: order.lines.length });\n';
const INVENTORY_GENERATOR = 'module.exports = (stock) => stock;\n';

ensureBuilt();
const root = tempDir('context-reads');
const arena: Arena = { root, bare: join(root, 'remote.git'), work: join(root, 'work'), refs: '' };
gitValue(root, ['init', '-q', '--bare', '-b', 'main', arena.bare]);
gitValue(root, ['init', '-q', '-b', 'main', arena.work]);
gitValue(arena.work, ['remote', 'add', 'origin', `file://${arena.bare}`]);
const start: Record<string, string> = {
  '.receipt-gate.json': json(POLICY),
  'README.md': '# two services\n',
  'services/billing/src/invoice.js': 'module.exports = (lines) => lines.reduce((a, b) => a + b, 0);\n',
  // billing's fixtures come from a generator that lives in inventory's source.
  [BILLING_PIN]: json({ epoch_id: 'billing-1', generator: GEN, generator_sha256: sha256(GENERATOR), inputs: [TABLE] }),
  [GEN]: GENERATOR,
  [TABLE]: json({ warehouses: ['north', 'south'] }),
  'services/inventory/src/reserve.js': 'module.exports = (stock, n) => stock - n;\n',
  'services/inventory/fixtures/generate.js': INVENTORY_GENERATOR,
  'services/inventory/fixtures/EPOCH': json({ epoch_id: 'inventory-1', generator: 'services/inventory/fixtures/generate.js', generator_sha256: sha256(INVENTORY_GENERATOR), inputs: [] }),
};
for (const [path, text] of Object.entries(start)) write(arena.work, path, text);
commitAll(arena.work, 'two services; billing pins a generator under inventory');
gitValue(arena.work, ['push', '-q', 'origin', 'main'], { env: baseEnv() });
installHook(arena.bare);
arena.refs = serverRefs(arena.bare);

test.before.each(() => {
  gitValue(arena.work, ['fetch', '-q', 'origin']);
  gitValue(arena.work, ['checkout', '-q', '-f', '-B', 'attack', 'origin/main']);
  gitValue(arena.work, ['clean', '-qfdx']);
});
test.after(() => cleanup(root));

/** Commits `files` on the attack branch; returns the commit. */
function change(files: Record<string, string>, message = 'attack'): string {
  for (const [path, text] of Object.entries(files)) write(arena.work, path, text);
  return commitAll(arena.work, message);
}

function cli(args: string[], extra: Record<string, string> = {}) {
  const r = spawnSync('node', [CLI, ...args], { cwd: arena.work, env: baseEnv({ RECEIPT_GATE_NOW: NOW, ...extra }), encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

type MachineFinding = { code: string; severity: string; path: string | null; context?: string; message?: string };

/** Findings as [code, context, path], sorted (the order of the output is not at stake here). */
const rows = (findings: readonly MachineFinding[]): string[][] => findings.map((f) => [f.code, f.context ?? '-', f.path ?? '-']).sort((a, b) => a.join('\0').localeCompare(b.join('\0')));
type Contexts = { ref: string; context: string; touched: boolean; verdict: string }[];

/** The push's findings as [code, context, path] (sorted), and its contexts as [context, touched, verdict]. */
function summary(result: PushResult): { findings: string[][]; contexts: unknown[][] } {
  const line = machine(result) as unknown as { findings: MachineFinding[]; contexts: Contexts };
  return {
    findings: rows(line.findings),
    contexts: line.contexts.map((c) => [c.context, c.touched, c.verdict]),
  };
}

const EDITED = `${GENERATOR}// totals by line count, not amount\n`;

test('a non-owner changing only the generator billing pins (under inventory\'s root) is closed, naming billing; main unchanged', () => {
  change({ [GEN]: EDITED });
  const r = push(arena.work, ['origin', 'attack:main'], DAVE);
  assertClosed(arena, r, 'PATH_PROTECTED', GEN);
  assertClosed(arena, r, 'EPOCH_MISMATCH', GEN);
  const { findings, contexts } = summary(r);
  assert.equal(findings, [
    ['EPOCH_MISMATCH', 'billing', GEN],
    ['PATH_PROTECTED', 'billing', GEN],
  ]);
  assert.equal(contexts, [
    ['billing', true, 'closed'],
    ['inventory', true, 'eligible'],
  ]);
  const text = r.remote.join('\n');
  assert.match(text, /changes a protected path \(generator named by services\/billing\/fixtures\/EPOCH of context billing\) as dave, who is not an owner of billing/);
  assert.match(text, /may only be changed by: bob/);
  assert.is(serverFile(arena, GEN), GENERATOR.trimEnd(), 'main still has the pinned generator');
});

test('a non-owner changing only an input billing\'s pin names is closed (inputs are not hashed: the protection is what stops it)', () => {
  change({ [TABLE]: json({ warehouses: ['north'] }) });
  const r = push(arena.work, ['origin', 'attack:main'], DAVE);
  assertClosed(arena, r, 'PATH_PROTECTED', TABLE);
  const { findings, contexts } = summary(r);
  assert.equal(findings, [['PATH_PROTECTED', 'billing', TABLE]]);
  assert.equal(contexts, [
    ['billing', true, 'closed'],
    ['inventory', true, 'eligible'],
  ]);
  assert.match(r.remote.join('\n'), /\(input named by services\/billing\/fixtures\/EPOCH of context billing\)/);
});

test('an owner of inventory (not of billing) changing the generator billing pins is closed too, on main and on a work branch', () => {
  change({ [GEN]: EDITED });
  for (const target of ['attack:main', 'attack:carol-gen']) {
    const r = push(arena.work, ['origin', target], CAROL);
    assertClosed(arena, r, 'PATH_PROTECTED', GEN);
    const { findings } = summary(r);
    assert.equal(findings, [
      ['EPOCH_MISMATCH', 'billing', GEN],
      ['PATH_PROTECTED', 'billing', GEN],
    ]);
    assert.match(r.remote.join('\n'), /as carol, who is not an owner of billing/);
  }
});

test('verify-ref --identity of a non-owner on that commit: closed, exit 1, billing touched', () => {
  const sha = change({ [GEN]: EDITED });
  const r = cli(['verify-ref', sha, '--base', 'origin/main', '--identity', 'dave', '--json']);
  assert.is(r.status, 1, r.stdout + r.stderr);
  const out = JSON.parse(r.stdout) as { verdict: string; findings: MachineFinding[]; contexts: { name: string; touched: boolean; verdict: string }[] };
  assert.is(out.verdict, 'closed');
  assert.equal(rows(out.findings), [
    ['EPOCH_MISMATCH', 'billing', GEN],
    ['PATH_PROTECTED', 'billing', GEN],
  ]);
  assert.equal(out.contexts.map((c) => [c.name, c.touched, c.verdict]), [
    ['billing', true, 'closed'],
    ['inventory', true, 'eligible'],
  ]);
  // bob owns billing: the path is his to change, but the generator still differs from the pin.
  const asBob = JSON.parse(cli(['verify-ref', sha, '--base', 'origin/main', '--identity', 'bob', '--json']).stdout) as { findings: MachineFinding[] };
  assert.equal(rows(asBob.findings), [['EPOCH_MISMATCH', 'billing', GEN]]);
});

test('receipt writes billing\'s receipt for that commit (closed), and verify-receipt --all refuses it', () => {
  const sha = change({ [GEN]: EDITED });
  gitValue(arena.work, ['branch', '-f', 'gen-patch', sha]);
  const keys = tempDir('context-reads-keys');
  const out = tempDir('context-reads-receipts');
  try {
    assert.is(cli(['keygen', '--out', join(keys, 'ci')]).status, 0);
    const made = cli(['receipt', '--ref', 'gen-patch', '--base', 'origin/main', '--properties-cmd', 'true', '--sign-key', join(keys, 'ci.key'), '--out', join(out, 'receipt-{context}.json')]);
    assert.is(made.status, 1, made.stdout + made.stderr);
    assert.match(made.stdout, /\[context billing, services\/billing\]/);
    const envelope = JSON.parse(readFileSync(join(out, 'receipt-billing.json'), 'utf8')) as { payload: string };
    const receipt = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')).predicate as { verdict: string; context: unknown; findings: { code: string }[] };
    assert.equal(receipt.context, { name: 'billing', root: 'services/billing' });
    assert.is(receipt.verdict, 'closed');
    assert.ok(receipt.findings.some((f) => f.code === 'EPOCH_MISMATCH'), JSON.stringify(receipt.findings));
    const verify = ['--ref', 'gen-patch', '--base', 'origin/main', '--pub', join(keys, 'ci.pub')];
    const all = cli(['verify-receipt', '--all', '--dir', out, ...verify]);
    assert.is(all.status, 1, all.stdout + all.stderr);
    assert.match(all.stdout, /FAILED \[billing\] verdict: the receipt's verdict is closed/);
    // Without billing's receipt at all, --all still asks for it: billing is a touched context.
    const inventoryOnly = tempDir('context-reads-inventory');
    try {
      write(inventoryOnly, 'receipt-inventory.json', readFileSync(join(out, 'receipt-inventory.json'), 'utf8'));
      const missing = cli(['verify-receipt', '--all', '--dir', inventoryOnly, ...verify]);
      assert.is(missing.status, 1, missing.stdout + missing.stderr);
      assert.match(missing.stdout, /FAILED \[billing\] receipt: context billing is touched by gen-patch/);
      assert.match(missing.stdout, /ok \[inventory\]/);
    } finally {
      cleanup(inventoryOnly);
    }
  } finally {
    cleanup(keys);
    cleanup(out);
  }
});

test('the client hooks (pre-commit on the staged change, pre-push on the commit) close it the same way', () => {
  write(arena.work, GEN, EDITED);
  gitValue(arena.work, ['add', GEN]);
  const staged = cli(['pre-commit', '--identity', 'carol']);
  assert.is(staged.status, 1, staged.stdout + staged.stderr);
  const said = staged.stdout + staged.stderr;
  assert.match(said, /PATH_PROTECTED \[billing\]/);
  assert.match(said, /\(generator named by services\/billing\/fixtures\/EPOCH of context billing\) as carol, who is not an owner of billing/);
  // bob owns billing: the path is his to change; the generator still differs from the pin.
  const asBob = cli(['pre-commit', '--identity', 'bob']);
  assert.is(asBob.status, 1, asBob.stdout + asBob.stderr);
  assert.match(asBob.stdout + asBob.stderr, /EPOCH_MISMATCH \[billing\]/);
  assert.not.match(asBob.stdout + asBob.stderr, /PATH_PROTECTED/);
  const sha = commitAll(arena.work, 'attack');
  const main = gitValue(arena.work, ['rev-parse', 'origin/main']);
  const r = spawnSync('node', [CLI, 'pre-push', 'origin', `file://${arena.bare}`, '--identity', 'carol'], {
    cwd: arena.work,
    env: baseEnv({ RECEIPT_GATE_NOW: NOW }),
    input: `refs/heads/attack ${sha} refs/heads/main ${main}\n`,
    encoding: 'utf8',
  });
  assert.is(r.status, 1, r.stdout + r.stderr);
  assert.match(r.stdout + r.stderr, /PATH_PROTECTED \[billing\]/);
});

test('an honest change to an unrelated inventory file stays eligible, billing untouched; billing\'s owner re-pinning the new generator is accepted', () => {
  change({ 'services/inventory/src/reserve.js': 'module.exports = (stock, n) => Math.max(0, stock - n);\n' });
  const honest = push(arena.work, ['origin', 'attack:main'], DAVE);
  assert.is(honest.status, 0, honest.stderr);
  const { findings, contexts } = summary(honest);
  assert.equal(findings, []);
  assert.equal(contexts, [
    ['billing', false, 'eligible'],
    ['inventory', true, 'eligible'],
  ]);
  arena.refs = serverRefs(arena.bare);

  gitValue(arena.work, ['fetch', '-q', 'origin']);
  gitValue(arena.work, ['checkout', '-q', '-f', '-B', 'attack', 'origin/main']);
  change({ [GEN]: EDITED, [BILLING_PIN]: json({ epoch_id: 'billing-2', generator: GEN, generator_sha256: sha256(EDITED), inputs: [TABLE] }) }, 'bob re-pins billing');
  const repin = push(arena.work, ['origin', 'attack:main'], BOB);
  assert.is(repin.status, 0, repin.stderr);
  assert.equal(summary(repin).findings, []);
  assert.is(serverFile(arena, GEN), EDITED.trimEnd());
  arena.refs = serverRefs(arena.bare);
});

test.run();
