// The startup snapshot's warm-up (src/server/warmup.ts): the repository it builds without git is
// one git itself accepts (fsck, verify-pack, the quarantine as receive-pack leaves it), and the
// two pushes it judges take the paths the snapshot is meant to compile: an honest push accepted
// as eligible, a fixture edit rejected with PATH_PROTECTED. A warm-up that rotted (evidence that
// no longer validates, a pack the reader refuses) would only exercise an error path.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { warmUp, warmupRepository } from '../../src/server/warmup';
import { run } from '../../src/entries/pre-receive';
import { git, gitResult, gitValue } from '../helpers/git';

test('the warm-up repository is one git accepts: fsck --strict, verify-pack, the delta entries', () => {
  const push = warmupRepository();
  try {
    const fsck = gitResult(push.gitdir, ['fsck', '--strict', '--no-dangling'], { env: push.env });
    assert.is(fsck.status, 0, fsck.stderr);
    const packDir = join(push.gitdir, 'objects', 'pack');
    const idx = readdirSync(packDir).filter((f) => f.endsWith('.idx'));
    assert.is(idx.length, 1);
    const verify = git(push.gitdir, ['verify-pack', '-v', join(packDir, idx[0]!)]);
    // verify-pack -v names each delta with its depth and base: the history's changed trees.
    assert.match(verify, /chain length = 1: [1-9]\d* objects?/);
    const [oldOid, honestOid] = push.honest.trim().split(' ');
    assert.is(gitValue(push.gitdir, ['rev-parse', 'refs/heads/main']), oldOid);
    // The pushed commits are in the quarantine only, as receive-pack leaves them.
    assert.is(gitValue(push.gitdir, ['cat-file', '-t', honestOid!], { env: push.env }), 'commit');
    assert.is(gitResult(push.gitdir, ['cat-file', '-e', honestOid!]).status, 1);
    assert.is(gitValue(push.gitdir, ['rev-list', '--count', `${oldOid}..${honestOid}`], { env: push.env }), '1');
    // The honest commit changes one source file; the other edits a protected fixture.
    const cheatOid = push.cheat.trim().split(' ')[1]!;
    assert.is(gitValue(push.gitdir, ['diff', '--name-only', oldOid!, honestOid!], { env: push.env }), 'src/orders.py');
    assert.is(gitValue(push.gitdir, ['diff', '--name-only', oldOid!, cheatOid], { env: push.env }), 'fixtures/orders/base.json');
  } finally {
    push.remove();
  }
});

test('the warm-up judges the honest push eligible and the fixture edit closed, then removes its repository', async () => {
  const { runs, push } = await warmUp(run);
  assert.is(runs.length, 2);
  assert.is(runs[0]!.code, 0, runs[0]!.stderr);
  assert.match(runs[0]!.stderr, /push accepted: eligible/);
  assert.is(runs[1]!.code, 1, runs[1]!.stderr);
  assert.match(runs[1]!.stderr, /PATH_PROTECTED main \w+ fixtures\/orders\/base\.json/);
  // Every evidence rule ran and found the evidence in order: the live freeze is the one finding
  // beside the fixture edit.
  const codes = (stderr: string) => (JSON.parse(/^receipt-gate: (\{"verdict".*)$/m.exec(stderr)![1]!) as { findings: { code: string }[] }).findings.map((f) => f.code);
  assert.equal(codes(runs[0]!.stderr), ['FREEZE_ACTIVE']);
  assert.equal(codes(runs[1]!.stderr), ['PATH_PROTECTED', 'FREEZE_ACTIVE']);
  assert.is(gitResult('/', ['--git-dir', push.gitdir, 'rev-parse', '--git-dir']).status, 128);
});

test.run();
