// One order for findings and paths in every output form. Strings compare by Unicode code
// point (the order of their UTF-8 bytes, git's order), never by locale: the same result prints
// the same bytes under any LANG or LC_ALL.

import type { Finding, Severity } from '../findings';

/** Negative, zero or positive as `a` sorts before, with or after `b` by code point. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointRank(x) - codePointRank(y);
  }
  return a.length - b.length;
}

/** UTF-16 code units ranked so that the first differing unit orders as its code point would:
 * surrogates (astral characters, U+10000 and above) after U+E000..U+FFFF. */
function codePointRank(unit: number): number {
  if (unit < 0xd800) return unit;
  return unit < 0xe000 ? unit + 0x2000 : unit - 0x800;
}

const SEVERITY_ORDER: Record<Severity, number> = { closed: 0, hold: 1, info: 2 };

/** Findings in a stable order, grouped by bounded context (the repository-wide ones first; a
 * policy without contexts has one group): closing first, then hold, then info; within, by ref,
 * rule, path and commit. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  return [...findings].sort(
    (a, b) =>
      compareCodePoints(a.context ?? '', b.context ?? '') ||
      SEVERITY_ORDER[a.severity] - SEVERITY_ORDER[b.severity] ||
      compareCodePoints(a.ref ?? '', b.ref ?? '') ||
      compareCodePoints(a.code, b.code) ||
      compareCodePoints(a.path ?? '', b.path ?? '') ||
      compareCodePoints(a.commit ?? '', b.commit ?? ''),
  );
}

/** Distinct strings by code point. */
export function sortedUnique(items: Iterable<string>): string[] {
  return [...new Set(items)].sort(compareCodePoints);
}
