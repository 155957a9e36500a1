#!/usr/bin/env node
'use strict';
// Property tests of reserve(). receipt-gate runs this file from the service's folder with
//   PROPERTY_SEED       the seed recorded in checks/manifest.json
//   PROPERTY_TRIALS     runs per property (200 unless the CI sets it)
//   RECEIPT_GATE_FROZEN JSON array of frozen test ids (freeze.json): those are skipped
// The properties run are the ones the manifest lists; a name this file does not define fails.
const fs = require('node:fs');
const path = require('node:path');
const { reserve } = require('../src/reserve');

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
const stock = () => Array.from({ length: 1 + int(4) }, (_, i) => ({ warehouse: `w${i}`, units: int(50) }));

const PROPERTIES = {
  never_below_zero: () => reserve(stock(), int(200)).taken.every((t) => t.remaining >= 0 && t.take >= 0),
  takes_what_is_wanted: () => {
    const s = stock();
    const wanted = int(200);
    const r = reserve(s, wanted);
    return r.taken.reduce((sum, t) => sum + t.take, 0) + r.short === wanted;
  },
  short_only_when_empty: () => {
    const r = reserve(stock(), int(200));
    return r.short === 0 || r.taken.every((t) => t.remaining === 0);
  },
  slow_restock: () => true,
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
