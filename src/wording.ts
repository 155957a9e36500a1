// How object ids, ref names and counts are written in every message, by every layer (rules,
// engine, entries, reports): a leaf, so a rule that names a commit imports no renderer.

import { quoteRefName } from './quote';

/** An oid as the tool prints it: its first 7 characters ("no commit" when there is none). */
export function short(oid: string | null | undefined): string {
  return oid ? oid.slice(0, 7) : 'no commit';
}

/** A ref name without refs/heads/ or refs/tags/, made printable. */
export function shortRef(ref: string): string {
  // A ref name is bytes: quoted as git quotes it (core.quotePath), so no byte of it can start
  // a line or steer the terminal.
  return quoteRefName(ref.replace(/^refs\/(heads|tags)\//, ''));
}

/** `n` and the word, with an s unless there is one (`1 commit`, `2 commits`). */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
