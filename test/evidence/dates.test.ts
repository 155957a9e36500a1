// Calendar dates against python3's datetime.date (an independent calendar).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { today } from '../../src/clock';
import { dateOf, dayNumber, isCalendarDate } from '../../src/evidence/dates';
import { python, SEED } from './evidence-helpers';

const PY_DATES = `
import datetime, re, sys
epoch = datetime.date(1970, 1, 1)
for line in sys.stdin:
    text = line.rstrip("\\n")
    ok = re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text) is not None
    try:
        d = datetime.date(int(text[0:4]), int(text[5:7]), int(text[8:10])) if ok else None
    except ValueError:
        d = None
    print("-" if d is None or d.year < 1 else (d - epoch).days)
`;

test('dayNumber agrees with python3 datetime.date on generated YYYY-MM-DD texts', () => {
  const texts = fc.sample(
    fc.oneof(
      fc
        .tuple(fc.integer({ min: 1, max: 9999 }), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
        .map(([y, m, d]) => `${String(y).padStart(4, '0')}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
      fc.constantFrom('2028-02-29', '2026-02-29', '2000-02-29', '1900-02-29', '2400-02-29', '2026-9-1', '2026-09-1', '2026/09/01', '', '0000-01-01', '0001-01-01', '9999-12-31'),
    ),
    { seed: SEED, numRuns: 2000 },
  );
  const answers = python(PY_DATES, texts.join('\n') + '\n').trim().split('\n');
  assert.is(answers.length, texts.length);
  texts.forEach((text, i) => {
    const expected = answers[i] === '-' ? null : Number(answers[i]);
    assert.is(dayNumber(text), expected, text);
    assert.is(isCalendarDate(text), expected !== null, text);
    if (expected !== null) assert.is(dateOf(expected), text, `round trip of ${text}`);
  });
});

// Freeze dates are compared with dates Python parses: for the YYYY-MM-DD form the gate accepts,
// datetime.date.fromisoformat decides (years 0001..9999). Python 3.11 also reads other ISO
// forms (20260918, 2026-W38-5); the gate's formats say YYYY-MM-DD, so those stay refused.
const PY_FROMISOFORMAT = `
import datetime, re, sys
for line in sys.stdin:
    text = line.rstrip("\\n")
    try:
        datetime.date.fromisoformat(text)
        parsed = True
    except ValueError:
        parsed = False
    shaped = re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}", text) is not None
    print("1" if parsed and shaped else "0")
`;

test('isCalendarDate is datetime.date.fromisoformat on YYYY-MM-DD texts (0001-01-01 included), and the clock agrees', () => {
  const digits = fc.constantFrom(...'0123456789');
  const texts = fc.sample(
    fc.oneof(
      fc
        .tuple(fc.array(digits, { minLength: 4, maxLength: 4 }), fc.array(digits, { minLength: 2, maxLength: 2 }), fc.array(digits, { minLength: 2, maxLength: 2 }))
        .map(([y, m, d]) => `${y.join('')}-${m.join('')}-${d.join('')}`),
      fc
        .tuple(fc.constantFrom('0000', '0001', '0002', '0099', '0100', '1582', '9999'), fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 32 }))
        .map(([y, m, d]) => `${y}-${String(m).padStart(2, '0')}-${String(d).padStart(2, '0')}`),
      fc.array(fc.constantFrom(...'0123456789-W T:'), { minLength: 6, maxLength: 12 }).map((c) => c.join('')),
      fc.constantFrom('0001-01-01', '0000-12-31', '9999-12-31', '20260918', '2026-W38-5', '2026-261', '2026-09-18T00:00'),
    ),
    { seed: SEED, numRuns: 3000 },
  );
  const answers = python(PY_FROMISOFORMAT, texts.join('\n') + '\n').trim().split('\n');
  assert.is(answers.length, texts.length);
  texts.forEach((text, i) => {
    const valid = answers[i] === '1';
    assert.is(isCalendarDate(text), valid, text);
    // --now takes the same dates: a date Python reads is a date the clock can be set to.
    if (/^[0-9]{4}-[0-9]{2}-[0-9]{2}$/.test(text)) {
      if (valid) assert.is(today({ env: {} }, text), text, `--now ${text}`);
      else assert.throws(() => today({ env: {} }, text), /--now must be a UTC date/, `--now ${text}`);
    }
  });
  assert.ok(answers.includes('1') && answers.includes('0'));
});

test('boundaries the rules rely on', () => {
  assert.is(dayNumber('1970-01-01'), 0);
  assert.is(dayNumber('2028-03-01')! - dayNumber('2028-02-28')!, 2);
  assert.is(dayNumber('2027-03-01')! - dayNumber('2027-02-28')!, 1);
  assert.is(dayNumber('2027-01-01')! - dayNumber('2026-12-31')!, 1);
  assert.is(dateOf(dayNumber('2028-02-15')! + 14), '2028-02-29');
  assert.is(dayNumber('2026-09-18 '), null);
  assert.is(dayNumber('２０２６-09-18'), null);
});

test.run();
