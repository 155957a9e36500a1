// The pre-receive side of the push log: after the gate decided, an accepted push leaves its
// per-ref decisions for the reference-transaction hook (which logs what git then really
// applies) and signs its log entries in advance (prepare.ts: the hook's fast path appends one
// without starting Node), and a rejected one goes to the audit file. The decision is
// src/server/decide.ts's and is only read here: when it cannot be recorded, this says why, and
// the decision module turns the push into a rejection (`refusedByLog`), since an accepted
// update the log could not attribute to the gate would read as a move outside it.

import { createPublicKey } from 'node:crypto';
import { namespacePrefix } from '../git/refs';
import { ObjectStore } from '../git/store';
import type { PushDecision } from '../decision';
import type { LoggedUpdate, LoggedVerdict, PushCertificate } from './entry';
import { logKey } from './hook';
import { ZERO_OID } from '../types';
import { batchOf } from './batch';
import { prepareCandidates, shellSafeRef, type PushFacts } from './prepare';
import { audit, logEnabled, receivePackPid, sweepPending, writeFallThrough, writePending } from './server-state';

/** Records the decision; returns why an accepted push could not be recorded (null when it
 * was, when the log is off, or when the push was rejected anyway). `receivePid`: the
 * receive-pack process running the hooks (default: found from this process's ancestors; the
 * snapshot's warm-up, warm.ts, names one). */
export async function recordDecision(gitdir: string, env: NodeJS.ProcessEnv, outcome: PushDecision, receivePid?: number | null): Promise<string | null> {
  if (!logEnabled(gitdir) || outcome.result.refs.length === 0) return null;
  const { result } = outcome;
  // Under GIT_NAMESPACE, pre-receive reads the names inside the namespace (refs/heads/main);
  // git applies, and reference-transaction reports, refs/namespaces/<ns>/refs/heads/main. The
  // log records the name git applied.
  let prefix = '';
  try {
    prefix = namespacePrefix(env.GIT_NAMESPACE);
  } catch {
    prefix = '';
  }
  const updates: LoggedUpdate[] = result.refs.map((r, i) => ({
    ref: `${prefix}${r.update.ref}`,
    old: r.update.old,
    new: r.update.new,
    verdict: (result.unguarded && r.findings.length === 0 ? 'unguarded' : r.verdict) as LoggedVerdict,
    findings: [...new Set(r.findings.map((f) => f.code))].sort(),
    protected: r.isProtectedRef,
    ...(outcome.refs[i]?.reason === 'hold-owner' ? { held_by_owner: true as const } : {}),
  }));
  const time = new Date().toISOString();
  try {
    sweepPending(gitdir);
    const cert = await pushCertificate(gitdir, env);
    if (!outcome.accepted) {
      audit(gitdir, { event: 'rejected', time, identity: result.identity, policy_blob: outcome.policyOid ?? null, updates, push_certificate: cert });
      return null;
    }
    const pid = receivePid === undefined ? receivePackPid(process.ppid, env.RECEIPT_GATE_HOOK_PARENT) : receivePid;
    const facts: PushFacts = { time, identity: result.identity, policy_blob: outcome.policyOid ?? null, push_certificate: cert };
    writePending(gitdir, { receive_pid: pid, created: time, identity: facts.identity, policy_blob: facts.policy_blob, push_certificate: cert, updates });
    if (pid !== null) {
      const batch = batchOf({ gitdir, env, updates, atomic: null, predict: true }) as LoggedUpdate[] | null;
      // No batch: the proc-receive shim hands the push's new refs back to receive-pack from
      // this answer, written now, without starting Node (batch.ts).
      const created = updates.filter((u) => u.old === ZERO_OID && u.new !== ZERO_OID).map((u) => u.ref);
      writeFallThrough(gitdir, pid, batch === null && !env.GIT_NAMESPACE && created.every(shellSafeRef) ? created : null);
      await prepareFastPath(gitdir, env, pid, facts, updates, batch);
    }
    return null;
  } catch (err) {
    return outcome.accepted ? (err as Error).message : null;
  }
}

/** The entries signed in advance (prepare.ts), so that reference-transaction appends one
 * without starting Node. Best effort: without them the hook's Node logger signs instead. */
async function prepareFastPath(gitdir: string, env: NodeJS.ProcessEnv, receivePid: number, facts: PushFacts, updates: LoggedUpdate[], batch: LoggedUpdate[] | null): Promise<void> {
  if (!updates.every((u) => shellSafeRef(u.ref))) return;
  try {
    const key = await logKey(gitdir, env);
    if ('error' in key) return;
    await prepareCandidates(gitdir, receivePid, key.key, [createPublicKey(key.key), ...key.previous], facts, updates, batch);
  } catch {
    /* the logger signs in reference-transaction */
  }
}

/** `git push --signed` with receive.certNonceSeed set: the certificate and git's verdicts on
 * it, as receive-pack hands them to pre-receive. */
async function pushCertificate(gitdir: string, env: NodeJS.ProcessEnv): Promise<PushCertificate | null> {
  const oid = env.GIT_PUSH_CERT;
  if (!oid) return null;
  let certificate: string | null = null;
  const store = await ObjectStore.open({ gitdir, env });
  try {
    certificate = Buffer.from(await store.objects.readBlob(oid, 64 * 1024)).toString('utf8');
  } catch {
    certificate = null;
  } finally {
    store.close();
  }
  const v = (name: string) => env[name] || null;
  return {
    certificate,
    status: v('GIT_PUSH_CERT_STATUS'),
    signer: v('GIT_PUSH_CERT_SIGNER'),
    key: v('GIT_PUSH_CERT_KEY'),
    nonce: v('GIT_PUSH_CERT_NONCE'),
    nonce_status: v('GIT_PUSH_CERT_NONCE_STATUS'),
  };
}
