// `receipt-gate keygen [--out PREFIX] [--force]`: an ed25519 key pair for signing receipts.
// PREFIX.key (PKCS#8 PEM, mode 0600) stays with the CI as a secret; PREFIX.pub (SPKI PEM)
// goes to the merge bot, which passes it to `verify-receipt --pub`.

import { existsSync, statSync, writeFileSync } from 'node:fs';
import { createPublicKey } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { parseCommandArgs } from '../args';
import { UsageError, type CliIO } from '../io';
import { quotePath } from '../quote';
import { generateKeyPair, keyIdOf } from '../receipt/dsse';

const USAGE = 'receipt-gate keygen [--out PREFIX] [--force]   (writes PREFIX.key and PREFIX.pub; default PREFIX receipt-gate)';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    { out: { type: 'string' }, force: { type: 'boolean' } },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'\nusage: ${USAGE}`);
  if (values.out === '') throw new UsageError(`--out needs a PREFIX, e.g. --out keys/receipt-gate\nusage: ${USAGE}`);
  const prefix = values.out ?? 'receipt-gate';
  const keyPath = resolve(io.cwd, `${prefix}.key`);
  const pubPath = resolve(io.cwd, `${prefix}.pub`);
  const folder = dirname(keyPath);
  let isFolder = false;
  try {
    isFolder = statSync(folder).isDirectory();
  } catch {
    // missing: said below
  }
  if (!isFolder) {
    throw new UsageError(`cannot write ${quotePath(`${prefix}.key`)}: the folder ${quotePath(folder)} does not exist; create it first (mkdir -p) or pass another --out PREFIX`);
  }
  for (const p of [keyPath, pubPath]) {
    if (existsSync(p) && !values.force) throw new UsageError(`${p} exists; pass --force to replace it (the old key's receipts will no longer verify with the new one)`);
  }
  const pair = generateKeyPair();
  writeFileSync(keyPath, pair.privateKeyPem, { mode: 0o600 });
  writeFileSync(pubPath, pair.publicKeyPem, { mode: 0o644 });
  const keyid = keyIdOf(createPublicKey(pair.publicKeyPem));
  io.stdout(
    `wrote ${prefix}.key (private, keep it as a CI secret) and ${prefix}.pub (give it to the merge bot)\nkeyid ${keyid}\n`,
  );
  return 0;
}
