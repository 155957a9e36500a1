// Signed receipts: an in-toto Statement v1 whose predicate is the receipt, inside a DSSE
// envelope signed with ed25519 (Node's crypto). in-toto and sigstore tooling read this shape;
// whoever holds only the patch, and not the CI's private key, cannot mint one.
//
// DSSE v1: https://github.com/secure-systems-lab/dsse/blob/master/protocol.md
// in-toto Statement v1: https://github.com/in-toto/attestation/blob/main/spec/v1/statement.md

import { createPrivateKey, createPublicKey, generateKeyPairSync, sign, verify, type KeyObject } from 'node:crypto';
import { sha256Hex } from '../hash';

export const PAYLOAD_TYPE = 'application/vnd.in-toto+json';
export const STATEMENT_TYPE = 'https://in-toto.io/Statement/v1';
export const PREDICATE_TYPE = 'https://receipt-gate.dev/receipt/v1';

export interface DsseSignature {
  keyid: string;
  sig: string;
}

export interface DsseEnvelope {
  payloadType: string;
  /** Base64 (standard alphabet, padded) of the serialized statement. */
  payload: string;
  signatures: DsseSignature[];
}

export interface Statement<P = unknown> {
  _type: typeof STATEMENT_TYPE;
  subject: { name: string; digest: { gitCommit: string } }[];
  predicateType: string;
  predicate: P;
}

/** Pre-Authentication Encoding of DSSE v1: "DSSEv1" SP LEN(type) SP type SP LEN(body) SP body,
 * where LEN is the byte length in ASCII decimal. The signature covers these bytes, never the
 * base64 text, so a payload cannot be re-typed without breaking the signature. */
export function pae(payloadType: string, body: Uint8Array): Buffer {
  const type = Buffer.from(payloadType, 'utf8');
  return Buffer.concat([
    Buffer.from(`DSSEv1 ${type.length} `, 'ascii'),
    type,
    Buffer.from(` ${body.length} `, 'ascii'),
    body,
  ]);
}

export interface KeyPairPem {
  privateKeyPem: string;
  publicKeyPem: string;
}

export function generateKeyPair(): KeyPairPem {
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  return {
    privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicKeyPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
  };
}

export class KeyError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'KeyError';
  }
}

/** An ed25519 private key from PEM (PKCS#8) text; anything else is refused with a sentence. */
export function loadPrivateKey(pem: string, label: string): KeyObject {
  const seeded = ed25519FromSeed(pem);
  if (seeded) return seeded;
  let key: KeyObject;
  try {
    key = createPrivateKey(pem);
  } catch (err) {
    throw new KeyError(`${label} is not a PEM private key (${(err as Error).message}); create one with 'receipt-gate keygen'`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new KeyError(`${label} is a ${key.asymmetricKeyType} key; receipts are signed with ed25519 keys from 'receipt-gate keygen'`);
  }
  return key;
}

/** The DER PKCS #8 PrivateKeyInfo of an ed25519 key before its 32-byte seed (RFC 8410). */
const ED25519_PKCS8_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * The key of a PEM file that holds exactly one ed25519 PKCS #8 key (what `keygen` writes),
 * imported from its seed as a JWK: node's PEM decoder costs a short-lived hook about half a
 * millisecond more. Null for any other text, which createPrivateKey then reads (and judges).
 * OpenSSL derives the public half from the seed and ignores the JWK's `x`; the placeholder
 * given is checked not to be what came back, so a node that took `x` as given is never used.
 */
export function ed25519FromSeed(pem: string): KeyObject | null {
  const m = /^-----BEGIN PRIVATE KEY-----\r?\n([A-Za-z0-9+/]{64})\r?\n-----END PRIVATE KEY-----\r?\n?$/.exec(pem);
  if (!m) return null;
  const der = Buffer.from(m[1]!, 'base64');
  if (der.length !== 48 || !der.subarray(0, 16).equals(ED25519_PKCS8_PREFIX)) return null;
  const d = der.subarray(16).toString('base64url');
  const placeholder = Buffer.alloc(32).toString('base64url');
  try {
    const key = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d, x: placeholder }, format: 'jwk' });
    return createPublicKey(key).export({ format: 'jwk' }).x !== placeholder ? key : null;
  } catch {
    return null;
  }
}

/** An ed25519 public key from PEM (SPKI) text. A private key file is accepted too (its public
 * half is used), so a verifier can be pointed at either file of the pair. */
export function loadPublicKey(pem: string, label: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(pem);
  } catch (err) {
    throw new KeyError(`${label} is not a PEM public key (${(err as Error).message}); pass the .pub file written by 'receipt-gate keygen'`);
  }
  if (key.asymmetricKeyType !== 'ed25519') {
    throw new KeyError(`${label} is a ${key.asymmetricKeyType} key; receipts are signed with ed25519 keys from 'receipt-gate keygen'`);
  }
  return key;
}

/** The DER SubjectPublicKeyInfo of an ed25519 key before its 32 raw bytes (RFC 8410). */
const ED25519_SPKI_PREFIX = Buffer.from('302a300506032b6570032100', 'hex');
const keyIds = new WeakMap<KeyObject, string>();

/** keyid: SHA-256 (hex) of the public key's DER SubjectPublicKeyInfo. Computed once per key
 * object; for ed25519 the DER is assembled from the raw public key (its JWK `x`), the same
 * bytes OpenSSL's DER encoder writes, without loading the encoder. */
export function keyIdOf(key: KeyObject): string {
  const known = keyIds.get(key);
  if (known !== undefined) return known;
  const pub = key.type === 'private' ? createPublicKey(key) : key;
  const x = pub.asymmetricKeyType === 'ed25519' ? pub.export({ format: 'jwk' }).x : undefined;
  const der = typeof x === 'string' ? Buffer.concat([ED25519_SPKI_PREFIX, Buffer.from(x, 'base64url')]) : pub.export({ type: 'spki', format: 'der' });
  const id = sha256Hex(der);
  keyIds.set(key, id);
  return id;
}

export function statementFor<P>(subjectName: string, gitCommit: string, predicate: P): Statement<P> {
  return {
    _type: STATEMENT_TYPE,
    subject: [{ name: subjectName, digest: { gitCommit } }],
    predicateType: PREDICATE_TYPE,
    predicate,
  };
}

export function signEnvelope(payloadType: string, body: Uint8Array, privateKey: KeyObject): DsseEnvelope {
  const sig = sign(null, pae(payloadType, body), privateKey);
  return {
    payloadType,
    payload: Buffer.from(body).toString('base64'),
    signatures: [{ keyid: keyIdOf(privateKey), sig: sig.toString('base64') }],
  };
}

const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

/** Decodes base64 strictly (standard or URL-safe alphabet, as DSSE allows either); null when
 * the text is not base64. */
export function decodeBase64(text: string): Buffer | null {
  const std = text.replace(/-/g, '+').replace(/_/g, '/');
  if (!BASE64.test(std)) return null;
  const bytes = Buffer.from(std, 'base64');
  // Round-trip check: Buffer.from silently drops characters it does not understand.
  const again = bytes.toString('base64').replace(/=+$/, '');
  return again === std.replace(/=+$/, '') ? bytes : null;
}

export type EnvelopeCheck =
  | { ok: true; body: Buffer; keyid: string }
  | { ok: false; reason: string };

/** Checks the envelope's shape and that at least one signature verifies with `publicKey`
 * over PAE(payloadType, payload). Returns the payload bytes only when one does. */
export function verifyEnvelope(envelope: unknown, publicKey: KeyObject): EnvelopeCheck {
  if (!isEnvelope(envelope)) {
    return { ok: false, reason: 'not a DSSE envelope (expected {"payloadType", "payload", "signatures": [{"keyid", "sig"}]})' };
  }
  if (envelope.payloadType !== PAYLOAD_TYPE) {
    return { ok: false, reason: `payloadType is '${envelope.payloadType}', expected '${PAYLOAD_TYPE}'` };
  }
  const body = decodeBase64(envelope.payload);
  if (!body) return { ok: false, reason: 'the payload is not base64' };
  if (envelope.signatures.length === 0) return { ok: false, reason: 'the envelope carries no signature' };
  const message = pae(envelope.payloadType, body);
  for (const s of envelope.signatures) {
    const sig = decodeBase64(s.sig);
    if (sig && sig.length === 64 && verify(null, message, publicKey, sig)) return { ok: true, body, keyid: s.keyid };
  }
  return {
    ok: false,
    reason: `no signature verifies with the given public key (keyid ${keyIdOf(publicKey)}; the envelope names ${envelope.signatures
      .map((s) => s.keyid || '(none)')
      .join(', ')}): the receipt was edited after signing or signed by another key`,
  };
}

export function isEnvelope(value: unknown): value is DsseEnvelope {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const v = value as Record<string, unknown>;
  return (
    typeof v.payloadType === 'string' &&
    typeof v.payload === 'string' &&
    Array.isArray(v.signatures) &&
    v.signatures.every(
      (s) =>
        typeof s === 'object' && s !== null && typeof (s as Record<string, unknown>).sig === 'string' &&
        ((s as Record<string, unknown>).keyid === undefined || typeof (s as Record<string, unknown>).keyid === 'string'),
    )
  );
}
