// What one walk keeps while it runs: flags by commit id (Marks) and the priority queue of
// commits still to visit (Heap). Both are indexed by the commit index's ids (commit-index.ts).

/** Per-walk flags by commit id, growing as new commits get ids. */
export class Marks {
  private a: Uint8Array;
  constructor(size: number) {
    this.a = new Uint8Array(Math.max(1024, size + 256));
  }
  get(id: number): number {
    return id < this.a.length ? this.a[id]! : 0;
  }
  set(id: number, v: number): void {
    if (id >= this.a.length) {
      const b = new Uint8Array(Math.max(id + 1, this.a.length * 2));
      b.set(this.a);
      this.a = b;
    }
    this.a[id] = v;
  }
}

/** Per-walk links by commit id (another commit id, or -1), growing as new commits get ids. */
export class Links {
  private a: Int32Array;
  constructor(size: number) {
    this.a = new Int32Array(Math.max(1024, size + 256)).fill(-1);
  }
  get(id: number): number {
    return id < this.a.length ? this.a[id]! : -1;
  }
  set(id: number, v: number): void {
    if (id >= this.a.length) {
      const b = new Int32Array(Math.max(id + 1, this.a.length * 2)).fill(-1);
      b.set(this.a);
      this.a = b;
    }
    this.a[id] = v;
  }
}

/** Max-heap of commit ids by (k1, k2) descending, then insertion order (git's prio_queue).
 * Entries are moved into a hole rather than swapped: this is the walks' inner loop. */
export class Heap {
  private ids: number[] = [];
  private k1: number[] = [];
  private k2: number[] = [];
  private ctr: number[] = [];
  private next = 0;
  /** Entries in use (the arrays keep their length: shrinking them costs more than the heap). */
  private count = 0;

  get size(): number {
    return this.count;
  }

  /** k1 of the entry pop() returns next. */
  topK1(): number {
    return this.k1[0]!;
  }

  /** True when entry (a1, a2, ac) comes out before the entry at j. */
  private before(a1: number, a2: number, ac: number, j: number): boolean {
    const b1 = this.k1[j]!;
    if (a1 !== b1) return a1 > b1;
    const b2 = this.k2[j]!;
    if (a2 !== b2) return a2 > b2;
    return ac < this.ctr[j]!;
  }

  private move(from: number, to: number): void {
    this.ids[to] = this.ids[from]!;
    this.k1[to] = this.k1[from]!;
    this.k2[to] = this.k2[from]!;
    this.ctr[to] = this.ctr[from]!;
  }

  private place(i: number, id: number, k1: number, k2: number, c: number): void {
    this.ids[i] = id;
    this.k1[i] = k1;
    this.k2[i] = k2;
    this.ctr[i] = c;
  }

  push(id: number, k1: number, k2: number): void {
    const c = this.next++;
    let i = this.count++;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.before(k1, k2, c, p)) break;
      this.move(p, i);
      i = p;
    }
    this.place(i, id, k1, k2, c);
  }

  pop(): number {
    const top = this.ids[0]!;
    const n = --this.count;
    const id = this.ids[n]!;
    const k1 = this.k1[n]!;
    const k2 = this.k2[n]!;
    const c = this.ctr[n]!;
    if (n === 0) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      let m = l;
      if (r < n && this.before(this.k1[r]!, this.k2[r]!, this.ctr[r]!, l)) m = r;
      if (this.before(k1, k2, c, m)) break;
      this.move(m, i);
      i = m;
    }
    this.place(i, id, k1, k2, c);
    return top;
  }
}
