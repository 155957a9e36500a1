// DSSE envelopes and in-toto statements: PAE as the DSSE v1 spec writes it, signatures checked
// by independent implementations (openssl's ed25519; Debian's python3-securesystemslib, the
// library in-toto's own verifier is built on, on a receipt the CLI signed), tampering refused.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { createHash, createPublicKey } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import {
  decodeBase64,
  ed25519FromSeed,
  generateKeyPair,
  keyIdOf,
  loadPrivateKey,
  loadPublicKey,
  pae,
  PAYLOAD_TYPE,
  signEnvelope,
  statementFor,
  verifyEnvelope,
} from '../../src/receipt/dsse';
import { cli, exampleRepo, GRADER } from './helpers';
import { commitAll, git, tempDir } from '../helpers/git';

test('PAE matches the test vector of the DSSE v1 protocol', () => {
  assert.is(pae('http://example.com/HelloWorld', Buffer.from('hello world')).toString('utf8'), 'DSSEv1 29 http://example.com/HelloWorld 11 hello world');
});

test('PAE lengths are byte lengths, as python3 computes them (differential)', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 12 }), fc.uint8Array({ maxLength: 40 }), (type, body) => {
      const script =
        'import sys,base64\n' +
        't=base64.b64decode(sys.argv[1]); b=base64.b64decode(sys.argv[2])\n' +
        'sys.stdout.write(base64.b64encode(b"DSSEv1 %d %s %d %s" % (len(t), t, len(b), b)).decode())';
      const expected = execFileSync('python3', ['-c', script, Buffer.from(type, 'utf8').toString('base64'), Buffer.from(body).toString('base64')]).toString();
      return pae(type, body).toString('base64') === expected;
    }),
    { seed: 20261129, numRuns: 12 },
  );
});

test('an envelope signed here verifies with openssl (independent ed25519) over PAE', () => {
  const dir = tempDir('dsse');
  const pair = generateKeyPair();
  writeFileSync(join(dir, 'k.pub'), pair.publicKeyPem);
  const statement = statementFor('refs/heads/x', 'a'.repeat(40), { note: 'héllo, 世界 🚀' });
  const body = Buffer.from(JSON.stringify(statement), 'utf8');
  const env = signEnvelope(PAYLOAD_TYPE, body, loadPrivateKey(pair.privateKeyPem, 'k'));
  // PAE built by python3 from the envelope's own fields, signature checked by openssl.
  const paeBytes = execFileSync('python3', [
    '-c',
    'import sys,base64\nt=sys.argv[1].encode(); b=base64.b64decode(sys.argv[2])\nsys.stdout.buffer.write(b"DSSEv1 %d %s %d %s" % (len(t), t, len(b), b))',
    env.payloadType,
    env.payload,
  ]);
  writeFileSync(join(dir, 'pae.bin'), paeBytes);
  writeFileSync(join(dir, 'sig.bin'), Buffer.from(env.signatures[0].sig, 'base64'));
  const out = execFileSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', join(dir, 'k.pub'), '-rawin', '-in', join(dir, 'pae.bin'), '-sigfile', join(dir, 'sig.bin')]).toString();
  assert.match(out, /Signature Verified Successfully/);
  const check = verifyEnvelope(env, loadPublicKey(pair.publicKeyPem, 'k.pub'));
  assert.ok(check.ok);
  if (check.ok) assert.equal(JSON.parse(check.body.toString('utf8')), statement);
});

test('keyid: the SHA-256 of the DER SPKI openssl writes, for the private key, its public half and its PEM', () => {
  const dir = tempDir('dsse');
  for (let i = 0; i < 5; i++) {
    const pair = generateKeyPair();
    writeFileSync(join(dir, 'k.key'), pair.privateKeyPem);
    const der = execFileSync('openssl', ['pkey', '-in', join(dir, 'k.key'), '-pubout', '-outform', 'DER']);
    const want = createHash('sha256').update(der).digest('hex');
    const priv = loadPrivateKey(pair.privateKeyPem, 'k');
    const pub = loadPublicKey(pair.publicKeyPem, 'k.pub');
    assert.is(keyIdOf(priv), want);
    assert.is(keyIdOf(priv), want, 'cached');
    assert.is(keyIdOf(pub), want);
    assert.is(keyIdOf(createPublicKey(priv)), createHash('sha256').update(createPublicKey(priv).export({ type: 'spki', format: 'der' })).digest('hex'));
  }
});

test('a signature made by openssl over PAE verifies here', () => {
  const dir = tempDir('dsse');
  execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519', '-out', join(dir, 'o.key')]);
  execFileSync('openssl', ['pkey', '-in', join(dir, 'o.key'), '-pubout', '-out', join(dir, 'o.pub')]);
  const body = Buffer.from(JSON.stringify(statementFor('x', 'b'.repeat(40), { ok: true })));
  const type = Buffer.from(PAYLOAD_TYPE);
  writeFileSync(join(dir, 'pae.bin'), Buffer.concat([Buffer.from(`DSSEv1 ${type.length} `), type, Buffer.from(` ${body.length} `), body]));
  const sig = execFileSync('openssl', ['pkeyutl', '-sign', '-inkey', join(dir, 'o.key'), '-rawin', '-in', join(dir, 'pae.bin')]);
  const pub = execFileSync('cat', [join(dir, 'o.pub')]).toString();
  const env = { payloadType: PAYLOAD_TYPE, payload: body.toString('base64'), signatures: [{ keyid: '', sig: sig.toString('base64') }] };
  assert.ok(verifyEnvelope(env, loadPublicKey(pub, 'o.pub')).ok);
});

test('tampering with the payload, the type or the signature is refused', () => {
  const pair = generateKeyPair();
  const pub = loadPublicKey(pair.publicKeyPem, 'k.pub');
  const body = Buffer.from(JSON.stringify(statementFor('r', 'c'.repeat(40), { verdict: 'closed' })));
  const env = signEnvelope(PAYLOAD_TYPE, body, loadPrivateKey(pair.privateKeyPem, 'k'));
  const edited = Buffer.from(body.toString().replace('closed', 'eligible'));
  assert.not.ok(verifyEnvelope({ ...env, payload: edited.toString('base64') }, pub).ok);
  assert.not.ok(verifyEnvelope({ ...env, payloadType: 'application/json' }, pub).ok);
  const sig = Buffer.from(env.signatures[0].sig, 'base64');
  sig[10] ^= 1;
  assert.not.ok(verifyEnvelope({ ...env, signatures: [{ keyid: env.signatures[0].keyid, sig: sig.toString('base64') }] }, pub).ok);
  assert.not.ok(verifyEnvelope({ ...env, signatures: [] }, pub).ok);
  assert.not.ok(verifyEnvelope({ payload: env.payload }, pub).ok);
  const other = generateKeyPair();
  assert.not.ok(verifyEnvelope(env, loadPublicKey(other.publicKeyPem, 'other.pub')).ok);
  assert.ok(verifyEnvelope(env, pub).ok);
});

test('base64 is decoded strictly; URL-safe base64 is accepted as DSSE allows', () => {
  assert.equal(decodeBase64('aGVsbG8='), Buffer.from('hello'));
  assert.equal(decodeBase64('-_8='), Buffer.from([0xfb, 0xff]));
  assert.is(decodeBase64('aGVs bG8='), null);
  assert.is(decodeBase64('aGVsbG8=!'), null);
});

test('keys: a non-ed25519 key and garbage are refused with a sentence', () => {
  const rsa = execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:1024'], { stdio: ['ignore', 'pipe', 'ignore'] }).toString();
  assert.throws(() => loadPrivateKey(rsa, 'rsa.key'), /rsa key; receipts are signed with ed25519/);
  assert.throws(() => loadPrivateKey('nope', 'x.key'), /x\.key is not a PEM private key/);
  assert.throws(() => loadPublicKey('nope', 'x.pub'), /x\.pub is not a PEM public key/);
});

test('keys: an ed25519 PKCS #8 key read from its seed is the key openssl wrote, and signs as openssl does', () => {
  const dir = tempDir('dsse-seed');
  for (let i = 0; i < 6; i++) {
    // openssl writes the key and derives its public half (an independent reading of the seed).
    const pem = execFileSync('openssl', ['genpkey', '-algorithm', 'ed25519']).toString();
    writeFileSync(join(dir, 'k.pem'), pem);
    const pub = execFileSync('openssl', ['pkey', '-in', join(dir, 'k.pem'), '-pubout']).toString();
    const seeded = ed25519FromSeed(pem);
    assert.ok(seeded, 'a keygen-shaped PEM is read from its seed');
    assert.is(createPublicKey(seeded!).export({ format: 'pem', type: 'spki' }), pub);
    const msg = Buffer.from(`message ${i}`);
    writeFileSync(join(dir, 'm.bin'), msg);
    writeFileSync(join(dir, 'k.pub'), pub);
    const env = signEnvelope(PAYLOAD_TYPE, msg, loadPrivateKey(pem, 'k.pem'));
    writeFileSync(join(dir, 'pae.bin'), pae(PAYLOAD_TYPE, msg));
    writeFileSync(join(dir, 'sig.bin'), Buffer.from(env.signatures[0].sig, 'base64'));
    const out = execFileSync('openssl', ['pkeyutl', '-verify', '-pubin', '-inkey', join(dir, 'k.pub'), '-rawin', '-in', join(dir, 'pae.bin'), '-sigfile', join(dir, 'sig.bin')]).toString();
    assert.match(out, /Signature Verified Successfully/);
  }
  // Anything else is left to node's PEM reader (and its refusals).
  const pem = generateKeyPair().privateKeyPem;
  assert.is(ed25519FromSeed(pem.replace('-----END', 'x-----END')), null);
  assert.is(ed25519FromSeed(`${pem}${pem}`), null);
  assert.is(ed25519FromSeed(pem.replace('BEGIN PRIVATE KEY', 'BEGIN ENCRYPTED PRIVATE KEY')), null);
  const pkcs8v2 = execFileSync('openssl', ['genpkey', '-algorithm', 'x25519']).toString();
  assert.is(ed25519FromSeed(pkcs8v2), null);
  assert.throws(() => loadPrivateKey(pkcs8v2, 'x.key'), /x25519 key; receipts are signed with ed25519/);
});

/** An in-toto verifier's reading of a DSSE envelope, with securesystemslib 0.26 (Debian's
 * python3-securesystemslib: /usr/bin/python3, not the pyenv python3 on PATH): the ed25519
 * public key from the SPKI PEM as securesystemslib's key dict, PAE per DSSE v1, the signature
 * checked by SSlibKey.verify_signature, the statement read as in-toto Statement v1. */
const SSLIB_VERIFY = `
import base64, json, sys
from securesystemslib.signer import SSlibKey, Signature
from securesystemslib import exceptions
envelope = json.load(open(sys.argv[1]))
pem = open(sys.argv[2]).read()
der = base64.b64decode("".join(l for l in pem.splitlines() if not l.startswith("-----")))
prefix = bytes.fromhex("302a300506032b6570032100")  # SPKI of an ed25519 key (RFC 8410)
assert der[:12] == prefix and len(der) == 44, "not an ed25519 SPKI public key"
import hashlib
keyid = hashlib.sha256(der).hexdigest()  # securesystemslib wants a hex keyid; this is receipt-gate's too
key = SSlibKey(keyid, "ed25519", "ed25519", {"public": der[12:].hex()})
payload = base64.b64decode(envelope["payload"])
ptype = envelope["payloadType"].encode()
pae = b"DSSEv1 %d %s %d %s" % (len(ptype), ptype, len(payload), payload)
results = []
for s in envelope["signatures"]:
    try:
        key.verify_signature(Signature(keyid, base64.b64decode(s["sig"]).hex()), pae)
        results.append(True)
    except exceptions.UnverifiedSignatureError:
        results.append(False)
statement = json.loads(payload)
print(json.dumps({"verified": results, "keyids": [s["keyid"] == keyid for s in envelope["signatures"]], "type": statement["_type"], "subject": statement["subject"], "predicateType": statement["predicateType"], "payloadType": envelope["payloadType"]}))
`;

function sslibVerify(envelopeFile: string, pubFile: string): { verified: boolean[]; keyids: boolean[]; type: string; subject: { digest: Record<string, string> }[]; predicateType: string; payloadType: string } {
  return JSON.parse(execFileSync('/usr/bin/python3', ['-c', SSLIB_VERIFY, envelopeFile, pubFile]).toString());
}

test('a receipt signed by `receipt --sign-key` verifies with securesystemslib (DSSE, ed25519, in-toto Statement v1)', async () => {
  const { repo } = exampleRepo();
  const keys = tempDir('sslib');
  assert.is((await cli(keys, ['keygen', '--out', 'ci'])).code, 0);
  git(repo, ['checkout', '-q', '-b', 'patch', 'main']);
  writeFileSync(join(repo, 'NOTES.md'), 'a patch that touches no evidence\n');
  const sha = commitAll(repo, 'notes');
  const out = join(keys, 'receipt.json');
  const r = await cli(repo, ['receipt', '--ref', 'patch', '--base', 'main', ...GRADER, '--out', out, '--sign-key', join(keys, 'ci.key')]);
  assert.is(r.code, 0, r.stdout + r.stderr);

  const seen = sslibVerify(out, join(keys, 'ci.pub'));
  assert.equal(seen.verified, [true]);
  assert.equal(seen.keyids, [true], 'the envelope names the key by the SHA-256 of its SPKI');
  assert.is(seen.type, 'https://in-toto.io/Statement/v1');
  assert.is(seen.payloadType, 'application/vnd.in-toto+json');
  assert.equal(seen.subject[0]!.digest, { gitCommit: sha });

  // The same verifier refuses an edited payload and another key.
  const envelope = JSON.parse(readFileSync(out, 'utf8'));
  const edited = Buffer.from(Buffer.from(envelope.payload, 'base64').toString('utf8').replace('"eligible"', '"closed"'));
  writeFileSync(join(keys, 'edited.json'), JSON.stringify({ ...envelope, payload: edited.toString('base64') }));
  assert.equal(sslibVerify(join(keys, 'edited.json'), join(keys, 'ci.pub')).verified, [false]);
  assert.is((await cli(keys, ['keygen', '--out', 'other'])).code, 0);
  assert.equal(sslibVerify(out, join(keys, 'other.pub')).verified, [false]);

  // verify-receipt takes the public key only: the private key is refused with a sentence.
  const priv = await cli(repo, ['verify-receipt', out, '--ref', 'patch', '--base', 'main', '--pub', join(keys, 'ci.key')]);
  assert.is(priv.code, 2, priv.stdout + priv.stderr);
  assert.match(priv.stderr, /--pub .*ci\.key is a private key; pass the public key/);
  const ok = await cli(repo, ['verify-receipt', out, '--ref', 'patch', '--base', 'main', '--pub', join(keys, 'ci.pub')]);
  assert.is(ok.code, 0, ok.stdout + ok.stderr);
});

test.run();
