// npm run demo:python plays examples/python through a real bare repository with the installed
// pre-receive hook: the owner's push, an agent's honest patch accepted, its fixture edit and its
// pyproject.toml/conftest.py edit rejected, and `receipt` with pytest properties eligible. The
// example's own evidence is checked independently of receipt-gate: the pin's digest with
// Node's SHA-256 of the generator, the manifest with CPython's random.Random(seed).sample and
// json.dumps, and conftest.py's frozen-test switch under pytest.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { cleanupTempDirs, tempDir } from '../helpers/git';
import { ensureBuilt, ROOT } from './helpers';

const EXAMPLE = join(ROOT, 'examples', 'python');
// Debian's python3 (python3-pytest), as the demo and the grader's sandbox use it.
const PY_ENV = { PATH: `/usr/bin:${process.env.PATH}`, HOME: process.env.HOME, LANG: 'C.UTF-8', PYTHONDONTWRITEBYTECODE: '1' };

/** The text between the demo's step `n` heading and the next one. */
function stepText(out: string, n: number): string {
  const start = out.indexOf(`== ${n}. `);
  assert.ok(start >= 0, `step ${n} is in the output:\n${out}`);
  const next = out.indexOf('\n== ', start + 1);
  return out.slice(start, next < 0 ? undefined : next);
}

test('npm run demo:python: owner set up, honest patch accepted, fixture and pytest-config edits rejected, receipt eligible', () => {
  ensureBuilt();
  const started = Date.now();
  const r = spawnSync('npm', ['run', '--silent', 'demo:python'], { cwd: ROOT, encoding: 'utf8', env: { PATH: process.env.PATH, HOME: process.env.HOME } });
  const out = r.stdout + r.stderr;
  assert.is(r.status, 0, out);
  assert.ok(Date.now() - started < 60_000);

  const setup = stepText(out, 1);
  assert.match(setup, /installed .*allocation\.git\/hooks\/pre-receive/);
  assert.match(setup, /receipt-gate check [^\n]*\n[\s\S]*verdict: eligible[\s\S]*?\(exit 0\)/);
  assert.match(setup, /python3 -m pytest -q\n\s+\.+\s+\[100%\]\n\s+6 passed/);
  assert.match(setup, /\* \[new branch\]\s+main -> main/);

  const honest = stepText(out, 2);
  assert.match(honest, /remote: receipt-gate: push accepted: eligible/);
  assert.match(honest, /\* \[new branch\]\s+agent\/honest -> agent\/honest\n\s+\(exit 0\)/);

  const fixture = stepText(out, 3);
  assert.match(fixture, /push REJECTED: closed/);
  assert.match(fixture, /PATH_PROTECTED agent\/fixture [0-9a-f]+ fixtures\/weights_v3\.json/);
  assert.match(fixture, /\[remote rejected\] agent\/fixture/);

  const config = stepText(out, 4);
  assert.match(config, /PATH_PROTECTED agent\/config [0-9a-f]+ conftest\.py/);
  assert.match(config, /PATH_PROTECTED agent\/config [0-9a-f]+ pyproject\.toml/);
  assert.match(config, /"blocked_paths":\["conftest\.py","pyproject\.toml"\]/);
  assert.match(config, /\[remote rejected\] agent\/config/);

  const receipt = stepText(out, 5);
  assert.match(receipt, /properties: passed \(seed 20260925, 200 trials\)/);
  assert.match(receipt, /fixtures: 3\/3 match/);
  assert.match(receipt, /evidence paths: untouched/);
  assert.match(receipt, /identities: epoch orders-2026-09-25-a, manifest sha256 [0-9a-f]{64}/);
  assert.match(receipt, /verdict: eligible[\s\S]*2 passed[\s\S]*\(exit 0\)/);
  assert.match(out, /demo: done/);
});

test('examples/python: the pin is the SHA-256 of the generator, the manifest is CPython\'s draw and digest', () => {
  const pin = JSON.parse(readFileSync(join(EXAMPLE, 'fixtures', 'EPOCH'), 'utf8'));
  assert.is(pin.epoch_id, 'orders-2026-09-25-a');
  assert.is(pin.generator, 'fixtures/generate_orders.py');
  assert.is(pin.generator_sha256, createHash('sha256').update(readFileSync(join(EXAMPLE, pin.generator))).digest('hex'));
  assert.equal(pin.inputs, ['fixtures/orders/base.json']);
  const script = [
    'import hashlib, json, random',
    'catalog = json.load(open("checks/properties.json"))',
    'manifest = json.load(open("checks/manifest.json"))',
    'drawn = random.Random(manifest["seed"]).sample(catalog["properties"], catalog["k"])',
    'assert manifest["properties"] == drawn, (manifest["properties"], drawn)',
    'canonical = json.dumps({"seed": manifest["seed"], "properties": drawn}, sort_keys=True, separators=(",", ":"))',
    'assert manifest["manifest_sha256"] == hashlib.sha256(canonical.encode()).hexdigest()',
    'print(manifest["seed"], len(drawn))',
  ].join('\n');
  const r = spawnSync('python3', ['-c', script], { cwd: EXAMPLE, encoding: 'utf8', env: PY_ENV });
  assert.is(r.status, 0, r.stderr);
  assert.is(r.stdout.trim(), '20260925 3');
});

test('examples/python: every fixture record is the digest of what the fixture command prints for its input', () => {
  const records = readdirSync(join(EXAMPLE, 'fixtures')).filter((f) => f.endsWith('.json'));
  assert.equal(records.sort(), ['odd_cents.json', 'weights_v3.json', 'zero_weight.json']);
  for (const file of records) {
    const record = JSON.parse(readFileSync(join(EXAMPLE, 'fixtures', file), 'utf8'));
    const r = spawnSync('python3', ['src/allocate_cli.py'], { cwd: EXAMPLE, input: JSON.stringify(record.input), encoding: 'utf8', env: PY_ENV });
    assert.is(r.status, 0, r.stderr);
    assert.is(record.sha256, createHash('sha256').update(r.stdout).digest('hex'), file);
  }
});

test('examples/python conftest.py: frozen tests skipped in the agent pipeline only, run by the scheduled job', () => {
  const dir = tempDir('python-example');
  try {
    cpSync(EXAMPLE, dir, { recursive: true });
    const pytest = (env: Record<string, string>) =>
      spawnSync('python3', ['-m', 'pytest', '-q', '-rs', 'tests'], { cwd: dir, encoding: 'utf8', env: { ...PY_ENV, ...env } });
    const scheduled = pytest({ RECEIPT_GATE_NOW: '2026-09-10' });
    assert.is(scheduled.status, 0, scheduled.stdout);
    assert.match(scheduled.stdout, /\b4 passed\b/);
    assert.not.match(scheduled.stdout, /skipped/);
    const agent = pytest({ RECEIPT_GATE_PIPELINE: 'agent', RECEIPT_GATE_NOW: '2026-09-10' });
    assert.is(agent.status, 0, agent.stdout);
    assert.match(agent.stdout, /SKIPPED \[1\] tests\/test_allocate\.py[^\n]*frozen/);
    assert.match(agent.stdout, /\b3 passed, 1 skipped\b/);
    // receipt's own list of frozen ids wins over the file.
    const graded = pytest({ RECEIPT_GATE_FROZEN: '["tests/test_allocate.py::test_even_split"]' });
    assert.match(graded.stdout, /\b3 passed, 1 skipped\b/);
    // An expired row skips nothing: the gate closes on it instead.
    const expired = pytest({ RECEIPT_GATE_PIPELINE: 'agent', RECEIPT_GATE_NOW: '2026-09-21' });
    assert.match(expired.stdout, /\b4 passed\b/);
    assert.not.match(expired.stdout, /skipped/);
  } finally {
    cleanupTempDirs();
  }
  assert.not.ok(existsSync(join(EXAMPLE, '.pytest_cache')));
});

test.run();
