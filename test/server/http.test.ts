// The hook behind smart HTTP: lighttpd (Debian's package) runs `git http-backend` as CGI with
// basic authentication, so REMOTE_USER names the pusher, as on most self-hosted servers.

import { test } from 'uvu';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, cleanup, freePort, makeTemplate, waitForPort, writeLighttpdConfig, PASSWORD, type Remote } from './helpers';
import * as s from './scenario';
import { gitValue } from '../helpers/git';

let template: Remote;
let server: ChildProcess;
let t: s.Transport;

test.before(async () => {
  template = makeTemplate();
  const base = join(template.root, 'srv');
  mkdirSync(join(base, 'repos'), { recursive: true });
  renameSync(template.bare, join(base, 'repos', 'remote.git'));
  const bare = join(base, 'repos', 'remote.git');
  const port = await freePort();
  writeLighttpdConfig({ base, port, projectRoot: join(base, 'repos') });
  server = spawn('lighttpd', ['-D', '-f', join(base, 'lighttpd.conf')], { env: baseEnv(), stdio: ['ignore', 'ignore', 'inherit'] });
  await waitForPort(port);
  t = {
    bare,
    work: template.work,
    url: (user) => `http://${user}:${PASSWORD[user]}@127.0.0.1:${port}/git/remote.git`,
    env: () => ({}),
    authenticates: true,
  };
  gitValue(t.work, ['fetch', '-q', t.url('bob'), 'main:refs/remotes/origin/main']);
});

test.after(() => {
  server?.kill();
  cleanup(template?.root);
});

test('smart HTTP: an honest branch is accepted (REMOTE_USER is the pusher)', () => s.honestBranchAccepted(t));
test('smart HTTP: a fixture edit by bob is rejected', () => s.fixtureEditRejected(t));
test('smart HTTP: the same edit by alice, an owner, is accepted', () => s.ownerFixtureEditAccepted(t));
test('smart HTTP: force push and deletion of main by bob are rejected', () => s.forcePushAndDeleteOfMainRejected(t));
test('smart HTTP: a tag on a fixture edit rejects the whole multi-ref push', () => s.tagsAndMultiRef(t));
test('smart HTTP: a large push (a pack in quarantine) is judged', () => s.largePushInQuarantinePack(t));

test.run();
