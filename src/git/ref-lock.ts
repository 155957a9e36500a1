// A ref written under its lock, in git's discipline, shared by the push log's two writers: the
// Node writer (src/pushlog/append.ts) and the reference-transaction shell hook
// (server-hooks/reference-transaction). docs/push-log.md, "The lock", is the protocol; this
// is its Node side:
//
//   take      create REF.lock with O_CREAT|O_EXCL, the holder's process id on its first line
//             (a transaction's lock: the git process's id, taken by the shell in `prepared`;
//             a writer of that transaction uses it as its own, `heldBy`)
//   wait      while another live holder has it, up to `waitMs`, then give up (RefLockBusyError)
//   break     a lock whose first line names a process that is gone, or any lock older than
//             `staleMs`: removed by one breaker at a time (REF.lock.break, created O_EXCL with
//             the breaker's id) and only if it still names the holder judged stale, so that a
//             lock taken meanwhile is never removed; a breaker that died leaves REF.lock.break
//             naming it, removed once its process is gone. A lock naming no process (git's own,
//             holding an oid) is only broken by age.
//   commit    write the new oid into the lock and rename it over REF: the ref moves and the
//             lock is released at once
//   release   remove the lock (nothing written)

import { closeSync, existsSync, ftruncateSync, openSync, readFileSync, renameSync, rmSync, statSync, writeSync } from 'node:fs';

export class RefLockBusyError extends Error {
  constructor(readonly lockFile: string, readonly waitedMs: number) {
    super(`${lockFile} is held by another writer for more than ${waitedMs / 1000} s; if no push is running, remove it`);
    this.name = 'RefLockBusyError';
  }
}

export interface RefLockOptions {
  /** The process whose lock this writer may use as its own (a transaction's, taken in
   * `prepared`); null: only a lock this writer creates. */
  heldBy?: number | null;
  /** How long to wait for a live holder. */
  waitMs: number;
  /** A lock older than this is left over from a crashed writer (or names a process id used
   * again since). */
  staleMs: number;
}

export class RefLock {
  private done = false;

  private constructor(
    readonly refFile: string,
    readonly lockFile: string,
    private readonly fd: number,
  ) {}

  /** Takes `refFile`'s lock (see the protocol above). */
  static take(refFile: string, opts: RefLockOptions): RefLock {
    const lockFile = `${refFile}.lock`;
    const until = Date.now() + opts.waitMs;
    let wait = 1;
    for (;;) {
      try {
        const fd = openSync(lockFile, 'wx', 0o644);
        writeSync(fd, `${process.pid}\n`);
        return new RefLock(refFile, lockFile, fd);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
      }
      const holder = lockHolder(lockFile);
      if (holder === undefined) continue; // released meanwhile
      if (opts.heldBy != null && holder === String(opts.heldBy)) return new RefLock(refFile, lockFile, openSync(lockFile, 'r+'));
      const dead = isProcessId(holder) && !processAlive(Number(holder));
      const old = Date.now() - (statSync(lockFile, { throwIfNoEntry: false })?.mtimeMs ?? Date.now()) > opts.staleMs;
      if (dead || old) {
        breakStaleLock(lockFile, holder);
        continue;
      }
      if (Date.now() > until) throw new RefLockBusyError(lockFile, opts.waitMs);
      sleep(wait);
      wait = Math.min(wait * 2, 25);
    }
  }

  /** Writes `oid` into the lock and renames it over the ref: the ref moves, the lock is gone. */
  commit(oid: string): void {
    ftruncateSync(this.fd, 0);
    writeSync(this.fd, `${oid}\n`, 0);
    closeSync(this.fd);
    this.done = true;
    renameSync(this.lockFile, this.refFile);
  }

  /** Removes the lock, nothing written (a no-op after commit). */
  release(): void {
    if (this.done) return;
    this.done = true;
    try {
      closeSync(this.fd);
    } catch {
      /* closed already */
    }
    rmSync(this.lockFile, { force: true });
  }
}

/** The lock's first line, undefined when there is no lock. */
export function lockHolder(lockFile: string): string | undefined {
  try {
    return readFileSync(lockFile, 'latin1').split('\n', 1)[0]!;
  } catch {
    return undefined;
  }
}

/** Removes the lock if its first line is still `stale`: one breaker at a time (LOCK.break),
 * so that a lock taken after the stale one is never removed. */
export function breakStaleLock(lockFile: string, stale: string): void {
  const breakFile = `${lockFile}.break`;
  let fd: number;
  try {
    fd = openSync(breakFile, 'wx', 0o644);
  } catch {
    const breaker = lockHolder(breakFile);
    if (breaker !== undefined && isProcessId(breaker) && !processAlive(Number(breaker))) rmSync(breakFile, { force: true });
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

function isProcessId(text: string): boolean {
  return /^[1-9][0-9]*$/.test(text);
}

/** Whether /proc lists processes (Linux): then a process is looked up there, with no error
 * built for one that is gone. */
let procfs: boolean | undefined;

/** Whether a process of that id exists (one of another user counts). */
export function processAlive(pid: number): boolean {
  procfs ??= existsSync('/proc/self/stat');
  if (procfs) return existsSync(`/proc/${pid}`);
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function sleep(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}
