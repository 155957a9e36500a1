// The git layer of receipt-gate: object store, commit walks, tree diffs.
export { ObjectStore, BlobTooLargeError, type CommitRecord, type RawRef, type RefEntry, type ResolvedRef } from './store';
export { UnsupportedRepositoryError, unsupportedRepositoryMessage, refuseUnsupportedRepository, configValue } from './config';
export { resolveRevision, RevisionError, ACCEPTED_REVISIONS, type Revision } from './revision';
export { addNote, notesRef, type AddNoteOptions, type NoteIdentity } from './notes';
export { GitReadError, type Commit, type TreeEntry, type PathChange, type ObjectType, type EntryKind, type ChangeKind, type FsckId } from './types';
export { canonMode, decodePathBytes, isUnsafeName, isUnsafeRawPath, kindOfMode } from './tree';
export { RawTree, parseTree, type TreeProblem } from './raw-tree';
export { isValidRefName } from './refs';
export { History } from './history/history';
export { newCommits } from './history/new-commits';
export { newCommitsOnServer } from './history/server-new-commits';
export { mergeBase, mergeBases, isAncestor } from './history/merge-base';
export { ShallowBoundaryError } from './history/shallow';
export { diffTrees, touchedPaths } from './diff';
