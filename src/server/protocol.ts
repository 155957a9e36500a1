// githooks(5) pre-receive input: one `<old-oid> <new-oid> <ref-name>` line per ref update.

import type { RefUpdate } from '../types';

const LINE = /^([0-9a-f]{40}) ([0-9a-f]{40}) (refs\/\S+|HEAD)$/;

export type ParsedUpdates = { ok: true; updates: RefUpdate[] } | { ok: false; line: number; text: string };

/** Parses every line; the first malformed one fails the whole input (the push is rejected). */
export function parseRefUpdates(stdin: string): ParsedUpdates {
  const updates: RefUpdate[] = [];
  const lines = stdin.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!.replace(/\r$/, '');
    if (text === '') continue;
    const m = LINE.exec(text);
    if (!m) return { ok: false, line: i + 1, text };
    updates.push({ old: m[1]!, new: m[2]!, ref: m[3]! });
  }
  return { ok: true, updates };
}
