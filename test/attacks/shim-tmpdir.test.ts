// The hook shim and TMPDIR: an honest push is judged whatever space TMPDIR has. The shim reads
// the push's stdin twice when it starts node from the startup snapshot (a refused snapshot is
// followed by the plain bundle on the same input) or runs a chained hook; the copy it keeps
// lives where git itself writes the push (its quarantine), never in TMPDIR. Real pushes into
// the installed hook with TMPDIR full (a 64 KiB tmpfs filled up, mounted in a private mount
// namespace), pointing at a file, and pointing at a folder that does not exist.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, cleanup, commitAll, guardedRemote, machine, makeTemplate, pushResultOf, refOid, write, type PushResult, type Remote } from '../server/helpers';

let template: Remote;
test.before(() => {
  template = makeTemplate();
});
test.after(() => cleanup(template?.root));

const BOB = { REMOTE_USER: 'bob' };

/** `git push origin feature/tmp` as bob, with TMPDIR at `tmpdir`. With `full`, `tmpdir` is a
 * 64 KiB tmpfs filled to the last byte first, in a mount namespace of the push's own
 * (unshare -m), so nothing outside the test sees it. */
function pushWithTmp(r: Remote, tmpdir: string, full: boolean, extra: Record<string, string> = {}): PushResult {
  const script = full
    ? 'mount -t tmpfs -o size=64k tmpfs "$TMPDIR" || exit 90; dd if=/dev/zero of="$TMPDIR/fill" bs=4096 2>&- ; : >"$TMPDIR/probe" || exit 91; { printf x >"$TMPDIR/probe"; } 2>&- && exit 92; exec git push --porcelain origin feature/tmp'
    : 'exec git push --porcelain origin feature/tmp';
  const cmd = full ? ['unshare', '-m', '--propagation', 'private', 'sh', '-c', script] : ['sh', '-c', script];
  const res = spawnSync(cmd[0]!, cmd.slice(1), { cwd: r.work, env: baseEnv({ ...BOB, ...extra, TMPDIR: tmpdir }), encoding: 'utf8' });
  assert.is.not(res.status, 90, `a tmpfs could be mounted for TMPDIR (the suite runs as root): ${res.stderr}`);
  assert.is.not(res.status, 91, 'the full TMPDIR still takes a new, empty file (as mktemp makes one)');
  assert.is.not(res.status, 92, 'TMPDIR is full: a byte cannot be written to it');
  return pushResultOf(res);
}

function honestBranch(r: Remote): string {
  spawnSync('git', ['checkout', '-q', '-b', 'feature/tmp'], { cwd: r.work, env: baseEnv() });
  write(r.work, 'src/orders.py', 'def total(orders):\n    return sum(o["amount"] for o in orders if o)\n');
  return commitAll(r.work, 'orders: skip empty entries');
}

function assertAccepted(r: Remote, result: PushResult, tip: string, label: string): void {
  assert.is(result.status, 0, `${label}:\n${result.stderr}`);
  assert.is(machine(result).verdict, 'eligible', label);
  assert.not.match(result.stderr, /INTERNAL_ERROR|could not be copied|startup snapshot receipt-gate\.blob could not be used/, label);
  assert.is(refOid(r.bare, 'refs/heads/feature/tmp'), tip, label);
  assert.equal(readdirSync(r.bare).filter((f) => f.startsWith('receipt-gate-push.')), [], `${label}: no spool file left in the repository`);
  assert.equal(readdirSync(join(r.bare, 'objects')).filter((f) => f.startsWith('receipt-gate-push.')), [], `${label}: no spool file moved into objects/`);
}

test('TMPDIR full: an honest push is accepted, from the startup snapshot and with a chained hook', () => {
  for (const chained of [false, true]) {
    const r = guardedRemote(template, 'shim-tmpdir-full');
    try {
      assert.ok(existsSync(join(r.bare, 'hooks', 'receipt-gate.blob')), 'the install left a startup snapshot');
      const seen = join(r.root, 'chained-stdin');
      if (chained) writeFileSync(join(r.bare, 'hooks', 'pre-receive.receipt-gate-chained'), `#!/bin/sh\ncat > '${seen}'\n`, { mode: 0o755 });
      const tip = honestBranch(r);
      const tmp = join(r.root, 'tmp');
      spawnSync('mkdir', [tmp]);
      const result = pushWithTmp(r, tmp, true);
      assertAccepted(r, result, tip, chained ? 'full TMPDIR, chained hook' : 'full TMPDIR');
      if (chained) assert.match(String(spawnSync('cat', [seen], { encoding: 'utf8' }).stdout), new RegExp(`^0{40} ${tip} refs/heads/feature/tmp\\n$`));
    } finally {
      cleanup(r.root);
    }
  }
});

test('TMPDIR a file, or a folder that does not exist: an honest push is accepted', () => {
  for (const kind of ['file', 'missing'] as const) {
    const r = guardedRemote(template, `shim-tmpdir-${kind}`);
    try {
      const tip = honestBranch(r);
      const tmp = join(r.root, 'tmp');
      if (kind === 'file') writeFileSync(tmp, 'not a folder\n');
      assertAccepted(r, pushWithTmp(r, tmp, false), tip, `TMPDIR ${kind}`);
    } finally {
      cleanup(r.root);
    }
  }
});

test.run();
