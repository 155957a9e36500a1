#!/usr/bin/env node
'use strict';
// Fixture command: the record's input as JSON on stdin, the result as one JSON line on stdout.
// receipt-gate digests these bytes; this program never computes a digest.
const { reserve } = require('./reserve');

let input = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => (input += chunk));
process.stdin.on('end', () => {
  const args = JSON.parse(input);
  process.stdout.write(`${JSON.stringify(reserve(...args))}\n`);
});
