// Appending to the push log: one commit per entry on refs/receipt-gate/log, written by the
// server's hook itself, never through a push. The ref is updated under its lock, in git's own
// discipline (src/git/ref-lock.ts; the protocol: docs/push-log.md, "The lock"), so git, the
// shell hook and this writer never write it at once:
//
//   take refs/receipt-gate/log.lock ─► read the ref's current value under the lock ─► write
//   the entry's commit (its parent that value) as loose objects (src/git/write.ts) ─► write
//   the new oid into the lock and rename it over the ref.
//
// The same lock orders transactions: the reference-transaction shim takes it in `prepared`
// with the git process's id inside, and an append for that transaction (`heldBy`) uses it as
// its own.
//
// The write goes around git's ref transaction, so the reference-transaction hook never sees it
// (and would ignore it: refs/receipt-gate/ is never logged).

import { mkdirSync } from 'node:fs';
import { createPublicKey, type KeyObject } from 'node:crypto';
import { dirname, join } from 'node:path';
import { EMPTY_TREE } from '../git/objects';
import { RefLock, RefLockBusyError } from '../git/ref-lock';
import { RefReader } from '../git/refs';
import { ObjectStore } from '../git/store';
import { readLooseObject, writeLooseObject } from '../git/write';
import { checkEntry, LOG_REF, signEntry, type LogPredicate } from './entry';

export { EMPTY_TREE };
const IDENT = 'receipt-gate <receipt-gate@localhost>';
/** How long an append waits for the lock before it gives up (the update stays unlogged, and
 * says so). */
const LOCK_WAIT_MS = 20_000;
/** A lock older than this is left over from a crashed writer. */
const STALE_LOCK_MS = 120_000;

export class LogWriteError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogWriteError';
  }
}

/** Where the log's tip stood when the append took the lock. */
export interface LogHead {
  commit: string;
  seq: number;
  payloadSha256: string;
}

export interface AppendResult {
  commit: string;
  seq: number;
}

/**
 * Appends the entries `build` makes from the log's head (null: the log does not exist yet), in
 * order, as one ref update. `build` runs under the lock, so concurrent appends are serialised
 * and each entry names the one really before it.
 */
export async function appendEntries(
  gitdir: string,
  key: KeyObject,
  build: (head: LogHead | null) => Promise<Omit<LogPredicate, 'seq' | 'prev'>[]> | Omit<LogPredicate, 'seq' | 'prev'>[],
  /** The public keys a tip may be signed with: this key's, and those it replaced. */
  trusted: readonly KeyObject[] = [],
  /** The git process whose transaction holds the lock already (taken in `prepared`). */
  heldBy: number | null = null,
): Promise<AppendResult | null> {
  const refFile = join(gitdir, LOG_REF);
  mkdirSync(dirname(refFile), { recursive: true });
  let lock: RefLock;
  try {
    lock = RefLock.take(refFile, { heldBy, waitMs: LOCK_WAIT_MS, staleMs: STALE_LOCK_MS });
  } catch (err) {
    if (err instanceof RefLockBusyError) throw new LogWriteError(err.message);
    throw err;
  }
  try {
    const tip = readLogRef(gitdir);
    const head = tip === null ? null : await headOf(gitdir, tip, trusted.length ? trusted : [createPublicKey(key)]);
    const predicates = await build(head);
    if (predicates.length === 0) return null;
    let parent = head?.commit ?? null;
    let seq = head ? head.seq : -1;
    let prev = head?.payloadSha256 ?? null;
    const objects = join(gitdir, 'objects');
    writeLoose(objects, 'tree', Buffer.alloc(0));
    for (const p of predicates) {
      seq += 1;
      const full: LogPredicate = { ...p, seq, prev } as LogPredicate;
      const signed = signEntry(full, key);
      parent = writeLoose(objects, 'commit', commitBytes(parent, full, signed.text));
      prev = signed.payloadSha256;
    }
    lock.commit(parent!);
    return { commit: parent!, seq };
  } finally {
    // (Nothing appended: the lock is given up, a transaction's too.)
    lock.release();
  }
}

/** The log ref's oid (its loose file, else packed-refs: src/git/refs.ts), null when there is
 * no log. */
export function readLogRef(gitdir: string): string | null {
  let raw;
  try {
    raw = new RefReader(gitdir, gitdir).readRaw(LOG_REF);
  } catch (err) {
    throw new LogWriteError((err as Error).message);
  }
  if (raw === null) return null;
  if ('oid' in raw) return raw.oid;
  throw new LogWriteError(`${join(gitdir, LOG_REF)} is a symbolic ref (to ${raw.symbolic}), not the log's tip`);
}

export async function headOf(gitdir: string, tip: string, trusted: readonly KeyObject[]): Promise<LogHead> {
  // (A store of its own, opened under the lock: one opened earlier may hold a loose-object
  // listing from before a concurrent append wrote the tip.)
  // The tip is read back and verified on every append (one object, one signature): the writer
  // only ever signs on top of an entry one of the server's keys signed, so that each signed
  // entry vouches, through `prev`, for the whole log before it. A tip it cannot verify (forged
  // by someone with the files but not the key) is never extended: the update stays unlogged,
  // which verify-log reports.
  const loose = readLooseCommit(join(gitdir, 'objects'), tip);
  const store = loose ? null : await ObjectStore.open({ gitdir, env: {} });
  try {
    const text = entryTextOf(loose ?? (await store!.commits.bytes(tip)));
    const checked = text === null ? null : checkEntry(text, trusted);
    if (!checked || !checked.ok) {
      throw new LogWriteError(
        `the push log's tip ${tip} is not an entry this server's keys signed (${checked ? checked.reason : 'its message holds no entry'}); nothing is appended until an administrator resolves it (docs/push-log.md)`,
      );
    }
    return { commit: tip, seq: checked.predicate.seq, payloadSha256: checked.payloadSha256 };
  } finally {
    store?.close();
  }
}

/** A loose commit's content, checked against its oid; null when it is not loose (packed: the
 * store reads it) or not a commit. The log's tip is usually loose: the writers write it so. */
export function readLooseCommit(objectsDir: string, oid: string): Buffer | null {
  return readLooseObject(objectsDir, oid, 'commit');
}

/** A log commit: the empty tree, the previous entry as parent, the envelope in the message. */
export function commitBytes(parent: string | null, p: LogPredicate, envelope: string): Buffer {
  const when = Math.floor(Date.parse(p.time) / 1000) || Math.floor(Date.now() / 1000);
  const subject = p.kind === 'genesis'
    ? `receipt-gate push log #${p.seq}: genesis, ${Object.keys(p.refs ?? {}).length} refs`
    : `receipt-gate push log #${p.seq}: ${p.kind} ${p.updates.map((u) => `${u.ref} ${u.old.slice(0, 12)}..${u.new.slice(0, 12)}`).join(', ')}`;
  return Buffer.from(
    `tree ${EMPTY_TREE}\n${parent ? `parent ${parent}\n` : ''}author ${IDENT} ${when} +0000\ncommitter ${IDENT} ${when} +0000\n\n${subject}\n\n${envelope}\n`,
    'utf8',
  );
}

/** The entry's envelope: the last line of the commit message (null when there is none). Only
 * that line is decoded (verify-log reads one commit per entry). */
export function entryTextOf(commit: Uint8Array): string | null {
  const bytes = Buffer.isBuffer(commit) ? commit : Buffer.from(commit.buffer, commit.byteOffset, commit.byteLength);
  const body = bytes.indexOf('\n\n');
  if (body < 0) return null;
  let end = bytes.length;
  while (end > body + 2 && bytes[end - 1] === 0x0a) end--;
  if (end <= body + 2) return null;
  const start = Math.max(bytes.lastIndexOf(0x0a, end - 1) + 1, body + 2);
  return bytes[start] === 0x7b ? bytes.toString('utf8', start, end) : null;
}

/** Writes one loose object (zlib, as git does) unless the store has it loose already
 * (src/git/write.ts). */
export function writeLoose(objectsDir: string, type: string, content: Buffer): string {
  return writeLooseObject(objectsDir, type as 'blob' | 'tree' | 'commit' | 'tag', content);
}
