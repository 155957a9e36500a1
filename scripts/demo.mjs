#!/usr/bin/env node
// npm run demo: receipt-gate on a throwaway repository, in under 30 seconds.
//   1. verify-ref on an honest branch (eligible) and on one that edits a fixture (closed,
//      PATH_PROTECTED);
//   2. the same two branches pushed to a bare repository with the pre-receive hook installed:
//      the honest push is accepted, the fixture edit is rejected with the real remote: output.
// Needs only git, Node.js and the built dist/cli.js (./install.sh builds it).
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { cli, demoSetup, finishDemo, root } from './demo-lib.mjs';

const keep = process.argv.includes('--keep');
const { dir, work, step, run, git } = demoSetup({ prefix: 'receipt-gate-demo-', now: '2026-09-10' });
const bare = join(dir, 'project.git');

function write(path, text) {
  mkdirSync(dirname(join(work, path)), { recursive: true });
  writeFileSync(join(work, path), text);
}

const started = Date.now();
let failed = false;
try {
  step('a repository guarded by receipt-gate');
  run('git', ['init', '-q', '--bare', '-b', 'main', bare], { cwd: dir });
  run('git', ['init', '-q', '-b', 'main', work], { cwd: dir });
  git('remote', 'add', 'origin', bare);
  write(
    '.receipt-gate.json',
    `${JSON.stringify(
      {
        version: 1,
        baseBranch: 'main',
        protectedRefs: ['refs/heads/main'],
        protected: ['fixtures/**', 'checks/**'],
        exceptions: ['fixtures/**/*.md'],
        owners: ['alice', 'release-bot'],
        identityEnv: ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'],
      },
      null,
      2,
    )}\n`,
  );
  write('fixtures/orders.json', '{"orders": [{"id": 1, "amount": 30}]}\n');
  write('src/orders.py', 'def total(orders):\n    return sum(o["amount"] for o in orders)\n');
  git('add', '-A');
  git('commit', '-qm', 'orders service with its fixture');
  git('push', '-q', 'origin', 'main');
  console.log('policy: fixtures/** and checks/** may only be changed by alice or release-bot');

  git('checkout', '-q', '-b', 'agent/honest', 'main');
  write('src/orders.py', 'def total(orders):\n    return sum(o.get("amount", 0) for o in orders)\n');
  git('commit', '-qam', 'tolerate orders without an amount');
  git('checkout', '-q', '-b', 'agent/cheat', 'main');
  write('fixtures/orders.json', '{"orders": [{"id": 1, "amount": 0}]}\n');
  git('commit', '-qam', 'make the failing test pass');

  step('1. verify-ref: the honest branch, then the one that edits the fixture');
  const honest = run('node', [cli, 'verify-ref', 'agent/honest', '--base', 'main', '--identity', 'bob'], { show: true, label: 'receipt-gate verify-ref agent/honest --base main --identity bob' });
  const cheat = run('node', [cli, 'verify-ref', 'agent/cheat', '--base', 'main', '--identity', 'bob'], { show: true, label: 'receipt-gate verify-ref agent/cheat --base main --identity bob' });
  if (honest.status !== 0 || cheat.status !== 1 || !/PATH_PROTECTED/.test(cheat.stdout + cheat.stderr)) failed = true;

  step('2. the server hook: install it into the bare repository');
  run(join(root, 'scripts', 'install-server.sh'), ['--server', bare], { show: true, label: './install.sh --server project.git' });

  step('3. bob pushes the honest branch: accepted');
  const ok = run('git', ['push', 'origin', 'agent/honest'], { env: { REMOTE_USER: 'bob' }, show: true, label: 'REMOTE_USER=bob git push origin agent/honest' });
  step('4. bob pushes the fixture edit: rejected before CI ever runs');
  const no = run('git', ['push', 'origin', 'agent/cheat'], { env: { REMOTE_USER: 'bob' }, show: true, mayFail: true, label: 'REMOTE_USER=bob git push origin agent/cheat' });
  if (ok.status !== 0 || no.status === 0 || !/PATH_PROTECTED/.test(no.stderr)) failed = true;
} catch (err) {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  failed = true;
}
finishDemo({ dir, keep, started, failed });
