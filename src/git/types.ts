// The object store's public shape. Everything outside src/git/ talks to git through this;
// nothing outside src/git/ imports isomorphic-git.

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** Kind of a tree entry, from its mode: regular file (100644, 100755, and the legacy 100664
 * git accepts), symlink (120000), gitlink/submodule (160000), directory (040000). */
export type EntryKind = 'file' | 'exec' | 'symlink' | 'gitlink' | 'tree';

export interface TreeEntry {
  /** The mode as written in the tree object, e.g. "100644", "40000". */
  mode: string;
  kind: EntryKind;
  oid: string;
  /** The entry name decoded for display and matching (see decodePathBytes in src/git/). */
  name: string;
  /** The raw name bytes as stored in the tree object. */
  rawName: Uint8Array;
}

export interface Commit {
  oid: string;
  tree: string;
  parents: string[];
}

export type ChangeKind = 'add' | 'delete' | 'modify' | 'mode' | 'type';

/** One path that differs between two trees (or a commit and its parents). */
export interface PathChange {
  /** Full repository path, segments joined by '/'. */
  path: string;
  change: ChangeKind;
  /** Entry on each side; absent on the side where the path does not exist. */
  before?: { mode: string; kind: EntryKind; oid: string };
  after?: { mode: string; kind: EntryKind; oid: string };
  /** True when a segment of the path could not be written safely by a checkout: `.git` in any
   * case (also with the trailing dots and spaces Windows strips, the code points HFS+ ignores,
   * `.git::$INDEX_ALLOCATION`, and its 8.3 alias `git~1`), `.`, `..`, empty, or containing `\`,
   * `/` or NUL (see isUnsafeName in src/git/tree.ts). */
  unsafe: boolean;
  /** Why the entry is unsafe, as a sentence (e.g. the git fsck message id), when known. */
  unsafeReason?: string;
}

/** Raised for every failure to read or parse a git object; the engine turns it into a finding. */
export class GitReadError extends Error {
  constructor(
    message: string,
    readonly oid?: string,
  ) {
    super(message);
    this.name = 'GitReadError';
  }
}
