// `receipt-gate verify-receipt FILE [--ref REF] [--base REF] [--pub KEY] [--allow-unsigned] [--repo DIR]`
// What a merge bot runs before it merges: the signature, the commit, the freeze digest against
// the base, and the four merge facts. Exit 0 only when every fact holds; otherwise one line per
// failed fact and exit 1.

import { readFileSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandArgs } from '../args';
import { today } from '../clock';
import { UsageError, type CliIO } from '../io';
import { printable } from '../quote';
import { short } from '../report/index';
import { EXIT } from '../verdict';
import { KeyError, loadPublicKey } from '../receipt/dsse';
import { resolveBase, resolveCommitSpec } from '../run/base';
import { openRepository } from '../run/repository';
import { openReceipt, receiptFailures, repositoryFacts, type FailedFact } from '../receipt/verify';

const USAGE = 'receipt-gate verify-receipt FILE [--ref REF] [--base REF] [--pub KEY] [--allow-unsigned] [--repo DIR] [--now YYYY-MM-DD]';

/** Receipts are small; a larger file is refused before it is read. */
const MAX_RECEIPT_BYTES = 16 * 1024 * 1024;

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      ref: { type: 'string' },
      base: { type: 'string' },
      pub: { type: 'string' },
      'allow-unsigned': { type: 'boolean' },
      repo: { type: 'string' },
      now: { type: 'string' },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length !== 1) throw new UsageError(`expected one receipt FILE, got ${positionals.length}\nusage: ${USAGE}`);
  const file = positionals[0];
  const date = today(io, values.now);
  const filePath = resolve(io.cwd, file);
  let text: string;
  try {
    const size = statSync(filePath).size;
    if (size > MAX_RECEIPT_BYTES) throw new UsageError(`${file} is ${size} bytes; a receipt is at most ${MAX_RECEIPT_BYTES}`);
    text = readFileSync(filePath, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read the receipt ${file}: ${readFailure(err)}; pass the file 'receipt-gate receipt --out FILE' wrote`);
  }
  let publicKey = null;
  if (values.pub !== undefined) {
    let pem: string;
    try {
      pem = readFileSync(resolve(io.cwd, values.pub), 'utf8');
    } catch (err) {
      throw new UsageError(`cannot read --pub ${values.pub}: ${readFailure(err)}; pass the public key 'receipt-gate keygen' wrote (PREFIX.pub)`);
    }
    // The private key must never reach the merge bot: refuse it rather than use its public half.
    if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
      throw new UsageError(
        `--pub ${values.pub} is a private key; pass the public key (the .pub file 'receipt-gate keygen' wrote) and keep the private key as the signing CI's secret`,
      );
    }
    try {
      publicKey = loadPublicKey(pem, values.pub);
    } catch (err) {
      throw new UsageError(err instanceof KeyError ? err.message : `cannot read --pub ${values.pub}: ${(err as Error).message}`);
    }
  }

  const store = await openRepository(values.repo ?? io.cwd, io.env);
  const refGiven = values.ref ?? 'HEAD';
  const commit = await resolveCommitSpec(store, refGiven, '--ref');
  const base = await resolveBase(store, values.base === undefined ? { kind: 'default' } : { kind: 'named', spec: values.base });
  if (base.policyCommit === null || base.tip === null) throw new UsageError('no base to compare the freeze file with: pass --base REF');
  const { policy } = base;
  if (!policy) throw new UsageError(`${base.name} (${short(base.tip!)}) has no valid .receipt-gate.json; nothing can be verified against it`);

  const opened = openReceipt(text, publicKey, values['allow-unsigned'] === true);
  const failures: FailedFact[] = [...opened.failures];
  if (opened.receipt) {
    const facts = await repositoryFacts(store, policy, { commit, refName: refGiven, base: base.tip!, baseName: base.name ?? base.tip!, today: date });
    failures.push(...receiptFailures(opened.receipt, facts));
  }

  if (failures.length > 0) {
    for (const f of failures) io.stdout(`FAILED ${f.fact}: ${printable(f.reason)}\n`);
    io.stderr(`receipt-gate verify-receipt: ${printable(file)} is refused for ${printable(refGiven)} (${short(commit)}): ${failures.length} fact(s) failed; do not merge\n`);
    return EXIT.closed;
  }
  const how = opened.signed ? `signature verified (keyid ${opened.keyid?.slice(0, 16) ?? '?'})` : 'UNSIGNED (--allow-unsigned: the signature was not checked)';
  io.stdout(
    `receipt verified for ${printable(refGiven)} (${short(commit)}) against ${printable(base.name ?? "the base")} (${short(base.tip!)}): ${how}; properties passed on seed ${opened.receipt?.property_seed ?? 'none recorded'}, ${opened.receipt?.fixtures.length ?? 0} fixture(s) match, evidence untouched, freeze digest equals the base's, verdict eligible\n`,
  );
  return 0;
}

/** Why a file could not be read, as a phrase (no errno dump). */
function readFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'a directory, not a file';
  return err instanceof Error ? err.message : String(err);
}
