// The push log's fast path (docs/push-log.md, "How it is written"): pre-receive, whose Node
// process is running anyway, signs the log entries of an accepted push before git applies it,
// so that the reference-transaction hook only has to move refs/receipt-gate/log onto one of
// them — a POSIX shell step, no second Node start.
//
// Everything an entry holds is known in pre-receive except which updates git will apply: a
// push with --atomic applies all or none, a plain push applies its new refs in one transaction
// when the proc-receive hook batches them (batch.ts) and each other update in a ref
// transaction of its own (some may fail). So the entries are prepared for each way the log can
// grow:
//
//   the chain   one entry per transaction of a plain push, in the order git applies them (the
//               batch of new refs first, then each other update alone, in push order), each on
//               top of the one before (the first on top of the log's tip)
//   all         every update in one entry, on top of the tip: an --atomic push of several refs
//
// Each is a finished log commit (signed entry, seq, prev, parent), written as a loose object:
// a push of 10,000 new tags writes two, not 10,000 (which would also set off git's auto gc).
// `pending/<receive-pack pid>.log` lists them, one line each:
//
//   <commit> <parent> <old> <new> <ref>     a one-update transaction of the chain
//   <commit> <parent> batch <n>             the batch of n new refs
//   all <commit> <parent>                   the whole push (only when it has several updates)
//
// and `candidates/<receive-pack pid>/` holds each under the entry it extends, so that the hook
// finds it by the log's tip, one file read, whatever the push's size: `<parent>` for a
// one-update transaction (`<commit> <old> <new> <ref> <i> <n>`: i of the push's n updates
// applied once it is), `<parent>.txn` for the batch and `all.txn` for the whole push (none when
// the batch is the whole push: its entry is the push's) (a line
// `<commit> <parent> <i> <n>`, then the transaction's lines exactly as git gives them to the hook).
//
// The hook uses a candidate only when the updates git committed are exactly its updates and
// the log's tip, read under refs/receipt-gate/log.lock, is still its parent; anything else
// (another transaction appended first, a plain push whose earlier update failed, no
// candidates at all) falls back to the Node logger, which signs afresh (hook.ts).

import { createPublicKey, type KeyObject } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { VERSION } from '../version';
import { commitBytes, headOf, readLogRef, writeLoose, type LogHead } from './append';
import { signEntry, type LoggedUpdate, type LogPredicate, type PushCertificate } from './entry';
import { candidatesDir, pendingDir, removeFolder } from './server-state';

export interface PushFacts {
  time: string;
  identity: string | null;
  policy_blob: string | null;
  push_certificate: PushCertificate | null;
}

interface Candidate {
  commit: string;
  parent: string;
  payloadSha256: string;
  seq: number;
}

/**
 * Signs the candidates and writes pending/<pid>.log. Returns false, writing nothing, when the
 * log has no tip yet (the logger writes the genesis first) or a tip this server's keys did not
 * sign (the logger then refuses to extend it, and says so).
 */
export async function prepareCandidates(
  gitdir: string,
  receivePid: number,
  key: KeyObject,
  trusted: readonly KeyObject[],
  facts: PushFacts,
  updates: readonly LoggedUpdate[],
  batch: readonly LoggedUpdate[] | null = null,
): Promise<boolean> {
  if (updates.length === 0) return false;
  const tip = readLogRef(gitdir);
  if (tip === null) return false;
  let head: LogHead;
  try {
    head = await headOf(gitdir, tip, trusted.length ? trusted : [createPublicKey(key)]);
  } catch {
    return false;
  }
  const objects = join(gitdir, 'objects');
  writeLoose(objects, 'tree', Buffer.alloc(0));
  const entry = (after: { commit: string; seq: number; payloadSha256: string }, list: LoggedUpdate[]): Candidate => {
    const p: LogPredicate = {
      schema: 'receipt-gate-push-log/v1',
      seq: after.seq + 1,
      prev: after.payloadSha256,
      kind: 'push',
      time: facts.time,
      tool_version: VERSION,
      identity: facts.identity,
      policy_blob: facts.policy_blob,
      updates: list,
      push_certificate: facts.push_certificate,
    };
    const signed = signEntry(p, key);
    const commit = writeLoose(objects, 'commit', commitBytes(after.commit, p, signed.text));
    return { commit, parent: after.commit, payloadSha256: signed.payloadSha256, seq: p.seq };
  };
  const dir = pendingDir(gitdir);
  const byParent = candidatesDir(gitdir, receivePid);
  // (A folder that was there already is one left by a receive-pack of the same id, gone.)
  if (mkdirSync(byParent, { recursive: true }) === undefined) {
    removeFolder(byParent);
    mkdirSync(byParent);
  }
  const lines: string[] = [];
  let after: { commit: string; seq: number; payloadSha256: string } = head;
  // The transactions git will apply, in order: the batch of new refs the proc-receive hook
  // creates in one (batch.ts), then each other update alone, in push order.
  const inBatch = new Set(batch ?? []);
  const chain: LoggedUpdate[][] = batch && batch.length ? [[...batch]] : [];
  for (const u of updates) if (!inBatch.has(u)) chain.push([u]);
  let applied = 0;
  let first: { commit: string; parent: string } | null = null;
  chain.forEach((txn) => {
    const c = entry(after, txn);
    first ??= c;
    applied += txn.length;
    if (txn.length === 1) {
      const u = txn[0]!;
      lines.push(`${c.commit} ${c.parent} ${u.old} ${u.new} ${u.ref}`);
      writeFileSync(join(byParent, c.parent), `${c.commit} ${u.old} ${u.new} ${u.ref} ${applied} ${updates.length}\n`);
    } else {
      lines.push(`${c.commit} ${c.parent} batch ${txn.length}`);
      writeFileSync(join(byParent, `${c.parent}.txn`), transactionText(c.commit, c.parent, applied, updates.length, txn));
    }
    after = c;
  });
  if (updates.length > 1) {
    // A batch of the whole push, in push order, is already the push's entry on the same tip
    // (its `<parent>.txn` is the same text): it is not signed and written a second time.
    const whole = chain.length === 1 && chain[0]!.length === updates.length && chain[0]!.every((u, i) => u === updates[i]);
    const all = whole ? first! : entry(head, [...updates]);
    lines.push(`all ${all.commit} ${all.parent}`);
    if (!whole) writeFileSync(join(byParent, 'all.txn'), transactionText(all.commit, all.parent, updates.length, updates.length, updates));
  }
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${receivePid}.log.${process.pid}`);
  writeFileSync(tmp, `${lines.join('\n')}\n`);
  renameSync(tmp, join(dir, `${receivePid}.log`));
  return true;
}

/**
 * A transaction's candidate for the shell hook: a first line `<commit> <parent> <i> <n>` (the
 * entry, the entry it extends, and how many of the push's n updates are applied once it is), then exactly the lines git gives the
 * reference-transaction hook for it (`<old> <new> <ref>`, in order): the hook compares its stdin
 * with them as one string, whatever the number of refs.
 */
function transactionText(commit: string, parent: string, applied: number, total: number, txn: readonly LoggedUpdate[]): string {
  return `${commit} ${parent} ${applied} ${total}\n${txn.map((u) => `${u.old} ${u.new} ${u.ref}\n`).join('')}`;
}

/** Whether a ref name can travel through the shell hook's `<old> <new> <ref>` lines as-is. */
export function shellSafeRef(ref: string): boolean {
  return /^refs\/[\x21-\x7e]+$/.test(ref);
}
