// What the push log keeps on the server, outside the repository's refs, under
// <gitdir>/receipt-gate/ (created by `install.sh --server --log-key KEY`; without it the log
// is off and pre-receive records nothing):
//
//   pending/<pid>.json  the gate's decisions of an accepted push, written by pre-receive and
//                       keyed by the receive-pack process that runs both hooks; the
//                       reference-transaction hook takes from it the updates git really applied
//   pending/<pid>.log   the push's log entries, signed in advance by pre-receive (prepare.ts)
//   candidates/<pid>/   the same single-update entries, one file each, named by the entry
//                       each extends (the hook's lookup by the log's tip); removed with the
//                       push's pending files
//   pending/<pid>.applied  `<old> <new> <ref>` lines the shell hook logged from <pid>.log
//                       while other updates of the push were still to come
//   pending/<pid>.proc  the proc-receive hook's answer when the push's new refs are not
//                       batched (each handed back to receive-pack), written by pre-receive
//   txn-<pid>.json      what the refs of a transaction held when git had locked them
//                       ("prepared"), for updates that name no old value (`git update-ref` without one)
//   audit.jsonl         rejected attempts and anything the log could not record, one JSON
//                       object a line, rotated at 1 MiB (audit.jsonl.1 … .5)
// (The order of the entries is kept by the log ref's own lock, refs/receipt-gate/log.lock:
// append.ts.) A push whose entry the shell hook appended leaves its pending files empty; the
// next push's sweep removes them with the rest of a receive-pack that is gone.

import { appendFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmdirSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fallThroughReport, FLUSH, pkt } from '../git/pkt-line';
import { processAlive } from '../git/ref-lock';
import type { LoggedUpdate, PushCertificate } from './entry';

export function stateDir(gitdir: string): string {
  return join(gitdir, 'receipt-gate');
}

/** The log is on for a repository once the install created its state folder. */
export function logEnabled(gitdir: string): boolean {
  return existsSync(stateDir(gitdir));
}

export interface PendingPush {
  receive_pid: number | null;
  created: string;
  identity: string | null;
  policy_blob: string | null;
  push_certificate: PushCertificate | null;
  updates: LoggedUpdate[];
}

/**
 * The receive-pack process this hook runs under. pre-receive's node is a grandchild of it (the
 * shim's `timeout` sits between), the reference-transaction shim a child: walk up /proc until a
 * process whose command line is receive-pack. The pre-receive shim names its own parent
 * (RECEIPT_GATE_HOOK_PARENT, `hint`): when that is receive-pack (git ran the shim itself) it is
 * the answer after one read; otherwise (a hook manager ran the shim) the walk runs as usual.
 * Null where /proc is not there
 * (the reference-transaction hook then matches the pending decisions by their updates).
 */
export function receivePackPid(start = process.ppid, hint?: string): number | null {
  const named = hint !== undefined && /^[1-9][0-9]{0,9}$/.test(hint) ? Number(hint) : null;
  if (named !== null && named !== start && isReceivePack(named)) return named;
  let pid = start;
  for (let depth = 0; depth < 10 && pid > 1; depth++) {
    let cmdline: string[];
    let stat: string;
    try {
      cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    } catch {
      return null;
    }
    if (receivePackCommand(cmdline)) return pid;
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    pid = Number(fields[1]);
  }
  return null;
}

function receivePackCommand(cmdline: readonly string[]): boolean {
  const argv0 = cmdline[0] ?? '';
  return argv0.endsWith('git-receive-pack') || (/(^|\/)git$/.test(argv0) && cmdline.slice(1).some((a) => a === 'receive-pack'));
}

function isReceivePack(pid: number): boolean {
  try {
    return receivePackCommand(readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0'));
  } catch {
    return false;
  }
}

export function pendingDir(gitdir: string): string {
  return join(stateDir(gitdir), 'pending');
}

/** The folder of a push's single-update candidates, one file per entry they extend. */
export function candidatesDir(gitdir: string, receivePid: number): string {
  return join(stateDir(gitdir), 'candidates', String(receivePid));
}

export function writePending(gitdir: string, pending: PendingPush): void {
  const dir = pendingDir(gitdir);
  mkdirSync(dir, { recursive: true });
  const name = pending.receive_pid !== null ? `${pending.receive_pid}.json` : `unknown-${process.pid}-${Date.now()}.json`;
  const tmp = join(dir, `.${name}.${process.pid}`);
  writeFileSync(tmp, JSON.stringify(pending));
  renameSync(tmp, join(dir, name));
}

/**
 * `pending/<pid>.proc`: the proc-receive hook's whole answer to receive-pack for a push whose new
 * refs are not batched (`refs`: the push's creations, in push order) — version 1, then `ok REF`
 * and `option fall-through` for each, in pkt-lines — so that the shim writes it with one `cat`
 * instead of starting Node, and then empties. `refs` null or empty: the file is removed (Node
 * answers and batches; or, with no new ref, receive-pack does not run the hook). Only
 * ever an answer that hands refs back to receive-pack: were it to name other refs than
 * receive-pack sent, receive-pack refuses the unnamed ones and ignores the rest.
 */
export function writeFallThrough(gitdir: string, receivePid: number, refs: readonly string[] | null): void {
  const dir = pendingDir(gitdir);
  const file = join(dir, `${receivePid}.proc`);
  if (refs === null || refs.length === 0) {
    rmSync(file, { force: true });
    return;
  }
  mkdirSync(dir, { recursive: true });
  const answer = Buffer.concat([pkt('version=1\n'), FLUSH, ...fallThroughReport(refs), FLUSH]);
  const tmp = join(dir, `.${receivePid}.proc.${process.pid}`);
  writeFileSync(tmp, answer);
  renameSync(tmp, file);
}

/** Pending decisions older than this belong to a receive-pack that is gone. */
const PENDING_MAX_AGE_MS = 60 * 60 * 1000;

/**
 * Takes, for the updates git committed, the gate's decisions: those of this receive-pack, or
 * (no process id known) of the one pending push that holds every committed update. What is
 * taken is removed from the file; a file with nothing left is removed.
 */
export function takePending(
  gitdir: string,
  receivePid: number | null,
  committed: { ref: string; old: string; new: string }[],
): { push: PendingPush; decided: Map<string, LoggedUpdate> } | null {
  const dir = pendingDir(gitdir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.json') && !n.startsWith('.'));
  } catch {
    return null;
  }
  const read = (name: string): PendingPush | null => {
    try {
      return JSON.parse(readFileSync(join(dir, name), 'utf8')) as PendingPush;
    } catch {
      return null;
    }
  };
  const covers = (p: PendingPush) => committed.every((c) => p.updates.some((u) => u.ref === c.ref && u.new === c.new));
  let chosen: string | null = null;
  let push: PendingPush | null = null;
  if (receivePid !== null && names.includes(`${receivePid}.json`)) {
    chosen = `${receivePid}.json`;
    push = read(chosen);
  } else {
    for (const name of names) {
      const p = read(name);
      if (p && covers(p) && (receivePid === null || p.receive_pid === null)) {
        chosen = name;
        push = p;
        break;
      }
    }
  }
  if (!chosen || !push) return null;
  const applied = appliedBy(dir, chosen);
  const decided = new Map<string, LoggedUpdate>();
  const left: LoggedUpdate[] = [];
  for (const u of push.updates) {
    if (applied.has(`${u.old} ${u.new} ${u.ref}`)) continue;
    const c = committed.find((x) => x.ref === u.ref && x.new === u.new);
    if (c && !decided.has(c.ref)) decided.set(c.ref, u);
    else left.push(u);
  }
  if (left.length === 0) removePending(dir, chosen);
  else writeFileSync(join(dir, chosen), JSON.stringify({ ...push, updates: left }));
  return { push, decided };
}

/** Pending decisions of receive-packs that are gone: the updates git did not apply after the
 * gate accepted them (a lock conflict, a failed --atomic push). They go to the audit file. An
 * emptied file (the shell hook logged that push whole) is removed with its companions. Every
 * push runs this: it looks only at the files the folder holds (no error built per absent one). */
export function sweepPending(gitdir: string, now = Date.now()): void {
  const dir = pendingDir(gitdir);
  let present: Set<string>;
  try {
    present = new Set(readdirSync(dir));
  } catch {
    return;
  }
  for (const name of present) {
    if (!name.endsWith('.json') || name.startsWith('.')) continue;
    const file = join(dir, name);
    const pid = /^(\d+)\.json$/.exec(name)?.[1];
    const st = statSync(file, { throwIfNoEntry: false });
    if (!st) continue;
    const stale = now - st.mtimeMs > PENDING_MAX_AGE_MS || (pid !== undefined && !processAlive(Number(pid)));
    if (!stale) continue;
    let push: PendingPush | null = null;
    if (st.size > 0) {
      try {
        push = JSON.parse(readFileSync(file, 'utf8')) as PendingPush;
      } catch {
        /* unreadable: dropped */
      }
    }
    const applied = present.has(appliedName(name)) ? appliedBy(dir, name) : new Set<string>();
    removePending(dir, name, present);
    const updates = push?.updates.filter((u) => !applied.has(`${u.old} ${u.new} ${u.ref}`)) ?? [];
    if (push && updates.length) audit(gitdir, { event: 'not-applied', time: new Date(now).toISOString(), identity: push.identity, updates, note: 'accepted by the gate, not applied by git (lock conflict, failed --atomic push, or the connection ended)' });
  }
}

/** The updates of a pending push that the shell hook logged from its prepared entries. */
function appliedBy(dir: string, jsonName: string): Set<string> {
  try {
    return new Set(readFileSync(join(dir, jsonName.replace(/\.json$/, '.applied')), 'utf8').split('\n').filter(Boolean));
  } catch {
    return new Set();
  }
}

function appliedName(jsonName: string): string {
  return jsonName.replace(/\.json$/, '.applied');
}

/** A pending push's decisions and what came with them (its prepared entries, what of them was
 * applied): those of the files `present` lists (all three when it is not given), and its
 * candidates' folder. */
function removePending(dir: string, jsonName: string, present?: ReadonlySet<string>): void {
  const stem = jsonName.replace(/\.json$/, '');
  if (/^\d+$/.test(stem)) removeFolder(join(dir, '..', 'candidates', stem));
  for (const ext of ['.json', '.log', '.applied', '.proc']) {
    const name = `${stem}${ext}`;
    if (present && !present.has(name)) continue;
    try {
      unlinkSync(join(dir, name));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
  }
}

/** Removes a folder of plain files (a push's candidates), if it is there: its listing read
 * once, each file unlinked (no recursive walk). */
export function removeFolder(dir: string): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw err;
  }
  for (const name of names) unlinkSync(join(dir, name));
  rmdirSync(dir);
}

/** Whether a process of that id exists (one of another user counts): src/git/ref-lock.ts. */
export { processAlive };

// --- transactions: what the refs held when git had them locked --------------------------------

export function txnFile(gitdir: string, pid: number): string {
  return join(stateDir(gitdir), `txn-${pid}.json`);
}

export function writeTxn(gitdir: string, pid: number, olds: Record<string, string>): void {
  writeFileSync(txnFile(gitdir, pid), JSON.stringify(olds));
}

export function takeTxn(gitdir: string, pid: number | null): Record<string, string> {
  if (pid === null) return {};
  const file = txnFile(gitdir, pid);
  try {
    const olds = JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
    rmSync(file, { force: true });
    return olds;
  } catch {
    return {};
  }
}

// --- the audit file --------------------------------------------------------------------------

const AUDIT_MAX_BYTES = 1024 * 1024;
const AUDIT_KEEP = 5;

export function auditFile(gitdir: string): string {
  return join(stateDir(gitdir), 'audit.jsonl');
}

/** Appends one JSON line; a file past 1 MiB is rotated first (audit.jsonl.1 is the newest). */
export function audit(gitdir: string, record: Record<string, unknown>, maxBytes = AUDIT_MAX_BYTES): void {
  const file = auditFile(gitdir);
  mkdirSync(stateDir(gitdir), { recursive: true });
  try {
    if (statSync(file).size >= maxBytes) {
      for (let i = AUDIT_KEEP - 1; i >= 1; i--) {
        if (existsSync(`${file}.${i}`)) renameSync(`${file}.${i}`, `${file}.${i + 1}`);
      }
      renameSync(file, `${file}.1`);
    }
  } catch {
    /* no file yet */
  }
  appendFileSync(file, `${JSON.stringify(record)}\n`);
}
