// Writing a git note (the receipt stored on the commit it judges), through isomorphic-git's
// `addNote`: the one write receipt-gate makes to a repository, and only when asked
// (`receipt --note`).
//
// isomorphic-git writes the note blob, the notes tree and the notes commit as loose objects
// into the repository's own `objects` and moves the notes ref, as `git notes add -f` does. It
// reads the current notes commit itself (from a pack too, which it loads whole: notes refs are
// small). Its notes tree is flat: a note already stored under a fan-out directory (git uses
// them past a few hundred notes) is not replaced but shadowed, as git reads it.
//
// The notes commit's author and committer are resolved as git resolves a commit's
// (gitIdentity): GIT_AUTHOR_* / GIT_COMMITTER_*, then the author.* / committer.* and user.*
// keys of the system, global (~/.gitconfig, $XDG_CONFIG_HOME/git/config) and repository config,
// then EMAIL; isomorphic-git alone would read the repository's config only.

import * as nodeFs from 'node:fs';
import { addNote as gitAddNote } from 'isomorphic-git';
import { gitConfigEntries, lastValue } from './config';
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
  /** Author (and committer) of the notes commit. Default: as git resolves them (gitIdentity). */
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
  const author = opts.author ?? gitIdentity(gitdir, env, 'AUTHOR');
  // A committer git cannot resolve is the author (isomorphic-git's default too).
  const resolvedCommitter = opts.author ?? gitIdentity(gitdir, env, 'COMMITTER');
  const committer = typeof resolvedCommitter === 'string' && typeof author !== 'string' ? author : resolvedCommitter;
  for (const [who, found] of [['author', author], ['committer', committer]] as const) {
    if (typeof found === 'string') {
      throw new GitReadError(
        `Cannot write the note on ${opts.oid} to ${ref}: no identity for the notes commit (its ${who} has no ${found}); set user.name and user.email (git config --global, or the repository's config) or GIT_AUTHOR_NAME/GIT_AUTHOR_EMAIL and GIT_COMMITTER_NAME/GIT_COMMITTER_EMAIL.`,
      );
    }
  }
  try {
    return await gitAddNote({
      fs: nodeFs,
      gitdir,
      ref,
      oid: opts.oid,
      note: typeof opts.note === 'string' ? opts.note : Buffer.from(opts.note),
      force: opts.force ?? true,
      author: author as NoteIdentity,
      committer: committer as NoteIdentity,
    });
  } catch (err) {
    const e = err as { code?: string; message?: string };
    if (e.code === 'MissingNameError') {
      throw new GitReadError(`Cannot write the note on ${opts.oid} to ${ref}: no identity for the notes commit; set user.name and user.email (git config) or GIT_AUTHOR_NAME and GIT_AUTHOR_EMAIL.`);
    }
    throw new GitReadError(`Cannot write the note on ${opts.oid} to ${ref} in ${gitdir}: ${e.message ?? String(err)}`);
  }
}

/**
 * The author or committer identity git would give a commit in the repository at `commondir`:
 * the name from GIT_<WHO>_NAME, else `<who>.name`, else `user.name`; the email from
 * GIT_<WHO>_EMAIL, else `<who>.email`, else `user.email`, else EMAIL (config from the system,
 * global and repository files, gitConfigEntries); the date from GIT_<WHO>_DATE
 * (`<seconds> <+hhmm>`), else now. Returns what is missing (`user.name`, `user.email`) when git
 * would have to guess (receipt-gate does not guess an identity).
 */
export function gitIdentity(commondir: string | null, env: NodeJS.ProcessEnv, who: 'AUTHOR' | 'COMMITTER'): NoteIdentity | 'user.name' | 'user.email' {
  let config: ReturnType<typeof gitConfigEntries> | undefined;
  const fromConfig = (key: string): string | null => lastValue((config ??= gitConfigEntries(commondir, env)), key);
  const role = who.toLowerCase();
  const name = withoutCrud(env[`GIT_${who}_NAME`] || fromConfig(`${role}.name`) || fromConfig('user.name') || '');
  if (!name) return 'user.name';
  const email = withoutCrud(env[`GIT_${who}_EMAIL`] || fromConfig(`${role}.email`) || fromConfig('user.email') || env.EMAIL || '');
  if (!email) return 'user.email';
  const identity: NoteIdentity = { name, email };
  const date = /^@?(\d+) ([+-])(\d\d)(\d\d)$/.exec(env[`GIT_${who}_DATE`] ?? '');
  if (date) {
    identity.timestamp = Number(date[1]);
    const minutes = Number(date[3]) * 60 + Number(date[4]);
    identity.timezoneOffset = date[2] === '+' ? -minutes : minutes;
  }
  return identity;
}

/** An ident part as git writes it (ident.c, strbuf_addstr_without_crud): leading and trailing
 * white space and `.,:;<>"\\'` dropped, and no `<`, `>` or line break inside. */
function withoutCrud(text: string): string {
  const crud = (c: string) => c.charCodeAt(0) <= 32 || '.,:;<>"\\\''.includes(c);
  let start = 0;
  let end = text.length;
  while (start < end && crud(text[start]!)) start++;
  while (end > start && crud(text[end - 1]!)) end--;
  return text.slice(start, end).replace(/[<>\n]/g, '');
}
