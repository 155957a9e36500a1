// One push-log entry: what git applied in one ref transaction, signed by the server. An entry is
// an in-toto Statement v1 inside a DSSE envelope (ed25519), the receipts' form (src/receipt/
// dsse.ts), with its own predicate type. Each entry names the one before it (`seq`, `prev`: the
// SHA-256 of the previous entry's payload), so entries cannot be dropped, reordered or moved to
// another log without the signing key.
//
// kinds:
//   genesis   the state of every ref when the log began (seq 0)
//   push      updates receive-pack applied after the gate judged them (verdict per update)
//   ungated   updates git applied that no gate decision covers (a direct `git update-ref`, a
//             push while pre-receive was missing): recorded, and never an allowed move
//   acknowledge  an owner's signed acceptance of moves the log could not account for
//             (`receipt-gate log acknowledge`): per ref, where the log left it, the value accepted
//             as its new anchor, and exactly which findings it covers; moves nothing

import type { KeyObject } from 'node:crypto';
import { sha256Hex } from '../hash';
import { isEnvelope, PAYLOAD_TYPE, STATEMENT_TYPE, signEnvelope, verifyEnvelope, type DsseEnvelope, type Statement } from '../receipt/dsse';
import { isOid, ZERO_OID } from '../types';

export const LOG_PREDICATE_TYPE = 'https://receipt-gate.dev/push-log/v1';
export const LOG_SCHEMA = 'receipt-gate-push-log/v1';
/** The ref the log lives under; no push may write anything under refs/receipt-gate/. */
export const LOG_REF = 'refs/receipt-gate/log';
export const RESERVED_PREFIX = 'refs/receipt-gate/';

export type EntryKind = 'genesis' | 'push' | 'ungated' | 'acknowledge';

/** The gate's verdict on one update; `unguarded` when the repository had no policy (accepted
 * without checks), null for an ungated update. */
export type LoggedVerdict = 'eligible' | 'hold' | 'closed' | 'unguarded' | null;

export interface LoggedUpdate {
  ref: string;
  old: string;
  new: string;
  verdict: LoggedVerdict;
  /** The finding codes the gate reported on this update, sorted. */
  findings: string[];
  /** Whether the gate judged the ref protected (baseBranch or protectedRefs). */
  protected: boolean;
  /** Present (true) when the update was `hold` on a protected ref and the gate accepted it as
   * an owner's decision (src/server/decide.ts, reason `hold-owner`). Signed with the entry, so
   * verify-log takes it as the gate's word. */
  held_by_owner?: true;
}

export interface PushCertificate {
  /** The certificate text git received (`git push --signed`). */
  certificate: string | null;
  /** GIT_PUSH_CERT_STATUS: G good, B bad, U untrusted, X/Y expired, R revoked, E error, N none. */
  status: string | null;
  signer: string | null;
  key: string | null;
  nonce: string | null;
  /** GIT_PUSH_CERT_NONCE_STATUS: OK, SLOP, BAD, MISSING, UNSOLICITED. */
  nonce_status: string | null;
}

/** One finding an acknowledgement covers: its code, the entry it was made on (null: the ref's
 * value against the log's last entry for it) and the commit it names. */
export interface AcknowledgedFinding {
  code: string;
  entry: number | null;
  commit: string | null;
}

export interface AcknowledgedRef {
  ref: string;
  /** Where the entries before the acknowledgement leave the ref (ZERO_OID: absent). */
  logged: string;
  /** The ref's value the owner accepts: from this entry on, the log's state of the ref. */
  accepted: string;
  /** Exactly the findings accepted; any other finding on the ref stays closed. */
  findings: AcknowledgedFinding[];
}

export interface Acknowledgement {
  /** Why the owner accepts the moves (the incident, the review). */
  reason: string;
  /** The server account that ran the command (who held the log key). */
  account: string | null;
  refs: AcknowledgedRef[];
}

export interface LogPredicate {
  schema: typeof LOG_SCHEMA;
  seq: number;
  /** SHA-256 (hex) of the previous entry's payload bytes; null for the genesis entry. */
  prev: string | null;
  kind: EntryKind;
  /** ISO 8601 UTC, when the server recorded the entry. */
  time: string;
  tool_version: string;
  /** The pusher as the policy resolved it (identityEnv); null for nobody or an ungated update. */
  identity: string | null;
  /** The policy blob that judged the push (its oid at the base); null when none. */
  policy_blob: string | null;
  updates: LoggedUpdate[];
  /** genesis: every ref and what it named when the log began. */
  refs?: Record<string, string>;
  push_certificate: PushCertificate | null;
  /** acknowledge: what the owner (`identity`) accepts, and why. */
  acknowledgement?: Acknowledgement;
}

export function statementOf(p: LogPredicate): Statement<LogPredicate> {
  const subject =
    p.kind === 'genesis'
      ? Object.entries(p.refs ?? {}).map(([name, oid]) => ({ name, digest: { gitCommit: oid } }))
      : p.kind === 'acknowledge'
        ? (p.acknowledgement?.refs ?? []).map((a) => ({ name: a.ref, digest: { gitCommit: a.accepted } }))
        : p.updates.map((u) => ({ name: u.ref, digest: { gitCommit: u.new } }));
  if (subject.length === 0) subject.push({ name: LOG_REF, digest: { gitCommit: ZERO_OID } });
  return { _type: STATEMENT_TYPE, subject, predicateType: LOG_PREDICATE_TYPE, predicate: p };
}

/** The entry as it is stored: its envelope (one line of JSON) and the payload's digest, which
 * the next entry names as `prev`. */
export interface SignedEntry {
  envelope: DsseEnvelope;
  text: string;
  payloadSha256: string;
}

export function signEntry(p: LogPredicate, key: KeyObject): SignedEntry {
  const body = Buffer.from(JSON.stringify(statementOf(p)), 'utf8');
  const envelope = signEnvelope(PAYLOAD_TYPE, body, key);
  return { envelope, text: JSON.stringify(envelope), payloadSha256: sha256Hex(body) };
}

export type EntryCheck =
  | { ok: true; predicate: LogPredicate; payloadSha256: string; keyid: string }
  | { ok: false; reason: string };

/** Parses and checks one stored entry: the envelope verifies with one of `keys`, the statement
 * is the push log's, and the predicate has the shape above. Never trusted otherwise.
 * `signature: false` checks everything but the signature: for an entry that a later, verified
 * entry vouches for through the chain of `prev` digests (verify.ts). */
export function checkEntry(text: string, keys: KeyObject | readonly KeyObject[], opts: { signature?: boolean } = {}): EntryCheck {
  let envelope: unknown;
  try {
    envelope = JSON.parse(text);
  } catch {
    return { ok: false, reason: 'the entry is not JSON' };
  }
  let checked: ReturnType<typeof verifyEnvelope> = { ok: false, reason: 'no public key given' };
  if (opts.signature === false) {
    // No signature to check: the payload's SHA-256 is what a later, verified entry vouches
    // for, so any decoding of the text that yields those bytes is the signed one (the strict
    // decoder's pattern checks are a quarter of a long log's verification).
    const body = isEnvelope(envelope) && envelope.payloadType === PAYLOAD_TYPE ? Buffer.from(envelope.payload, 'base64') : null;
    checked = body ? { ok: true, body, keyid: '' } : { ok: false, reason: 'not a DSSE envelope of an in-toto statement' };
  } else {
    // Any of the keys (the current one and those it replaced, docs/push-log.md).
    const list: readonly KeyObject[] = Array.isArray(keys) ? (keys as readonly KeyObject[]) : [keys as KeyObject];
    for (const key of list) {
      checked = verifyEnvelope(envelope, key);
      if (checked.ok) break;
    }
  }
  if (!checked.ok) return { ok: false, reason: checked.reason.replace('the receipt was', 'the entry was') };
  let statement: Statement<unknown>;
  try {
    statement = JSON.parse(checked.body.toString('utf8')) as Statement<unknown>;
  } catch {
    return { ok: false, reason: 'the signed payload is not JSON' };
  }
  if (statement?._type !== STATEMENT_TYPE || statement.predicateType !== LOG_PREDICATE_TYPE) {
    return { ok: false, reason: `the signed statement is not a push-log entry (predicateType ${JSON.stringify(statement?.predicateType)}, expected ${LOG_PREDICATE_TYPE})` };
  }
  const problem = predicateProblem(statement.predicate);
  if (problem) return { ok: false, reason: `the signed predicate is malformed: ${problem}` };
  return { ok: true, predicate: statement.predicate as LogPredicate, payloadSha256: sha256Hex(checked.body), keyid: checked.keyid };
}

const KINDS = new Set(['genesis', 'push', 'ungated', 'acknowledge']);
const VERDICTS = new Set(['eligible', 'hold', 'closed', 'unguarded', null]);

function predicateProblem(value: unknown): string | null {
  if (typeof value !== 'object' || value === null) return 'not an object';
  const p = value as Record<string, unknown>;
  if (p.schema !== LOG_SCHEMA) return `schema is ${JSON.stringify(p.schema)}, expected ${LOG_SCHEMA}`;
  if (!Number.isSafeInteger(p.seq) || (p.seq as number) < 0) return 'seq is not a non-negative integer';
  if (!(p.prev === null || (typeof p.prev === 'string' && /^[0-9a-f]{64}$/.test(p.prev)))) return 'prev is not a SHA-256';
  if (!KINDS.has(p.kind as string)) return `kind ${JSON.stringify(p.kind)} is unknown`;
  if (typeof p.time !== 'string') return 'time is missing';
  if (!Array.isArray(p.updates)) return 'updates is not a list';
  for (const u of p.updates as unknown[]) {
    const x = u as Record<string, unknown>;
    if (typeof x !== 'object' || x === null || typeof x.ref !== 'string' || !isOid(String(x.old)) || !isOid(String(x.new))) {
      return 'an update lacks ref, old or new';
    }
    if (!VERDICTS.has(x.verdict as string | null) || !Array.isArray(x.findings)) return `the update of ${x.ref} has no verdict or findings`;
  }
  if (p.kind === 'genesis') {
    if (typeof p.refs !== 'object' || p.refs === null) return 'the genesis entry lists no refs';
    for (const oid of Object.values(p.refs as Record<string, unknown>)) if (!isOid(String(oid))) return 'a genesis ref names no oid';
  }
  if (p.kind === 'acknowledge') return acknowledgementProblem(p);
  if (p.acknowledgement !== undefined) return `a ${String(p.kind)} entry carries an acknowledgement`;
  return null;
}

function acknowledgementProblem(p: Record<string, unknown>): string | null {
  if (typeof p.identity !== 'string' || p.identity === '') return 'the acknowledgement names no owner (identity)';
  if ((p.updates as unknown[]).length !== 0) return 'an acknowledgement moves no ref (updates must be empty)';
  const a = p.acknowledgement as Record<string, unknown> | undefined;
  if (typeof a !== 'object' || a === null) return 'the acknowledge entry holds no acknowledgement';
  if (typeof a.reason !== 'string' || a.reason.trim() === '') return 'the acknowledgement gives no reason';
  if (!(a.account === null || typeof a.account === 'string')) return 'the acknowledgement\'s account is not a string';
  if (!Array.isArray(a.refs) || a.refs.length === 0) return 'the acknowledgement names no ref';
  for (const r of a.refs as unknown[]) {
    const x = r as Record<string, unknown>;
    if (typeof x !== 'object' || x === null || typeof x.ref !== 'string' || !isOid(String(x.logged)) || !isOid(String(x.accepted))) {
      return 'an acknowledged ref lacks ref, logged or accepted';
    }
    if (!Array.isArray(x.findings)) return `the acknowledgement of ${x.ref} lists no findings`;
    for (const f of x.findings as unknown[]) {
      const y = f as Record<string, unknown>;
      if (typeof y !== 'object' || y === null || typeof y.code !== 'string') return `a finding acknowledged on ${x.ref} has no code`;
      if (!(y.entry === null || (Number.isSafeInteger(y.entry) && (y.entry as number) >= 0))) return `a finding acknowledged on ${x.ref} names no entry`;
      if (!(y.commit === null || (typeof y.commit === 'string' && isOid(y.commit)))) return `a finding acknowledged on ${x.ref} names no commit`;
    }
  }
  return null;
}

/** Whether the gate's recorded verdict allowed this update onto the ref: `closed` never does,
 * `hold` on a ref that is not protected, or on a protected ref when the gate accepted it as an
 * owner's push (`held_by_owner`), an ungated update never. */
export function verdictAllows(u: LoggedUpdate, kind: EntryKind): boolean {
  if (kind === 'ungated' || u.verdict === null || u.verdict === 'closed') return false;
  if (u.verdict === 'hold') return !u.protected || u.held_by_owner === true;
  return true;
}
