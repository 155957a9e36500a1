// Calendar dates against python3's datetime.date (an independent calendar).
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
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
