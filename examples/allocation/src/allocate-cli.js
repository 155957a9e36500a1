#!/usr/bin/env node
'use strict';
// Fixture command: reads {"total", "weights", "seed"} as JSON on stdin, writes the parts as
// one line of JSON on stdout. receipt-gate digests these bytes and compares them with the
// fixture record; this program never computes a digest.
const { allocate } = require('./allocate');

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const { total, weights, seed } = JSON.parse(input);
  process.stdout.write(`${JSON.stringify(allocate(total, weights, seed))}\n`);
});
