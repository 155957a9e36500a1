// The run's deadline inside the evidence rules: every rule reads the clock while it reads,
// parses and hashes, and running out of time propagates as DeadlineExceeded (the engine's
// LIMIT_EXCEEDED), never an INTERNAL_ERROR or a per-file finding. The clock here is a test
// clock that jumps past the deadline at a chosen read: no test measures time.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { Deadline, DeadlineExceeded } from '../../src/deadline';
import { checkEvidence } from '../../src/evidence/index';
import type { EvidenceEntry, EvidenceSource } from '../../src/evidence/types';
import { json, sha256, specPolicy } from './evidence-helpers';
import { MemorySource, type MemoryEntry } from './memory-source';

const EPOCH = 'e1';
const GEN = 'print(1)\n';
const MiB = 1024 * 1024;

/** A source whose reads are counted, and whose `onRead` may move the test clock. */
class ClockedSource implements EvidenceSource {
  readonly reads: string[] = [];
  constructor(
    private readonly inner: MemorySource,
    private readonly onRead: (path: string, count: number) => void,
  ) {}
  get label(): string {
    return this.inner.label;
  }
  async stat(path: string): Promise<EvidenceEntry> {
    const entry = await this.inner.stat(path);
    if (entry.kind !== 'file') return entry;
    return {
      ...entry,
      read: async () => {
        const bytes = await entry.read();
        this.reads.push(path);
        this.onRead(path, this.reads.length);
        return bytes;
      },
    };
  }
  list(dir: string): Promise<string[]> {
    return this.inner.list(dir);
  }
}

/** A deadline at t = 1 on a clock that stands at 0 until `expire()`. */
function testClock(): { deadline: Deadline; expire: () => void } {
  // Ten seconds to spare until expire(): enough, by the reader's estimate, to read any witness.
  let now = 0;
  return { deadline: new Deadline(10_000, 100, () => now), expire: () => (now = 10_001) };
}

function witnessTree(count: number, size: number): Record<string, MemoryEntry> {
  const files: Record<string, MemoryEntry> = {
    'fixtures/EPOCH': json({ epoch_id: EPOCH, generator: 'gen.py', generator_sha256: sha256(GEN), inputs: [] }),
    'gen.py': GEN,
  };
  for (let i = 0; i < count; i++) {
    const bytes = new Uint8Array(size).fill(i);
    files[`observations/w${i}.json`] = json({ id: `w${i}`, epoch_id: EPOCH, status: 'pass', rerun_passed: false, witness_sha256: sha256(bytes) });
    files[`observations/w${i}.bin`] = bytes;
  }
  return files;
}

const policy = specPolicy();
delete policy.manifest;
delete policy.freeze;
delete policy.fixtures;

async function rejection(run: Promise<unknown>): Promise<unknown> {
  try {
    await run;
  } catch (err) {
    return err;
  }
  return null;
}

test('eight large witnesses: time runs out while hashing the first, and checking stops there', async () => {
  const { deadline, expire } = testClock();
  const source = new ClockedSource(new MemorySource(witnessTree(8, 9 * MiB)), (path) => {
    if (path.endsWith('.bin')) expire(); // the clock passes the deadline as the first witness arrives
  });
  const err = await rejection(checkEvidence({ policy, atNew: source, atBase: null, today: '2026-09-18', deadline }));
  assert.instance(err, DeadlineExceeded);
  // Thrown by the hashing itself, between slices of the witness, not after it.
  assert.match(String((err as Error).stack), /sha256Hex/);
  assert.equal(source.reads.filter((p) => p.endsWith('.bin')), ['observations/w0.bin']);
});

test('a large witness that cannot be read in the time left is not read at all', async () => {
  const deadline = new Deadline(50, 100, () => 0); // 50 ms left, and the clock never moves
  const source = new ClockedSource(new MemorySource(witnessTree(8, 9 * MiB)), () => {});
  const err = await rejection(checkEvidence({ policy, atNew: source, atBase: null, today: '2026-09-18', deadline }));
  assert.instance(err, DeadlineExceeded);
  assert.equal(source.reads.filter((p) => p.endsWith('.bin')), []);
});

test('the same tree with time to spare checks every witness (the clock alone stopped it above)', async () => {
  const source = new ClockedSource(new MemorySource(witnessTree(8, 9 * MiB)), () => {});
  const report = await checkEvidence({ policy, atNew: source, atBase: null, today: '2026-09-18', deadline: Deadline.never() });
  assert.equal(report.findings, []);
  assert.is(Object.keys(report.identities.witnesses).length, 8);
  assert.is(source.reads.filter((p) => p.endsWith('.bin')).length, 8);
});

test('time running out while a JSON file is parsed, or between records, propagates from every rule', async () => {
  const full = specPolicy();
  const tree: Record<string, MemoryEntry> = {
    ...witnessTree(3, 10),
    'checks/manifest.json': json({ seed: 1, properties: [], manifest_sha256: 'a'.repeat(64) }),
    'freeze.json': json({ version: 1, frozen: [] }),
    'fixtures/a.json': json({ id: 'a', input: {}, sha256: 'b'.repeat(64) }),
    'fixtures/b.json': json({ id: 'b', input: {}, sha256: 'b'.repeat(64) }),
  };
  // Every read, one at a time, is the moment the clock passes the deadline.
  const probe = new ClockedSource(new MemorySource(tree), () => {});
  await checkEvidence({ policy: full, atNew: probe, atBase: null, today: '2026-09-18' });
  const total = probe.reads.length;
  assert.ok(total >= 10, `reads: ${probe.reads.join(', ')}`);
  for (let at = 1; at <= total; at++) {
    const { deadline, expire } = testClock();
    const source = new ClockedSource(new MemorySource(tree), (_, count) => {
      if (count === at) expire();
    });
    const err = await rejection(checkEvidence({ policy: full, atNew: source, atBase: null, today: '2026-09-18', deadline }));
    assert.instance(err, DeadlineExceeded, `clock passed at read ${at} (${probe.reads[at - 1]})`);
    assert.is(source.reads.length, at, `nothing is read after read ${at} (${probe.reads[at - 1]})`);
  }
});

test('a deadline already passed reads nothing; an oversized witness is still refused from its size', async () => {
  const { deadline, expire } = testClock();
  expire();
  const source = new ClockedSource(new MemorySource(witnessTree(2, 10)), () => {});
  assert.instance(await rejection(checkEvidence({ policy, atNew: source, atBase: null, today: '2026-09-18', deadline })), DeadlineExceeded);
  assert.equal(source.reads, []);

  const tree = witnessTree(1, 10);
  tree['observations/w0.bin'] = { size: 64 * MiB + 1 };
  const report = await checkEvidence({ policy, atNew: new MemorySource(tree), atBase: null, today: '2026-09-18', deadline: Deadline.never() });
  assert.equal(report.findings.map((f) => [f.code, f.path]), [['LIMIT_EXCEEDED', 'observations/w0.bin']]);
});

test.run();
