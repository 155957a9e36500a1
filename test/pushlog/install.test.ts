// install.sh --server --log-key: the reference-transaction hook beside pre-receive, an existing
// one kept and chained, the key's config, the log started; twice changes nothing; a key inside
// the repository is refused; --uninstall puts back what was there and keeps the log.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, cleanup, INSTALL, makeTemplate, refOid } from '../server/helpers';
import { gitValue } from '../helpers/git';

function install(...args: string[]) {
  return spawnSync('bash', [INSTALL, ...args], { encoding: 'utf8', env: baseEnv({ RECEIPT_GATE_BUNDLE_SOURCE: CLI, RECEIPT_GATE_NO_SNAPSHOT: '1' }) });
}

test('install, chain, idempotency, a key inside the repository, uninstall', () => {
  const r = makeTemplate({ install: false });
  try {
    execFileSync('node', [CLI, 'keygen', '--out', join(r.root, 'log')], { env: baseEnv() });
    const key = join(r.root, 'log.key');
    const marker = join(r.root, 'chained.txt');
    const existing = join(r.bare, 'hooks', 'reference-transaction');
    writeFileSync(existing, `#!/bin/sh\ncat >> '${marker}'\necho "$1" >> '${marker}'\n`);
    chmodSync(existing, 0o755);

    const inside = join(r.bare, 'log.key');
    writeFileSync(inside, readFileSync(key));
    const refused = install('--server', '--log-key', inside, r.bare);
    assert.is(refused.status, 2, refused.stdout + refused.stderr);
    assert.match(refused.stderr, /lies inside .*keep the signing key outside the repository/);

    const first = install('--server', '--log-key', key, r.bare);
    assert.is(first.status, 0, first.stderr);
    assert.match(first.stdout, /kept the existing hook as .*reference-transaction.receipt-gate-chained/);
    assert.match(first.stdout, /started the push log/);
    assert.is(gitValue(r.bare, ['config', 'receipt-gate.logKey']), key);
    // The new refs of a push go to receipt-gate's proc-receive hook (one ref transaction).
    assert.is(gitValue(r.bare, ['config', '--get-all', 'receive.procReceiveRefs']), 'a:refs/');
    assert.match(readFileSync(join(r.bare, 'hooks', 'proc-receive'), 'utf8'), /receipt-gate proc-receive hook/);
    const logTip = refOid(r.bare, 'refs/receipt-gate/log');
    assert.ok(logTip);
    const again = install('--server', '--log-key', key, r.bare);
    assert.is(again.status, 0, again.stderr);
    assert.match(again.stdout, /exists already/);
    assert.is(refOid(r.bare, 'refs/receipt-gate/log'), logTip);

    // A push: ours logs it, the chained hook still sees every state.
    writeFileSync(join(r.work, 'src', 'orders.py'), 'def total(orders):\n    return 0\n');
    gitValue(r.work, ['commit', '-qam', 'one']);
    const p = spawnSync('git', ['push', '-q', 'origin', 'main'], { cwd: r.work, env: baseEnv(), encoding: 'utf8' });
    assert.is(p.status, 0, p.stderr);
    const seen = readFileSync(marker, "utf8");
    assert.match(seen, /refs\/heads\/main\n(?:[0-9a-f]{40} [0-9a-f]{40} HEAD\n)?prepared\n/);
    assert.match(seen, /committed\n$/);
    assert.is(gitValue(r.bare, ['rev-list', '--count', 'refs/receipt-gate/log']), '2');

    const un = install('--uninstall', r.bare);
    assert.is(un.status, 0, un.stderr);
    assert.match(un.stdout, /restored the previous hook/);
    assert.match(readFileSync(existing, 'utf8'), /chained.txt/);
    assert.is(spawnSync('git', ['--git-dir', r.bare, 'config', 'receipt-gate.logKey']).status, 1);
    assert.is(spawnSync('git', ['--git-dir', r.bare, 'config', 'receive.procReceiveRefs']).status, 1);
    assert.ok(!existsSync(join(r.bare, 'hooks', 'proc-receive')));
    assert.is(refOid(r.bare, 'refs/receipt-gate/log') !== null, true);
    assert.ok(!existsSync(join(r.bare, 'receipt-gate')));
    assert.ok(readdirSync(r.bare).some((n) => n.startsWith('receipt-gate.off.')));
  } finally {
    cleanup(r.root);
  }
});

test('a repository that routes refs to a proc-receive hook of its own keeps it: the install says so and the log records new refs one transaction each', () => {
  const r = makeTemplate({ install: false });
  try {
    execFileSync('node', [CLI, 'keygen', '--out', join(r.root, 'log')], { env: baseEnv() });
    const own = join(r.bare, 'hooks', 'proc-receive');
    const text = '#!/bin/sh\n# an AGit-style hook of the project\nexit 1\n';
    writeFileSync(own, text);
    chmodSync(own, 0o755);
    gitValue(r.bare, ['config', 'receive.procReceiveRefs', 'refs/for']);
    const first = install('--server', '--log-key', join(r.root, 'log.key'), r.bare);
    assert.is(first.status, 0, first.stderr);
    assert.match(first.stdout, /another proc-receive hook: kept/);
    assert.is(readFileSync(own, 'utf8'), text);
    assert.is(gitValue(r.bare, ['config', '--get-all', 'receive.procReceiveRefs']), 'refs/for');
    const head = gitValue(r.work, ['rev-parse', 'HEAD']);
    gitValue(r.work, ['tag', 'x1', head]);
    gitValue(r.work, ['tag', 'x2', head]);
    const p = spawnSync('git', ['push', '-q', 'origin', 'refs/tags/x1', 'refs/tags/x2'], { cwd: r.work, env: baseEnv(), encoding: 'utf8' });
    assert.is(p.status, 0, p.stderr);
    assert.is(gitValue(r.bare, ['rev-list', '--count', 'refs/receipt-gate/log']), '3');
    const un = install('--uninstall', r.bare);
    assert.is(un.status, 0, un.stderr);
    assert.is(readFileSync(own, 'utf8'), text);
    assert.is(gitValue(r.bare, ['config', '--get-all', 'receive.procReceiveRefs']), 'refs/for');
  } finally {
    cleanup(r.root);
  }
});

test.run();
