// The git layer of receipt-gate: object store, commit walks, tree diffs.
export { ObjectStore, BlobTooLargeError, type CommitRecord, type RawRef, type RefEntry, type ResolvedRef } from './store';
export { UnsupportedRepositoryError, unsupportedRepositoryMessage, refuseUnsupportedRepository, configValue } from './config';
export { resolveRevision, RevisionError, ACCEPTED_REVISIONS, type Revision } from './revision';
export { addNote, notesRef, type AddNoteOptions, type NoteIdentity } from './notes';
export { GitReadError, type Commit, type TreeEntry, type PathChange, type ObjectType, type EntryKind, type ChangeKind } from './types';
export { decodePathBytes, isUnsafeName, isUnsafeRawPath, kindOfMode, parseTree } from './tree';
export { isValidRefName } from './refs';
export { newCommits, newCommitsInQuarantine, mergeBase, mergeBases, isAncestor, CLOCK_SKEW_SECONDS } from './walk';
export { diffTrees, touchedPaths } from './diff';
