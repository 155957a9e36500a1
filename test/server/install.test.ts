// install.sh --server: a self-contained bundle under hooks/, an existing pre-receive kept and
// chained (ours first, the old one on the same stdin), idempotent, --uninstall restores.
// Every check is a real `git push` into a bare repository.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, cleanup, commitAll, guardedRemote, INSTALL, machine, makeTemplate, push, refOid, write, type Remote } from './helpers';
import { gitValue } from '../helpers/git';

let template: Remote;
let r: Remote;
test.before(() => {
  template = makeTemplate({ install: false });
});
test.after(() => cleanup(template?.root));
test.before.each(() => {
  r = guardedRemote(template, 'install');
});
test.after.each(() => cleanup(r?.root));

function install(...args: string[]): { status: number; out: string } {
  const res = spawnSync('bash', [INSTALL, ...args], { encoding: 'utf8', env: baseEnv({ RECEIPT_GATE_BUNDLE_SOURCE: CLI }) });
  return { status: res.status ?? -1, out: res.stdout + res.stderr };
}

function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of readdirSync(dir).sort()) out[name] = readFileSync(join(dir, name), 'latin1');
  return out;
}

const OLD_HOOK = (seen: string, status: number) =>
  `#!/bin/sh\n# the team's own pre-receive\ncat > "${seen}"\necho "old hook ran"\nexit ${status}\n`;

function honestBranch(name: string): void {
  gitValue(r.work, ['checkout', '-q', '-B', name, 'main']);
  write(r.work, `src/${name.replace(/\W/g, '_')}.py`, 'x = 1\n');
  commitAll(r.work, name);
}

test('an existing pre-receive is kept, runs after ours on the same stdin, and can still reject', () => {
  const hooks = join(r.bare, 'hooks');
  const seen = join(r.root, 'seen');
  writeFileSync(join(hooks, 'pre-receive'), OLD_HOOK(seen, 0), { mode: 0o755 });
  const first = install('--server', r.bare);
  assert.is(first.status, 0, first.out);
  assert.match(first.out, /kept the existing hook/);
  assert.ok(readFileSync(join(hooks, 'pre-receive'), 'utf8').includes('receipt-gate pre-receive hook'));
  assert.is(readFileSync(join(hooks, 'pre-receive.receipt-gate-chained'), 'utf8'), OLD_HOOK(seen, 0));

  honestBranch('feature/a');
  const head = gitValue(r.work, ['rev-parse', 'HEAD']);
  const ok = push(r.work, ['origin', 'feature/a'], { REMOTE_USER: 'bob' });
  assert.is(ok.status, 0, ok.stderr);
  assert.match(ok.remote.join('\n'), /push accepted: eligible[\s\S]*old hook ran/);
  assert.is(readFileSync(seen, 'utf8'), `0000000000000000000000000000000000000000 ${head} refs/heads/feature/a\n`);

  // Ours rejects: the old hook does not run.
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/bad', 'main']);
  write(r.work, 'fixtures/orders/base.json', '[]\n');
  commitAll(r.work, 'bad');
  writeFileSync(seen, 'untouched');
  const bad = push(r.work, ['origin', 'feature/bad'], { REMOTE_USER: 'bob' });
  assert.is.not(bad.status, 0);
  assert.is(machine(bad).verdict, 'closed');
  assert.is(readFileSync(seen, 'utf8'), 'untouched');

  // The old hook rejects on its own: the push is rejected although ours accepts.
  writeFileSync(join(hooks, 'pre-receive.receipt-gate-chained'), OLD_HOOK(seen, 1), { mode: 0o755 });
  honestBranch('feature/b');
  const vetoed = push(r.work, ['origin', 'feature/b'], { REMOTE_USER: 'bob' });
  assert.is.not(vetoed.status, 0);
  assert.match(vetoed.remote.join('\n'), /old hook ran/);
  assert.is(refOid(r.bare, 'refs/heads/feature/b'), null);
});

test('installing twice changes nothing; --uninstall restores the previous hook', () => {
  const hooks = join(r.bare, 'hooks');
  const seen = join(r.root, 'seen');
  writeFileSync(join(hooks, 'pre-receive'), OLD_HOOK(seen, 0), { mode: 0o755 });
  const before = snapshot(hooks);
  assert.is(install('--server', r.bare).status, 0);
  const once = snapshot(hooks);
  const again = install('--server', r.bare);
  assert.is(again.status, 0, again.out);
  assert.match(again.out, /up to date/);
  assert.equal(snapshot(hooks), once);
  assert.is(once['receipt-gate.cjs'], readFileSync(CLI, 'latin1'));
  const un = install('--uninstall', r.bare);
  assert.is(un.status, 0, un.out);
  assert.equal(snapshot(hooks), before);
  assert.is(install('--uninstall', r.bare).status, 0, 'uninstalling twice is fine');
  assert.equal(snapshot(hooks), before);
});

test('--uninstall without an earlier hook leaves no pre-receive; pushes are unguarded by us again', () => {
  assert.is(install('--server', r.bare).status, 0);
  assert.is(install('--uninstall', r.bare).status, 0);
  assert.not.ok(existsSync(join(r.bare, 'hooks', 'pre-receive')));
  assert.not.ok(existsSync(join(r.bare, 'hooks', 'receipt-gate.cjs')));
});

test('the bundle is self-contained: pushes work with no node_modules and no working tree', () => {
  assert.is(install('--server', r.bare).status, 0);
  const bundle = readFileSync(join(r.bare, 'hooks', 'receipt-gate.cjs'), 'utf8');
  assert.not.match(bundle, /require\(["'](isomorphic-git|picomatch|ajv)["']\)/);
  // Run from a directory where nothing resolves, with NODE_PATH empty.
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/c', 'main']);
  write(r.work, 'fixtures/EPOCH', '{}\n');
  commitAll(r.work, 'c');
  const res = push(r.work, ['origin', 'feature/c'], { REMOTE_USER: 'bob', NODE_PATH: '' });
  assert.is.not(res.status, 0);
  assert.ok(machine(res).blocked_paths.includes('fixtures/EPOCH'));
});

test('--hook installs into a pre-receive.d directory (Gitea/Forgejo, GitLab layout)', () => {
  // Gitea's and GitLab's dispatchers run every executable of pre-receive.d on the same stdin;
  // git itself only knows hooks/pre-receive, so this one is a plain dispatcher loop.
  const hooks = join(r.bare, 'hooks');
  writeFileSync(
    join(hooks, 'pre-receive'),
    '#!/bin/sh\ndata=$(cat)\nfor h in hooks/pre-receive.d/*; do test -x "$h" || continue; printf "%s\\n" "$data" | "$h" || exit 1; done\n',
    { mode: 0o755 },
  );
  const target = join(hooks, 'pre-receive.d', 'receipt-gate');
  const res = install('--server', '--hook', target);
  assert.is(res.status, 0, res.out);
  assert.ok(existsSync(join(hooks, 'pre-receive.d', 'receipt-gate.cjs')));
  execFileSync('test', ['!', '-x', join(hooks, 'pre-receive.d', 'receipt-gate.cjs')]);
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/d', 'main']);
  write(r.work, 'freeze.json', '{"version": 1, "frozen": []}\n');
  commitAll(r.work, 'd');
  const rejected = push(r.work, ['origin', 'feature/d'], { GITEA_PUSHER_NAME: 'bob' });
  assert.is.not(rejected.status, 0);
  assert.match(rejected.remote.join('\n'), /as bob, who is not an owner/);
  const owner = push(r.work, ['origin', 'feature/d'], { GITEA_PUSHER_NAME: 'alice' });
  assert.is(owner.status, 0, owner.stderr);
});

test('refuses what it cannot do safely, with a sentence', () => {
  const notRepo = install('--server', join(r.root, 'nope.git'));
  assert.is(notRepo.status, 2);
  assert.match(notRepo.out, /no such directory/);
  const bad = install('--frobnicate');
  assert.is(bad.status, 2);
  assert.match(bad.out, /unknown option/);
});

test.run();
