// Writing a git note (the receipt stored on the commit it judges), through isomorphic-git's
// `addNote`: the one write receipt-gate makes to a repository, and only when asked
// (`receipt --note`).
//
// isomorphic-git writes the note blob, the notes tree and the notes commit as loose objects
// into the repository's own `objects` and moves the notes ref, as `git notes add -f` does. It
// reads the current notes commit itself (from a pack too, which it loads whole: notes refs are
// small). Its notes tree is flat: a note already stored under a fan-out directory (git uses
// them past a few hundred notes) is not replaced but shadowed, as git reads it.

import * as nodeFs from 'node:fs';
import { addNote as gitAddNote } from 'isomorphic-git';
import type { ObjectStore } from './store';
import { GitReadError } from './types';

/** Who writes the note; `timestamp` in seconds, `timezoneOffset` in minutes west of UTC (as
 * JavaScript's getTimezoneOffset). */
export interface NoteIdentity {
  name: string;
  email: string;
  timestamp?: number;
  timezoneOffset?: number;
}

export interface AddNoteOptions {
  /** The notes ref, as `git notes --ref` takes it: `receipt-gate` is refs/notes/receipt-gate. */
  ref: string;
  /** The object the note is about. */
  oid: string;
  /** The note's text (stored byte for byte). */
  note: string | Uint8Array;
  /** Author (and committer) of the notes commit. Default: GIT_AUTHOR_* / GIT_COMMITTER_* from
   * `env`, else the repository's user.name and user.email. */
  author?: NoteIdentity;
  /** Replace an existing note on the object (`git notes add -f`). Default true. */
  force?: boolean;
  env?: NodeJS.ProcessEnv;
}

/** The full notes ref for what `git notes --ref` takes (expand_notes_ref in git). */
export function notesRef(ref: string): string {
  if (ref.startsWith('refs/notes/')) return ref;
  if (ref.startsWith('notes/')) return `refs/${ref}`;
  return `refs/notes/${ref}`;
}

/** Adds (by default replaces) the note on `oid`; returns the new notes commit. `target` is an
 * opened store or a git directory. Failures are a GitReadError with a sentence. */
export async function addNote(target: ObjectStore | string, opts: AddNoteOptions): Promise<string> {
  const gitdir = typeof target === 'string' ? target : target.commondir;
  const env = opts.env ?? process.env;
  const ref = notesRef(opts.ref);
  const author = opts.author ?? identityFromEnv(env, 'AUTHOR');
  const committer = opts.author ?? identityFromEnv(env, 'COMMITTER') ?? author;
  try {
    return await gitAddNote({
      fs: nodeFs,
      gitdir,
      ref,
      oid: opts.oid,
      note: typeof opts.note === 'string' ? opts.note : Buffer.from(opts.note),
      force: opts.force ?? true,
      ...(author ? { author } : {}),
      ...(committer ? { committer } : {}),
    });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === 'MissingNameError') {
      throw new GitReadError(`Cannot write the note on ${opts.oid} to ${ref}: no identity for the notes commit; set user.name and user.email (git config) or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL.`);
    }
    throw new GitReadError(`Cannot write the note on ${opts.oid} to ${ref} in ${gitdir}: ${e.message ?? String(err)}`);
  }
}

/** GIT_<who>_NAME, _EMAIL and _DATE (`<seconds> <+hhmm>`, git's internal form), or undefined
 * when the name is unset. */
function identityFromEnv(env: NodeJS.ProcessEnv, who: 'AUTHOR' | 'COMMITTER'): NoteIdentity | undefined {
  const name = env[`GIT_${who}_NAME`];
  if (!name) return undefined;
  const identity: NoteIdentity = { name, email: env[`GIT_${who}_EMAIL`] ?? '' };
  const date = /^@?(\d+) ([+-])(\d\d)(\d\d)$/.exec(env[`GIT_${who}_DATE`] ?? '');
  if (date) {
    identity.timestamp = Number(date[1]);
    const minutes = Number(date[3]) * 60 + Number(date[4]);
    identity.timezoneOffset = date[2] === '+' ? -minutes : minutes;
  }
  return identity;
}
