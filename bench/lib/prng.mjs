// Deterministic randomness for the generators: the same seed builds the same repositories.
import { createCipheriv, createHash } from 'node:crypto';

/** mulberry32: small, fast, good enough to choose files and shapes. */
export function prng(seed) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n) => Math.floor(next() * n),
    pick: (arr) => arr[Math.floor(next() * arr.length)],
  };
}

/** Incompressible bytes: an AES-256-CTR keystream keyed by (seed, label). */
export async function* randomBytes(seed, label, size, chunk = 1 << 20) {
  const key = createHash('sha256').update(`receipt-gate-bench:${seed}:${label}`).digest();
  const cipher = createCipheriv('aes-256-ctr', key, Buffer.alloc(16));
  const zero = Buffer.alloc(chunk);
  let left = size;
  while (left > 0) {
    const n = Math.min(chunk, left);
    yield cipher.update(n === chunk ? zero : zero.subarray(0, n));
    left -= n;
  }
}

const WORDS = (
  'order invoice ledger total amount customer region weight batch shipment route carrier ' +
  'account refund discount tax rate currency window retry timeout parser schema record'
).split(' ');

/** A small text file's content, different for every (path, version). */
export function textContent(rng, path, version) {
  const lines = [`// ${path} v${version}`];
  const n = 4 + rng.int(8);
  for (let i = 0; i < n; i++) {
    const words = [];
    for (let j = 0; j < 6; j++) words.push(WORDS[rng.int(WORDS.length)]);
    lines.push(`${words.join(' ')} ${rng.int(1e9)}`);
  }
  return lines.join('\n') + '\n';
}
