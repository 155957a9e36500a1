// An object's git name: the SHA-1 of `<type> <size>\0<content>`.
//
// A push of 10,000 commits checks some 40,000 objects of a few KiB; node:crypto's createHash
// builds a Hash object (and its native state) for each, which cost as much as hashing the bytes.
// crypto.hash (node 20.12 and later) hashes one buffer in one call: the header and the content
// are copied into one reused buffer and hashed there. Objects over SCRATCH_MAX, and a node
// without crypto.hash, take createHash as before. Same bytes hashed either way.

import * as crypto from 'node:crypto';

/** Objects up to this size are copied next to their header and hashed in one call. */
const SCRATCH_MAX = 1 << 20;

type OneShot = (algorithm: string, data: Uint8Array, encoding: 'hex') => string;
const oneShot: OneShot | undefined = typeof (crypto as { hash?: unknown }).hash === 'function' ? (crypto as unknown as { hash: OneShot }).hash : undefined;

let scratch: Buffer | null = null;

/** The object's name (40 lower-case hex digits) for `content` of `type`. */
export function objectId(type: string, content: Uint8Array): string {
  const header = `${type} ${content.length}\0`;
  if (oneShot === undefined || content.length > SCRATCH_MAX) {
    return crypto.createHash('sha1').update(header, 'latin1').update(content).digest('hex');
  }
  const need = header.length + content.length;
  if (scratch === null || scratch.length < need) scratch = Buffer.allocUnsafe(Math.max(need, 64 * 1024));
  scratch.write(header, 0, 'latin1');
  scratch.set(content, header.length);
  return oneShot('sha1', scratch.subarray(0, need), 'hex');
}
