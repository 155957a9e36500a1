// examples/monorepo end to end: billing and inventory, each its own bounded context, pushed
// with real `git push` into a bare repository that runs the installed pre-receive hook; the
// client hooks (the real hooks/ shims, through core.hooksPath) and verify-ref on the same
// history. A patch to one service is judged by that service's evidence and owners only.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, cleanup, CLI, commitAll, installHook, machine, push, refOid, ROOT, write, ensureBuilt } from '../server/helpers';
import { gitValue, tempDir } from '../helpers/git';

const NOW = '2026-12-05';
/** What push() adds to the clean environment: the example's date, and who pushes. */
const at = (extra: Record<string, string> = {}): Record<string, string> => ({ RECEIPT_GATE_NOW: NOW, ...extra });
const env = (extra: Record<string, string> = {}) => baseEnv(at(extra));

ensureBuilt();
const root = tempDir('monorepo');
const bare = join(root, 'remote.git');
const work = join(root, 'work');
gitValue(root, ['init', '-q', '--bare', '-b', 'main', bare]);
gitValue(root, ['init', '-q', '-b', 'main', work]);
gitValue(work, ['remote', 'add', 'origin', `file://${bare}`]);
cpSync(join(ROOT, 'examples', 'monorepo'), work, { recursive: true });
commitAll(work, 'the monorepo example');
gitValue(work, ['push', '-q', 'origin', 'main'], { env: baseEnv() });
installHook(bare);

/** A branch off main with the given files written, committed. */
function branch(name: string, files: Record<string, string>, from = 'main'): string {
  gitValue(work, ['checkout', '-q', '-B', name, from]);
  for (const [path, text] of Object.entries(files)) write(work, path, text);
  const sha = commitAll(work, name);
  gitValue(work, ['checkout', '-q', 'main']);
  return sha;
}

function cli(args: string[], extra: Record<string, string> = {}, cwd = work) {
  const r = spawnSync('node', [CLI, ...args], { cwd, env: env(extra), encoding: 'utf8' });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

const append = (path: string, text: string) => `${readFileSync(join(ROOT, 'examples', 'monorepo', path), 'utf8')}${text}`;

test('a patch to billing is judged by billing alone: pushed to main, accepted; the held flake of inventory does not hold it', () => {
  branch('billing-patch', { 'services/billing/src/invoice.js': append('services/billing/src/invoice.js', '// rounding note\n') });
  const r = push(work, ['origin', 'billing-patch:main'], at());
  assert.is(r.status, 0, r.stderr);
  const line = machine(r);
  assert.is(line.verdict, 'eligible');
  // Inventory's tree is main's: only its freezes' expiry is read again, and none has expired.
  assert.equal(line.findings, []);
  assert.equal((line as unknown as { contexts: unknown }).contexts, [
    { ref: 'refs/heads/main', context: 'billing', touched: true, verdict: 'eligible' },
    { ref: 'refs/heads/main', context: 'inventory', touched: false, verdict: 'eligible' },
  ]);
  assert.match(r.remote.join('\n'), /refs\/heads\/main update \w+\.\.\w+: ok; contexts: billing eligible, inventory eligible \(untouched\)/);
  gitValue(work, ['fetch', '-q', 'origin']);
  gitValue(work, ['reset', '-q', '--hard', 'origin/main']);
});

test('a patch to inventory is held by its witnessed flake: refused on main, accepted with a notice on a work branch', () => {
  gitValue(work, ['fetch', '-q', 'origin']);
  gitValue(work, ['reset', '-q', '--hard', 'origin/main']);
  branch('inventory-patch', { 'services/inventory/src/reserve.js': append('services/inventory/src/reserve.js', '// ordering note\n') });
  const onMain = push(work, ['origin', 'inventory-patch:main'], at());
  assert.is.not(onMain.status, 0);
  assert.is(machine(onMain).verdict, 'hold');
  assert.match(onMain.remote.join('\n'), /contexts: billing eligible \(untouched\), inventory hold/);
  const onBranch = push(work, ['origin', 'inventory-patch'], at());
  assert.is(onBranch.status, 0, onBranch.stderr);
  assert.match(onBranch.remote.join('\n'), /accepted with a notice: hold/);
});

test('a branch behind main, touching billing only, reports inventory\'s held flake as info (inventory differs from the base, so it is judged in full)', () => {
  gitValue(work, ['fetch', '-q', 'origin']);
  gitValue(work, ['checkout', '-q', 'main']);
  gitValue(work, ['reset', '-q', '--hard', 'origin/main']);
  const before = gitValue(work, ['rev-parse', 'HEAD']);
  branch('behind', { 'services/billing/src/invoice.js': append('services/billing/src/invoice.js', '// behind\n') }, before);
  // The base moves on in inventory.
  write(work, 'services/inventory/src/reserve.js', append('services/inventory/src/reserve.js', '// carol\n'));
  commitAll(work, 'inventory moves on');
  const json = JSON.parse(cli(['verify-ref', 'behind', '--base', 'main', '--json']).stdout);
  assert.is(json.verdict, 'eligible');
  assert.equal(
    json.findings.map((f: { code: string; severity: string; context?: string }) => [f.code, f.severity, f.context]),
    [['FREEZE_HELD', 'info', 'inventory']],
  );
  assert.match(json.findings[0].message, /\(context inventory: this update touches nothing under services\/inventory, so it is reported, not enforced\)\.$/);
  gitValue(work, ['reset', '-q', '--hard', before]);
});

test("billing's owner editing inventory's fixtures is closed, naming inventory and its owners", () => {
  const before = refOid(bare, 'refs/heads/cross');
  branch('cross', {
    'services/billing/src/invoice.js': append('services/billing/src/invoice.js', '// bob\n'),
    'services/inventory/fixtures/short_order.json': append('services/inventory/fixtures/short_order.json', '\n'),
  });
  const r = push(work, ['origin', 'cross'], at({ REMOTE_USER: 'bob' }));
  assert.is.not(r.status, 0);
  const line = machine(r);
  assert.is(line.verdict, 'closed');
  assert.equal(line.blocked_paths, ['services/inventory/fixtures/short_order.json']);
  const text = r.remote.join('\n');
  assert.match(text, /PATH_PROTECTED \[inventory\] cross \w+ services\/inventory\/fixtures\/short_order\.json/);
  assert.match(text, /services\/inventory\/fixtures\/\*\* may only be changed by: carol/);
  assert.match(line.recommended_action, /only carol may change them/);
  assert.is(refOid(bare, 'refs/heads/cross'), before);
  // Bob owns billing: his change there alone is his to make.
  branch('bob-billing', { 'services/billing/fixtures/inputs/cases.json': append('services/billing/fixtures/inputs/cases.json', '\n') });
  assert.is(push(work, ['origin', 'bob-billing'], at({ REMOTE_USER: 'bob' })).status, 0);
  // Carol owns inventory's fixtures.
  branch('carol', { 'services/inventory/fixtures/inputs/cases.json': append('services/inventory/fixtures/inputs/cases.json', '\n') });
  assert.is(push(work, ['origin', 'carol'], at({ REMOTE_USER: 'carol' })).status, 0);
  assert.is.not(push(work, ['origin', 'carol:carol-as-bob'], at({ REMOTE_USER: 'bob' })).status, 0);
});

test("an expired freeze closes a patch to its own context only; in an untouched context it is info", () => {
  // Bob freezes a billing test until 2026-12-06; on 2026-12-08 it has expired on main.
  const freeze = { version: 1, frozen: [{ id: 'total_is_sum_of_lines', reason: 'timing', expires: '2026-12-06', added: '2026-12-01' }] };
  gitValue(work, ['checkout', '-q', 'main']);
  gitValue(work, ['fetch', '-q', 'origin']);
  gitValue(work, ['reset', '-q', '--hard', 'origin/main']);
  write(work, 'services/billing/freeze.json', `${JSON.stringify(freeze, null, 2)}\n`);
  commitAll(work, 'bob freezes a billing test');
  assert.is(push(work, ['origin', 'main'], at({ REMOTE_USER: 'bob' })).status, 0);
  const later = { RECEIPT_GATE_NOW: '2026-12-08' };
  branch('inventory-later', { 'services/inventory/src/reserve.js': append('services/inventory/src/reserve.js', '// later\n') });
  const inv = push(work, ['origin', 'inventory-later'], at(later));
  assert.is(inv.status, 0, inv.stderr);
  const expired = machine(inv).findings.find((f) => f.code === 'FREEZE_EXPIRED') as { severity: string; context?: string; path: string | null };
  assert.equal([expired.severity, expired.context, expired.path], ['info', 'billing', 'services/billing/freeze.json']);
  branch('billing-later', { 'services/billing/src/invoice.js': append('services/billing/src/invoice.js', '// later\n') });
  const bill = push(work, ['origin', 'billing-later'], at(later));
  assert.is.not(bill.status, 0);
  const closing = machine(bill).findings.find((f) => f.code === 'FREEZE_EXPIRED') as { severity: string; context?: string };
  assert.equal([closing.severity, closing.context], ['closed', 'billing']);
  // verify-ref gives the same verdicts, with each context's verdict in --json.
  const json = JSON.parse(cli(['verify-ref', 'billing-later', '--base', 'main', '--json'], later).stdout);
  assert.is(json.verdict, 'closed');
  assert.equal(json.contexts.map((c: { name: string; touched: boolean; verdict: string }) => [c.name, c.touched, c.verdict]), [['billing', true, 'closed'], ['inventory', false, 'eligible']]);
  assert.is(cli(['verify-ref', 'inventory-later', '--base', 'main'], later).status, 3, 'inventory is held; billing\'s expiry is info');
  // A change outside every root that no context depends on touches every context.
  branch('root-readme', { 'README.md': '# monorepo\n' });
  const both = JSON.parse(cli(['verify-ref', 'root-readme', '--base', 'main', '--json'], later).stdout);
  assert.equal(both.contexts.map((c: { touched: boolean }) => c.touched), [true, true]);
  assert.is(both.verdict, 'closed');
  // libs/money is named by billing's dependsOn: a change there touches billing only.
  branch('money', { 'libs/money/round.js': append('libs/money/round.js', '// note\n') });
  const money = JSON.parse(cli(['verify-ref', 'money', '--base', 'main', '--json']).stdout);
  assert.equal(money.contexts.map((c: { name: string; touched: boolean }) => [c.name, c.touched]), [['billing', true], ['inventory', false]]);
});

test('receipt writes the touched context\'s receipt only; verify-receipt --all is the merge bot\'s rule', () => {
  const keys = tempDir('monorepo-keys');
  assert.is(cli(['keygen', '--out', join(keys, 'ci')]).status, 0);
  const out = tempDir('monorepo-receipts');
  const grader = ['--properties-cmd', 'node properties/run.js', '--fixture-cmd', 'node src/cli.js', '--sign-key', join(keys, 'ci.key')];
  const sha = branch('money-2', { 'libs/money/round.js': append('libs/money/round.js', '// note 2\n') }, 'origin/main');
  const made = cli(['receipt', '--ref', 'money-2', '--base', 'origin/main', ...grader, '--out', join(out, 'receipt-{context}.json'), '--note']);
  assert.is(made.status, 0, made.stdout + made.stderr);
  assert.match(made.stdout, /\[context billing, services\/billing\]/);
  assert.not.match(made.stdout, /inventory/);
  const envelope = JSON.parse(readFileSync(join(out, 'receipt-billing.json'), 'utf8'));
  const receipt = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8')).predicate;
  assert.is(receipt.schema, 'agent-patch-receipt/v2');
  assert.equal(receipt.context, { name: 'billing', root: 'services/billing' });
  assert.equal(receipt.fixtures.map((r: { path: string; ok: boolean }) => [r.path, r.ok]), [['services/billing/fixtures/two_lines.json', true], ['services/billing/fixtures/zero_tax.json', true]]);
  assert.is(receipt.verdict, 'eligible');
  const verify = ['--ref', 'money-2', '--base', 'origin/main', '--pub', join(keys, 'ci.pub')];
  const one = cli(['verify-receipt', join(out, 'receipt-billing.json'), ...verify]);
  assert.is(one.status, 0, one.stdout);
  assert.match(one.stdout, new RegExp(`receipt verified for context billing \\(services/billing\\) at money-2 \\(commit ${sha}\\)`));
  const all = cli(['verify-receipt', '--all', '--dir', out, ...verify]);
  assert.is(all.status, 0, all.stdout + all.stderr);
  assert.match(all.stdout, /every touched context \(billing\) has an eligible receipt/);
  assert.is(cli(['verify-receipt', '--all', '--notes', ...verify]).status, 0, 'the git note refs/notes/receipt-gate-billing holds it too');
  // The billing receipt is not a receipt for another commit, and a patch that also touches
  // inventory needs inventory's receipt too.
  const wide = branch('wide', { 'services/inventory/src/reserve.js': append('services/inventory/src/reserve.js', '// wide\n') }, 'money-2');
  const missing = cli(['verify-receipt', '--all', '--dir', out, '--ref', 'wide', '--base', 'origin/main', '--pub', join(keys, 'ci.pub')]);
  assert.is(missing.status, 1);
  assert.match(missing.stdout, /FAILED \[billing\] commit: the receipt is for commit/);
  assert.match(missing.stdout, /FAILED \[inventory\] receipt: context inventory is touched by wide/);
  const both = cli(['receipt', '--ref', wide, '--base', 'origin/main', ...grader, '--out', join(out, 'receipt-{context}.json')]);
  assert.is(both.status, 3, 'inventory holds: its witnessed flake is frozen');
  const held = cli(['verify-receipt', '--all', '--dir', out, '--ref', wide, '--base', 'origin/main', '--pub', join(keys, 'ci.pub')]);
  assert.is(held.status, 1);
  assert.match(held.stdout, /ok \[billing\]/);
  assert.match(held.stdout, /FAILED \[inventory\] verdict: the receipt's verdict is hold \(FREEZE_HELD\), not eligible/);
  // One file cannot hold two contexts' receipts.
  const clash = cli(['receipt', '--ref', wide, '--base', 'origin/main', ...grader, '--out', join(out, 'one.json')]);
  assert.is(clash.status, 2);
  assert.match(clash.stderr, /put \{context\} in it/);
  cleanup(keys);
  cleanup(out);
});

test('the client hooks stop an edit of inventory\'s fixtures before it leaves the machine', () => {
  const bin = tempDir('monorepo-bin');
  write(bin, 'receipt-gate', `#!/bin/sh\nexec node "${CLI}" "$@"\n`);
  chmodSync(join(bin, 'receipt-gate'), 0o755);
  const clone = join(root, 'clone');
  gitValue(root, ['clone', '-q', `file://${bare}`, clone]);
  gitValue(clone, ['config', 'core.hooksPath', join(ROOT, 'hooks')]);
  gitValue(clone, ['config', 'user.email', 'agent@example.com']);
  const hookEnv = env({ PATH: `${bin}:${process.env.PATH}` });
  write(clone, 'services/inventory/fixtures/short_order.json', '{"id": "short_order", "input": [], "sha256": "TODO"}\n');
  gitValue(clone, ['add', '-A'], { env: hookEnv });
  const commit = spawnSync('git', ['commit', '-qm', 'make it pass'], { cwd: clone, env: hookEnv, encoding: 'utf8' });
  assert.is.not(commit.status, 0);
  assert.match(commit.stderr, /PATH_PROTECTED \[inventory\]/);
  assert.match(commit.stderr, /only carol may change it|may only be changed by: carol/);
  // Committed past the client's pre-commit, the pre-push hook stops it with the same finding.
  assert.is(spawnSync('git', ['commit', '-qm', 'make it pass', '--no-verify'], { cwd: clone, env: hookEnv }).status, 0);
  gitValue(clone, ['checkout', '-q', '-b', 'agent'], { env: hookEnv });
  const before = refOid(bare, 'refs/heads/agent');
  const pushed = spawnSync('git', ['push', 'origin', 'agent'], { cwd: clone, env: hookEnv, encoding: 'utf8' });
  assert.is.not(pushed.status, 0);
  assert.match(pushed.stderr, /PATH_PROTECTED \[inventory\]/);
  assert.is(refOid(bare, 'refs/heads/agent'), before, 'nothing reached the server');
  // A billing-only change passes both hooks (inventory's hold is info: it is not touched).
  gitValue(clone, ['reset', '-q', '--hard', 'origin/main'], { env: hookEnv });
  write(clone, 'services/billing/src/invoice.js', `${readFileSync(join(clone, 'services/billing/src/invoice.js'), 'utf8')}// client\n`);
  const ok = spawnSync('git', ['commit', '-qam', 'billing only'], { cwd: clone, env: hookEnv, encoding: 'utf8' });
  assert.is(ok.status, 0, ok.stderr);
  const okPush = spawnSync('git', ['push', 'origin', 'agent:agent-billing'], { cwd: clone, env: hookEnv, encoding: 'utf8' });
  assert.is(okPush.status, 0, okPush.stderr);
  cleanup(bin);
});

test.after(() => cleanup(root));

test.run();
