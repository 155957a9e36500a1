// The owners' authoring commands against real repositories, checked by independent means: git
// itself for the stored blob, python3 for the sampler and the canonical digest, hashlib for
// witnesses, and the gate's own `check` for everything written.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fullPolicy, LocalRepo, python } from './local';

const sha256 = (bytes: Uint8Array | string) => createHash('sha256').update(bytes).digest('hex');

function repoWithPolicy(name: string, policy = fullPolicy()): LocalRepo {
  const repo = new LocalRepo(name);
  repo.write('.receipt-gate.json', policy);
  return repo;
}

test('epoch pin hashes the blob git stores, not the checked-out copy (eol conversion)', async () => {
  const repo = repoWithPolicy('epoch-eol', fullPolicy({ manifest: undefined, observations: undefined, freeze: undefined }));
  try {
    repo.write('.gitattributes', 'fixtures/gen.py text eol=crlf\n');
    repo.write('fixtures/gen.py', 'print("orders")\nprint("done")\n');
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'generator');
    rmSync(join(repo.dir, 'fixtures/gen.py'));
    repo.git('checkout', '--', 'fixtures/gen.py');
    const checkedOut = readFileSync(join(repo.dir, 'fixtures/gen.py'));
    assert.ok(checkedOut.includes('\r\n'), 'the checkout has CRLF line ends');
    const blob = repo.gitBytes('cat-file', 'blob', 'HEAD:fixtures/gen.py');

    const r = await repo.cli(['epoch', 'pin', '--id', 'orders-a', '--generator', 'fixtures/gen.py', '--input', 'fixtures/orders/base.json']);
    assert.is(r.code, 0, r.stderr);
    const pin = repo.json('fixtures/EPOCH') as Record<string, unknown>;
    assert.equal(pin, {
      epoch_id: 'orders-a',
      generator: 'fixtures/gen.py',
      generator_sha256: sha256(blob),
      inputs: ['fixtures/orders/base.json'],
    });
    assert.is.not(pin.generator_sha256, sha256(checkedOut));

    // The pinned tree passes the gate's own check.
    const check = await repo.cli(['check', join(repo.dir, 'fixtures/EPOCH')]);
    assert.is(check.code, 0, check.stderr + check.stdout);
  } finally {
    repo.remove();
  }
});

test('epoch pin refuses to give an existing epoch_id a new digest, and unstaged generator edits', async () => {
  const repo = repoWithPolicy('epoch-reuse', fullPolicy({ manifest: undefined, observations: undefined, freeze: undefined }));
  try {
    repo.write('fixtures/gen.py', 'v1\n');
    repo.git('add', '-A');
    assert.is((await repo.cli(['epoch', 'pin', '--id', 'e1', '--generator', 'fixtures/gen.py'])).code, 0);
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'pin e1');
    const pinned = repo.read('fixtures/EPOCH');

    repo.write('fixtures/gen.py', 'v2\n');
    const unstaged = await repo.cli(['epoch', 'pin', '--id', 'e2']);
    assert.is(unstaged.code, 2);
    assert.match(unstaged.stderr, /unstaged changes/);

    repo.git('add', 'fixtures/gen.py');
    const reuse = await repo.cli(['epoch', 'pin', '--id', 'e1']);
    assert.is(reuse.code, 1);
    assert.match(reuse.stderr, /epoch e1 is already pinned/);
    assert.is(repo.read('fixtures/EPOCH'), pinned, 'nothing written');

    const fresh = await repo.cli(['epoch', 'pin', '--id', 'e2']);
    assert.is(fresh.code, 0, fresh.stderr);
    assert.equal((repo.json('fixtures/EPOCH') as { epoch_id: string; generator_sha256: string }).generator_sha256, sha256('v2\n'));
  } finally {
    repo.remove();
  }
});

/** A JSON text for a catalog, with integers of any size written exactly. */
function catalogText(properties: { name: string; extra: unknown }[], k: number): string {
  const value = (v: unknown): string => (typeof v === 'bigint' ? v.toString() : JSON.stringify(v));
  const items = properties.map((p) => `{"name": ${JSON.stringify(p.name)}, "extra": ${value(p.extra)}}`);
  return `{"properties": [${items.join(', ')}], "k": ${k}}\n`;
}

test('manifest sample draws what CPython random.Random(seed).sample draws, with the canonical digest (python3, fixed seed)', async () => {
  const repo = repoWithPolicy('manifest');
  try {
    const property = fc.record({
      name: fc.string({ unit: 'binary', maxLength: 8 }),
      extra: fc.oneof(
        fc.integer(),
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
        fc.double({ noNaN: true, noDefaultInfinity: true }).filter((d) => !Object.is(d, -0)),
        fc.boolean(),
        fc.constant(null),
        fc.string({ unit: 'binary', maxLength: 4 }),
      ),
    });
    await fc.assert(
      fc.asyncProperty(
        fc.array(property, { maxLength: 40 }),
        fc.nat(),
        fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }),
        async (properties, kSeed, seed) => {
          const k = properties.length === 0 ? 0 : kSeed % (properties.length + 1);
          repo.write('checks/properties.json', catalogText(properties, k));
          const r = await repo.cli(['manifest', 'sample', `--seed=${seed}`]);
          assert.is(r.code, 0, r.stderr);
          const verdict = python(
            `import hashlib, json, random
catalog = json.load(open('checks/properties.json'))
m = json.load(open('checks/manifest.json'))
want = random.Random(${seed.toString()}).sample(catalog['properties'], catalog['k'])
digest = hashlib.sha256(json.dumps({'seed': m['seed'], 'properties': m['properties']}, sort_keys=True, separators=(',', ':')).encode()).hexdigest()
print(m['seed'] == ${seed.toString()}, m['properties'] == want, digest == m['manifest_sha256'], json.dumps(m['properties'], sort_keys=True) == json.dumps(want, sort_keys=True))
`,
            { cwd: repo.dir },
          );
          assert.is(verdict.trim(), 'True True True True');
        },
      ),
      { seed: 20261129, numRuns: 20 },
    );
    const check = await repo.cli(['check', join(repo.dir, 'checks/manifest.json'), join(repo.dir, 'checks/properties.json')]);
    assert.is(check.code, 0, check.stderr + check.stdout);
  } finally {
    repo.remove();
  }
});

test('manifest sample refuses a k the catalog does not draw, and a seed that is not an integer', async () => {
  const repo = repoWithPolicy('manifest-k');
  try {
    repo.write('checks/properties.json', '{"properties": [{"name": "a"}, {"name": "b"}, {"name": "c"}], "k": 2}\n');
    const wrongK = await repo.cli(['manifest', 'sample', '--seed', '7', '--k', '3']);
    assert.is(wrongK.code, 1);
    assert.match(wrongK.stderr, /MANIFEST_SAMPLE/);
    const notInt = await repo.cli(['manifest', 'sample', '--seed', '7.5']);
    assert.is(notInt.code, 2);
    const ok = await repo.cli(['manifest', 'sample', '--seed=-7', '--k', '2']);
    assert.is(ok.code, 0, ok.stderr);
    const m = repo.json('checks/manifest.json') as { seed: number; properties: unknown[] };
    assert.is(m.seed, -7);
    assert.is(m.properties.length, 2);
  } finally {
    repo.remove();
  }
});

test('freeze add, list and prune on an injected clock; what the gate would reject is not written', async () => {
  const repo = repoWithPolicy('freeze', fullPolicy({ epoch: undefined, manifest: undefined, observations: undefined }));
  try {
    const add = (id: string, reason: string, expires: string, now: string) =>
      repo.cli(['freeze', 'add', '--id', id, '--reason', reason, '--expires', expires, '--owner', 'alice', '--now', now]);
    assert.is((await add('tests/a.py::test_1', 'timing', '2026-12-03', '2026-11-29')).code, 0);
    assert.is((await add('tests/b.py::test_2', 'network', '2026-12-01', '2026-11-30')).code, 0);
    assert.equal(repo.json('freeze.json'), {
      version: 1,
      frozen: [
        { id: 'tests/a.py::test_1', reason: 'timing', expires: '2026-12-03', owner: 'alice', added: '2026-11-29' },
        { id: 'tests/b.py::test_2', reason: 'network', expires: '2026-12-01', owner: 'alice', added: '2026-11-30' },
      ],
    });
    const written = repo.read('freeze.json');

    const badReason = await add('tests/c.py::t', 'because', '2026-12-01', '2026-11-29');
    assert.is(badReason.code, 1, 'a reason outside the policy is refused, as every authoring refusal (exit 1)');
    assert.match(badReason.stderr, /--reason must be one of the policy's freeze reasons/);
    const tooLong = await add('tests/c.py::t', 'timing', '2026-12-14', '2026-11-29');
    assert.is(tooLong.code, 1);
    assert.match(tooLong.stderr, /FREEZE_WINDOW/);
    const past = await add('tests/c.py::t', 'timing', '2026-11-28', '2026-11-29');
    assert.is(past.code, 1);
    const duplicate = await add('tests/a.py::test_1', 'timing', '2026-12-02', '2026-11-29');
    assert.is(duplicate.code, 1);
    const notADate = await add('tests/c.py::t', 'timing', '2026-02-30', '2026-11-29');
    assert.is(notADate.code, 2);
    assert.is(repo.read('freeze.json'), written, 'no refused add wrote anything');

    const list = await repo.cli(['freeze', 'list', '--now', '2026-12-02']);
    assert.is(list.code, 0);
    const rows = list.stdout.split('\n').filter((l) => l.startsWith('  '));
    assert.match(rows[0]!, /2026-12-01 +EXPIRED 1 day ago +tests\/b\.py::test_2/);
    assert.match(rows[1]!, /2026-12-03 +1 day left +tests\/a\.py::test_1/);

    // Expired: the gate closes, the authoring commands say so and prune fixes it.
    const blocked = await add('tests/d.py::t', 'timing', '2026-12-04', '2026-12-02');
    assert.is(blocked.code, 1);
    assert.match(blocked.stderr, /FREEZE_EXPIRED/);
    const prune = await repo.cli(['freeze', 'prune', '--now', '2026-12-02']);
    assert.is(prune.code, 0, prune.stderr);
    assert.match(prune.stdout, /dropped tests\/b\.py::test_2/);
    assert.equal((repo.json('freeze.json') as { frozen: { id: string }[] }).frozen.map((r) => r.id), ['tests/a.py::test_1']);
    const check = await repo.cli(['check', join(repo.dir, 'freeze.json'), '--now', '2026-12-02']);
    assert.is(check.code, 0, check.stderr);
    const again = await repo.cli(['freeze', 'prune', '--now', '2026-12-02']);
    assert.match(again.stdout, /no expired freezes/);
  } finally {
    repo.remove();
  }
});

test('observe writes the witness and its record on the pinned epoch; refuses what the gate would reject', async () => {
  const repo = repoWithPolicy('observe', fullPolicy({ manifest: undefined }));
  try {
    const noPin = await repo.cli(['observe', '--id', 'prop_total', '--status', 'pass', '--witness', 'w.txt']);
    assert.is(noPin.code, 2);
    repo.write('fixtures/gen.py', 'gen\n');
    repo.write('freeze.json', '{"version": 1, "frozen": []}\n');
    repo.git('add', '-A');
    assert.is((await repo.cli(['epoch', 'pin', '--id', 'ep1', '--generator', 'fixtures/gen.py'])).code, 0);

    const witness = Buffer.from([0, 1, 2, 255, 10, 13]);
    writeFileSync(join(repo.dir, 'run.log'), witness);
    const pass = await repo.cli(['observe', '--id', 'prop_total', '--status', 'flake', '--rerun-passed', '--witness', 'run.log']);
    assert.is(pass.code, 0, pass.stderr);
    const pythonDigest = python('import hashlib,sys; print(hashlib.sha256(open("run.log","rb").read()).hexdigest())', { cwd: repo.dir }).trim();
    assert.equal(repo.json('observations/prop_total.json'), {
      id: 'prop_total',
      epoch_id: 'ep1',
      status: 'flake',
      rerun_passed: true,
      witness_sha256: pythonDigest,
    });
    assert.equal(readFileSync(join(repo.dir, 'observations/prop_total.bin')), witness);
    // A flake nobody froze closes the gate; the record is still the truth, and says so.
    assert.match(pass.stdout, /FLAKE_UNFROZEN/);

    const fail = await repo.cli(['observe', '--id', 'prop_sum', '--status', 'fail', '--witness', 'run.log']);
    assert.is(fail.code, 0, fail.stderr);
    assert.match(fail.stdout, /OBSERVATION_FAILED/);

    const badId = await repo.cli(['observe', '--id', '../x', '--status', 'pass', '--witness', 'run.log']);
    assert.is(badId.code, 2);
    const badStatus = await repo.cli(['observe', '--id', 'x', '--status', 'green', '--witness', 'run.log']);
    assert.is(badStatus.code, 2);
  } finally {
    repo.remove();
  }
});

test.run();
