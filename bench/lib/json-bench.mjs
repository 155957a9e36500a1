// The Python-exact JSON scenarios: src/evidence/pyjson.ts against CPython's json module on the
// same files, each side in a fresh process per run (as a hook meets a file: cold), interleaved.
// Every run also prints the SHA-256 of its canonical dump, and the two sides must agree: a fast
// parser that wrote different bytes would be no result at all.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { bigManifest } from './adversarial.mjs';
import { prng } from './prng.mjs';

const MIB = 1 << 20;

/**
 * canada.json's shape (a GeoJSON FeatureCollection: one polygon, rings of [lon, lat] pairs of
 * doubles written with 15-17 significant digits), about `bytes` long.
 */
export function canadaLike(bytes) {
  const rng = prng(20261201);
  const rings = [];
  let size = 0;
  while (size < bytes) {
    const ring = [];
    for (let i = 0; i < 400; i++) {
      const lon = -141 + rng.next() * 89;
      const lat = 41 + rng.next() * 43;
      // canada.json's numbers are %.15f renderings such as -65.613616999999977.
      const p = `[${lon.toFixed(15)},${lat.toFixed(15)}]`;
      ring.push(p);
      size += p.length + 1;
    }
    rings.push(`[${ring.join(',')}]`);
    size += 3;
  }
  const head = '{"type":"FeatureCollection","features":[{"type":"Feature","properties":{"name":"Canada"},"geometry":{"type":"Polygon","coordinates":[';
  return Buffer.from(`${head}\n${rings.join(',\n')}]}}]}\n`, 'utf8');
}

export const JSON_SCENARIOS = [
  { id: 'json-canada-1mib', label: 'canada.json-like, 1 MiB', make: () => canadaLike(MIB) },
  { id: 'json-canada-2mib', label: 'canada.json-like, 2.2 MB (canada.json\'s size)', make: () => canadaLike(2.2e6) },
  { id: 'json-manifest-1mib', label: 'a manifest, 1 MiB', make: () => bigManifest(MIB) },
];

const PY_DRIVER = `
import hashlib, json, sys, time
data = open(sys.argv[1], 'rb').read()
t0 = time.perf_counter(); v = json.loads(data); t1 = time.perf_counter()
s = json.dumps(v, sort_keys=True, separators=(",", ":")); t2 = time.perf_counter()
print(json.dumps({"parseMs": (t1 - t0) * 1000, "dumpMs": (t2 - t1) * 1000, "sha256": hashlib.sha256(s.encode()).hexdigest()}))
`;

const JS_DRIVER = `
const { readFileSync } = require('node:fs');
const { createHash } = require('node:crypto');
const { parsePyJson, dumpsCanonical } = require(process.argv[2]);
const data = readFileSync(process.argv[3]);
const t0 = performance.now(); const v = parsePyJson(data); const t1 = performance.now();
const s = dumpsCanonical(v); const t2 = performance.now();
console.log(JSON.stringify({ parseMs: t1 - t0, dumpMs: t2 - t1, sha256: createHash('sha256').update(s).digest('hex') }));
`;

/** Bundles `source` (src/evidence/pyjson.ts or a candidate) and writes the documents. */
export async function prepareJson(source, cacheDir, scenarios) {
  const dir = join(cacheDir, 'json');
  mkdirSync(dir, { recursive: true });
  const { build } = await import('esbuild');
  const bundle = join(dir, 'pyjson.cjs');
  await build({ entryPoints: [source], outfile: bundle, bundle: true, platform: 'node', target: 'node20', format: 'cjs', logLevel: 'warning' });
  writeFileSync(join(dir, 'driver.cjs'), JS_DRIVER);
  writeFileSync(join(dir, 'driver.py'), PY_DRIVER);
  return scenarios.map((s) => {
    const file = join(dir, `${s.id}.json`);
    if (!existsSync(file)) writeFileSync(file, s.make());
    return { ...s, kind: 'json', bytes: statSync(file).size, file, bundle, jsDriver: join(dir, 'driver.cjs'), pyDriver: join(dir, 'driver.py') };
  });
}

/** One cold run of one side: { parseMs, dumpMs, sha256 }. */
export function runJson(s, side) {
  const res =
    side === 'pyjson'
      ? spawnSync('node', [s.jsDriver, s.bundle, s.file], { encoding: 'utf8', maxBuffer: 1 << 24 })
      : spawnSync('python3', [s.pyDriver, s.file], { encoding: 'utf8', maxBuffer: 1 << 24 });
  if (res.status !== 0) throw new Error(`${s.id}: ${side} failed: ${res.stderr}`);
  const out = JSON.parse(res.stdout.trim().split('\n').pop());
  return { ...out, totalMs: out.parseMs + out.dumpMs };
}
