// CPython 3.11's `random.Random` for an int seed: MT19937 seeded by `init_by_array`,
// `getrandbits`, `_randbelow_with_getrandbits`, `random()` and `sample()`, drawing exactly what
// Python draws, so a manifest sampled with `random.Random(seed).sample(catalog, k)` can be
// checked here.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;

/** A sample Python would refuse (`ValueError`): k negative, larger than the population, or not an integer. */
export class PySampleError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PySampleError';
  }
}

export class PyRandom {
  private readonly mt = new Uint32Array(N);
  private mti = N + 1;

  /** `random.Random(seed)` for an int seed; a negative seed draws as its absolute value. */
  constructor(seed: bigint) {
    this.initByArray(seedKey(seed));
  }

  private initGenrand(s: number): void {
    const mt = this.mt;
    mt[0] = s >>> 0;
    for (let i = 1; i < N; i++) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = (Math.imul(1812433253, prev) + i) >>> 0;
    }
    this.mti = N;
  }

  private initByArray(key: Uint32Array): void {
    const mt = this.mt;
    this.initGenrand(19650218);
    let i = 1;
    let j = 0;
    const keyLength = key.length;
    for (let k = N > keyLength ? N : keyLength; k; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1664525)) + key[j]! + j) >>> 0;
      i++;
      j++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
      if (j >= keyLength) j = 0;
    }
    for (let k = N - 1; k; k--) {
      const prev = mt[i - 1]! ^ (mt[i - 1]! >>> 30);
      mt[i] = ((mt[i]! ^ Math.imul(prev, 1566083941)) - i) >>> 0;
      i++;
      if (i >= N) {
        mt[0] = mt[N - 1]!;
        i = 1;
      }
    }
    mt[0] = 0x80000000;
  }

  /** genrand_uint32 */
  private next32(): number {
    const mt = this.mt;
    if (this.mti >= N) {
      let kk = 0;
      for (; kk < N - M; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + M]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      for (; kk < N - 1; kk++) {
        const y = (mt[kk]! & UPPER_MASK) | (mt[kk + 1]! & LOWER_MASK);
        mt[kk] = mt[kk + (M - N)]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      }
      const y = (mt[N - 1]! & UPPER_MASK) | (mt[0]! & LOWER_MASK);
      mt[N - 1] = mt[M - 1]! ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
      this.mti = 0;
    }
    let y = mt[this.mti++]!;
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `getrandbits(k)`: 32-bit words from least to most significant, the last one shifted right. */
  getrandbits(k: number): bigint {
    if (!Number.isInteger(k) || k < 0) throw new PySampleError('number of bits must be non-negative');
    if (k === 0) return 0n;
    if (k <= 32) return BigInt(this.next32() >>> (32 - k));
    let result = 0n;
    let shift = 0n;
    for (let left = k; left > 0; left -= 32, shift += 32n) {
      let r = this.next32();
      if (left < 32) r >>>= 32 - left;
      result |= BigInt(r) << shift;
    }
    return result;
  }

  /**
   * `_randbelow_with_getrandbits(n)`. CPython 3.11 defines it for n > 0 only (for n = 0 it never
   * returns); here n <= 0 is an error.
   */
  randbelow(n: bigint): bigint {
    if (n <= 0n) throw new PySampleError(`randbelow: n must be positive, got ${n}`);
    const k = bitLength(n);
    let r = this.getrandbits(k);
    while (r >= n) r = this.getrandbits(k);
    return r;
  }

  /** `random()`: a double in [0, 1) from 53 random bits. */
  random(): number {
    const a = this.next32() >>> 5;
    const b = this.next32() >>> 6;
    return (a * 67108864.0 + b) * (1.0 / 9007199254740992.0);
  }

  /** `random.sample(population, k)` of CPython 3.11, both the pool and the set branch. */
  sample<T>(population: readonly T[], k: number): T[] {
    const n = population.length;
    if (!Number.isInteger(k)) throw new PySampleError(`Sample size must be an integer, got ${k}`);
    if (!(0 <= k && k <= n)) throw new PySampleError('Sample larger than population or is negative');
    const result: T[] = new Array<T>(k);
    let setsize = 21; // size of a small set minus size of an empty list
    if (k > 5) setsize += 4 ** Math.ceil(Math.log(k * 3) / Math.log(4)); // table size for big sets
    const below = (m: number) => Number(this.randbelow(BigInt(m)));
    if (n <= setsize) {
      // An n-length list is smaller than a k-length set.
      const pool = population.slice();
      for (let i = 0; i < k; i++) {
        const j = below(n - i);
        result[i] = pool[j]!;
        pool[j] = pool[n - i - 1]!; // move non-selected item into vacancy
      }
    } else {
      const selected = new Set<number>();
      for (let i = 0; i < k; i++) {
        let j = below(n);
        while (selected.has(j)) j = below(n);
        selected.add(j);
        result[i] = population[j]!;
      }
    }
    return result;
  }
}

/** `int.bit_length()` for n > 0. */
function bitLength(n: bigint): number {
  return n.toString(2).length;
}

/** random_seed of _randommodule.c: the 32-bit little-endian words of abs(seed); 0 is [0]. */
function seedKey(seed: bigint): Uint32Array {
  let n = seed < 0n ? -seed : seed;
  const words: number[] = [];
  while (n > 0n) {
    words.push(Number(n & 0xffffffffn));
    n >>= 32n;
  }
  if (words.length === 0) words.push(0);
  return Uint32Array.from(words);
}
