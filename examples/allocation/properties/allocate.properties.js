#!/usr/bin/env node
'use strict';
// Property tests of allocate(), written with fast-check. receipt-gate runs this file with
//   PROPERTY_SEED       the manifest's recorded seed (checks/manifest.json)
//   PROPERTY_TRIALS     runs per property (200 unless the CI sets it)
//   RECEIPT_GATE_FROZEN JSON array of frozen test ids (freeze.json): those are skipped
// and records its exit status as `properties_ok`. The properties to run are the ones the
// manifest lists, by name; a name this file does not know fails the run.
const fs = require('node:fs');
const path = require('node:path');
const fc = require('fast-check');
const { allocate } = require('../src/allocate');

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'checks', 'manifest.json'), 'utf8'));
const seedText = process.env.PROPERTY_SEED ?? String(manifest.seed);
// fast-check takes a 32-bit seed; a larger (or negative) recorded seed maps to one exactly.
const seed = Number(BigInt.asIntN(32, BigInt(seedText)));
const numRuns = Number(process.env.PROPERTY_TRIALS ?? 200);
const frozen = new Set(JSON.parse(process.env.RECEIPT_GATE_FROZEN ?? '[]'));

const total = fc.integer({ min: 0, max: 10_000_000 });
const weights = fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 12 }).filter((ws) => ws.some((w) => w > 0));
const tieSeed = fc.integer({ min: 0, max: 0xffffffff });

const PROPERTIES = {
  parts_sum_to_total: fc.property(total, weights, tieSeed, (t, ws, s) => {
    const parts = allocate(t, ws, s);
    return parts.length === ws.length && parts.reduce((a, b) => a + b, 0) === t;
  }),
  parts_non_negative: fc.property(total, weights, tieSeed, (t, ws, s) => allocate(t, ws, s).every((p) => Number.isInteger(p) && p >= 0)),
  parts_within_one_cent_of_share: fc.property(total, weights, tieSeed, (t, ws, s) => {
    const sum = ws.reduce((a, b) => a + b, 0);
    // |part - t*w/sum| < 1, in integers: |part*sum - t*w| < sum
    return allocate(t, ws, s).every((p, i) => {
      const diff = BigInt(p) * BigInt(sum) - BigInt(t) * BigInt(ws[i]);
      return (diff < 0n ? -diff : diff) < BigInt(sum);
    });
  }),
  tie_order_stable_for_seed: fc.property(total, weights, tieSeed, (t, ws, s) => {
    const first = allocate(t, ws, s);
    const again = allocate(t, [...ws], s);
    return first.every((p, i) => p === again[i]);
  }),
};

let failed = 0;
for (const { name } of manifest.properties) {
  if (frozen.has(name) || frozen.has(`properties/allocate.properties.js::${name}`)) {
    console.log(`frozen  ${name} (skipped: freeze.json)`);
    continue;
  }
  const prop = PROPERTIES[name];
  if (!prop) {
    console.log(`FAILED  ${name}: the manifest names a property this file does not define`);
    failed++;
    continue;
  }
  try {
    fc.assert(prop, { seed, numRuns });
    console.log(`ok      ${name} (seed ${seedText}, ${numRuns} runs)`);
  } catch (err) {
    console.log(`FAILED  ${name}\n${err.message}`);
    failed++;
  }
}
process.exitCode = failed === 0 ? 0 : 1;
