// Owner tooling against real repositories: `freeze add --observation` writes the keyed freeze
// FLAKE_UNFROZEN asks for (and refuses what the gate would reject), `explain` says what protects
// a path and who may change it, `check .receipt-gate.json` judges the policy's globs.
// Digests come from python's hashlib, never from the code under test.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fullPolicy, LocalRepo, python } from '../client/local';

const TODAY = '2026-11-29';

function pySha256(repo: LocalRepo, path: string): string {
  return python(`import hashlib; print(hashlib.sha256(open(${JSON.stringify(path)},"rb").read()).hexdigest())`, { cwd: repo.dir }).trim();
}

/** A working tree with the pin (epoch ep1), one flake observation that re-ran green and its witness. */
function repoWithFlake(name: string, opts: { rerunPassed?: boolean; witness?: 'ok' | 'missing' | 'mismatch'; epoch?: string; crlf?: boolean } = {}): LocalRepo {
  const repo = new LocalRepo(name);
  repo.write('.receipt-gate.json', fullPolicy({ manifest: undefined }));
  repo.write('fixtures/gen.py', 'gen\n');
  repo.write('freeze.json', '{"version": 1, "frozen": []}\n');
  repo.write('fixtures/EPOCH', `${JSON.stringify({ epoch_id: 'ep1', generator: 'fixtures/gen.py', generator_sha256: pySha256(repo, 'fixtures/gen.py') })}\n`);
  repo.write('observations/prop_total.bin', 'run 1: fail\nrun 2: pass\n');
  const digest = opts.witness === 'mismatch' ? '0'.repeat(64) : pySha256(repo, 'observations/prop_total.bin');
  const record = JSON.stringify({ id: 'prop_total', epoch_id: opts.epoch ?? 'ep1', status: 'flake', rerun_passed: opts.rerunPassed ?? true, witness_sha256: digest }, null, 2);
  repo.write('observations/prop_total.json', `${opts.crlf ? record.replace(/\n/g, '\r\n') : record}${opts.crlf ? '\r\n' : '\n'}`);
  if (opts.witness === 'missing') rmSync(join(repo.dir, 'observations/prop_total.bin'));
  return repo;
}

const ADD = ['freeze', 'add', '--observation', 'prop_total', '--expires-on', '2026-12-05', '--reason', 'timing on the shared runner', '--now', TODAY];

test('freeze add --observation writes freezes/<id>.json; the gate then holds instead of closing', async () => {
  const repo = repoWithFlake('keyed');
  try {
    const before = await repo.cli(['check', join(repo.dir, 'observations/prop_total.json'), '--now', TODAY]);
    assert.is(before.code, 1);
    assert.match(before.stderr, /FLAKE_UNFROZEN/);

    const r = await repo.cli(ADD);
    assert.is(r.code, 0, r.stderr);
    assert.equal(repo.json('freezes/prop_total.json'), {
      observation_id: 'prop_total',
      epoch_id: 'ep1',
      expires_on: '2026-12-05',
      reason: 'timing on the shared runner',
    });
    assert.match(r.stdout, /next: git add freezes\/prop_total\.json/);
    const after = await repo.cli(['check', join(repo.dir, 'freezes/prop_total.json'), join(repo.dir, 'observations/prop_total.json'), '--now', TODAY]);
    assert.is(after.code, 0, after.stderr);
    assert.match(after.stdout, /FREEZE_HELD/);

    const again = await repo.cli(ADD);
    assert.is(again.code, 1, 'an existing keyed freeze is not overwritten (a refusal: exit 1)');
    assert.match(again.stderr, /exists/);
  } finally {
    repo.remove();
  }
});

test('freeze add --observation refuses what the gate would reject, and writes nothing', async () => {
  const cases: { name: string; opts: Parameters<typeof repoWithFlake>[1]; args?: string[]; code: number; says: RegExp }[] = [
    { name: 'no-rerun', opts: { rerunPassed: false }, code: 1, says: /FREEZE_UNWITNESSED/ },
    { name: 'mismatch', opts: { witness: 'mismatch' }, code: 1, says: /WITNESS_MISMATCH/ },
    { name: 'missing', opts: { witness: 'missing' }, code: 1, says: /WITNESS_MISSING/ },
    { name: 'epoch', opts: { epoch: 'ep0' }, code: 1, says: /OBSERVATION_EPOCH/ },
    { name: 'expired', opts: {}, args: ['--expires-on', '2026-11-28'], code: 1, says: /FREEZE_EXPIRED/ },
    { name: 'too-long', opts: {}, args: ['--expires-on', '2026-12-20'], code: 1, says: /FREEZE_WINDOW/ },
    { name: 'absent', opts: {}, args: ['--observation', 'prop_none'], code: 1, says: /there is no observation "?observations\/prop_none\.json"? to freeze/ },
    { name: 'bad-date', opts: {}, args: ['--expires-on', 'soon'], code: 2, says: /--expires-on must be a UTC calendar date/ },
    { name: 'empty-reason', opts: {}, args: ['--reason', ' '], code: 2, says: /--reason must say why/ },
  ];
  for (const c of cases) {
    const repo = repoWithFlake(`keyed-${c.name}`, c.opts);
    try {
      const args = [...ADD];
      for (let i = 0; i < (c.args ?? []).length; i += 2) args[args.indexOf(c.args![i]!) + 1] = c.args![i + 1]!;
      const r = await repo.cli(args);
      assert.is(r.code, c.code, `${c.name}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, c.says, c.name);
      assert.not.ok(existsSync(join(repo.dir, 'freezes')), `${c.name}: nothing written`);
    } finally {
      repo.remove();
    }
  }
});

test('freeze add keeps CRLF files CRLF (freeze.json rows and keyed freezes)', async () => {
  const repo = repoWithFlake('crlf', { crlf: true });
  try {
    repo.write('freeze.json', '{\r\n  "version": 1,\r\n  "frozen": []\r\n}\r\n');
    const row = await repo.cli(['freeze', 'add', '--id', 'tests/t.py::x', '--reason', 'timing', '--expires', '2026-12-01', '--now', TODAY]);
    assert.is(row.code, 0, row.stderr);
    const text = readFileSync(join(repo.dir, 'freeze.json'), 'latin1');
    assert.not.match(text.replace(/\r\n/g, ''), /\n/, 'every line end is CRLF');
    assert.match(text, /tests\/t\.py::x/);
    const keyed = await repo.cli(ADD);
    assert.is(keyed.code, 0, keyed.stderr);
    const kf = readFileSync(join(repo.dir, 'freezes/prop_total.json'), 'latin1');
    assert.ok(kf.endsWith('\r\n') && !/[^\r]\n/.test(kf), JSON.stringify(kf));
  } finally {
    repo.remove();
  }
});

test('freeze add with a reason outside the policy is refused (exit 1) naming the reasons', async () => {
  const repo = repoWithFlake('reason');
  try {
    const r = await repo.cli(['freeze', 'add', '--id', 't', '--reason', 'lazy', '--expires', '2026-12-01', '--now', TODAY]);
    assert.is(r.code, 1);
    assert.match(r.stderr, /--reason must be one of the policy's freeze reasons \(timing, network, order, infra\); got 'lazy'/);
  } finally {
    repo.remove();
  }
});

test('explain: the globs that protect a path, the alias it is matched as, exceptions, who may change it', async () => {
  const repo = new LocalRepo('explain');
  try {
    repo.write('.receipt-gate.json', fullPolicy({ manifest: undefined, exceptions: ['fixtures/**/*.md'] }));
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'policy');
    const r = await repo.cli(['explain', 'fixtures/orders/base.json', 'Fixtures/Notes.MD', 'src/app.js', 'fixtures/EPOCH', '--identity', 'bob']);
    assert.is(r.code, 0, r.stderr);
    const blocks = r.stdout.split(/\n(?=\S)/);
    const block = (p: string) => blocks.find((b) => b.startsWith(`${p}:`)) ?? '';
    assert.match(block('fixtures/orders/base.json'), /: protected\n {2}protected glob "fixtures\/\*\*" matches/);
    assert.match(block('fixtures/orders/base.json'), /may be changed by: alice@example\.com, alice/);
    assert.match(block('fixtures/orders/base.json'), /as bob: not an owner, a change to it is PATH_PROTECTED/);
    assert.match(block('Fixtures/Notes.MD'), /not protected\n {2}matched as fixtures\/notes\.md/);
    assert.match(block('Fixtures/Notes.MD'), /exception "fixtures\/\*\*\/\*\.md" matches: anyone may change it/);
    assert.match(block('src/app.js'), /not protected\n {2}no protected glob matches/);
    assert.match(block('fixtures/EPOCH'), /pinned evidence/);

    const owner = await repo.cli(['explain', 'fixtures/orders/base.json', '--identity', 'alice', '--json']);
    const json = JSON.parse(owner.stdout);
    assert.is(json.identity_is_owner, true);
    assert.equal(json.paths[0].globs, [{ list: 'protected', glob: 'fixtures/**' }]);
    assert.is(json.paths[0].may_change, true);

    const none = await repo.cli(['explain']);
    assert.is(none.code, 2);
    assert.not.match(none.stderr, /null|undefined/);
  } finally {
    repo.remove();
  }
});

test('check .receipt-gate.json: malformed globs close, globs that match nothing at the base warn', async () => {
  const repo = new LocalRepo('check-globs');
  try {
    repo.write('src/app.js', 'x\n');
    repo.write('fixtures/a.json', '{}\n');
    repo.write('.receipt-gate.json', fullPolicy({ epoch: undefined, manifest: undefined, observations: undefined, freeze: undefined, protected: ['fixtures/**', 'fixturez/**'] }));
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'base');
    const good = await repo.cli(['check', join(repo.dir, '.receipt-gate.json')]);
    assert.is(good.code, 0, good.stderr);
    assert.match(good.stderr, /warning: the protected glob "fixturez\/\*\*" matches no path at /);
    assert.not.match(good.stderr, /"fixtures\/\*\*" matches no path/);

    for (const glob of ['data/*.{json,yaml', '/fixtures/**', 'fixtures/', '+(a|+(b|c))x']) {
      repo.write('.receipt-gate.json', fullPolicy({ epoch: undefined, manifest: undefined, observations: undefined, freeze: undefined, protected: ['fixtures/**', glob] }));
      const bad = await repo.cli(['check', join(repo.dir, '.receipt-gate.json'), '--format', 'json']);
      assert.is(bad.code, 1, `${glob}: ${bad.stdout}${bad.stderr}`);
      const f = JSON.parse(bad.stdout).findings.find((x: { message: string }) => x.message.includes(JSON.stringify(glob)));
      assert.is(f?.code, 'POLICY_INVALID', bad.stdout);
      assert.is(f.path, '.receipt-gate.json');
      assert.match(f.message, /\/protected\/1/);
    }
  } finally {
    repo.remove();
  }
});

test.run();
