// UTC calendar dates, written YYYY-MM-DD and compared as dates (day numbers), never as
// instants: the gate never reads the clock, `today` is handed in.

const DATE_RE = /^(\d{4})-(\d{2})-(\d{2})$/;
const MS_PER_DAY = 86_400_000;

/** True when `text` is YYYY-MM-DD and names a real date of the proleptic Gregorian calendar,
 * years 0001 to 9999 as Python's datetime.date (2026-02-29 is not one, 2028-02-29 is). */
export function isCalendarDate(text: string): boolean {
  return dayNumber(text) !== null;
}

/** Days since 1970-01-01 for a YYYY-MM-DD date, or null when it is not a real date. */
export function dayNumber(text: string): number | null {
  const m = DATE_RE.exec(text);
  if (!m) return null;
  const year = Number(m[1]);
  const month = Number(m[2]);
  const day = Number(m[3]);
  if (year < 1 || month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return null;
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day); // setUTCFullYear keeps years 0–99 literal
  return Math.round(date.getTime() / MS_PER_DAY);
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** The date `days` after the given day number, as YYYY-MM-DD. */
export function dateOf(day: number): string {
  const d = new Date(day * MS_PER_DAY);
  const year = d.getUTCFullYear();
  const mm = String(d.getUTCMonth() + 1).padStart(2, '0');
  const dd = String(d.getUTCDate()).padStart(2, '0');
  return `${String(year).padStart(4, '0')}-${mm}-${dd}`;
}

/** Parses today's date; a malformed one is a programming error of the caller, not evidence. */
export function todayNumber(today: string): number {
  const n = dayNumber(today);
  if (n === null) throw new Error(`today must be a real YYYY-MM-DD date, got ${JSON.stringify(today)}`);
  return n;
}
