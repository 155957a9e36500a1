// The hook behind `git daemon --enable=receive-pack` on 127.0.0.1: git's own protocol, no
// authentication, so the pusher is nobody (the daemon's environment names no identity).

import { test } from 'uvu';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, cleanup, freePort, makeTemplate, waitForPort, type Remote } from './helpers';
import * as s from './scenario';
import { gitValue } from '../helpers/git';

let template: Remote;
let daemon: ChildProcess;
let t: s.Transport;

test.before(async () => {
  template = makeTemplate();
  const base = join(template.root, 'srv');
  mkdirSync(base);
  renameSync(template.bare, join(base, 'remote.git'));
  const bare = join(base, 'remote.git');
  const port = await freePort();
  daemon = spawn(
    'git',
    ['daemon', '--reuseaddr', '--export-all', '--enable=receive-pack', '--listen=127.0.0.1', `--port=${port}`, `--base-path=${base}`, base],
    { env: baseEnv(), stdio: 'ignore' },
  );
  await waitForPort(port);
  t = {
    bare,
    work: template.work,
    url: () => `git://127.0.0.1:${port}/remote.git`,
    env: () => ({}),
    authenticates: false,
  };
  gitValue(t.work, ['fetch', '-q', t.url('bob'), 'main:refs/remotes/origin/main']);
});

test.after(() => {
  daemon?.kill();
  cleanup(template?.root);
});

test('git daemon: an honest branch is accepted', () => s.honestBranchAccepted(t));
test('git daemon: a fixture edit by nobody is rejected', () => s.fixtureEditRejected(t));
test('git daemon: force push and deletion of main are rejected', () => s.forcePushAndDeleteOfMainRejected(t));
test('git daemon: a tag on a fixture edit rejects the whole multi-ref push', () => s.tagsAndMultiRef(t));
test('git daemon: a large push (a pack in quarantine) is judged', () => s.largePushInQuarantinePack(t));

test.run();
