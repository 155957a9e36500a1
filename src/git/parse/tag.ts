// Annotated tags read as git reads them (git 2.39), and judged as git fsck judges them.
//
// - parseTag is tag.c parse_tag_buffer: the target is the `object` line that opens the tag
//   (hex of either case, kept lower-case), its type the `type` line right after it, and a `tag`
//   line must follow; a later `object` line names nothing. A tag git cannot parse throws
//   ObjectInvalidError. The caller checks that the target really is of the named type (git
//   refuses to peel a tag whose type line names another type than its object's).
// - fsckTag is fsck.c fsck_tag_standalone: the messages `git fsck` prints for the tag.

import { isValidRefName } from '../refs';
import type { ObjectType } from '../types';
import { ascii, byteAt, fsckIdent, indexOf, isOidAt, message, oidAt, startsWith, verifyHeaders, type ObjectMessage } from './common';
import { ObjectInvalidError } from './commit';

/** A tag as git reads it. */
export interface ParsedTag {
  /** The object the tag names (lower-case hex). */
  object: string;
  /** The type its `type` line gives the object. */
  type: ObjectType;
}

const OBJECT = ascii('object ');
const TYPE = ascii('type ');
const TAG = ascii('tag ');
const TAGGER = ascii('tagger ');
const TYPES: readonly ObjectType[] = ['commit', 'tree', 'blob', 'tag'];

/** parse_tag_buffer. Throws ObjectInvalidError when git cannot read the tag. */
export function parseTag(oid: string, buf: Uint8Array): ParsedTag {
  const tail = buf.length;
  if (tail < 64 || !startsWith(buf, 0, OBJECT)) throw unreadable(oid, buf, 'no object line');
  const object = oidAt(buf, 7);
  if (object === null || buf[47] !== 0x0a) throw unreadable(oid, buf, 'no object line');
  let at = 48;
  if (!startsWith(buf, at, TYPE)) throw unreadable(oid, buf, 'no type line');
  at += 5;
  const nl = indexOf(buf, 0x0a, at);
  if (nl < 0 || nl - at >= 20) throw unreadable(oid, buf, 'no type line');
  // The type is copied into a C string: it ends at its first NUL.
  const nul = indexOf(buf, 0, at);
  const typeName = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('latin1', at, nul >= 0 && nul < nl ? nul : nl);
  const type = TYPES.find((t) => t === typeName);
  if (type === undefined) throw unreadable(oid, buf, `unknown tag type '${typeName}'`);
  at = nl + 1;
  if (!(at + 4 < tail && startsWith(buf, at, TAG)) || indexOf(buf, 0x0a, at + 4) < 0) throw unreadable(oid, buf, 'no tag line');
  return { object, type };
}

/** fsck.c fsck_tag_standalone: what `git fsck` prints for the tag, in order ([] when nothing). */
export function fsckTag(buf: Uint8Array): ObjectMessage[] {
  const out: ObjectMessage[] = [];
  const headers = verifyHeaders(buf);
  if (headers) return [headers];
  if (!startsWith(buf, 0, OBJECT)) return [message('missingObject', "invalid format - expected 'object' line")];
  if (!isOidAt(buf, 7) || byteAt(buf, 47) !== 0x0a) return [message('badObjectSha1', "invalid 'object' line format - bad sha1")];
  let at = 48;
  if (!startsWith(buf, at, TYPE)) return [message('missingTypeEntry', "invalid format - expected 'type' line")];
  at += 5;
  let eol = indexOf(buf, 0x0a, at, true);
  if (eol < 0) return [message('missingType', "invalid format - unexpected end after 'type' line")];
  const text = (from: number, to: number) => Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).toString('latin1', from, to);
  if (!TYPES.includes(text(at, eol) as ObjectType)) return [message('badType', "invalid 'type' value")];
  at = eol + 1;
  if (!startsWith(buf, at, TAG)) return [message('missingTagEntry', "invalid format - expected 'tag' line")];
  at += 4;
  eol = indexOf(buf, 0x0a, at, true);
  if (eol < 0) return [message('missingTag', "invalid format - unexpected end after 'type' line")];
  const name = text(at, eol);
  if (!isValidRefName(`refs/tags/${name}`)) out.push(message('badTagName', `invalid 'tag' name: ${name}`));
  at = eol + 1;
  if (!startsWith(buf, at, TAGGER)) {
    out.push(message('missingTaggerEntry', "invalid format - expected 'tagger' line"));
  } else {
    const ident = fsckIdent(buf, at + TAGGER.length);
    if (ident.problem) out.push(ident.problem);
  }
  // An extra header after the tagger is extraHeaderEntry, which git ignores by default.
  return out;
}

/** The error for a tag git cannot parse, with what git fsck would say of it. */
function unreadable(oid: string, buf: Uint8Array, why: string): ObjectInvalidError {
  const problems = fsckTag(buf);
  const ids = problems.filter((p) => p.severity === 'error').map((p) => p.id);
  return new ObjectInvalidError(
    `Tag ${oid} cannot be read: git refuses it too (${why}${ids.length > 0 ? `; git fsck: ${ids.join(', ')}` : ''}). The tag is malformed or crafted.`,
    oid,
    'tag',
    problems,
  );
}
