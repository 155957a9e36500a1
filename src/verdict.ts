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

/**
 * Exit codes of `pre-receive` when the hook shim runs it (RECEIPT_GATE_SHIM=1), the protocol
 * between the bundle and server-hooks/pre-receive: the shim picks the hook's status from these
 * without reading the output. `accepted`: the answer is written and every ref may land;
 * `rejected`: the answer is written and ends with the machine line; `snapshotRefused`: a
 * startup snapshot beside another bundle stopped before the gate started (nothing written for
 * the pusher; the shim runs the plain bundle); `rerun`: the policy's budget needs a longer hard
 * timeout than the shim's, and RECEIPT_GATE_RERUN_FILE holds it and the push's input (nothing
 * written for the pusher; the shim runs node again under it, src/server/rerun.ts). Chosen apart
 * from every status node gives by itself (1 uncaught exception, 2-14 node's own failures, 128+N
 * a signal), from the shell's and timeout(1)'s (124-127) and from the CLI's 0-3, so a node that
 * exits 0 or 1 without the gate's answer is never read as one.
 */
export const SHIM_EXIT = { accepted: 80, rejected: 81, snapshotRefused: 82, rerun: 83 } as const;

export function exitCodeOf(verdict: Verdict): number {
  return EXIT[verdict];
}
