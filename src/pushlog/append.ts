// Appending to the push log: one commit per entry on refs/receipt-gate/log, written by the
// server's hook itself, never through a push. The ref is updated with git's own lockfile
// discipline, so git and receipt-gate never write it at once:
//
//   open refs/receipt-gate/log.lock with O_CREAT|O_EXCL, this process's id inside (another
//   append, a transaction, or git holds it: wait and retry) ─► read the ref's current value
//   under the lock ─► write the entry's commit (its parent that value) as loose objects ─►
//   write the new oid into the lock ─► rename the lock over the ref.
//
// The same lock orders transactions: the reference-transaction shim takes it in `prepared`
// with the git process's id inside, and an append for that transaction (`heldBy`) uses it as
// its own. A lock naming a process that is gone is broken at once, and any lock older than two
// minutes too (one breaker at a time, under log.lock.break); one naming no process (git's own
// lock of the ref) is otherwise waited for.
//
// The write goes around git's ref transaction, so the reference-transaction hook never sees it
// (and would ignore it: refs/receipt-gate/ is never logged).

import { closeSync, existsSync, ftruncateSync, mkdirSync, openSync, readFileSync, renameSync, rmSync, statSync, writeFileSync, writeSync } from 'node:fs';
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { deflateSync, inflateSync } from 'node:zlib';
import { dirname, join } from 'node:path';
import { ObjectStore } from '../git/store';
import { isOid } from '../types';
import { checkEntry, LOG_REF, signEntry, type LogPredicate } from './entry';
import { processAlive } from './server-state';

export const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';
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
  const lockFile = `${refFile}.lock`;
  mkdirSync(dirname(refFile), { recursive: true });
  const fd = takeLock(lockFile, heldBy);
  let renamed = false;
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
    ftruncateSync(fd, 0);
    writeSync(fd, `${parent}\n`, 0);
    closeSync(fd);
    renameSync(lockFile, refFile);
    renamed = true;
    return { commit: parent!, seq };
  } finally {
    if (!renamed) {
      try {
        closeSync(fd);
      } catch {
        /* closed above */
      }
      rmSync(lockFile, { force: true });
    }
  }
}

function takeLock(lockFile: string, heldBy: number | null): number {
  const until = Date.now() + LOCK_WAIT_MS;
  let wait = 1;
  for (;;) {
    try {
      const fd = openSync(lockFile, 'wx', 0o644);
      writeSync(fd, `${process.pid}\n`);
      return fd;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
    }
    const holder = lockHolder(lockFile);
    if (holder === undefined) continue; // released meanwhile
    if (heldBy !== null && holder === String(heldBy)) return openSync(lockFile, 'r+');
    // A holder that is gone, or a lock left for minutes (a crashed writer, a process id used
    // again since): broken, as the shim does.
    const dead = /^[1-9][0-9]*$/.test(holder) && !processAlive(Number(holder));
    const old = Date.now() - (statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > STALE_LOCK_MS;
    if (dead || old) {
      breakStale(lockFile, holder);
      continue;
    }
    if (Date.now() > until) {
      throw new LogWriteError(`${lockFile} is held by another writer for more than ${LOCK_WAIT_MS / 1000} s; if no push is running, remove it`);
    }
    sleep(wait);
    wait = Math.min(wait * 2, 25);
  }
}

/** The lock's first line, undefined when there is no lock. */
function lockHolder(lockFile: string): string | undefined {
  try {
    return readFileSync(lockFile, 'latin1').split('\n', 1)[0]!;
  } catch {
    return undefined;
  }
}

/** Removes the lock if its first line is still `stale`: one breaker at a time (log.lock.break,
 * as the shim), so that a lock taken after the stale one is never removed. */
function breakStale(lockFile: string, stale: string): void {
  const breakFile = `${lockFile}.break`;
  let fd: number;
  try {
    fd = openSync(breakFile, 'wx', 0o644);
  } catch {
    const breaker = lockHolder(breakFile);
    if (breaker !== undefined && /^[1-9][0-9]*$/.test(breaker) && !processAlive(Number(breaker))) rmSync(breakFile, { force: true });
    sleep(1);
    return;
  }
  try {
    writeSync(fd, `${process.pid}\n`);
    if (lockHolder(lockFile) === stale) rmSync(lockFile, { force: true });

  } finally {
    closeSync(fd);
    rmSync(breakFile, { force: true });
  }
}

function sleep(ms: number): void {

  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/** The log ref's oid (loose file first, then packed-refs), null when there is no log. */
export function readLogRef(gitdir: string): string | null {
  try {
    const text = readFileSync(join(gitdir, LOG_REF), 'utf8').trim();
    if (isOid(text)) return text;
    throw new LogWriteError(`${join(gitdir, LOG_REF)} does not hold an oid (${JSON.stringify(text.slice(0, 60))})`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  let packed = '';
  try {
    packed = readFileSync(join(gitdir, 'packed-refs'), 'utf8');
  } catch {
    return null;
  }
  const m = new RegExp(`^([0-9a-f]{40}) ${LOG_REF}$`, 'm').exec(packed);
  return m ? m[1]! : null;
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
  let whole: Buffer;
  try {
    whole = inflateSync(readFileSync(join(objectsDir, oid.slice(0, 2), oid.slice(2))));
  } catch {
    return null;
  }
  if (createHash('sha1').update(whole).digest('hex') !== oid) return null;
  const nul = whole.indexOf(0);
  if (nul < 0 || whole.subarray(0, nul).toString('latin1') !== `commit ${whole.length - nul - 1}`) return null;
  return whole.subarray(nul + 1);
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

/** Writes one loose object (zlib, as git does) unless the store has it loose already. */
export function writeLoose(objectsDir: string, type: string, content: Buffer): string {
  const header = Buffer.from(`${type} ${content.length}\0`, 'ascii');
  const whole = Buffer.concat([header, content]);
  const oid = createHash('sha1').update(whole).digest('hex');
  const dir = join(objectsDir, oid.slice(0, 2));
  const file = join(dir, oid.slice(2));
  if (existsSync(file)) return oid;
  const tmp = join(dir, `tmp_obj_rg_${process.pid}_${Math.random().toString(36).slice(2)}`);
  const bytes = deflateSync(whole, { level: 1 });
  try {
    writeFileSync(tmp, bytes, { mode: 0o444 });
  } catch (err) {
    // (The object's folder is usually there: made when it is not.)
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    mkdirSync(dir, { recursive: true });
    writeFileSync(tmp, bytes, { mode: 0o444 });
  }
  renameSync(tmp, file);

  return oid;
}

