#!/usr/bin/env node
// npm run demo:monorepo: bounded contexts on a throwaway copy of examples/monorepo (billing and
// inventory, each its own context with its own evidence and owners).
//   1. verify-ref: a patch to billing (eligible; inventory untouched) and one that also edits
//      inventory's fixtures (closed, naming inventory's owner);
//   2. the same two branches pushed to a bare repository running the pre-receive hook;
//   3. one receipt per touched context, and the merge bot's rule: verify-receipt --all.
// Needs only git, Node.js and the built dist/cli.js (./install.sh builds it).
import { appendFileSync, cpSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { cli, demoSetup, finishDemo, root } from './demo-lib.mjs';

const keep = process.argv.includes('--keep');
const { dir, work, step, run, git } = demoSetup({ prefix: 'receipt-gate-monorepo-', now: '2026-12-05' });
const bare = join(dir, 'monorepo.git');
const gate = (args, label, opts = {}) => run('node', [cli, ...args], { show: true, label: `receipt-gate ${label ?? args.join(' ')}`, mayFail: true, ...opts });

const started = Date.now();
let failed = false;
try {
  step('a monorepo with two bounded contexts: billing (owner bob) and inventory (owner carol)');
  run('git', ['init', '-q', '--bare', '-b', 'main', bare], { cwd: dir });
  cpSync(join(root, 'examples', 'monorepo'), work, { recursive: true });
  git('init', '-q', '-b', 'main');
  git('remote', 'add', 'origin', bare);
  git('add', '-A');
  git('commit', '-qm', 'billing and inventory');
  git('push', '-q', 'origin', 'main');

  git('checkout', '-q', '-b', 'patch/billing', 'main');
  appendFileSync(join(work, 'services/billing/src/invoice.js'), '// one more comment\n');
  git('commit', '-qam', 'billing: a comment');
  git('checkout', '-q', '-b', 'patch/cross', 'main');
  appendFileSync(join(work, 'services/billing/src/invoice.js'), '// bob\n');
  appendFileSync(join(work, 'services/inventory/fixtures/short_order.json'), '\n');
  git('commit', '-qam', 'billing, and inventory\'s fixture');
  git('checkout', '-q', 'main');

  step('1. verify-ref: billing only, then billing plus an inventory fixture');
  const a = gate(['verify-ref', 'patch/billing', '--base', 'main', '--identity', 'bob']);
  const b = gate(['verify-ref', 'patch/cross', '--base', 'main', '--identity', 'bob']);
  if (a.status !== 0 || b.status !== 1 || !/PATH_PROTECTED \[inventory\]/.test(b.stdout)) failed = true;

  step('2. the server hook');
  run(join(root, 'scripts', 'install-server.sh'), ['--server', bare], { show: true, label: './install.sh --server monorepo.git' });
  const ok = run('git', ['push', 'origin', 'patch/billing'], { env: { REMOTE_USER: 'bob' }, show: true, label: 'REMOTE_USER=bob git push origin patch/billing' });
  const no = run('git', ['push', 'origin', 'patch/cross'], { env: { REMOTE_USER: 'bob' }, show: true, mayFail: true, label: 'REMOTE_USER=bob git push origin patch/cross' });
  if (ok.status !== 0 || no.status === 0 || !/carol/.test(no.stderr)) failed = true;

  step('3. one receipt per touched context, and the merge bot\'s rule');
  run('node', [cli, 'keygen', '--out', join(dir, 'ci')]);
  const grader = ['--properties-cmd', 'node properties/run.js', '--fixture-cmd', 'node src/cli.js', '--sign-key', join(dir, 'ci.key')];
  const r = gate(['receipt', '--ref', 'patch/billing', '--base', 'main', ...grader], "receipt --ref patch/billing --base main --properties-cmd 'node properties/run.js' --fixture-cmd 'node src/cli.js' --sign-key ci.key");
  const v = gate(['verify-receipt', '--all', '--ref', 'patch/billing', '--base', 'main', '--pub', join(dir, 'ci.pub')], 'verify-receipt --all --ref patch/billing --base main --pub ci.pub');
  if (r.status !== 0 || v.status !== 0 || existsSync(join(work, 'receipt-inventory.json'))) failed = true;
} catch (err) {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  failed = true;
}
finishDemo({ dir, keep, started, failed });
