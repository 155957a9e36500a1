// githooks(5) pre-receive input: one `<old-oid> <new-oid> <ref-name>` line per ref update, as
// git's receive-pack writes it: lower-case 40-hex oids, single spaces, the ref name as the
// bytes git keeps (not necessarily UTF-8), a LF after each line.
//
// The input is taken as bytes: `parseRefUpdates` gets a byte string (one character per byte,
// latin1) and keeps every name exactly. Parsing is strict: a line with a NUL, a missing or an
// extra field, an oid that is not lower-case 40-hex, or a name git's check_refname_format
// refuses (`refNameProblems`) closes the whole push.

import { checkRefnameFormat } from '../git/refs';
import { isOid, type RefUpdate } from '../types';


export type ParsedUpdates = { ok: true; updates: RefUpdate[] } | { ok: false; line: number; text: string; why: string };

/** The hook's stdin as a byte string: bytes one character each; a JS string (in-process
 * callers) is taken as UTF-8 text. */
export function stdinBytes(input: string | Uint8Array): string {
  if (typeof input !== 'string') return Buffer.from(input.buffer, input.byteOffset, input.byteLength).toString('latin1');
  return /^[\x00-\x7f]*$/.test(input) ? input : Buffer.from(input, 'utf8').toString('latin1');
}

/** Parses every line of a byte string; the first malformed one fails the whole input (the
 * push is rejected). A trailing CR is part of the line (git writes none), so it is refused. */
export function parseRefUpdates(stdin: string): ParsedUpdates {
  const updates: RefUpdate[] = [];
  const lines = stdin.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const text = lines[i]!;
    if (text === '' && i === lines.length - 1) continue; // after the last LF
    const bad = (why: string): ParsedUpdates => ({ ok: false, line: i + 1, text, why });
    if (text === '') return bad('the line is empty');
    if (text.includes('\0')) return bad('the line holds a NUL byte');
    const fields = text.split(' ');
    if (fields.length < 3) return bad(`the line has ${fields.length} field${fields.length === 1 ? '' : 's'}, not 3`);
    if (fields.length > 3) return bad(`the line has ${fields.length} space-separated fields, not 3 (git refuses a space in a ref name)`);
    const [old, next, ref] = fields as [string, string, string];
    if (!isOid(old)) return bad('the old object id is not 40 lower-case hex digits');
    if (!isOid(next)) return bad('the new object id is not 40 lower-case hex digits');
    if (ref === '') return bad('the ref name is empty');
    updates.push({ old, new: next, ref });
  }
  return { ok: true, updates };
}

/** The first update whose name git would refuse (check_refname_format on the full name, as
 * `git check-ref-format` checks it), or null. git's receive-pack refuses such a name only after
 * pre-receive ran; the gate refuses the push at once. */
export function refusedRefName(updates: RefUpdate[]): { index: number; ref: string; why: string } | null {
  for (let i = 0; i < updates.length; i++) {
    const ref = updates[i]!.ref;
    if (!ref.startsWith('refs/')) {
      if (ref === 'HEAD') continue; // followed to the branch it names, as before
      return { index: i, ref, why: 'it is outside refs/ (git updates only refs/... remotely)' };
    }
    if (!checkRefnameFormat(ref)) return { index: i, ref, why: 'git check-ref-format refuses it (see git-check-ref-format(1))' };
  }
  return null;
}
