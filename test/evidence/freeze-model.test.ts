// The freeze-file rule against an independent model of docs/contract.md §1–2 written in python3 (datetime
// for the calendar): random rows, dates around the boundaries, random today and maxDays.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { checkFreezeFile, expiredFreezeFindings, type ExpiryRow } from '../../src/evidence/freeze';
import { MemorySource } from './memory-source';
import { codes, context, json, python, SEED, specPolicy } from './evidence-helpers';

const MODEL = `
import datetime, json, re, sys

def day(text):
    if not isinstance(text, str) or not re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text):
        return None
    try:
        return datetime.date(int(text[0:4]), int(text[5:7]), int(text[8:10]))
    except ValueError:
        return None

for line in sys.stdin:
    case = json.loads(line)
    today = day(case["today"])
    max_days = case["maxDays"]
    out = []
    seen = set()
    for row in case["rows"]:
        clean = True
        expires = day(row["expires"])
        added = day(row["added"]) if "added" in row else None
        # One finding per schema problem.
        for bad in (expires is None, "added" in row and added is None, row["id"] == ""):
            if bad:
                out.append("FREEZE_INVALID"); clean = False
        if row["id"] != "":
            if row["id"] in seen:
                out.append("FREEZE_INVALID"); clean = False
            seen.add(row["id"])
        if row["reason"] not in case["reasons"]:
            out.append("FREEZE_REASON"); clean = False
        if expires is not None:
            if added is not None and added > expires:
                out.append("FREEZE_WINDOW"); clean = False
            elif added is not None and (expires - added).days > max_days:
                out.append("FREEZE_WINDOW"); clean = False
            elif "added" not in row and (expires - today).days > max_days:
                out.append("FREEZE_WINDOW"); clean = False
            if expires < today:
                out.append("FREEZE_EXPIRED"); clean = False
        if clean:
            out.append("FREEZE_ACTIVE")
    print(json.dumps(sorted(out)))
`;

const REASONS = ['timing', 'network', 'order', 'infra'];
const base = Date.UTC(2028, 1, 20) / 86_400_000; // around a leap day
const isoDay = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
const dateText = fc.oneof(
  { weight: 8, arbitrary: fc.integer({ min: -40, max: 40 }).map((o) => isoDay(base + o)) },
  { weight: 1, arbitrary: fc.constantFrom('2027-02-29', '2028-02-30', '2028-13-01', '2028-2-1', '') },
);
const rowArb = fc.record(
  {
    id: fc.constantFrom('a', 'b', 'c', 'd', ''),
    reason: fc.constantFrom(...REASONS, 'flaky'),
    expires: dateText,
    added: dateText,
  },
  { requiredKeys: ['id', 'reason', 'expires'] },
);
const caseArb = fc.record({
  today: fc.integer({ min: -20, max: 20 }).map((o) => isoDay(base + o)),
  maxDays: fc.integer({ min: 0, max: 30 }),
  rows: fc.array(rowArb, { maxLength: 5 }),
});

test('freeze rows: the same findings as the python3 model (fixed seed)', async () => {
  const cases = fc.sample(caseArb, { seed: SEED, numRuns: 400 });
  const expected = python(MODEL, cases.map((c) => json({ ...c, reasons: REASONS })).join('\n') + '\n')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as string[]);
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i]!;
    const policy = specPolicy({ freeze: { maxDays: c.maxDays } });
    const r = await checkFreezeFile(context(policy, { 'freeze.json': json({ version: 1, frozen: c.rows }) }, { today: c.today }));
    assert.equal([...codes(r.findings)].sort(), expected[i], json(c));
  }
});

// Rows and files the schema refuses too: an untouched context reads only the expired rows, and
// they must be the full check's, word for word and in order, whatever else is wrong.
const oddRow = fc.oneof(
  { weight: 6, arbitrary: rowArb },
  {
    weight: 2,
    arbitrary: fc.record(
      { id: fc.constantFrom('a', 'b', 5, null, ''), expires: fc.oneof(dateText, fc.constantFrom(20280101, null)), extra: fc.constant(1) },
      { requiredKeys: ['expires'] },
    ),
  },
  { weight: 1, arbitrary: fc.constantFrom(null, 5, 'row', [], [{ id: 'a', expires: '2028-01-01' }]) },
);
const fileArb = fc.oneof(
  { weight: 8, arbitrary: fc.array(oddRow, { maxLength: 5 }).map((frozen) => json({ version: 1, frozen })) },
  { weight: 1, arbitrary: fc.array(oddRow, { maxLength: 3 }).map((frozen) => json({ version: 2, frozen, note: 'x' })) },
  { weight: 1, arbitrary: fc.constantFrom('{"frozen": "x"}', '[]', '{"version": 1, "frozen": [', 'null', '{"frozen": [{"id": "a", "expires": "2028-01-01", "id": "b"}]}', '\ufeff{}', null) },
);

test('the expired rows alone: the FREEZE_EXPIRED findings of the full check, in order (fixed seed)', async () => {
  const cases = fc.sample(fc.record({ today: fc.integer({ min: -20, max: 20 }).map((o) => isoDay(base + o)), file: fileArb }), { seed: SEED, numRuns: 400 });
  let expired = 0;
  for (const c of cases) {
    const files: Record<string, string> = c.file === null ? {} : { 'freeze.json': c.file };
    const full = await checkFreezeFile(context(specPolicy(), files, { today: c.today }));
    const alone = await expiredFreezeFindings(context(specPolicy(), files, { today: c.today }));
    const want = full.findings.filter((f) => f.code === 'FREEZE_EXPIRED');
    assert.equal(alone, want, json(c));
    expired += want.length;
  }
  assert.ok(expired > 50, `the cases hold expired rows (${expired})`);
});

// Untouched contexts whose freeze files are one blob: what the blob says is kept by its oid (and
// the size limit) and read once, and each context still gets its own findings, with its own path
// and its own day, word for word the full check's.
test('the expired rows alone, kept by blob across contexts and days: each context\'s findings are the full check\'s, each blob read once per limit', async () => {
  const cases = fc.sample(fc.record({ today: fc.integer({ min: -20, max: 20 }).map((o) => isoDay(base + o)), file: fileArb }), { seed: SEED + 1, numRuns: 300 });
  const seen = new Map<string, readonly ExpiryRow[]>();
  const read = new Set<string>();
  let reads = 0;
  let expired = 0;
  for (const c of cases) {
    for (const [path, limit] of [['services/a/freeze.json', 1048576], ['services/b/freeze.json', 1048576], ['services/c/freeze.json', 64]] as const) {
      const policy = specPolicy({ freeze: { path, reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 }, limits: { timeoutMs: 4000, maxEvidenceBytes: limit } });
      const files: Record<string, string> = c.file === null ? {} : { [path]: c.file };
      const want = (await checkFreezeFile(context(policy, files, { today: c.today }))).findings.filter((f) => f.code === 'FREEZE_EXPIRED');
      const source = new MemorySource(files, 'commit 1234567', { oids: true });
      const alone = await expiredFreezeFindings({ ...context(policy, {}, { today: c.today }), atNew: source }, seen);
      assert.equal(alone, want, `${path} ${json(c)}`);
      expired += want.length;
      reads += source.reads.length;
      if (c.file !== null && Buffer.byteLength(c.file) <= limit) read.add(`${limit} ${c.file}`);
    }
  }
  assert.ok(expired > 50, `the cases hold expired rows (${expired})`);
  assert.is(reads, read.size, 'each blob read once per size limit');
  assert.ok(reads < cases.length, `blobs repeat across the cases (${reads} reads for ${cases.length} cases)`);
});

test.run();
