// The git layer of receipt-gate: object store, commit walks, tree diffs.
export { ObjectStore, BlobTooLargeError, type CommitRecord } from './store';
export { GitReadError, type Commit, type TreeEntry, type PathChange, type ObjectType, type EntryKind, type ChangeKind, type FsckId } from './types';
export { canonMode, decodePathBytes, isUnsafeName, isUnsafeRawPath, kindOfMode } from './tree';
export { RawTree, parseTree, type TreeProblem } from './raw-tree';
export { isValidRefName } from './refs';
export { newCommits, newCommitsInQuarantine, mergeBase, mergeBases, isAncestor, CLOCK_SKEW_SECONDS } from './walk';
export { diffTrees, touchedPaths } from './diff';
