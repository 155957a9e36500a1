// Leaf types and constants shared by every layer (no imports): object ids, ref updates.

/** The all-zero oid git uses for "no object" (a ref created or deleted). */
export const ZERO_OID = '0000000000000000000000000000000000000000';

/** A full SHA-1 object id, lowercase hex. */
export const OID_RE = /^[0-9a-f]{40}$/;

export function isOid(text: string): boolean {
  return OID_RE.test(text);
}

/** One `<old> <new> <ref>` update: what git's pre-receive reads, and what every entry judges. */
export interface RefUpdate {
  old: string;
  new: string;
  ref: string;
}
