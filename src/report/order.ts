// One order for findings and paths in every output form. Strings compare by Unicode code
// point (the order of their UTF-8 bytes, git's order), never by locale: the same result prints
// the same bytes under any LANG or LC_ALL.

import { compareCodePoints } from '../code-points';
import type { Finding, Severity } from '../findings';

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
