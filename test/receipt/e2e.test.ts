// The worked example (examples/allocation) end to end: real git repositories, the grader's
// commands run as real processes in a tree written from git objects, signed receipts checked
// by verify-receipt and, independently, by openssl.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { cli, exampleRepo, GRADER, ROOT } from './helpers';
import { commitAll, git, tempDir, writeFiles } from '../helpers/git';

const NOW = ['--now', '2026-11-29'];
const keys = tempDir('keys');
const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'receipt.schema.json'), 'utf8'));
const validate = new Ajv2020({ allErrors: true }).compile<any>(schema);

interface Envelope {
  payloadType: string;
  payload: string;
  signatures: { keyid: string; sig: string }[];
}

function readEnvelope(path: string): Envelope {
  return JSON.parse(readFileSync(path, 'utf8')) as Envelope;
}

function predicateOf(env: Envelope): Record<string, any> {
  return JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8')).predicate;
}

function editFile(repo: string, path: string, from: string, to: string): void {
  const full = join(repo, path);
  const text = readFileSync(full, 'utf8');
  assert.ok(text.includes(from), `${path} contains ${from}`);
  writeFileSync(full, text.replace(from, to));
}

/** A branch off main with one commit that edits src/allocate.js. */
function patchBranch(repo: string, name: string, from: string, to: string): string {
  git(repo, ['checkout', '-q', '-b', name, 'main']);
  editFile(repo, 'src/allocate.js', from, to);
  const sha = commitAll(repo, name);
  git(repo, ['checkout', '-q', 'main']);
  return sha;
}

async function receipt(repo: string, ref: string, out: string, extra: string[] = [], env: NodeJS.ProcessEnv = {}) {
  return cli(repo, ['receipt', '--ref', ref, '--base', 'main', ...GRADER, '--out', out, ...NOW, ...extra], env);
}

const { repo } = exampleRepo();
const honestSha = patchBranch(repo, 'honest', '// Split an amount', '// Allocation of money. Split an amount');
const brokenSha = patchBranch(repo, 'broken-invariant', '(total * BigInt(w)) / weightSum', '(total * BigInt(w) + weightSum / 2n) / weightSum');
const fixtureSha = patchBranch(repo, 'tie-order', 'rank[a] - rank[b]', 'rank[b] - rank[a]');

test('keygen writes an ed25519 pair and refuses to overwrite it', async () => {
  for (const name of ['ci', 'other']) {
    const r = await cli(keys, ['keygen', '--out', name]);
    assert.is(r.code, 0, r.stderr);
  }
  const pub = readFileSync(join(keys, 'ci.pub'), 'utf8');
  assert.match(pub, /^-----BEGIN PUBLIC KEY-----/);
  // openssl reads it as an ED25519 key (independent parser).
  const text = execFileSync('openssl', ['pkey', '-pubin', '-in', join(keys, 'ci.pub'), '-noout', '-text']).toString();
  assert.match(text, /ED25519 Public-Key/);
  const again = await cli(keys, ['keygen', '--out', 'ci']);
  assert.is(again.code, 2);
  assert.match(again.stderr, /exists; pass --force/);
});

test('honest patch: eligible, signed receipt verifies, working-tree edits are ignored', async () => {
  // An uncommitted, broken edit in the caller's working tree must not reach the grader.
  git(repo, ['checkout', '-q', 'honest']);
  writeFileSync(join(repo, 'src/allocate.js'), "module.exports = { allocate: () => [-1] };\n");
  const out = join(keys, 'honest.json');
  const r = await receipt(repo, 'honest', out, ['--sign-key', join(keys, 'ci.key'), '--note']);
  git(repo, ['checkout', '-q', '--', 'src/allocate.js']);
  git(repo, ['checkout', '-q', 'main']);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /verdict: eligible/);

  const env = readEnvelope(out);
  assert.is(env.payloadType, 'application/vnd.in-toto+json');
  const statement = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8'));
  assert.is(statement._type, 'https://in-toto.io/Statement/v1');
  assert.is(statement.predicateType, 'https://receipt-gate.dev/receipt/v1');
  assert.equal(statement.subject[0].digest, { gitCommit: honestSha });
  const rc = statement.predicate;
  assert.ok(validate(rc), JSON.stringify(validate.errors));
  assert.is(rc.schema, 'agent-patch-receipt/v1');
  assert.is(rc.git_sha, honestSha);
  assert.is(rc.base_sha, git(repo, ['rev-parse', 'main']).trim());
  assert.is(rc.verdict, 'eligible');
  assert.is(rc.properties_ok, true);
  assert.is(rc.property_seed, '20260925');
  assert.is(rc.property_trials, 200);
  assert.is(rc.evidence_paths_clean, true);
  assert.is(rc.generated_at, '2026-11-29T00:00:00Z');
  // Fixture rows: expected digests from the records, actual digests recomputed here by
  // running the example's own CLI on each input with plain node.
  assert.is(rc.fixtures.length, 3);
  for (const row of rc.fixtures) {
    const record = JSON.parse(git(repo, ['show', `honest:${row.path}`]));
    assert.is(row.expected, record.sha256);
    const output = execFileSync('node', [join(repo, 'src/allocate-cli.js')], { input: JSON.stringify(record.input) });
    assert.is(row.actual, createHash('sha256').update(output).digest('hex'));
    assert.is(row.ok, true);
  }
  const freezeBlob = execFileSync('git', ['cat-file', 'blob', 'main:freeze.json'], { cwd: repo });
  assert.is(rc.freeze_file_sha256, createHash('sha256').update(freezeBlob).digest('hex'));
  const generator = execFileSync('git', ['cat-file', 'blob', 'main:fixtures/generate_fixtures.js'], { cwd: repo });
  assert.is(rc.generator_sha256, createHash('sha256').update(generator).digest('hex'));
  assert.is(rc.epoch_id, JSON.parse(git(repo, ['show', 'main:fixtures/EPOCH'])).epoch_id);

  // The receipt is stored as a git note on the commit.
  assert.is(git(repo, ['notes', '--ref', 'receipt-gate', 'show', honestSha]).trim(), readFileSync(out, 'utf8').trim());

  const v = await cli(repo, ['verify-receipt', out, '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 0, v.stdout + v.stderr);
  assert.match(v.stdout, /receipt verified/);
});

test('the DSSE signature verifies with openssl over PAE as the DSSE v1 spec defines it', () => {
  const env = readEnvelope(join(keys, 'honest.json'));
  const body = Buffer.from(env.payload, 'base64');
  const type = Buffer.from(env.payloadType);
  // "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body
  const pae = Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${body.length} `), body]);
  const dir = tempDir('openssl');
  writeFileSync(join(dir, 'pae.bin'), pae);
  writeFileSync(join(dir, 'sig.bin'), Buffer.from(env.signatures[0].sig, 'base64'));
  const ok = execFileSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', join(keys, 'ci.pub'), '-rawin', '-in', join(dir, 'pae.bin'), '-sigfile', join(dir, 'sig.bin')]).toString();
  assert.match(ok, /Signature Verified Successfully/);
  // The same signature over the payload without PAE must not verify: the envelope really
  // signs PAE, not the bare body.
  writeFileSync(join(dir, 'body.bin'), body);
  let refused = false;
  try {
    execFileSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', join(keys, 'ci.pub'), '-rawin', '-in', join(dir, 'body.bin'), '-sigfile', join(dir, 'sig.bin')], { stdio: 'pipe' });
  } catch {
    refused = true;
  }
  assert.ok(refused);
  // keyid: SHA-256 of the DER SubjectPublicKeyInfo, computed by openssl.
  const der = execFileSync('openssl', ['pkey', '-pubin', '-in', join(keys, 'ci.pub'), '-outform', 'DER']);
  assert.is(env.signatures[0].keyid, createHash('sha256').update(der).digest('hex'));
});

test('broken invariant: properties fail, receipt closed, verify-receipt refuses with the reason', async () => {
  const out = join(keys, 'broken.json');
  const r = await receipt(repo, 'broken-invariant', out, ['--sign-key', join(keys, 'ci.key')]);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stderr, /FAILED\s+parts_sum_to_total/);
  const rc = predicateOf(readEnvelope(out));
  assert.ok(validate(rc), JSON.stringify(validate.errors));
  assert.is(rc.git_sha, brokenSha);
  assert.is(rc.properties_ok, false);
  assert.is(rc.properties_exit_code, 1);
  assert.is(rc.verdict, 'closed');
  assert.ok(rc.findings.some((f: { code: string; message: string }) => f.code === 'PROPERTIES_FAILED' && /property command/.test(f.message)));
  const v = await cli(repo, ['verify-receipt', out, '--ref', 'broken-invariant', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED properties: the properties did not pass/m);
  assert.match(v.stdout, /^FAILED verdict: the receipt's verdict is closed/m);
});

test('changed fixture output: properties pass, the fixture row does not match, refused', async () => {
  const out = join(keys, 'tie.json');
  const r = await receipt(repo, 'tie-order', out, ['--sign-key', join(keys, 'ci.key')]);
  assert.is(r.code, 1, r.stdout);
  const rc = predicateOf(readEnvelope(out));
  assert.is(rc.git_sha, fixtureSha);
  assert.is(rc.properties_ok, true);
  const bad = rc.fixtures.filter((row: { ok: boolean }) => !row.ok);
  assert.ok(bad.length >= 1);
  for (const row of bad) {
    assert.is.not(row.actual, row.expected);
    assert.ok(rc.findings.some((f: { code: string; path?: string }) => f.code === 'FIXTURE_DIGEST' && f.path === row.path));
  }
  assert.is(rc.verdict, 'closed');
  const v = await cli(repo, ['verify-receipt', out, '--ref', 'tie-order', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED fixtures: fixture \S+ \(fixtures\/\S+\.json\) does not match/m);
  assert.not.match(v.stdout, /FAILED properties/);
});

test('a patch that re-records the fixture to match is refused: the evidence diff is not empty', async () => {
  git(repo, ['checkout', '-q', '-b', 'tie-order-rerecorded', 'tie-order']);
  execFileSync('node', ['fixtures/generate_fixtures.js'], { cwd: repo });
  commitAll(repo, 're-record fixtures');
  git(repo, ['checkout', '-q', 'main']);
  const out = join(keys, 'rerecorded.json');
  const r = await receipt(repo, 'tie-order-rerecorded', out, ['--sign-key', join(keys, 'ci.key')]);
  assert.is(r.code, 1);
  const rc = predicateOf(readEnvelope(out));
  // The patch touches the evidence: the grader runs none of its commands (ordering).
  assert.ok(rc.fixtures.every((row: { ok: boolean; actual: string | null }) => !row.ok && row.actual === null), 'no fixture command ran');
  assert.is(rc.properties_run, false);
  assert.match(rc.not_run_reason, /^evidence touched: fixtures\//);
  assert.match(r.stdout, /^ {2}properties: not run \(evidence touched: fixtures\//m);
  assert.is(rc.evidence_paths_clean, false);
  assert.ok(rc.findings.some((f: { code: string; path?: string }) => f.code === 'PATH_PROTECTED' && f.path?.startsWith('fixtures/')));
  const v = await cli(repo, ['verify-receipt', out, '--ref', 'tie-order-rerecorded', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED evidence:/m);
});

test('a receipt edited by hand is refused (signature)', async () => {
  const env = readEnvelope(join(keys, 'broken.json'));
  const statement = JSON.parse(Buffer.from(env.payload, 'base64').toString('utf8'));
  statement.predicate.properties_ok = true;
  statement.predicate.properties_exit_code = 0;
  statement.predicate.verdict = 'eligible';
  statement.predicate.findings = [];
  env.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
  const forged = join(keys, 'forged.json');
  writeFileSync(forged, JSON.stringify(env));
  const v = await cli(repo, ['verify-receipt', forged, '--ref', 'broken-invariant', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED signature: no signature verifies/m);
  // And stripped of its envelope, the bare receipt is not accepted for a merge either.
  writeFileSync(forged, JSON.stringify(statement.predicate));
  const bare = await cli(repo, ['verify-receipt', forged, '--ref', 'broken-invariant', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(bare.code, 1);
  assert.match(bare.stdout, /^FAILED signature: the receipt is not signed/m);
});

test('a receipt signed by another key is refused', async () => {
  const out = join(keys, 'other-key.json');
  const r = await receipt(repo, 'honest', out, ['--sign-key', join(keys, 'other.key')]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  const v = await cli(repo, ['verify-receipt', out, '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED signature: no signature verifies with the given public key/m);
  const own = await cli(repo, ['verify-receipt', out, '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'other.pub')]);
  assert.is(own.code, 0, own.stdout);
});

test('--sign-key - reads the key from stdin; the grader\'s commands never see signing variables', async () => {
  const out = join(keys, 'stdin.json');
  // The command's stderr reaches receipt's stderr (the sandbox lets it write nowhere else).
  const r = await cli(
    repo,
    ['receipt', '--ref', 'honest', '--base', 'main', '--properties-cmd', `env | sed 's/^/ENV-SEEN /' >&2 && node properties/allocate.properties.js`,
      '--fixture-cmd', 'node src/allocate-cli.js', '--out', out, '--sign-key', '-', ...NOW],
    { RECEIPT_GATE_SIGN_KEY: 'secret-material' },
    readFileSync(join(keys, 'ci.key'), 'utf8'),
  );
  assert.is(r.code, 0, r.stdout + r.stderr);
  const env = r.stderr.split('\n').filter((l) => l.startsWith('ENV-SEEN ')).map((l) => l.slice('ENV-SEEN '.length)).join('\n');
  assert.match(env, /^PATH=/m);
  assert.not.match(r.stderr + r.stdout, /secret-material/);
  assert.match(env, /^PROPERTY_SEED=20260925$/m);
  assert.match(env, /^PROPERTY_TRIALS=200$/m);
  assert.match(env, /^RECEIPT_GATE_FROZEN=\[\]$/m);
  const v = await cli(repo, ['verify-receipt', out, '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 0, v.stdout);
});

test('a receipt for another commit is refused', async () => {
  const v = await cli(repo, ['verify-receipt', join(keys, 'honest.json'), '--ref', 'tie-order', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  assert.match(v.stdout, new RegExp(`^FAILED commit: the receipt is for commit ${honestSha}, but tie-order is ${fixtureSha}`, 'm'));
});

test('without --pub the signature is not taken on trust; --allow-unsigned checks the rest', async () => {
  const honest = join(keys, 'honest.json');
  const v = await cli(repo, ['verify-receipt', honest, '--ref', 'honest', '--base', 'main']);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED signature: no --pub KEY was given/m);
  const u = await cli(repo, ['verify-receipt', honest, '--ref', 'honest', '--base', 'main', '--allow-unsigned']);
  assert.is(u.code, 0, u.stdout);
  assert.match(u.stdout, /UNSIGNED/);
});

test('an unsigned receipt records the same facts', async () => {
  const out = join(keys, 'unsigned.json');
  const r = await receipt(repo, 'honest', out);
  assert.is(r.code, 0);
  const rc = JSON.parse(readFileSync(out, 'utf8'));
  assert.ok(validate(rc), JSON.stringify(validate.errors));
  assert.is(rc.git_sha, honestSha);
  const u = await cli(repo, ['verify-receipt', out, '--ref', 'honest', '--base', 'main', '--allow-unsigned']);
  assert.is(u.code, 0, u.stdout);
});

test('a stale freeze digest is refused once the base freeze file changes', async () => {
  // An owner adds a freeze on main after the receipt was made.
  writeFiles(repo, {
    'freeze.json': `${JSON.stringify({ version: 1, frozen: [{ id: 'tests/test_slow.py::test_timeout', reason: 'timing', expires: '2026-12-05', owner: 'alice', added: '2026-11-25' }] }, null, 2)}\n`,
  });
  const newBase = commitAll(repo, 'freeze a slow test');
  const v = await cli(repo, ['verify-receipt', join(keys, 'honest.json'), '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  const blob = execFileSync('git', ['cat-file', 'blob', `${newBase}:freeze.json`], { cwd: repo });
  assert.match(v.stdout, new RegExp(`^FAILED freeze: .*the base main has ${createHash('sha256').update(blob).digest('hex')}`, 'm'));
});

test('a freeze that expires after the receipt was made refuses it from then on', async () => {
  const { repo: r5 } = exampleRepo();
  writeFiles(r5, {
    'freeze.json': `${JSON.stringify({ version: 1, frozen: [{ id: 'tests/test_io.py::test_slow_disk', reason: 'infra', expires: '2026-12-05', owner: 'alice', added: '2026-11-25' }] }, null, 2)}\n`,
  });
  commitAll(r5, 'freeze until 2026-12-05');
  patchBranch(r5, 'honest', '// Split an amount', '// Allocation of money. Split an amount');
  const out = join(keys, 'expiring.json');
  const r = await receipt(r5, 'honest', out, ['--sign-key', join(keys, 'ci.key')]);
  assert.is(r.code, 0, r.stdout + r.stderr);
  const verifyOn = (date: string) =>
    cli(r5, ['verify-receipt', out, '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'ci.pub'), '--now', date]);
  assert.is((await verifyOn('2026-12-05')).code, 0);
  const late = await verifyOn('2026-12-06');
  assert.is(late.code, 1);
  assert.match(late.stdout, /^FAILED freeze: the base main has freezes expired on 2026-12-06: tests\/test_io\.py::test_slow_disk \(expired 2026-12-05\)/m);
});

test('expired freeze on the base: the honest patch is refused with FREEZE_EXPIRED', async () => {
  const { repo: r2 } = exampleRepo();
  writeFiles(r2, {
    'freeze.json': `${JSON.stringify({ version: 1, frozen: [{ id: 'properties/allocate.properties.js::tie_order_stable_for_seed', reason: 'timing', expires: '2026-11-20', owner: 'alice', added: '2026-11-10' }] }, null, 2)}\n`,
  });
  commitAll(r2, 'freeze (expires 2026-11-20)');
  patchBranch(r2, 'honest', '// Split an amount', '// Allocation of money. Split an amount');
  const out = join(keys, 'expired.json');
  const r = await receipt(r2, 'honest', out, ['--sign-key', join(keys, 'ci.key')]);
  assert.is(r.code, 1, r.stdout);
  assert.match(r.stdout, /FREEZE_EXPIRED/);
  const rc = predicateOf(readEnvelope(out));
  assert.equal(rc.expired_freezes, [{ id: 'properties/allocate.properties.js::tie_order_stable_for_seed', expires: '2026-11-20' }]);
  assert.equal(rc.frozen_tests, []);
  assert.is(rc.verdict, 'closed');
  const v = await cli(r2, ['verify-receipt', out, '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED verdict: the receipt's verdict is closed \(FREEZE_EXPIRED\)/m);
});

test('active freeze: frozen ids reach the property command; JUnit results are recorded', async () => {
  const { repo: r3 } = exampleRepo();
  writeFiles(r3, {
    'freeze.json': `${JSON.stringify({ version: 1, frozen: [{ id: 'tests/test_io.py::test_slow_disk', reason: 'infra', expires: '2026-12-05', owner: 'alice', added: '2026-11-25' }] }, null, 2)}\n`,
  });
  commitAll(r3, 'freeze a slow test');
  const junit = [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<testsuites><testsuite name="pytest" tests="3" failures="1">',
    '<testcase classname="tests.test_io" name="test_slow_disk" file="tests/test_io.py" time="0.1"/>',
    '<testcase classname="tests.test_io" name="test_fast" time="0.1"/>',
    '<testcase classname="tests.test_math" name="test_sum" time="0.1"><failure message="assert 1 == 2">trace</failure></testcase>',
    '</testsuite></testsuites>',
  ].join('\n');
  writeFileSync(join(keys, 'junit.xml'), junit);
  const cmd = `printf 'FROZEN-SEEN %s\\n' "$RECEIPT_GATE_FROZEN" >&2 && node properties/allocate.properties.js`;
  const out = join(keys, 'junit-receipt.json');
  const r = await cli(r3, ['receipt', '--ref', 'main', '--base', 'main', '--properties-cmd', cmd, '--fixture-cmd', 'node src/allocate-cli.js', '--junit', join(keys, 'junit.xml'), '--out', out, ...NOW]);
  const frozenSeen = r.stderr.split('\n').find((l) => l.startsWith('FROZEN-SEEN '));
  assert.ok(frozenSeen, r.stderr);
  assert.equal(JSON.parse(frozenSeen.slice('FROZEN-SEEN '.length)), ['tests/test_io.py::test_slow_disk']);
  const rc = JSON.parse(readFileSync(out, 'utf8'));
  assert.equal(rc.frozen_tests, ['tests/test_io.py::test_slow_disk']);
  assert.equal(rc.frozen_tests_passed, ['tests/test_io.py::test_slow_disk']);
  assert.equal(rc.failed_tests, ['tests/test_math.py::test_sum'], 'pytest\'s node id, the id a freeze uses');
  assert.is(rc.verdict, 'closed');
  assert.is(r.code, 1);
  assert.ok(rc.findings.some((f: { code: string; severity: string }) => f.code === 'FREEZE_ACTIVE' && f.severity === 'info'));
  assert.ok(rc.findings.some((f: { code: string; message: string }) => f.code === 'OBSERVATION_FAILED' && f.message.includes("'tests/test_math.py::test_sum' failed")));
});

test('a witnessed, frozen flake: the receipt holds (exit 3), records the witness, and does not verify', async () => {
  const { repo: r4 } = exampleRepo();
  const policy = JSON.parse(readFileSync(join(r4, '.receipt-gate.json'), 'utf8'));
  policy.observations = { dir: 'observations', freezes: 'freezes' };
  const witness = 'seed 20260925 run 17: timeout after 2000 ms; rerun passed\n';
  const epochId = JSON.parse(readFileSync(join(r4, 'fixtures/EPOCH'), 'utf8')).epoch_id;
  const witnessSha = createHash('sha256').update(witness).digest('hex');
  writeFiles(r4, {
    '.receipt-gate.json': `${JSON.stringify(policy, null, 2)}\n`,
    'observations/obs1.json': JSON.stringify({ id: 'obs1', epoch_id: epochId, status: 'flake', rerun_passed: true, witness_sha256: witnessSha }),
    'observations/obs1.bin': witness,
    'freezes/obs1.json': JSON.stringify({ observation_id: 'obs1', epoch_id: epochId, expires_on: '2026-12-05', reason: 'timing flake on shared runners' }),
  });
  commitAll(r4, 'witnessed flake, frozen');
  patchBranch(r4, 'honest', '// Split an amount', '// Allocation of money. Split an amount');
  const out = join(keys, 'hold.json');
  const r = await receipt(r4, 'honest', out, ['--sign-key', join(keys, 'ci.key')]);
  assert.is(r.code, 3, r.stdout + r.stderr);
  const rc = predicateOf(readEnvelope(out));
  assert.is(rc.verdict, 'hold');
  assert.equal(rc.witnesses, { obs1: witnessSha });
  assert.ok(rc.findings.some((f: { code: string; severity: string }) => f.code === 'FREEZE_HELD' && f.severity === 'hold'));
  const v = await cli(r4, ['verify-receipt', out, '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED verdict: the receipt's verdict is hold \(FREEZE_HELD\)/m);
});

test('PROPERTY_SEED from the environment is recorded, and a receipt on another seed is refused', async () => {
  const out = join(keys, 'seed.json');
  const r = await receipt(repo, 'honest', out, ['--sign-key', join(keys, 'ci.key')], { PROPERTY_SEED: '123456789012345678901234567890', PROPERTY_TRIALS: '250' });
  assert.is(r.code, 1);
  const rc = predicateOf(readEnvelope(out));
  assert.is(rc.property_seed, '123456789012345678901234567890');
  assert.is(rc.manifest_seed, '20260925');
  assert.is(rc.property_trials, 250);
  assert.is(rc.properties_ok, true);
  const v = await cli(repo, ['verify-receipt', out, '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(v.code, 1);
  assert.match(v.stdout, /^FAILED properties: the properties ran on seed 123456789012345678901234567890, not on the manifest's recorded seed 20260925/m);
});

test('usage errors exit 2: bad key, unknown ref, no policy at the base', async () => {
  writeFileSync(join(keys, 'garbage.key'), 'not a key\n');
  const bad = await cli(repo, ['receipt', '--ref', 'honest', '--base', 'main', '--sign-key', join(keys, 'garbage.key'), '--out', join(keys, 'x.json'), ...NOW]);
  assert.is(bad.code, 2);
  assert.match(bad.stderr, /is not a PEM private key/);
  const unknown = await cli(repo, ['receipt', '--ref', 'no-such-branch', '--base', 'main', '--out', join(keys, 'x.json'), ...NOW]);
  assert.is(unknown.code, 2);
  assert.match(unknown.stderr, /no-such-branch/);
  const bare = tempDir();
  git(bare, ['init', '-q', '-b', 'main']);
  writeFiles(bare, { 'a.txt': 'a\n' });
  commitAll(bare, 'unguarded');
  const unguarded = await cli(bare, ['receipt', '--ref', 'main', '--base', 'main', '--out', join(keys, 'x.json'), ...NOW]);
  assert.is(unguarded.code, 2);
  assert.match(unguarded.stderr, /unguarded/);
});

test('the bundled CLI (dist/cli.js, built by npm test) grades, reads JUnit and verifies', () => {
  const dist = join(ROOT, 'dist', 'cli.js');
  const { repo } = exampleRepo();
  patchBranch(repo, 'honest', '// Split an amount', '// Allocation of money. Split an amount');
  const out = join(keys, 'bundled.json');
  writeFileSync(join(keys, 'ok.xml'), '<testsuite><testcase classname="t" name="a"/></testsuite>');
  const env = { ...process.env, NODE_PATH: join(ROOT, 'node_modules'), RECEIPT_GATE_NOW: '2026-11-29', PROPERTY_SEED: '', PROPERTY_TRIALS: '' };
  execFileSync('node', [dist, 'receipt', '--ref', 'honest', '--base', 'main', ...GRADER, '--junit', join(keys, 'ok.xml'), '--sign-key', join(keys, 'ci.key'), '--out', out], { cwd: repo, env, stdio: 'pipe' });
  const verified = execFileSync('node', [dist, 'verify-receipt', out, '--ref', 'honest', '--base', 'main', '--pub', join(keys, 'ci.pub')], { cwd: repo, env }).toString();
  assert.match(verified, /^receipt verified for honest/);
  assert.equal(predicateOf(readEnvelope(out)).junit_files, [join(keys, 'ok.xml')]);
});

test('the CI snippets run the same grader commands this test runs, and upload the receipt', () => {
  for (const file of ['github-actions.yml', 'gitlab-ci.yml']) {
    const text = readFileSync(join(ROOT, 'examples', 'allocation', 'ci', file), 'utf8');
    assert.ok(text.includes(`--properties-cmd '${GRADER[1]}'`), file);
    assert.ok(text.includes(`--fixture-cmd '${GRADER[3]}'`), file);
    assert.match(text, /receipt-gate receipt/);
    assert.match(text, /receipt-gate verify-receipt receipt\.json/);
    assert.match(text, /--sign-key -/);
    assert.match(text, file.startsWith('github') ? /actions\/upload-artifact/ : /artifacts:\s*\n\s*when: always\s*\n\s*paths:\s*\n\s*- receipt\.json/);
  }
});

test.run();
