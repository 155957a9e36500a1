// `receipt-gate check` on what init guards and what a pin names: a guard glob that matches
// nothing yet is never a typo warning, a real typo is (with the guard glob it misses); a named
// epoch pin is checked with its generator (missing, changed bytes); a file whose name is not
// valid UTF-8 is named as git quotes it, never "did you mean" the same mangled name.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { CLI, ensureBuilt } from '../server/helpers';
import { fullPolicy, LocalRepo } from './local';

const GENERATOR = 'import json\nprint(json.dumps({"orders": [1, 2, 3]}))\n';
const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex');

test('check .receipt-gate.json: "propertes/**" (a typo) warns with the guard glob it misses; "properties/**" and "checks/**" with no files yet do not', async () => {
  const repo = new LocalRepo('check-guard-typo');
  try {
    repo.write('pyproject.toml', '[project]\nname = "alloc"\n');
    repo.write('src/alloc/__init__.py', '\n');
    repo.write('fixtures/orders/base.csv', 'id,total\n1,100\n');
    repo.write('freeze.json', '{"version": 1, "frozen": []}\n');
    repo.write(
      '.receipt-gate.json',
      fullPolicy({
        epoch: undefined,
        manifest: undefined,
        observations: undefined,
        protected: ['fixtures/**', 'properties/**', 'checks/**', 'conftest.py', '**/conftest.py', 'propertes/**', 'data/orders/**'],
      }),
    );
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'guard', '--no-verify');
    const r = await repo.cli(['check', join(repo.dir, '.receipt-gate.json')]);
    assert.is(r.code, 0, r.stderr);
    const warnings = r.stderr.split('\n').filter((l) => l.includes('warning'));
    assert.equal(warnings, [
      'receipt-gate check: warning: the protected glob "propertes/**" matches no path at HEAD (of 5 paths); check it for a typo (did you mean "properties/**"?)',
      'receipt-gate check: warning: the protected glob "data/orders/**" matches no path at HEAD (of 5 paths); check it for a typo',
    ]);
  } finally {
    repo.remove();
  }
});

test('check fixtures/EPOCH closes when the generator it names is missing (EPOCH_MISSING) or its bytes differ from the pin (EPOCH_MISMATCH)', async () => {
  const repo = new LocalRepo('check-epoch-generator');
  try {
    repo.write('.receipt-gate.json', fullPolicy({ manifest: undefined, observations: undefined }));
    repo.write('freeze.json', '{"version": 1, "frozen": []}\n');
    repo.write('fixtures/generate_orders.py', GENERATOR);
    repo.write('fixtures/EPOCH', `${JSON.stringify({ epoch_id: 'orders-2026-09-25-a', generator: 'fixtures/generate_orders.py', generator_sha256: sha256(GENERATOR) }, null, 2)}\n`);
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'pin', '--no-verify');
    const pin = join(repo.dir, 'fixtures/EPOCH');

    const clean = await repo.cli(['check', pin]);
    assert.is(clean.code, 0, clean.stderr + clean.stdout);

    repo.write('fixtures/generate_orders.py', `${GENERATOR}print("one more")\n`);
    const changed = await repo.cli(['check', pin]);
    assert.is(changed.code, 1, changed.stderr + changed.stdout);
    assert.match(changed.stderr, /EPOCH_MISMATCH .*fixtures\/generate_orders\.py/);
    assert.match(changed.stderr, new RegExp(`but fixtures/EPOCH pins ${sha256(GENERATOR)} for epoch orders-2026-09-25-a`));

    rmSync(join(repo.dir, 'fixtures/generate_orders.py'));
    const missing = await repo.cli(['check', pin]);
    assert.is(missing.code, 1, missing.stderr + missing.stdout);
    assert.match(missing.stderr, /EPOCH_MISSING .*The generator fixtures\/generate_orders\.py named by the epoch pin fixtures\/EPOCH is missing/);

    // Findings on the generator belong to the pin: a check of another file stays clean.
    const other = await repo.cli(['check', join(repo.dir, 'freeze.json')]);
    assert.is(other.code, 0, other.stderr + other.stdout);
  } finally {
    repo.remove();
  }
});

test('a file name that is not valid UTF-8, passed as its bytes: named as git quotes it, and never suggested as the same mangled name', () => {
  ensureBuilt();
  const repo = new LocalRepo('check-not-utf8');
  try {
    repo.write('.receipt-gate.json', fullPolicy({ epoch: undefined, manifest: undefined, observations: undefined }));
    repo.write('freeze.json', '{"version": 1, "frozen": []}\n');
    mkdirSync(join(repo.dir, 'fixtures'), { recursive: true });
    writeFileSync(Buffer.concat([Buffer.from(`${repo.dir}/fixtures/`), Buffer.from([0xff]), Buffer.from('.csv')]), 'id\n');
    // The shell passes the name's bytes; node reads the command line as UTF-8.
    const check = (name: string) =>
      spawnSync('sh', ['-c', `exec "${process.execPath}" "${CLI}" check "$(printf '${name}')"`], { cwd: repo.dir, env: repo.env, encoding: 'utf8' });

    const there = check('fixtures/\\377.csv');
    assert.is(there.status, 0, there.stderr);
    assert.is(there.stderr.trim().split('\n').filter((l) => l.includes('"fixtures/\\377.csv"')).length, 1, there.stderr);
    assert.match(there.stderr, /notice: "fixtures\/\\377\.csv": its name is not valid UTF-8, so no policy can name it as evidence; nothing to validate in it/);

    const typo = check('fixtures/\\377x.csv');
    assert.is(typo.status, 2, typo.stderr);
    assert.match(typo.stderr, /: no such file in the working tree \(did you mean "fixtures\/\\377\.csv"\?\)/);
    assert.not.match(typo.stderr, /did you mean "fixtures\/\\357\\277\\275/, 'not the mangled name');

    const near = check('fixtures/x.csv');
    assert.is(near.status, 2, near.stderr);
    assert.match(near.stderr, /^receipt-gate check: fixtures\/x\.csv: no such file in the working tree \(did you mean "fixtures\/\\377\.csv"\?\)/m);
  } finally {
    repo.remove();
  }
});

test.run();
