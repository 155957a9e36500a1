// The git layer of receipt-gate: object store, commit walks, tree diffs.
export { ObjectStore, BlobTooLargeError, type CommitRecord } from './store';
export { GitReadError, type Commit, type TreeEntry, type PathChange, type ObjectType, type EntryKind, type ChangeKind } from './types';
export { decodePathBytes, isUnsafeName, isUnsafeRawPath, kindOfMode, parseTree } from './tree';
export { isValidRefName } from './refs';
export { newCommits, newCommitsOnServer, mergeBase, mergeBases, isAncestor, ShallowBoundaryError, commitGraphNotices, commitGraphFiles } from './walk';
export { diffTrees, touchedPaths } from './diff';
