// A finding's message and fix as a person reads them, in every human form (the terminal, the
// server's `remote:` lines, GitHub annotations): each path it names quoted as git quotes it,
// nothing that could forge a line, on one line.

import type { Finding } from '../findings';
import { printableMention } from '../quote';

/** A finding's message for a person: its path quoted, nothing that could forge a line. */
export function humanMessage(f: Finding): string {
  return oneLine(printableMention(f.message, [f.path]));
}

/** A finding's fix for a person, as humanMessage. */
export function humanFix(f: Finding): string {
  return oneLine(printableMention(f.fix, [f.path]));
}

/** Whitespace runs that span lines become one space (after printable(), no raw line breaks are
 * left; this folds the ones a message's own author put in). */
export function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}
