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

import type { KeyObject } from 'node:crypto';
import { sha256Hex } from '../hash';
import { isEnvelope, PAYLOAD_TYPE, STATEMENT_TYPE, signEnvelope, verifyEnvelope, type DsseEnvelope, type Statement } from '../receipt/dsse';
import { isOid, ZERO_OID } from '../types';

export const LOG_PREDICATE_TYPE = 'https://receipt-gate.dev/push-log/v1';
export const LOG_SCHEMA = 'receipt-gate-push-log/v1';
/** The ref the log lives under; no push may write anything under refs/receipt-gate/. */
export const LOG_REF = 'refs/receipt-gate/log';
export const RESERVED_PREFIX = 'refs/receipt-gate/';

export type EntryKind = 'genesis' | 'push' | 'ungated';

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
}

export function statementOf(p: LogPredicate): Statement<LogPredicate> {
  const subject =
    p.kind === 'genesis'
      ? Object.entries(p.refs ?? {}).map(([name, oid]) => ({ name, digest: { gitCommit: oid } }))
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

const KINDS = new Set(['genesis', 'push', 'ungated']);
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
  return null;
}

/** Whether the gate's recorded verdict allowed this update onto the ref: `closed` never does,
 * `hold` only on a ref that is not protected, an ungated update never. */
export function verdictAllows(u: LoggedUpdate, kind: EntryKind): boolean {
  if (kind === 'ungated' || u.verdict === null || u.verdict === 'closed') return false;
  if (u.verdict === 'hold') return !u.protected;
  return true;
}
