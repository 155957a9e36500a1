import type { Finding } from './findings';

export type Verdict = 'closed' | 'hold' | 'eligible';

/** closed if any finding closes; else hold if any finding holds; else eligible. */
export function verdictOf(findings: readonly Finding[]): Verdict {
  if (findings.some((f) => f.severity === 'closed')) return 'closed';
  if (findings.some((f) => f.severity === 'hold')) return 'hold';
  return 'eligible';
}

/** Exit codes of the CLI: 0 eligible, 1 closed, 3 hold (2 is usage or setup error). */
export const EXIT = { eligible: 0, closed: 1, usage: 2, hold: 3 } as const;

export function exitCodeOf(verdict: Verdict): number {
  return EXIT[verdict];
}
