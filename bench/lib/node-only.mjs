// The node-only hook of the benchmarks: the installed server shim (`pre-receive.gate`, what
// `./install.sh --server` wrote) started on a bundle that answers at once, so what it costs is
// the shim and Node's own start, without any of the gate's work. The bundle is run without the
// startup snapshot (the shim uses the snapshot only for its own bundle).

import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** What the node-only hook runs: it answers as the gate would for a clean push, and exits as
 * the gate does under the shim (SHIM_EXIT.accepted in src/verdict.ts). */
export const NOOP_SOURCE =
  "process.stderr.write('receipt-gate: push accepted: eligible\\n');\n" +
  'process.stderr.write(\'receipt-gate: {"verdict":"eligible","blocked_paths":[],"findings":[],"recommended_action":"none"}\\n\');\n' +
  "process.exitCode = process.env.RECEIPT_GATE_SHIM === '1' ? 80 : 0;\n";

/** Writes `noop.cjs` and `pre-receive.node` into `hooks`, beside its `pre-receive.gate`. */
export function installNodeOnlyHook(hooks) {
  writeFileSync(join(hooks, 'noop.cjs'), NOOP_SOURCE);
  writeFileSync(
    join(hooks, 'pre-receive.node'),
    '#!/bin/sh\n# receipt-gate bench: the installed shim and Node, without the gate\'s work.\n' +
      'RECEIPT_GATE_BUNDLE="$(dirname "$0")/noop.cjs" exec "$(dirname "$0")/pre-receive.gate" "$@"\n',
    { mode: 0o755 },
  );
}
