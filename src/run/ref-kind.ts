// Which kind of ref an update writes, resolved once per update, so the engine dispatches each
// kind to its own handler (as Gitea's pre-receive dispatches branches, tags and pull refs):
//
//   code         refs/heads/**, refs/tags/** and every namespace not named below
//                (refs/pull/*, refs/merge-requests/*, refs/keep-around/*, refs/stash, HEAD…):
//                judged as code, evidence and protected paths included (docs/contract.md §2).
//   notes        refs/notes/**: notes, never the repository's evidence; a non-owner may not
//                rewrite or delete refs/notes/receipt-gate (or a protected notes ref).
//   owners-only  refs/replace/** (changes what git reads for an object), refs/remotes/**
//                (what verify-ref and the client hooks take as the base) and
//                refs/namespaces/** (another namespace's refs, HEAD and base): creating,
//                moving or deleting one is closed for non-owners.
//   reserved     refs/receipt-gate/** (the signed push log, docs/push-log.md): written only by
//                the server's hook; a push that creates, moves or deletes one is closed for
//                every pusher, owners included (REF_RESERVED, src/rules/push-log.ts).
//
// Names are byte strings (src/git/refs.ts).

import { RESERVED_PREFIX } from '../pushlog/entry';

export type RefKind =
  | { kind: 'reserved' }
  | { kind: 'code' }
  | { kind: 'notes' }
  | { kind: 'owners-only'; namespace: 'replace' | 'remotes' | 'namespaces' };

/** The notes ref receipt-gate writes receipts to (`git notes --ref receipt-gate`). */
export const RECEIPT_NOTES_REF = 'refs/notes/receipt-gate';

/** The kind of one ref name. `replaceBase` is where replace refs live (GIT_REPLACE_REF_BASE,
 * refs/replace/ by default): refs there are replace refs too. */
export function refKindOf(name: string, replaceBase = 'refs/replace/'): RefKind {
  if (name.startsWith(RESERVED_PREFIX)) return { kind: 'reserved' };
  if (name.startsWith('refs/replace/') || name.startsWith(replaceBase)) return { kind: 'owners-only', namespace: 'replace' };
  if (name.startsWith('refs/remotes/')) return { kind: 'owners-only', namespace: 'remotes' };
  if (name.startsWith('refs/namespaces/')) return { kind: 'owners-only', namespace: 'namespaces' };
  if (name.startsWith('refs/notes/')) return { kind: 'notes' };
  return { kind: 'code' };
}

/** The kind of an update that names `pushed` and writes `written` (the end of its symbolic
 * chain): the stricter of the two, reserved before owners-only before code before notes (a
 * branch that is an alias of a notes ref is still checked out as code). */
export function updateKind(pushed: string, written: string, replaceBase?: string): RefKind {
  const a = refKindOf(pushed, replaceBase);
  const b = refKindOf(written, replaceBase);
  const rank = (k: RefKind) => (k.kind === 'reserved' ? 3 : k.kind === 'owners-only' ? 2 : k.kind === 'code' ? 1 : 0);
  return rank(a) >= rank(b) ? a : b;
}
