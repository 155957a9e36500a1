// The object store's public shape. Everything outside src/git/ talks to git through this;
// nothing outside src/git/ imports isomorphic-git.

export type ObjectType = 'blob' | 'tree' | 'commit' | 'tag';

/** Kind of a tree entry, from its mode as git reads it (canon_mode: only the file-type bits
 * and, for a regular file, the executable bit count): regular file (100644, and 100664, 100600
 * and the like), executable (100755, 100700, ...), symlink (120xxx), directory (040xxx),
 * gitlink/submodule (160000, and every other file type). */
export type EntryKind = 'file' | 'exec' | 'symlink' | 'gitlink' | 'tree';

export interface TreeEntry {
  /** The mode a checkout gives the entry (git's canon_mode): "100644", "100755", "120000",
   * "40000" or "160000". The mode as written (100664, 040000, 100600, ...) stays in the tree's
   * bytes; RawTree.problems says when git fsck objects to it. */
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

/** The messages git fsck gives for a tree object (fsck.h ids, camel-cased as fsck prints them).
 * Each one makes the entry it names unsafe for the gate (see RawTree.problems). */
export type FsckId =
  | 'nullSha1'
  | 'fullPathname'
  | 'emptyName'
  | 'hasDot'
  | 'hasDotdot'
  | 'hasDotgit'
  | 'zeroPaddedFilemode'
  | 'badFilemode'
  | 'duplicateEntries'
  | 'treeNotSorted'
  | 'gitmodulesSymlink'
  | 'gitattributesSymlink'
  | 'gitignoreSymlink'
  | 'mailmapSymlink';

/** Raised for every failure to read or parse a git object; the engine turns it into a finding. */
export class GitReadError extends Error {
  /**
   * @param damaged true when a file of the repository's object store cannot be read or holds
   *   corrupt data: the repository's administrator repairs it, the pusher cannot
   */
  constructor(
    message: string,
    readonly oid?: string,
    readonly damaged = false,
  ) {
    super(message);
    this.name = 'GitReadError';
  }
}

/** A commit with its committer time, as the walks keep it. */
export interface CommitRecord extends Commit {
  /** Committer timestamp, seconds since the epoch. */
  committerTime: number;
}
