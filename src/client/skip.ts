// The one bypass of the client hooks, as husky has it: HUSKY=0 (husky's own switch, also
// honoured when the hooks are installed without husky) or RECEIPT_GATE_SKIP=1. The server
// hook ignores both: it is the control, the client hooks are early feedback.

import type { CliIO } from '../io';

/** The variable that switched the client hooks off, or null. */
export function clientBypass(env: NodeJS.ProcessEnv): string | null {
  if (env.RECEIPT_GATE_SKIP === '1') return 'RECEIPT_GATE_SKIP=1';
  if (env.HUSKY === '0') return 'HUSKY=0';
  return null;
}

/** Prints the one line that says the hook was skipped, and returns true, when it is. */
export function skippedByBypass(hook: string, io: CliIO): boolean {
  const by = clientBypass(io.env);
  if (by === null) return false;
  io.stderr(`receipt-gate ${hook}: skipped (${by}); the server hook still checks every push\n`);
  return true;
}
