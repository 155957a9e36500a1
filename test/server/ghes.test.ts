// install.sh --ghes-env builds a GitHub Enterprise pre-receive environment; here it is
// unpacked and the hook is run from it under chroot, against real pushes. As on GHES, the
// repository is visible inside the environment, and only the environment's files exist there
// (its own node, libraries and /bin/sh): the host's Node.js and node_modules are out of reach.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, cleanup, commitAll, INSTALL, machine, makeTemplate, push, refOid, TODAY, write, type Remote } from './helpers';
import { gitValue } from '../helpers/git';

let template: Remote;
let envRoot: string;
let bare: string;

test.before(() => {
  template = makeTemplate({ install: false });
  const tarball = join(template.root, 'receipt-gate-env.tar.gz');
  execFileSync('bash', [INSTALL, '--ghes-env', tarball], { env: baseEnv({ RECEIPT_GATE_BUNDLE_SOURCE: CLI }), stdio: 'pipe' });
  envRoot = join(template.root, 'env');
  mkdirSync(envRoot);
  execFileSync('tar', ['-xzf', tarball, '-C', envRoot]);
  // The repository, where the environment sees it.
  mkdirSync(join(envRoot, 'data'), { recursive: true });
  bare = join(envRoot, 'data', 'project.git');
  cpSync(template.bare, bare, { recursive: true });
  gitValue(template.work, ['remote', 'set-url', 'origin', `file://${bare}`]);
  // git's pre-receive enters the environment as GHES does: chroot, then the hook script,
  // with the repository's paths as seen from inside and only the hook's variables passed on.
  writeFileSync(
    join(bare, 'hooks', 'pre-receive'),
    `#!/bin/sh
ROOT='${envRoot}'
CHROOT=$(command -v chroot)
inside() { printf '%s' "\${1#"$ROOT"}"; }
exec env -i PATH=/usr/local/bin:/bin RECEIPT_GATE_NOW='${TODAY}' RECEIPT_GATE_HARD_TIMEOUT=60 \\
  GITHUB_USER_LOGIN="$GITHUB_USER_LOGIN" GIT_DIR=. \\
  GIT_QUARANTINE_PATH="$(inside "$GIT_QUARANTINE_PATH")" \\
  GIT_OBJECT_DIRECTORY="$(inside "$GIT_OBJECT_DIRECTORY")" \\
  GIT_ALTERNATE_OBJECT_DIRECTORIES="$(inside "$GIT_ALTERNATE_OBJECT_DIRECTORIES")" \\
  "$CHROOT" "$ROOT" /bin/sh -c 'cd /data/project.git && exec /usr/local/share/receipt-gate/ghes-hook.sh'
`,
    { mode: 0o755 },
  );
});

test.after(() => cleanup(template?.root));

test('the environment holds node, its libraries, the shim and the bundle, and nothing else of the host', () => {
  for (const p of ['usr/local/bin/node', 'bin/sh', 'usr/local/share/receipt-gate/pre-receive', 'usr/local/share/receipt-gate/receipt-gate.cjs']) {
    assert.ok(existsSync(join(envRoot, p)), p);
  }
  assert.not.ok(existsSync(join(envRoot, 'usr/bin/git')), 'no git binary: the engine reads objects itself');
  const version = execFileSync('chroot', [envRoot, '/usr/local/bin/node', '--version'], { encoding: 'utf8' }).trim();
  assert.is(version, process.version);
});

test('from the unpacked environment under chroot: honest push accepted, fixture edit rejected, owner accepted', () => {
  const work = template.work;
  gitValue(work, ['checkout', '-q', '-B', 'feature/ok', 'main']);
  write(work, 'src/orders.py', 'def total(o):\n    return 0\n');
  const ok = commitAll(work, 'honest');
  const accepted = push(work, ['origin', 'feature/ok'], { GITHUB_USER_LOGIN: 'bob' });
  assert.is(accepted.status, 0, accepted.stderr);
  assert.match(accepted.remote.join('\n'), /push accepted: eligible \(1 ref, 1 new commit, pusher bob\)/);
  assert.is(refOid(bare, 'refs/heads/feature/ok'), ok);

  gitValue(work, ['checkout', '-q', '-B', 'feature/cheat', 'main']);
  write(work, 'fixtures/orders/base.json', '{"orders": ["ghes"]}\n');
  commitAll(work, 'cheat');
  const rejected = push(work, ['origin', 'feature/cheat'], { GITHUB_USER_LOGIN: 'bob' });
  assert.is.not(rejected.status, 0);
  assert.equal(machine(rejected).blocked_paths, ['fixtures/orders/base.json']);
  assert.match(rejected.remote.join('\n'), /may only be changed by: alice, release-bot/);
  assert.is(refOid(bare, 'refs/heads/feature/cheat'), null);

  const owner = push(work, ['origin', 'feature/cheat'], { GITHUB_USER_LOGIN: 'alice' });
  assert.is(owner.status, 0, owner.stderr);
});

test('a large push (a pack in the quarantine) is judged inside the environment too', () => {
  gitValue(bare, ['config', 'receive.unpackLimit', '1']);
  const work = template.work;
  gitValue(work, ['checkout', '-q', '-B', 'feature/pack', 'main']);
  for (let i = 0; i < 8; i++) {
    write(work, `src/p${i}.py`, `p = ${i}\n`);
    if (i === 3) write(work, 'freeze.json', '{"version": 1, "frozen": []}\n');
    commitAll(work, `p${i}`);
  }
  const res = push(work, ['origin', 'feature/pack'], { GITHUB_USER_LOGIN: 'bob' });
  assert.is.not(res.status, 0, res.stderr);
  assert.ok(machine(res).blocked_paths.includes('freeze.json'), res.stderr);
});

test.run();
