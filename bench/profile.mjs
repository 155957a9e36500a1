#!/usr/bin/env node
// Summarises a V8 CPU profile (node --cpu-prof): self and inclusive time per function.
//   node bench/profile.mjs FILE.cpuprofile [--top N]
// To profile the installed hook during a push: RECEIPT_GATE_NODE=<a script that runs
// `node --cpu-prof --cpu-prof-dir=DIR "$@"`> git push ...   (NODE_OPTIONS refuses --cpu-prof).
import { readFileSync } from 'node:fs';

const file = process.argv[2];
const topAt = process.argv.indexOf('--top');
const top = topAt > 0 ? Number(process.argv[topAt + 1]) : 25;
if (!file) {
  process.stderr.write('usage: node bench/profile.mjs FILE.cpuprofile [--top N]\n');
  process.exit(2);
}
const prof = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(prof.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const dt = new Map();
for (let i = 0; i < prof.samples.length; i++) {
  const d = prof.timeDeltas[i] ?? 0;
  dt.set(prof.samples[i], (dt.get(prof.samples[i]) ?? 0) + d);
}
const name = (n) => {
  const f = n.callFrame;
  const url = f.url.replace(/^.*\//, '');
  return `${f.functionName || '(anonymous)'} ${url}:${f.lineNumber + 1}`;
};
const self = new Map();
const incl = new Map();
let total = 0;
for (const [id, us] of dt) {
  total += us;
  const n = byId.get(id);
  self.set(name(n), (self.get(name(n)) ?? 0) + us);
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = name(byId.get(cur));
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + us);
  }
}
const show = (title, map) => {
  console.log(`\n${title} (of ${(total / 1000).toFixed(0)} ms sampled)`);
  for (const [k, us] of [...map].sort((a, b) => b[1] - a[1]).slice(0, top)) {
    console.log(`${(us / 1000).toFixed(1).padStart(9)} ms  ${((100 * us) / total).toFixed(1).padStart(5)}%  ${k}`);
  }
};
show('self time', self);
show('inclusive time', incl);
