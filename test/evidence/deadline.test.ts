// The run's deadline inside the evidence rules: every rule reads the clock while it reads,
// parses and hashes, and running out of time propagates as DeadlineExceeded (the engine's
// LIMIT_EXCEEDED), never an INTERNAL_ERROR or a per-file finding. The clock here is a test
// clock that jumps past the deadline at a chosen read: no test measures time.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  Deadline,
  DeadlineExceeded,
  DEFAULT_HARD_TIMEOUT_S,
  hardTimeoutFor,
  hardTimeoutFromEnv,
  MAX_HARD_TIMEOUT_S,
  MAX_TIMEOUT_MS,
  WALL_FACTOR,
  withinDeadline,
  type RunTime,
} from '../../src/deadline';
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

// A run's deadline (Deadline.forRun): the budget on the CPU clock, the ceiling on the wall clock,
// both injected here.
function runClocks(hardTimeoutS: number | null): { time: RunTime; cpu: { at: number }; wall: { at: number } } {
  const cpu = { at: 100 };
  const wall = { at: 1_000_000 };
  return { time: { cpuStartedAt: 100, wallStartedAt: 1_000_000, hardTimeoutS, clocks: { cpu: () => cpu.at, wall: () => wall.at } }, cpu, wall };
}

function thrown(f: () => void): DeadlineExceeded {
  try {
    f();
  } catch (err) {
    if (err instanceof DeadlineExceeded) return err;
    throw err;
  }
  throw new Error('no DeadlineExceeded');
}

test('a run deadline: wall time alone (a busy machine) does not use the CPU budget', () => {
  const { time, cpu, wall } = runClocks(null);
  const deadline = Deadline.forRun(1000, time);
  wall.at += 1000 * WALL_FACTOR - 1; // just under the ceiling, with almost no CPU used
  cpu.at += 999;
  deadline.check();
  assert.is(deadline.expired(), false);
  cpu.at += 1;
  const err = thrown(() => deadline.check());
  assert.equal(err.limit, { kind: 'cpu', usedMs: 1000 });
  assert.match(err.explain().message, /did not finish within limits\.timeoutMs \(1000 ms\), counted on the check's own CPU time \(1000 ms used\)/);
  assert.match(err.explain().fix, /raises limits\.timeoutMs in the policy/);
});

test('a run deadline: the wall-clock ceiling is WALL_FACTOR × the budget, and says so', () => {
  const { time, cpu, wall } = runClocks(null);
  const deadline = Deadline.forRun(1000, time);
  cpu.at += 10;
  wall.at += 1000 * WALL_FACTOR;
  const err = thrown(() => deadline.check());
  assert.equal(err.limit, { kind: 'wall', ceilingMs: 1000 * WALL_FACTOR, usedCpuMs: 10, hardTimeoutS: null });
  assert.match(err.explain().message, /wall-clock ceiling ran out first/);
  assert.match(err.explain().fix, /raises limits\.timeoutMs in the policy raises this ceiling with it/);
});

test('a run deadline under a hard timeout ends 2 s before it, and names RECEIPT_GATE_HARD_TIMEOUT and the value to set', () => {
  const { time, wall } = runClocks(10);
  const deadline = Deadline.forRun(4000, time);
  wall.at += 7999;
  deadline.check();
  wall.at += 1;
  const err = thrown(() => deadline.check());
  assert.equal(err.limit, { kind: 'wall', ceilingMs: 8000, usedCpuMs: 0, hardTimeoutS: 10 });
  assert.ok(time.cut, 'the budget wanted a longer hard timeout');
  assert.match(err.explain().message, /RECEIPT_GATE_HARD_TIMEOUT=10 s/);
  assert.ok(err.explain().fix.includes(`sets RECEIPT_GATE_HARD_TIMEOUT to at least ${Math.ceil((4000 * WALL_FACTOR + 2000) / 1000)} s`), err.explain().fix);
  // A short hard timeout keeps half of itself to answer.
  const short = runClocks(1);
  const early = Deadline.forRun(4000, short.time);
  short.wall.at += 500;
  assert.is(thrown(() => early.check()).limit.kind, 'wall');
});

test('raising either side raises the other: the shim default is the default budget\'s hard timeout', () => {
  assert.is(hardTimeoutFor(4000), DEFAULT_HARD_TIMEOUT_S);
  const shim = readFileSync(join(__dirname, '..', '..', 'server-hooks', 'pre-receive'), 'utf8');
  assert.is(/hard=\$\{RECEIPT_GATE_HARD_TIMEOUT:-(\d+)\}/.exec(shim)?.[1], String(DEFAULT_HARD_TIMEOUT_S));
  // The longest hard timeout the shim accepts from node is that of the largest budget.
  const schema = readFileSync(join(__dirname, '..', '..', 'schemas', 'policy.schema.json'), 'utf8');
  assert.is(/"timeoutMs": \{[^}]*"maximum": (\d+)/.exec(schema)?.[1], String(MAX_TIMEOUT_MS));
  assert.is(MAX_HARD_TIMEOUT_S, hardTimeoutFor(MAX_TIMEOUT_MS));
  assert.is(/\[ "\$need" -gt (\d+) \]/.exec(shim)?.[1], String(MAX_HARD_TIMEOUT_S));
  // Under the hard timeout a budget needs (hardTimeoutFor), its ceiling is the hard timeout less
  // the time to answer, at least WALL_FACTOR × the budget, and running out of it is not a cut.
  for (const budget of [100, 4000, 60_000]) {
    const hard = hardTimeoutFor(budget);
    const at = runClocks(hard);
    const deadline = Deadline.forRun(budget, at.time);
    const ceiling = hard * 1000 - Math.min(2000, (hard * 1000) / 2);
    assert.ok(ceiling >= budget * WALL_FACTOR, `${budget}: ${ceiling}`);
    at.wall.at += ceiling - 1;
    deadline.check();
    at.wall.at += 1;
    assert.equal(thrown(() => deadline.check()).limit, { kind: 'wall', ceilingMs: ceiling, usedCpuMs: 0, hardTimeoutS: hard });
    assert.not.ok(at.time.cut, `${budget}: not cut`);
  }
  // A hard timeout one second short of it cuts the budget's ceiling: the run is marked cut (the
  // shim runs the check again under hardTimeoutFor(budget)).
  for (const budget of [1000, 4000, 60_000]) {
    const at = runClocks(hardTimeoutFor(budget) - 1);
    const deadline = Deadline.forRun(budget, at.time);
    at.wall.at += budget * WALL_FACTOR;
    assert.is(thrown(() => deadline.check()).limit.kind, 'wall');
    assert.ok(at.time.cut, `${budget}: cut`);
  }
  // An administrator's longer hard timeout raises the ceiling past WALL_FACTOR × the budget.
  const raised = runClocks(100);
  const deadline = Deadline.forRun(1000, raised.time);
  raised.wall.at += 97_999;
  deadline.check();
  raised.wall.at += 1;
  const err = thrown(() => deadline.check());
  assert.equal(err.limit, { kind: 'wall', ceilingMs: 98_000, usedCpuMs: 0, hardTimeoutS: 100 });
  assert.not.ok(raised.time.cut);
  assert.match(err.explain().message, /after 98000 ms of wall-clock time, the server's hard timeout \(RECEIPT_GATE_HARD_TIMEOUT=100 s\) less 2000 ms to answer/);
  assert.match(err.explain().fix, /so does a server administrator who raises RECEIPT_GATE_HARD_TIMEOUT/);
});

test('RECEIPT_GATE_HARD_TIMEOUT is read as timeout(1) reads it', () => {
  const of = (v?: string) => hardTimeoutFromEnv(v === undefined ? {} : { RECEIPT_GATE_HARD_TIMEOUT: v });
  assert.equal([of(), of('10'), of('2.5'), of('1m'), of('1h'), of('0'), of('ten'), of('-1')], [null, 10, 2.5, 60, 3600, null, null, null]);
});

test('withinDeadline on a run deadline: a wait that uses no CPU ends at the wall ceiling, not at the CPU budget', async () => {
  // Real clocks for the wall, a CPU clock that never moves: the timer re-arms until the ceiling.
  const start = Date.now();
  const deadline = Deadline.forRun(5, { cpuStartedAt: 0, wallStartedAt: start, hardTimeoutS: null, clocks: { cpu: () => 0, wall: Date.now } });
  const waited = await rejection(withinDeadline(deadline, () => new Promise((resolve) => setTimeout(resolve, 10_000))));
  assert.instance(waited, DeadlineExceeded);
  assert.is((waited as DeadlineExceeded).limit.kind, 'wall');
  // The CPU budget unused: work that waits less than the ceiling finishes.
  const done = await withinDeadline(Deadline.forRun(100, { cpuStartedAt: 0, wallStartedAt: Date.now(), hardTimeoutS: null, clocks: { cpu: () => 0, wall: Date.now } }), () => new Promise((resolve) => setTimeout(() => resolve('done'), 20)));
  assert.is(done, 'done');
});

test('a large read refused for lack of time names the nearer limit of a run deadline', async () => {
  const { time, cpu, wall } = runClocks(null);
  const deadline = Deadline.forRun(100, time);
  cpu.at += 60; // 40 ms of CPU left, 940 ms of wall: the CPU budget is the nearer
  wall.at += 60;
  const source = new ClockedSource(new MemorySource(witnessTree(1, 9 * MiB)), () => {});
  const err = await rejection(checkEvidence({ policy, atNew: source, atBase: null, today: '2026-09-18', deadline }));
  assert.instance(err, DeadlineExceeded);
  assert.is((err as DeadlineExceeded).limit.kind, 'cpu');
  assert.equal(source.reads.filter((p) => p.endsWith('.bin')), []);
});

test.run();
