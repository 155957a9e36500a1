// The hook's request to be run again under a longer hard timeout (docs/engine.md, "Time limits").
// The shim (server-hooks/pre-receive) runs node under its hard timeout, which it cannot raise
// itself: it cannot read the policy. When the policy's CPU budget wanted a longer wall-clock
// ceiling than that hard timeout allows and the ceiling ran out (RunTime.cut), the gate writes
// the hard timeout the budget needs (hardTimeoutFor) and the push's input to the file the shim
// named in RECEIPT_GATE_RERUN_FILE, in git's quarantine or the repository, and exits with
// SHIM_EXIT.rerun; the shim runs node once more under that hard timeout on that input. Only the
// engine writes the file: the number comes from the base's policy, never from the pushed tree.

import { closeSync, openSync, writeSync } from 'node:fs';
import { MAX_HARD_TIMEOUT_S } from '../deadline';

/**
 * Writes `<seconds>\n` and then `stdin` to `path`, made new (never through an existing file or
 * symlink), for the shim's second run. False when the file could not be made or the number is
 * out of the shim's range; then the push gets the answer of this run.
 */
export function requestRerun(path: string, seconds: number, stdin: string | Uint8Array): boolean {
  if (!Number.isInteger(seconds) || seconds < 1 || seconds > MAX_HARD_TIMEOUT_S) return false;
  let fd: number;
  try {
    fd = openSync(path, 'wx', 0o600);
  } catch {
    return false;
  }
  try {
    writeSync(fd, `${seconds}\n`);
    const bytes = typeof stdin === 'string' ? Buffer.from(stdin, 'utf8') : stdin;
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
    return true;
  } catch {
    return false;
  } finally {
    closeSync(fd);
  }
}
