// The push log's fast path (docs/push-log.md, "How it is written"): pre-receive, whose Node
// process is running anyway, signs the log entries of an accepted push before git applies it,
// so that the reference-transaction hook only has to move refs/receipt-gate/log onto one of
// them — a POSIX shell step, no second Node start.
//
// Everything an entry holds is known in pre-receive except which updates git will apply: a
// push with --atomic applies all or none, a plain push applies each update in its own ref
// transaction (some may fail). So the entries are prepared for each way the log can grow:
//
//   single i   update i alone, on top of single i-1 (single 1 on top of the log's tip): the
//              plain push, one transaction per update, in the order receive-pack runs them
//   all        every update in one entry, on top of the tip: an --atomic push of several refs
//
// Each is a finished log commit (signed entry, seq, prev, parent), written as a loose object.
// `pending/<receive-pack pid>.log` lists them, one line each:
//
//   <commit> <parent> <old> <new> <ref>     a single candidate
//   all <commit> <parent>                   the whole push (only when it has several updates)
//
// and `candidates/<receive-pack pid>/<parent>` holds each single candidate under the entry it
// extends, `<commit> <old> <new> <ref> <i> <n>` (update i of n): the hook finds the candidate
// for a one-update transaction by the log's tip, one file read, whatever the push's size
// (a push of N refs costs the log O(N) in all, not N reads of an N-line list).
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
  updates.forEach((u, i) => {
    const c = entry(after, [u]);
    lines.push(`${c.commit} ${c.parent} ${u.old} ${u.new} ${u.ref}`);
    writeFileSync(join(byParent, c.parent), `${c.commit} ${u.old} ${u.new} ${u.ref} ${i + 1} ${updates.length}\n`);
    after = c;
  });
  if (updates.length > 1) {
    const all = entry(head, [...updates]);
    lines.push(`all ${all.commit} ${all.parent}`);
  }
  mkdirSync(dir, { recursive: true });
  const tmp = join(dir, `.${receivePid}.log.${process.pid}`);
  writeFileSync(tmp, `${lines.join('\n')}\n`);
  renameSync(tmp, join(dir, `${receivePid}.log`));
  return true;
}

/** Whether a ref name can travel through the shell hook's `<old> <new> <ref>` lines as-is. */
export function shellSafeRef(ref: string): boolean {
  return /^refs\/[\x21-\x7e]+$/.test(ref);
}
