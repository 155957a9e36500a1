// SHA-256 of evidence bytes, the one implementation. Large inputs are hashed in slices with a
// deadline check between them, so a 60 MiB witness cannot outlast limits.timeoutMs.

import { createHash } from 'node:crypto';
import type { Deadline } from './deadline';

const SLICE = 4 * 1024 * 1024;

export function sha256Hex(bytes: Uint8Array | string, deadline?: Deadline): string {
  const hash = createHash('sha256');
  if (typeof bytes === 'string' || !deadline || bytes.length <= SLICE) {
    hash.update(bytes);
  } else {
    for (let at = 0; at < bytes.length; at += SLICE) {
      deadline.check();
      hash.update(bytes.subarray(at, at + SLICE));
    }
  }
  return hash.digest('hex');
}
