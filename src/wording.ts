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

/** Answers are bounded in size whatever the input (docs/contract.md §6 Time): `text` when it
 * has at most `max` characters, else its first `max` followed by `... (N characters)`, N its
 * whole length. */
export function clipped(text: string, max: number): string {
  return text.length <= max ? text : `${text.slice(0, max)}... (${text.length} characters)`;
}

/** A ref name or path cut as `clipped` cuts text, its kept part quoted by `quote`. */
export function clippedName(name: string, max: number, quote: (name: string) => string): string {
  return name.length <= max ? quote(name) : `${quote(name.slice(0, max))}... (${name.length} characters)`;
}
