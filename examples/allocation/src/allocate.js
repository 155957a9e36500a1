'use strict';
// Split an amount of integer cents by integer weights (largest-remainder method).
//
//   allocate(1000, [1, 1, 1], 7) -> three parts that sum to 1000, e.g. [334, 333, 333]
//
// Each part gets the floor of its exact share; the cents left over go one each to the parts
// with the largest remainders. Parts whose remainders tie are ordered by a permutation drawn
// from `seed`, so the same seed always gives the same split and different seeds spread the
// odd cents fairly over time.

function allocate(totalCents, weights, seed) {
  if (!Number.isSafeInteger(totalCents) || totalCents < 0) {
    throw new RangeError(`totalCents must be a non-negative integer, got ${totalCents}`);
  }
  if (!Array.isArray(weights) || weights.length === 0) {
    throw new RangeError('weights must be a non-empty array');
  }
  for (const w of weights) {
    if (!Number.isSafeInteger(w) || w < 0) throw new RangeError(`weights must be non-negative integers, got ${w}`);
  }
  const weightSum = weights.reduce((a, b) => a + BigInt(b), 0n);
  if (weightSum === 0n) throw new RangeError('weights must not all be zero');

  const total = BigInt(totalCents);
  const parts = weights.map((w) => (total * BigInt(w)) / weightSum);
  const remainders = weights.map((w) => (total * BigInt(w)) % weightSum);
  let left = total - parts.reduce((a, b) => a + b, 0n);

  const rank = tieRanks(weights.length, seed);
  const order = weights
    .map((_, i) => i)
    .sort((a, b) => (remainders[b] > remainders[a] ? 1 : remainders[b] < remainders[a] ? -1 : rank[a] - rank[b]));
  for (const i of order) {
    if (left === 0n) break;
    parts[i] += 1n;
    left -= 1n;
  }
  return parts.map(Number);
}

/** rank[i]: position of index i in a permutation of 0..n-1 drawn from `seed` (Fisher-Yates
 * over a 32-bit xorshift generator). */
function tieRanks(n, seed) {
  let state = (Number(BigInt.asUintN(32, BigInt(seed ?? 0))) ^ 0x9e3779b9) >>> 0 || 1;
  const next = () => {
    state ^= state << 13;
    state >>>= 0;
    state ^= state >>> 17;
    state ^= state << 5;
    state >>>= 0;
    return state;
  };
  const perm = Array.from({ length: n }, (_, i) => i);
  for (let i = n - 1; i > 0; i--) {
    const j = next() % (i + 1);
    [perm[i], perm[j]] = [perm[j], perm[i]];
  }
  const rank = new Array(n);
  perm.forEach((index, position) => {
    rank[index] = position;
  });
  return rank;
}

module.exports = { allocate };
