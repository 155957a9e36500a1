// The hook in a real self-hosted git server: gitolite3 over sshd on 127.0.0.1, with the hook
// installed the way gitolite documents repo-specific hooks (LOCAL_CODE/hooks/repo-specific,
// `option hook.pre-receive = receipt-gate` in gitolite.conf). gitolite sets GL_USER.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, readlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { baseEnv, cleanup, CLI, freePort, INSTALL, makeTemplate, push, TODAY, waitForPort, type Remote } from './helpers';
import * as s from './scenario';
import { gitValue } from '../helpers/git';

let template: Remote;
let sshd: ChildProcess;
let t: s.Transport;
let home: string;

function run(cmd: string, args: string[], env: NodeJS.ProcessEnv = baseEnv()): string {
  return execFileSync(cmd, args, { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

test.before(async () => {
  template = makeTemplate({ install: false });
  const dir = join(template.root, 'gitolite');
  home = join(dir, 'home');
  mkdirSync(home, { recursive: true });
  for (const k of ['admin', 'alice', 'bob', 'host']) {
    run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', k, '-f', join(dir, k)]);
  }
  const glEnv = baseEnv({ HOME: home });
  run('gitolite', ['setup', '-pk', join(dir, 'admin.pub')], glEnv);

  // gitolite's documented switches for repo-specific hooks.
  const rcPath = join(home, '.gitolite.rc');
  const rc = readFileSync(rcPath, 'utf8')
    .replace(/#\s*LOCAL_CODE\s*=>\s*"\$ENV\{HOME\}\/local",/, 'LOCAL_CODE => "$ENV{HOME}/local",')
    .replace(/#\s*'repo-specific-hooks',/, "'repo-specific-hooks',");
  assert.match(rc, /^\s*LOCAL_CODE => /m);
  assert.match(rc, /^\s*'repo-specific-hooks',/m);
  writeFileSync(rcPath, rc);
  const hookFile = join(home, 'local', 'hooks', 'repo-specific', 'receipt-gate');
  mkdirSync(dirname(hookFile), { recursive: true });
  run('bash', [INSTALL, '--server', '--hook', hookFile], baseEnv({ RECEIPT_GATE_BUNDLE_SOURCE: CLI }));

  copyFileSync(join(dir, 'alice.pub'), join(home, '.gitolite', 'keydir', 'alice.pub'));
  copyFileSync(join(dir, 'bob.pub'), join(home, '.gitolite', 'keydir', 'bob.pub'));
  writeFileSync(
    join(home, '.gitolite', 'conf', 'gitolite.conf'),
    'repo gitolite-admin\n    RW+ = admin\n\nrepo project\n    RW+ = alice bob\n    option hook.pre-receive = receipt-gate\n',
  );
  run('gitolite', ['setup'], glEnv);
  const bare = join(home, 'repositories', 'project.git');
  assert.ok(readlinkSync(join(bare, 'hooks', 'pre-receive.h00-receipt-gate')).endsWith('repo-specific/receipt-gate'));
  // The policy comes from the repository's HEAD branch: point it at main (gitolite's own
  // `symbolic-ref` command does the same for users allowed to run it).
  gitValue(bare, ['symbolic-ref', 'HEAD', 'refs/heads/main']);

  // sshd on a free loopback port; each key's forced command is gitolite-shell for its user.
  const port = await freePort();
  const node = dirname(process.execPath);
  const keys = ['alice', 'bob']
    .map((u) => {
      const cmd = `env HOME=${home} PATH=${node}:/usr/bin:/bin RECEIPT_GATE_NOW=${TODAY} RECEIPT_GATE_HARD_TIMEOUT=60 /usr/share/gitolite3/gitolite-shell ${u}`;
      return `command="${cmd}",no-port-forwarding,no-X11-forwarding,no-agent-forwarding,no-pty ${readFileSync(join(dir, `${u}.pub`), 'utf8').trim()}`;
    })
    .join('\n');
  writeFileSync(join(dir, 'authorized_keys'), `${keys}\n`, { mode: 0o600 });
  writeFileSync(
    join(dir, 'sshd_config'),
    [
      `Port ${port}`,
      'ListenAddress 127.0.0.1',
      `HostKey ${join(dir, 'host')}`,
      `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
      `PidFile ${join(dir, 'sshd.pid')}`,
      'StrictModes no',
      'PermitRootLogin prohibit-password',
      'PasswordAuthentication no',
      'KbdInteractiveAuthentication no',
      'UsePAM no',
      'LogLevel ERROR',
      '',
    ].join('\n'),
  );
  mkdirSync('/run/sshd', { recursive: true });
  sshd = spawn('/usr/sbin/sshd', ['-D', '-f', join(dir, 'sshd_config')], { stdio: 'ignore' });
  await waitForPort(port);

  const sshFor = (user: 'alice' | 'bob') =>
    `ssh -i ${join(dir, user)} -p ${port} -o IdentitiesOnly=yes -o BatchMode=yes -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR`;
  t = {
    bare,
    work: template.work,
    url: () => `ssh://root@127.0.0.1:${port}/project`,
    env: (user) => ({ GIT_SSH_COMMAND: sshFor(user) }),
    authenticates: true,
  };
  // The first push: no policy on the server yet, so the repository is unguarded (a notice).
  const first = push(t.work, [t.url('alice'), 'main'], t.env('alice'));
  assert.is(first.status, 0, first.stderr);
  assert.match(first.remote.join('\n'), /unguarded/);
});

test.after(() => {
  sshd?.kill();
  cleanup(template?.root);
});

test('gitolite: an honest branch is accepted (GL_USER is the pusher)', () => s.honestBranchAccepted(t));
test('gitolite: a fixture edit by bob is rejected', () => s.fixtureEditRejected(t));
test('gitolite: the same edit by alice, an owner, is accepted', () => s.ownerFixtureEditAccepted(t));
test('gitolite: force push and deletion of main by bob are rejected', () => s.forcePushAndDeleteOfMainRejected(t));
test('gitolite: a tag on a fixture edit rejects the whole multi-ref push', () => s.tagsAndMultiRef(t));
test('gitolite: a large push (a pack in quarantine) is judged', () => s.largePushInQuarantinePack(t));

test.run();
