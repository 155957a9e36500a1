// Commits read as git reads them (git 2.39), and judged as git fsck judges them.
//
// - parseCommit is commit.c parse_commit_buffer: the tree is the `tree` line that opens the
//   object (a later `tree` line is not a tree), the parents are the `parent` lines directly
//   after it (a `parent` line after the author, the committer or any other line is not a
//   parent), the hex of either case is read (parse_oid_hex) and kept lower-case, and the commit
//   date is parse_commit_date's. A commit git cannot parse (no tree line where it must be, a
//   malformed parent line among the parents) throws ObjectInvalidError: git refuses to read it.
// - fsckCommit is fsck.c fsck_commit: the messages `git fsck` prints for the commit, in its
//   order, ending at the first error as fsck does.
// Both scan the bytes of the header once; no regular expression runs over the object.

import { GitReadError } from '../types';
import { ascii, byteAt, fsckIdent, isOidAt, message, oidAt, startsWith, strtoumax, verifyHeaders, type ObjectMessage } from './common';

/** A commit as git reads it. */
export interface ParsedCommit {
  tree: string;
  parents: string[];
  /** parse_commit_date: the committer date git orders by (0 when git finds none). */
  committerTime: number;
}

/** A commit or tag git refuses to read, or one git fsck reports an error for. */
export class ObjectInvalidError extends GitReadError {
  constructor(
    message: string,
    oid: string,
    readonly objectType: 'commit' | 'tag',
    /** What git fsck prints for the object (its error last), when it gets that far. */
    readonly problems: readonly ObjectMessage[],
  ) {
    super(message, oid);
    this.name = 'ObjectInvalidError';
  }
}

const TREE = ascii('tree ');
const PARENT = ascii('parent ');
const AUTHOR = ascii('author ');
const COMMITTER = ascii('committer ');
const AUTHOR6 = ascii('author');
const COMMITTER9 = ascii('committer');

/** parse_commit_buffer. Throws ObjectInvalidError when git cannot read the commit. */
export function parseCommit(oid: string, buf: Uint8Array): ParsedCommit {
  const size = buf.length;
  // "tree " + 40 hex + "\n", and at least one byte more.
  if (size <= 46 || !startsWith(buf, 0, TREE) || buf[45] !== 0x0a) throw unreadable(oid, buf, 'bogus commit object');
  const tree = oidAt(buf, 5);
  if (tree === null) throw unreadable(oid, buf, 'bad tree pointer');
  const parents: string[] = [];
  let at = 46;
  while (at + 47 < size && startsWith(buf, at, PARENT)) {
    const parent = size <= at + 48 ? null : oidAt(buf, at + 7);
    if (parent === null || buf[at + 47] !== 0x0a) throw unreadable(oid, buf, 'bad parents');
    parents.push(parent);
    at += 48;
  }
  return { tree, parents, committerTime: commitDate(buf, at) };
}

/** commit.c parse_commit_date, from where the parents end. */
function commitDate(buf: Uint8Array, from: number): number {
  const tail = buf.length;
  let i = from;
  if (i + 6 >= tail || !startsWith(buf, i, AUTHOR6)) return 0;
  while (i < tail && buf[i++] !== 0x0a);
  if (i + 9 >= tail || !startsWith(buf, i, COMMITTER9)) return 0;
  while (i < tail && buf[i++] !== 0x3e);
  if (i >= tail) return 0;
  const date = i;
  while (i < tail && buf[i++] !== 0x0a);
  if (i >= tail) return 0;
  return strtoumax(buf, date).value;
}

/** fsck.c fsck_commit: what `git fsck` prints for the commit, in order ([] when nothing). */
export function fsckCommit(buf: Uint8Array): ObjectMessage[] {
  const out: ObjectMessage[] = [];
  const headers = verifyHeaders(buf);
  if (headers) return [headers];
  if (!startsWith(buf, 0, TREE)) return [message('missingTree', "invalid format - expected 'tree' line")];
  if (!isOidAt(buf, 5) || byteAt(buf, 45) !== 0x0a) return [message('badTreeSha1', "invalid 'tree' line format - bad sha1")];
  let at = 46;
  while (startsWith(buf, at, PARENT)) {
    if (!isOidAt(buf, at + 7) || byteAt(buf, at + 47) !== 0x0a) return [message('badParentSha1', "invalid 'parent' line format - bad sha1")];
    at += 48;
  }
  let authors = 0;
  while (startsWith(buf, at, AUTHOR)) {
    authors++;
    const ident = fsckIdent(buf, at + AUTHOR.length);
    if (ident.problem) return [ident.problem];
    at = ident.next;
  }
  if (authors < 1) return [message('missingAuthor', "invalid format - expected 'author' line")];
  if (authors > 1) return [message('multipleAuthors', "invalid format - multiple 'author' lines")];
  if (!startsWith(buf, at, COMMITTER)) return [message('missingCommitter', "invalid format - expected 'committer' line")];
  const ident = fsckIdent(buf, at + COMMITTER.length);
  if (ident.problem) return [ident.problem];
  if (buf.indexOf(0) >= 0) out.push(message('nulInCommit', 'NUL byte in the commit object body'));
  return out;
}

/** The error for a commit git cannot parse, with what git fsck would say of it. */
function unreadable(oid: string, buf: Uint8Array, why: string): ObjectInvalidError {
  const problems = fsckCommit(buf);
  const ids = problems.filter((p) => p.severity === 'error').map((p) => p.id);
  return new ObjectInvalidError(
    `Commit ${oid} cannot be read: git refuses it too (${why}${ids.length > 0 ? `; git fsck: ${ids.join(', ')}` : ''}). The commit is malformed or crafted.`,
    oid,
    'commit',
    problems,
  );
}
