// Findings for a run that could not finish: an unexpected error, or the deadline.

import { finding, type Finding } from '../findings';
import { GitReadError } from '../git/types';
import type { DeadlineExceeded } from '../deadline';

export function internalError(err: unknown, at: { ref?: string; commit?: string; path?: string }): Finding {
  const message = err instanceof Error ? err.message : String(err);
  // A damaged or unreadable object file is the server's to repair, not the pusher's.
  const damaged = err instanceof GitReadError && err.damaged;
  return finding('INTERNAL_ERROR', {
    ...at,
    message: `the check could not complete: ${message}`,
    fix: damaged
      ? 'the gate failed closed: the repository on the server cannot be read; ask its administrator to repair the file named above (`git fsck` in the repository names every damaged object), then push again unchanged'
      : 'the gate failed closed; fix the repository problem named above, or report it with RECEIPT_GATE_DEBUG=1 output',
  });
}

export function deadlineFinding(budgetMs: number, at: { ref?: string; commit?: string }, err?: DeadlineExceeded): Finding {
  // A run's deadline says which ran out, the CPU budget or the wall-clock ceiling (src/deadline.ts).
  if (err && err.limit.kind !== 'budget') return finding('LIMIT_EXCEEDED', { ...at, ...err.explain() });
  return finding('LIMIT_EXCEEDED', {
    ...at,
    message: `the check did not finish within limits.timeoutMs (${budgetMs} ms)`,
    fix: 'push fewer commits at once, or an owner raises limits.timeoutMs in the policy (keep it below the server\'s own hook limit)',
  });
}
