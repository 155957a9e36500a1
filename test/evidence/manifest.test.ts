// The manifest rule, with python3 as the independent implementation: the digest is compared
// with hashlib.sha256(json.dumps(..., sort_keys=True, separators=(",", ":")).encode()) on the
// same text, and the sampler with random.Random(seed).sample(catalog, k).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { checkManifest } from '../../src/evidence/manifest';
import { assertWellFormed, codes, context, json, python, SEED, sha256, specPolicy } from './evidence-helpers';

const PLACEHOLDER = 'PLACEHOLDER-DIGEST';
const policy = specPolicy();
const withCatalog = specPolicy({ manifest: { path: 'checks/manifest.json', catalog: 'checks/properties.json' } });

// Python reads the very bytes the rule reads (UTF-8 of the text, as the tree stores it).
const PY_DIGESTS = `
import base64, hashlib, json, sys
for line in sys.stdin:
    m = json.loads(base64.b64decode(line))
    canon = json.dumps({"seed": m["seed"], "properties": m["properties"]}, sort_keys=True, separators=(",", ":"))
    print(hashlib.sha256(canon.encode()).hexdigest())
`;

/** python3's digest of each manifest text (one process for all). */
function pythonDigests(texts: string[]): string[] {
  const lines = texts.map((t) => Buffer.from(new TextEncoder().encode(t)).toString('base64'));
  const out = python(PY_DIGESTS, lines.join('\n') + '\n').trim();
  return out === '' ? [] : out.split('\n');
}

// JSON *texts* with what JSON.parse gets wrong: big ints, float spellings, duplicate keys,
// __proto__, escapes, astral characters, NaN and Infinity.
const keyText = fc.constantFrom('"a"', '"b"', '"name"', '"__proto__"', '"constructor"', '"\\u00e9"', '"é"', '"😀"', '"\\ud83d\\ude00"', '"\uE000"', '"Z"');
const leafText = fc.oneof(
  fc.bigInt({ min: -(10n ** 40n), max: 10n ** 40n }).map(String),
  fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (Object.is(x, -0) ? '-0.0' : String(x))),
  fc.constantFrom('1.0', '-0.0', '1E400', '-1e400', 'NaN', 'Infinity', '-Infinity', '1e-7', '0.1', '1e16', '10000000000000000.0', 'true', 'false', 'null'),
  fc.string({ unit: 'binary', maxLength: 8 }).map((s) => JSON.stringify(s)),
  fc.constantFrom('"\\ud800"', '"\\udc00x"', '"\\u007f"', '"tab\\there"', '"\\/"'),
);
const { value: valueText } = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    leafText,
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(', ')}]`),
    fc
      .array(fc.tuple(keyText, tie('value')), { maxLength: 4 })
      .map((pairs) => `{${pairs.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
  ),
}));
const memberKeyText = keyText.filter((k) => k !== '"name"');
const propertyText = fc
  .tuple(fc.string({ maxLength: 6 }), fc.array(fc.tuple(memberKeyText, valueText), { maxLength: 3 }))
  .map(([name, rest]) => `{${[`"name": ${JSON.stringify(name)}`, ...rest.map(([k, v]) => `${k}: ${v}`)].join(', ')}}`);
const seedText = fc.oneof(
  fc.bigInt({ min: -(2n ** 200n), max: 2n ** 200n }).map(String),
  fc.integer().map(String),
);
const manifestText = fc
  .tuple(seedText, fc.array(propertyText, { maxLength: 4 }), fc.boolean())
  .map(([seed, props, shadow]) => {
    // `shadow` writes an earlier seed/properties that a later duplicate key replaces.
    const early = shadow ? `"seed": 7, "properties": [{"name": "shadowed"}], ` : '';
    return `{${early}"seed": ${seed}, "properties": [${props.join(', ')}], "manifest_sha256": "${PLACEHOLDER}"}`;
  });

test('digest: agrees with python3 on generated manifests (valid when recorded, MANIFEST_DIGEST otherwise)', async () => {
  const samples = fc.sample(manifestText, { seed: SEED, numRuns: 300 });
  const digests = pythonDigests(samples);
  assert.is(digests.length, samples.length);
  for (let i = 0; i < samples.length; i++) {
    const good = samples[i]!.replace(PLACEHOLDER, digests[i]!);
    const ok = await checkManifest(context(policy, { 'checks/manifest.json': good }));
    assert.equal(codes(ok.findings), [], `python's digest verifies for ${samples[i]}`);
    assert.is(ok.manifestSha256, digests[i]);

    const wrong = sha256(digests[i]!);
    const bad = await checkManifest(context(policy, { 'checks/manifest.json': samples[i]!.replace(PLACEHOLDER, wrong) }));
    assert.equal(codes(bad.findings), ['MANIFEST_DIGEST']);
    assert.match(bad.findings[0]!.message, wrong);
    assert.match(bad.findings[0]!.message, digests[i]!);
    assert.is(bad.manifestSha256, digests[i], 'the computed digest is the identity when the recorded one fails');
  }
});

test('digest: a duplicate manifest_sha256 key resolves last-wins', async () => {
  const text = `{"seed": 5, "properties": [], "manifest_sha256": "${PLACEHOLDER}"}`;
  const [digest] = pythonDigests([text]);
  const dupLastGood = `{"seed": 5, "properties": [], "manifest_sha256": "${'0'.repeat(64)}", "manifest_sha256": "${digest}"}`;
  const dupLastBad = `{"seed": 5, "properties": [], "manifest_sha256": "${digest}", "manifest_sha256": "${'0'.repeat(64)}"}`;
  assert.equal(codes((await checkManifest(context(policy, { 'checks/manifest.json': dupLastGood }))).findings), []);
  assert.equal(codes((await checkManifest(context(policy, { 'checks/manifest.json': dupLastBad }))).findings), ['MANIFEST_DIGEST']);
});

test('MANIFEST_INVALID: missing manifest, JSON error, wrong types, bool seed, float seed, nameless property', async () => {
  const cases: [string | null, RegExp][] = [
    [null, /is missing/],
    ['{"seed": 1, "properties": [', /JSON syntax error at line 1, column 28/],
    [json({ seed: '1', properties: [], manifest_sha256: '0'.repeat(64) }), /at \/seed: expected an integer of any size, found "1"/],
    [json({ seed: true, properties: [], manifest_sha256: '0'.repeat(64) }), /at \/seed: expected an integer of any size, found the boolean true/],
    [`{"seed": 5.0, "properties": [], "manifest_sha256": "${'0'.repeat(64)}"}`, /at \/seed: expected an integer, found the float 5.0/],
    [json({ seed: 1, properties: {}, manifest_sha256: '0'.repeat(64) }), /at \/properties: expected an array/],
    [json({ seed: 1, properties: [{ bound: 1 }], manifest_sha256: '0'.repeat(64) }), /at \/properties\/0\/name: missing required member "name"/],
    [json({ seed: 1, properties: [{ name: 3 }], manifest_sha256: '0'.repeat(64) }), /at \/properties\/0\/name: expected a property name \(string\), found 3/],
    [json({ seed: 1, properties: [], manifest_sha256: 'TODO' }), /at \/manifest_sha256: expected a SHA-256 as 64 lowercase hex digits, found "TODO"/],
    [json({ seed: 1, properties: [], manifest_sha256: '0'.repeat(64), note: 'x' }), /at \/note: unexpected member "note"/],
  ];
  for (const [text, pattern] of cases) {
    const files: Record<string, string> = text === null ? {} : { 'checks/manifest.json': text };
    const r = await checkManifest(context(policy, files));
    assert.ok(r.findings.some((f) => f.code === 'MANIFEST_INVALID' && pattern.test(f.message)), `${text}: ${r.findings.map((f) => f.message).join(' | ')}`);
    assertWellFormed(r.findings);
  }
});

test('properties are open: any other members of any type', async () => {
  const text = `{"seed": 1, "properties": [{"name": "p", "bound": [1, {"x": null}], "__proto__": 1}], "manifest_sha256": "${PLACEHOLDER}"}`;
  const [digest] = pythonDigests([text]);
  const r = await checkManifest(context(policy, { 'checks/manifest.json': text.replace(PLACEHOLDER, digest!) }));
  assert.equal(r.findings, []);
});

test('a symlink or an oversized manifest', async () => {
  let r = await checkManifest(context(policy, { 'checks/manifest.json': { symlink: 'x' } }));
  assert.equal(codes(r.findings), ['MANIFEST_INVALID']);
  r = await checkManifest(context(policy, { 'checks/manifest.json': { size: 50_000_000 } }));
  assert.equal(codes(r.findings), ['LIMIT_EXCEEDED']);
});

// ---------------------------------------------------------------------------------------------
// Sampler

const PY_SAMPLES = `
import json, random, sys
for line in sys.stdin:
    case = json.loads(line)
    print(json.dumps(random.Random(int(case["seed"])).sample(case["catalog"], case["k"])))
`;

function pythonSamples(cases: { seed: string; catalog: unknown[]; k: number }[]): unknown[][] {
  const out = python(PY_SAMPLES, cases.map((c) => JSON.stringify(c)).join('\n') + '\n').trim();
  return out.split('\n').map((l) => JSON.parse(l) as unknown[]);
}

function manifestFor(seed: string, properties: unknown[]): string {
  const text = `{"seed": ${seed}, "properties": ${json(properties)}, "manifest_sha256": "${PLACEHOLDER}"}`;
  return text.replace(PLACEHOLDER, pythonDigests([text])[0]!);
}

test('sampler: the manifest must be random.Random(seed).sample(catalog, k), as python3 draws it', async () => {
  const caseArb = fc
    .tuple(
      fc.oneof(fc.bigInt({ min: -(2n ** 130n), max: 2n ** 130n }), fc.bigInt({ min: -1000n, max: 1000n })),
      fc.integer({ min: 0, max: 70 }),
      fc.double({ min: 0, max: 1, noNaN: true }),
    )
    .map(([seed, n, f]) => ({
      seed: String(seed),
      catalog: Array.from({ length: n }, (_, i) => ({ name: `p${i}`, bound: i % 3 === 0 ? i * 1.5 : `b${i}` })),
      k: Math.min(n, Math.floor(f * (n + 1))),
    }));
  const cases = fc.sample(caseArb, { seed: SEED, numRuns: 60 });
  const draws = pythonSamples(cases);
  // The same properties in another order are not the draw: swap the first two when they differ.
  const swappable = (i: number) => cases[i]!.k >= 2 && JSON.stringify(draws[i]![0]) !== JSON.stringify(draws[i]![1]);
  const swapped = draws.map((d, i) => (swappable(i) ? [d[1], d[0], ...d.slice(2)] : d));
  const texts = [...draws, ...swapped].map(
    (props, i) => `{"seed": ${cases[i % cases.length]!.seed}, "properties": ${json(props)}, "manifest_sha256": "${PLACEHOLDER}"}`,
  );
  const digests = pythonDigests(texts); // one python3 process for all
  const manifest = (i: number) => texts[i]!.replace(PLACEHOLDER, digests[i]!);
  let swaps = 0;
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i]!;
    const catalog = json({ properties: c.catalog, k: c.k });
    const r = await checkManifest(context(withCatalog, { 'checks/manifest.json': manifest(i), 'checks/properties.json': catalog }));
    assert.equal(codes(r.findings), [], `seed ${c.seed}, n ${c.catalog.length}, k ${c.k}`);
    if (swappable(i)) {
      swaps++;
      const bad = await checkManifest(
        context(withCatalog, { 'checks/manifest.json': manifest(cases.length + i), 'checks/properties.json': catalog }),
      );
      assert.equal(codes(bad.findings), ['MANIFEST_SAMPLE']);
      assert.match(bad.findings[0]!.message, 'property 0');
      assertWellFormed(bad.findings);
    }
  }
  assert.ok(swaps >= 10, `${swaps} cases also check a wrong order`);
});

test('sampler: a negative seed draws as its absolute value; a float-equal member is Python-equal', async () => {
  const catalog = Array.from({ length: 10 }, (_, i) => ({ name: `p${i}`, w: i }));
  const [draw] = pythonSamples([{ seed: '-12345678901234567890', catalog, k: 4 }]);
  // 1.0 == 1 in Python: a manifest writing w as a float is still the draw.
  const asFloats = (draw as { name: string; w: number }[]).map((p) => `{"name": "${p.name}", "w": ${p.w}.0}`);
  const text = `{"seed": -12345678901234567890, "properties": [${asFloats.join(', ')}], "manifest_sha256": "${PLACEHOLDER}"}`;
  const files = {
    'checks/manifest.json': text.replace(PLACEHOLDER, pythonDigests([text])[0]!),
    'checks/properties.json': json({ properties: catalog, k: 4 }),
  };
  assert.equal(codes((await checkManifest(context(withCatalog, files))).findings), []);
  const positive = manifestFor('12345678901234567890', draw!);
  const r = await checkManifest(context(withCatalog, { ...files, 'checks/manifest.json': positive }));
  assert.equal(codes(r.findings), [], 'the absolute value draws the same sample');
});

test('sampler: wrong length, k out of range, catalog absent or malformed', async () => {
  const catalog = [{ name: 'a' }, { name: 'b' }, { name: 'c' }];
  const manifest = manifestFor('1', [{ name: 'a' }]);
  let r = await checkManifest(
    context(withCatalog, { 'checks/manifest.json': manifest, 'checks/properties.json': json({ properties: catalog, k: 2 }) }),
  );
  assert.equal(codes(r.findings), ['MANIFEST_SAMPLE']);
  assert.match(r.findings[0]!.message, 'lists 1 property ("a")');

  for (const k of [4, -1]) {
    r = await checkManifest(
      context(withCatalog, { 'checks/manifest.json': manifest, 'checks/properties.json': json({ properties: catalog, k }) }),
    );
    assert.equal(codes(r.findings), ['MANIFEST_SAMPLE'], `k = ${k}`);
    assert.match(r.findings[0]!.message, `k = ${k}`);
    assert.match(r.findings[0]!.message, '0 <= k <= 3');
    assert.is(r.findings[0]!.path, 'checks/properties.json');
  }

  // The catalog is optional (docs/evidence.md, Property manifest): named by the policy but absent, nothing is drawn.
  r = await checkManifest(context(withCatalog, { 'checks/manifest.json': manifest }));
  assert.equal(codes(r.findings), []);

  for (const bad of ['[1, 2]', '{"properties": [], "k": "2"}', '{"properties": [], "k": 2.0}', '{"properties": [{"name": "a"}]}', '{"properties": [], "k": 1,']) {
    r = await checkManifest(context(withCatalog, { 'checks/manifest.json': manifest, 'checks/properties.json': bad }));
    assert.ok(r.findings.length >= 1, bad);
    assert.ok(r.findings.every((f) => f.code === 'MANIFEST_INVALID' && f.path === 'checks/properties.json'), bad);
  }
  r = await checkManifest(context(withCatalog, { 'checks/manifest.json': manifest, 'checks/properties.json': { size: 2_000_000 } }));
  assert.equal(codes(r.findings), ['LIMIT_EXCEEDED']);
});

test('sampler: a big-int seed stays exact (seed and seed + 1 beyond 2^53 draw differently)', async () => {
  const catalog = Array.from({ length: 30 }, (_, i) => ({ name: `p${i}` }));
  const big = '9007199254740993'; // 2^53 + 1: a double would read it as 2^53
  const [drawBig, drawNear] = pythonSamples([
    { seed: big, catalog, k: 5 },
    { seed: '9007199254740992', catalog, k: 5 },
  ]);
  assert.not.equal(drawBig, drawNear, 'python draws differently for the two seeds');
  const files = { 'checks/properties.json': json({ properties: catalog, k: 5 }) };
  let r = await checkManifest(context(withCatalog, { ...files, 'checks/manifest.json': manifestFor(big, drawBig!) }));
  assert.equal(codes(r.findings), []);
  r = await checkManifest(context(withCatalog, { ...files, 'checks/manifest.json': manifestFor(big, drawNear!) }));
  assert.equal(codes(r.findings), ['MANIFEST_SAMPLE']);
});

test.run();
