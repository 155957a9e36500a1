// The clock is injected so every verdict replays: --now beats RECEIPT_GATE_NOW beats the
// system clock. Dates are UTC calendar dates (YYYY-MM-DD).

import { isCalendarDate } from './evidence/dates';
import { UsageError } from './io';

const DATE = /^\d{4}-\d{2}-\d{2}$/;

export function today(io: { env: NodeJS.ProcessEnv }, now?: string): string {
  const given = now ?? (io.env.RECEIPT_GATE_NOW || undefined);
  if (given !== undefined) {
    // Accept a full ISO timestamp too, and take its UTC date.
    const date = DATE.test(given) ? given : isoDateOf(given);
    if (!date || !isCalendarDate(date)) {
      const source = now !== undefined ? '--now' : 'RECEIPT_GATE_NOW';
      throw new UsageError(`${source} must be a UTC date YYYY-MM-DD, got '${given}'`);
    }
    return date;
  }
  return new Date().toISOString().slice(0, 10);
}

function isoDateOf(text: string): string | null {
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text)) return null;
  const t = Date.parse(text);
  return Number.isNaN(t) ? null : new Date(t).toISOString().slice(0, 10);
}
