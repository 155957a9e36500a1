#!/usr/bin/env node
'use strict';
// Property tests of invoice(). receipt-gate runs this file from the service's folder with
//   PROPERTY_SEED       the seed recorded in checks/manifest.json
//   PROPERTY_TRIALS     runs per property (200 unless the CI sets it)
//   RECEIPT_GATE_FROZEN JSON array of frozen test ids (freeze.json): those are skipped
// The properties run are the ones the manifest lists; a name this file does not define fails.
const fs = require('node:fs');
const path = require('node:path');
const { invoice } = require('../src/invoice');

const manifest = JSON.parse(fs.readFileSync(path.join(__dirname, '..', 'checks', 'manifest.json'), 'utf8'));
let state = Number(BigInt.asUintN(32, BigInt(process.env.PROPERTY_SEED ?? String(manifest.seed))));
const trials = Number(process.env.PROPERTY_TRIALS ?? 200);
const frozen = new Set(JSON.parse(process.env.RECEIPT_GATE_FROZEN ?? '[]'));
// mulberry32: the same seed draws the same cases.
const next = () => {
  state = (state + 0x6d2b79f5) >>> 0;
  let t = state;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
};
const int = (max) => Math.floor(next() * (max + 1));
const lines = () => Array.from({ length: 1 + int(5) }, (_, i) => ({ sku: `S-${i}`, cents: int(1_000_000) }));

const PROPERTIES = {
  total_is_sum_of_lines: () => {
    const ls = lines();
    const bp = int(3000);
    const inv = invoice(ls, bp);
    return inv.total === inv.lines.reduce((s, l) => s + l.cents + l.tax, 0);
  },
  tax_never_negative: () => invoice(lines(), int(3000)).lines.every((l) => Number.isInteger(l.tax) && l.tax >= 0),
  zero_rate_zero_tax: () => invoice(lines(), 0).lines.every((l) => l.tax === 0),
};

let failed = 0;
for (const { name } of manifest.properties) {
  if (frozen.has(name)) {
    console.log(`frozen  ${name} (skipped)`);
    continue;
  }
  const prop = PROPERTIES[name];
  let ok = prop !== undefined;
  for (let i = 0; ok && i < trials; i++) ok = prop();
  console.log(`${ok ? 'ok    ' : 'FAILED'}  ${name}${prop ? '' : ': not defined here'}`);
  if (!ok) failed++;
}
process.exitCode = failed === 0 ? 0 : 1;
