// Observations and keyed freezes against an independent python3 model of docs/contract.md §1–2: random
// observations (status, re-run, epoch, witness present / matching / absent) and keyed freezes
// (cited observation, epoch, expiry around the boundaries), fixed seed.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { checkObservations } from '../../src/evidence/observations';
import type { MemoryEntry } from './memory-source';
import { codes, context, json, python, SEED, sha256, specPolicy } from './evidence-helpers';

const PIN = 'e-pinned';

const MODEL = `
import datetime, hashlib, json, sys

for line in sys.stdin:
    case = json.loads(line)
    today = datetime.date.fromisoformat(case["today"])
    max_days = case["maxDays"]
    out = []
    observations = {}
    for o in case["observations"]:
        if o["status"] == "fail":
            out.append("OBSERVATION_FAILED")
        if o["epoch"] != case["pin"]:
            out.append("OBSERVATION_EPOCH")
        witness_ok = False
        if o["witness"] is None:
            out.append("WITNESS_MISSING")
        elif hashlib.sha256(o["witness"].encode()).hexdigest() != hashlib.sha256(o["recorded"].encode()).hexdigest():
            out.append("WITNESS_MISMATCH")
        else:
            witness_ok = True
        observations[o["id"]] = dict(o, witness_ok=witness_ok)
    held = set()
    for k in case["freezes"]:
        valid = True
        if k["epoch"] != case["pin"]:
            out.append("OBSERVATION_EPOCH"); valid = False
        cited = observations.get(k["cites"])
        if cited is None:
            out.append("FREEZE_UNWITNESSED"); valid = False
        else:
            if not cited["rerun"]:
                out.append("FREEZE_UNWITNESSED"); valid = False
            if not cited["witness_ok"] or cited["epoch"] != case["pin"]:
                valid = False
        expires = datetime.date.fromisoformat(k["expires"])
        if expires < today:
            out.append("FREEZE_EXPIRED"); valid = False
        elif (expires - today).days > max_days:
            out.append("FREEZE_WINDOW"); valid = False
        if valid:
            out.append("FREEZE_HELD"); held.add(k["cites"])
    for o in case["observations"]:
        if o["status"] == "flake" and o["id"] not in held:
            out.append("FLAKE_UNFROZEN")
    print(json.dumps(sorted(out)))
`;

const TODAY_DAY = Date.UTC(2028, 1, 22) / 86_400_000;
const isoDay = (d: number) => new Date(d * 86_400_000).toISOString().slice(0, 10);
const IDS = ['t1', 't2', 't3', 't4'];

const observationArb = fc.record({
  status: fc.constantFrom('pass', 'fail', 'flake'),
  rerun: fc.boolean(),
  epoch: fc.constantFrom(PIN, PIN, PIN, 'e-old'),
  recorded: fc.constantFrom('w1', 'w2'),
  witness: fc.constantFrom('w1', 'w2', null),
});
const freezeArb = fc.record({
  cites: fc.constantFrom(...IDS, 'ghost'),
  epoch: fc.constantFrom(PIN, PIN, PIN, 'e-old'),
  expires: fc.integer({ min: -3, max: 20 }).map((o) => isoDay(TODAY_DAY + o)),
});
const caseArb = fc.record({
  observations: fc
    .uniqueArray(fc.constantFrom(...IDS), { maxLength: 4 })
    .chain((ids) => fc.tuple(...ids.map((id) => observationArb.map((o) => ({ id, ...o }))))),
  freezes: fc.array(freezeArb, { maxLength: 4 }),
  maxDays: fc.integer({ min: 0, max: 16 }),
});

test('observations and keyed freezes: the same findings as the python3 model (fixed seed)', async () => {
  const cases = fc.sample(caseArb, { seed: SEED, numRuns: 400 });
  const today = isoDay(TODAY_DAY);
  const expected = python(MODEL, cases.map((c) => json({ ...c, pin: PIN, today })).join('\n') + '\n')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as string[]);
  for (let i = 0; i < cases.length; i++) {
    const c = cases[i]!;
    const files: Record<string, MemoryEntry> = {};
    for (const o of c.observations) {
      files[`observations/${o.id}.json`] = json({
        id: o.id,
        epoch_id: o.epoch,
        status: o.status,
        rerun_passed: o.rerun,
        witness_sha256: sha256(o.recorded),
      });
      if (o.witness !== null) files[`observations/${o.id}.bin`] = o.witness;
    }
    c.freezes.forEach((k, n) => {
      files[`freezes/k${n}.json`] = json({ observation_id: k.cites, epoch_id: k.epoch, expires_on: k.expires, reason: 'slow runner' });
    });
    const policy = specPolicy({ freeze: { maxDays: c.maxDays } });
    const r = await checkObservations(context(policy, files, { today }), PIN);
    assert.equal([...codes(r.findings)].sort(), expected[i], json(c));
  }
});

test.run();
