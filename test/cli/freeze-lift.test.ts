// `receipt-gate freeze lift OBSERVATION_ID` on real working trees: the keyed freeze goes, the
// observation and its witness stay (archived: OBSERVATION_ARCHIVED, info, never FLAKE_UNFROZEN),
// a changed witness still closes, the lift is refused when nothing cites the observation or it is
// already archived, and a new flake of the same test becomes a new observation with a new id.
// Digests come from python's hashlib, never from the code under test.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fullPolicy, LocalRepo, python } from '../client/local';

const TODAY = '2026-11-29';

function pySha256(repo: LocalRepo, path: string): string {
  return python(`import hashlib; print(hashlib.sha256(open(${JSON.stringify(path)},"rb").read()).hexdigest())`, { cwd: repo.dir }).trim();
}

/** Pin (epoch ep1), one flake that re-ran green with its witness, and the keyed freeze citing it. */
function heldRepo(name: string): LocalRepo {
  const repo = new LocalRepo(name);
  repo.write('.receipt-gate.json', fullPolicy({ manifest: undefined }));
  repo.write('fixtures/gen.py', 'gen\n');
  repo.write('freeze.json', '{"version": 1, "frozen": []}\n');
  repo.write('fixtures/EPOCH', `${JSON.stringify({ epoch_id: 'ep1', generator: 'fixtures/gen.py', generator_sha256: pySha256(repo, 'fixtures/gen.py') })}\n`);
  repo.write('observations/prop_total.bin', 'run 1: fail\nrun 2: pass\n');
  const record = { id: 'prop_total', epoch_id: 'ep1', status: 'flake', rerun_passed: true, witness_sha256: pySha256(repo, 'observations/prop_total.bin') };
  repo.write('observations/prop_total.json', `${JSON.stringify(record, null, 2)}\n`);
  repo.write('freezes/prop_total.json', `${JSON.stringify({ observation_id: 'prop_total', epoch_id: 'ep1', expires_on: '2026-12-05', reason: 'timing on the shared runner' })}\n`);
  repo.git('add', '-A');
  repo.git('commit', '-qm', 'held flake');
  return repo;
}

const CHECK = (repo: LocalRepo) => ['check', join(repo.dir, 'observations/prop_total.json'), join(repo.dir, 'freezes/prop_total.json'), '--now', TODAY];

test('freeze lift: removes the keyed freeze, archives the observation (who, when, which freeze), keeps the witness', async () => {
  const repo = heldRepo('lift');
  try {
    const witnessBefore = repo.read('observations/prop_total.bin');
    const held = await repo.cli(CHECK(repo));
    assert.is(held.code, 0, held.stderr);
    assert.match(held.stdout, /FREEZE_HELD/);

    const r = await repo.cli(['freeze', 'lift', 'prop_total', '--now', TODAY]);
    assert.is(r.code, 0, r.stderr);
    assert.not.ok(existsSync(join(repo.dir, 'freezes/prop_total.json')), 'the keyed freeze is removed');
    assert.is(repo.read('observations/prop_total.bin'), witnessBefore, 'the witness is kept byte for byte');
    const record = repo.json('observations/prop_total.json') as Record<string, unknown>;
    assert.equal(record.archived, {
      lifted_by: 'alice@example.com',
      lifted_on: TODAY,
      freeze: 'freezes/prop_total.json',
      expires_on: '2026-12-05',
      reason: 'timing on the shared runner',
    });
    assert.is(record.witness_sha256, pySha256(repo, 'observations/prop_total.bin'));
    assert.match(r.stdout, /next: git add observations\/prop_total\.json freezes\/prop_total\.json/);

    // The archived flake is listed, never closing: the tree is eligible, not held, not closed.
    const after = await repo.cli(['check', join(repo.dir, 'observations/prop_total.json'), '--now', TODAY, '--json']);
    assert.is(after.code, 0, after.stdout + after.stderr);
    const codes = (JSON.parse(after.stdout) as { findings: { code: string; severity: string }[] }).findings.map((f) => `${f.code}:${f.severity}`);
    assert.ok(codes.includes('OBSERVATION_ARCHIVED:info'), codes.join(' '));
    assert.not.ok(codes.some((c) => c.startsWith('FLAKE_UNFROZEN') || c.startsWith('FREEZE_HELD')), codes.join(' '));

    // Committed by git: the deletion and the archived record.
    repo.git('add', 'observations/prop_total.json', 'freezes/prop_total.json');
    repo.git('commit', '-qm', 'lift');
    assert.is(repo.git('ls-files', 'freezes').trim(), '');
    assert.is(repo.git('ls-files', 'observations').trim(), 'observations/prop_total.bin\nobservations/prop_total.json');

    // A changed witness of an archived observation still closes.
    writeFileSync(join(repo.dir, 'observations/prop_total.bin'), 'rewritten\n');
    const tampered = await repo.cli(['check', join(repo.dir, 'observations/prop_total.bin'), '--now', TODAY]);
    assert.is(tampered.code, 1);
    assert.match(tampered.stderr + tampered.stdout, /WITNESS_MISMATCH/);
  } finally {
    repo.remove();
  }
});

test('freeze lift refuses (exit 1, nothing written) without a citing freeze, twice, or for an absent observation; --by records who', async () => {
  const repo = heldRepo('lift-refused');
  try {
    const absent = await repo.cli(['freeze', 'lift', 'prop_none', '--now', TODAY]);
    assert.is(absent.code, 1);
    assert.match(absent.stderr, /there is no observation/);
    const usage = await repo.cli(['freeze', 'lift', '--now', TODAY]);
    assert.is(usage.code, 2);
    const first = await repo.cli(['freeze', 'lift', 'prop_total', '--by', 'Alice Owner', '--now', TODAY]);
    assert.is(first.code, 0, first.stderr);
    assert.is((repo.json('observations/prop_total.json') as { archived: { lifted_by: string } }).archived.lifted_by, 'Alice Owner');
    const recordBefore = repo.read('observations/prop_total.json');
    const again = await repo.cli(['freeze', 'lift', 'prop_total', '--now', TODAY]);
    assert.is(again.code, 1);
    assert.match(again.stderr, /already archived/);
    assert.is(repo.read('observations/prop_total.json'), recordBefore);

    // A keyed freeze may not cite the archived observation again.
    const refreeze = await repo.cli(['freeze', 'add', '--observation', 'prop_total', '--expires-on', '2026-12-05', '--reason', 'again', '--now', TODAY]);
    assert.is(refreeze.code, 1);
    assert.match(refreeze.stderr, /FREEZE_UNWITNESSED.*archived/);
  } finally {
    repo.remove();
  }
});

test('the same flake again is a new observation: observe picks a new id and never replaces the archived one', async () => {
  const repo = heldRepo('lift-again');
  try {
    assert.is((await repo.cli(['freeze', 'lift', 'prop_total', '--now', TODAY])).code, 0);
    const archived = repo.read('observations/prop_total.json');
    writeFileSync(join(repo.dir, 'w.bin'), 'run 1: fail\nrun 2: pass (again)\n');
    const same = await repo.cli(['observe', '--id', 'prop_total', '--status', 'flake', '--witness', 'w.bin', '--rerun-passed', '--now', TODAY]);
    assert.is(same.code, 1);
    assert.match(same.stderr, /is archived .* record a new flake as a new observation/);
    assert.is(repo.read('observations/prop_total.json'), archived);

    const fresh = await repo.cli(['observe', '--status', 'flake', '--witness', 'w.bin', '--rerun-passed', '--now', TODAY]);
    assert.is(fresh.code, 0, fresh.stderr);
    const id = `obs-${TODAY}-001`;
    assert.equal(repo.json(`observations/${id}.json`), {
      id,
      epoch_id: 'ep1',
      status: 'flake',
      rerun_passed: true,
      witness_sha256: pySha256(repo, 'w.bin'),
    });
    // The new flake closes until it is frozen; the archived one still does not.
    const check = await repo.cli(['check', join(repo.dir, `observations/${id}.json`), join(repo.dir, 'observations/prop_total.json'), '--now', TODAY, '--json']);
    assert.is(check.code, 1);
    const found = (JSON.parse(check.stdout) as { findings: { code: string; path?: string }[] }).findings.map((f) => `${f.code} ${f.path}`);
    assert.ok(found.includes(`FLAKE_UNFROZEN observations/${id}.json`), found.join('\n'));
    assert.ok(found.includes('OBSERVATION_ARCHIVED observations/prop_total.json'), found.join('\n'));
    const second = await repo.cli(['observe', '--status', 'flake', '--witness', 'w.bin', '--now', TODAY]);
    assert.is(second.code, 0, second.stderr);
    assert.ok(existsSync(join(repo.dir, `observations/obs-${TODAY}-002.json`)));
  } finally {
    repo.remove();
  }
});

test('with bounded contexts: freeze lift finds the context whose observations folder holds the observation (examples/monorepo)', async () => {
  const repo = new LocalRepo('lift-contexts');
  try {
    cpSync(join(__dirname, '..', '..', 'examples', 'monorepo'), repo.dir, { recursive: true });
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'monorepo');
    const r = await repo.cli(['freeze', 'lift', 'slow_restock', '--by', 'carol', '--now', '2026-12-05']);
    assert.is(r.code, 0, r.stderr);
    assert.not.ok(existsSync(join(repo.dir, 'services/inventory/freezes/slow_restock.json')));
    const record = repo.json('services/inventory/observations/slow_restock.json') as { archived: { freeze: string; lifted_by: string } };
    assert.equal([record.archived.freeze, record.archived.lifted_by], ['services/inventory/freezes/slow_restock.json', 'carol']);
    assert.ok(existsSync(join(repo.dir, 'services/inventory/observations/slow_restock.bin')));
  } finally {
    repo.remove();
  }
});

test.run();
