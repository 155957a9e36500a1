// Leaf types and constants shared by every layer (no imports): object ids, ref updates.

/** The all-zero oid git uses for "no object" (a ref created or deleted). */
export const ZERO_OID = '0000000000000000000000000000000000000000';

/** A full SHA-1 object id, lowercase hex. */
export const OID_RE = /^[0-9a-f]{40}$/;

/** OID_RE.test, as a loop over the characters (asked for every object a push reads). */
export function isOid(text: string): boolean {
  if (text.length !== 40) return false;
  for (let i = 0; i < 40; i++) {
    const c = text.charCodeAt(i);
    if (c > 0x66 || c < 0x30 || (c > 0x39 && c < 0x61)) return false;
  }
  return true;
}

/** One `<old> <new> <ref>` update: what git's pre-receive reads, and what every entry judges. */
export interface RefUpdate {
  old: string;
  new: string;
  ref: string;
}
