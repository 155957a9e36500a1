// checkEvidence: every rule over the whole tree, identities, fail-closed on errors, and the
// verdict table rows (docs/contract.md §2 Verdicts) that evidence alone decides.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { checkEvidence } from '../../src/evidence/index';
import { manifestDigest } from '../../src/evidence/manifest';
import { parsePyJson } from '../../src/evidence/pyjson';
import { MemorySource, type MemoryEntry } from './memory-source';
import type { EvidenceEntry, EvidenceSource } from '../../src/evidence/types';
import { verdictOf } from '../../src/verdict';
import { assertWellFormed, codes, context, json, python, sha256, specPolicy } from './evidence-helpers';

const EPOCH = 'orders-2026-09-25-a';
const GEN = 'print("orders")\n';
const policy = specPolicy({ manifest: { path: 'checks/manifest.json', catalog: 'checks/properties.json' } });

function manifestText(seed: number, properties: unknown[]): string {
  const digest = python(
    'import hashlib, json, sys; m = json.loads(sys.stdin.read()); print(hashlib.sha256(json.dumps({"seed": m["seed"], "properties": m["properties"]}, sort_keys=True, separators=(",", ":")).encode()).hexdigest())',
    json({ seed, properties }),
  ).trim();
  return json({ seed, properties, manifest_sha256: digest });
}

function drawn(seed: number, catalog: unknown[], k: number): unknown[] {
  return JSON.parse(python('import json, random, sys; c = json.loads(sys.stdin.read()); print(json.dumps(random.Random(c["seed"]).sample(c["catalog"], c["k"])))', json({ seed, catalog, k }))) as unknown[];
}

const CATALOG = Array.from({ length: 8 }, (_, i) => ({ name: `prop_${i}`, bound: i }));
const DRAW = drawn(20260925, CATALOG, 3);

/** A tree where every digest agrees and nothing is frozen or observed. */
function cleanTree(): Record<string, MemoryEntry> {
  return {
    'fixtures/EPOCH': json({ epoch_id: EPOCH, generator: 'fixtures/generate_orders.py', generator_sha256: sha256(GEN), inputs: [] }),
    'fixtures/generate_orders.py': GEN,
    'fixtures/orders.json': json({ id: 'orders', input: { n: 3 }, sha256: sha256('orders-bytes') }),
    'checks/manifest.json': manifestText(20260925, DRAW),
    'checks/properties.json': json({ properties: CATALOG, k: 3 }),
    'freeze.json': json({ version: 1, frozen: [] }),
    'observations/test_x.json': json({ id: 'test_x', epoch_id: EPOCH, status: 'pass', rerun_passed: false, witness_sha256: sha256('x') }),
    'observations/test_x.bin': 'x',
  };
}

test('no failures, no freeze, all digests agree: eligible, identities filled', async () => {
  const files = cleanTree();
  const report = await checkEvidence(context(policy, files));
  assert.equal(report.findings, []);
  assert.is(verdictOf(report.findings), 'eligible');
  const manifest = JSON.parse(files['checks/manifest.json'] as string) as { manifest_sha256: string };
  assert.equal(report.identities, {
    epoch_id: EPOCH,
    generator_sha256: sha256(GEN),
    manifest_sha256: manifest.manifest_sha256,
    freeze_file_sha256: sha256(files['freeze.json'] as string),
    witnesses: { test_x: sha256('x') },
  });
});

test('manifestDigest is the digest python3 writes', () => {
  const text = cleanTree()['checks/manifest.json'] as string;
  const doc = parsePyJson(text);
  if (doc.t !== 'dict') throw new Error('manifest is an object');
  assert.is(manifestDigest(doc.v.get('seed')!, doc.v.get('properties')!), (JSON.parse(text) as { manifest_sha256: string }).manifest_sha256);
});

test('decision table: each evidence symptom gives its verdict', async () => {
  const rows: [string, (t: Record<string, MemoryEntry>) => void, string[], string][] = [
    ['generator bytes differ from the pin', (t) => (t['fixtures/generate_orders.py'] = GEN + '#'), ['EPOCH_MISMATCH'], 'closed'],
    [
      'property failed on the recorded seed',
      (t) => (t['observations/test_x.json'] = json({ id: 'test_x', epoch_id: EPOCH, status: 'fail', rerun_passed: false, witness_sha256: sha256('x') })),
      ['OBSERVATION_FAILED'],
      'closed',
    ],
    [
      'expired freeze still present',
      (t) => (t['freeze.json'] = json({ version: 1, frozen: [{ id: 't', reason: 'timing', expires: '2026-09-17' }] })),
      ['FREEZE_EXPIRED'],
      'closed',
    ],
    [
      'freeze with no witness',
      (t) => (t['freezes/f.json'] = json({ observation_id: 'ghost', epoch_id: EPOCH, expires_on: '2026-09-20', reason: 'r' })),
      ['FREEZE_UNWITNESSED'],
      'closed',
    ],
    [
      'flake re-ran green on the pinned epoch, witness present, a keyed freeze cites it',
      (t) => {
        t['observations/test_y.json'] = json({ id: 'test_y', epoch_id: EPOCH, status: 'flake', rerun_passed: true, witness_sha256: sha256('y') });
        t['observations/test_y.bin'] = 'y';
        t['freezes/test_y.json'] = json({ observation_id: 'test_y', epoch_id: EPOCH, expires_on: '2026-09-20', reason: 'r' });
      },
      ['FREEZE_HELD'],
      'hold',
    ],
    [
      'flake observed but no keyed freeze cites it',
      (t) => {
        t['observations/test_y.json'] = json({ id: 'test_y', epoch_id: EPOCH, status: 'flake', rerun_passed: true, witness_sha256: sha256('y') });
        t['observations/test_y.bin'] = 'y';
      },
      ['FLAKE_UNFROZEN'],
      'closed',
    ],
    [
      'a valid freeze.json row is listed, and the verdict stays eligible',
      (t) => (t['freeze.json'] = json({ version: 1, frozen: [{ id: 't', reason: 'timing', expires: '2026-09-20' }] })),
      ['FREEZE_ACTIVE'],
      'eligible',
    ],
    ['manifest digest edited', (t) => (t['checks/manifest.json'] = (t['checks/manifest.json'] as string).replace('"seed":20260925', '"seed":20260926')), ['MANIFEST_DIGEST', 'MANIFEST_SAMPLE'], 'closed'],
    ['fixture digest is a placeholder', (t) => (t['fixtures/orders.json'] = json({ id: 'orders', input: {}, sha256: 'TBD' })), ['FIXTURE_PLACEHOLDER'], 'closed'],
    ['pin deleted', (t) => delete t['fixtures/EPOCH'], ['EPOCH_MISSING'], 'closed'],
  ];
  for (const [name, edit, expected, verdict] of rows) {
    const files = cleanTree();
    edit(files);
    const report = await checkEvidence(context(policy, files));
    assert.equal(codes(report.findings), expected, name);
    assert.is(verdictOf(report.findings), verdict, name);
    assertWellFormed(report.findings);
  }
});

test('identities: freeze file absent is null; the computed manifest digest stands in for a wrong one', async () => {
  const files = cleanTree();
  delete files['freeze.json'];
  const correct = (JSON.parse(files['checks/manifest.json'] as string) as { manifest_sha256: string }).manifest_sha256;
  files['checks/manifest.json'] = (files['checks/manifest.json'] as string).replace(correct, sha256('wrong'));
  const report = await checkEvidence(context(policy, files));
  assert.equal(codes(report.findings), ['MANIFEST_DIGEST']);
  assert.is(report.identities.freeze_file_sha256, null);
  assert.is(report.identities.manifest_sha256, correct);
});

test('an unreadable object fails closed with INTERNAL_ERROR naming the rule; other rules still run', async () => {
  const inner = new MemorySource(cleanTree());
  const broken: EvidenceSource = {
    label: 'a broken tree',
    async stat(path: string): Promise<EvidenceEntry> {
      if (path === 'freeze.json') throw new Error('object 1234 is corrupt');
      return inner.stat(path);
    },
    list: (dir) => inner.list(dir),
  };
  const report = await checkEvidence({ policy, atNew: broken, atBase: null, today: '2026-09-18' });
  assert.equal(codes(report.findings), ['INTERNAL_ERROR']);
  assert.is(report.findings[0]!.severity, 'closed');
  assert.is(report.findings[0]!.path, 'freeze.json');
  assert.match(report.findings[0]!.message, 'Checking the freeze file failed: object 1234 is corrupt');
  assert.is(report.identities.epoch_id, EPOCH, 'the epoch rule still ran');
});

test('text from the tree cannot forge lines or terminal sequences in messages', async () => {
  const files = cleanTree();
  const id = 'evil\nremote: receipt-gate: {"verdict": "eligible"}\u001b[32m\u202e';
  files[`observations/${id}.json`] = json({ id, epoch_id: EPOCH, status: 'fail', rerun_passed: false, witness_sha256: sha256('e') });
  files[`observations/${id}.bin`] = 'e';
  files['freeze.json'] = json({ version: 1, frozen: [{ id: 'a\rb', reason: 'timing\u0085', expires: '2026-09-20' }] });
  const report = await checkEvidence(context(policy, files));
  assert.equal(codes(report.findings), ['FREEZE_REASON', 'OBSERVATION_FAILED']);
  for (const f of report.findings) {
    // No control character may reach a message.
    assert.not.match(f.message + f.fix, /[\u0000-\u001f\u007f-\u009f\u202e]/, f.code);
  }
  assert.match(report.findings[1]!.message, 'evil\\u000aremote:');
  assert.match(report.findings[1]!.message, '\\u001b[32m\\u202e');
  assert.is(report.findings[1]!.path, `observations/${id}.json`, 'the path itself stays exact');
});

test('a policy without evidence sections checks nothing', async () => {
  const bare = specPolicy();
  for (const key of ['epoch', 'manifest', 'freeze', 'observations', 'fixtures'] as const) delete bare[key];
  const report = await checkEvidence(context(bare, { 'freeze.json': 'garbage', 'fixtures/x.json': 'garbage' }));
  assert.equal(report.findings, []);
});

test('the base is only used for EPOCH_REWRITTEN', async () => {
  const files = cleanTree();
  const base = cleanTree();
  base['fixtures/EPOCH'] = json({ epoch_id: EPOCH, generator: 'fixtures/generate_orders.py', generator_sha256: sha256('older'), inputs: [] });
  base['freeze.json'] = 'garbage at the base is not our business';
  const report = await checkEvidence(context(policy, files, { base }));
  assert.equal(codes(report.findings), ['EPOCH_REWRITTEN']);
});

test.run();
