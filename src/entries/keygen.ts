// `receipt-gate keygen [--out PREFIX] [--log] [--force]`: an ed25519 key pair.
//   receipts (default)  PREFIX.key (PKCS#8 PEM, mode 0600) stays with the CI as a secret;
//                       PREFIX.pub (SPKI PEM) goes to the merge bot (`verify-receipt --pub`).
//   --log               the server's push-log key: PREFIX.key stays on the git server, outside
//                       every repository (`install.sh --server --log-key`); PREFIX.pub goes to
//                       mirrors and merge bots (`verify-log --pub`). docs/push-log.md.
// PREFIX's folder is created when it does not exist (mode 0700).

import { existsSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import { createPublicKey } from 'node:crypto';
import { dirname, resolve } from 'node:path';
import { parseCommandArgs } from '../args';
import { UsageError, type CliIO } from '../io';
import { quotePath } from '../quote';
import { generateKeyPair, keyIdOf } from '../receipt/dsse';

const USAGE = 'receipt-gate keygen [--out PREFIX] [--log] [--force]   (writes PREFIX.key and PREFIX.pub, creating PREFIX\'s folder; default PREFIX receipt-gate; --log: the server\'s push-log key)';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      out: { type: 'string', description: 'write PREFIX.key and PREFIX.pub (default receipt-gate)' },
      log: { type: 'boolean', description: "make the server's push-log key instead of a receipt-signing key" },
      force: { type: 'boolean', description: 'overwrite an existing key pair' },
    },
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
  let made = false;
  if (!isFolder(folder)) {
    try {
      made = mkdirSync(folder, { recursive: true, mode: 0o700 }) !== undefined;
    } catch (err) {
      throw new UsageError(`cannot write ${quotePath(`${prefix}.key`)}: the folder ${quotePath(folder)} cannot be created (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}); pass another --out PREFIX`);
    }
  }
  for (const p of [keyPath, pubPath]) {
    if (existsSync(p) && !values.force) throw new UsageError(`${p} exists; pass --force to replace it (the old key's receipts will no longer verify with the new one)`);
  }
  const pair = generateKeyPair();
  writeFileSync(keyPath, pair.privateKeyPem, { mode: 0o600 });
  writeFileSync(pubPath, pair.publicKeyPem, { mode: 0o644 });
  const keyid = keyIdOf(createPublicKey(pair.publicKeyPem));
  const created = made ? `created ${quotePath(folder)} (mode 0700)\n` : '';
  io.stdout(
    values.log
      ? `${created}wrote ${prefix}.key (private: the server's push-log key; keep it on the git server only, outside every repository and its backups, owned by the account that runs git, chmod 0400; install.sh --server --log-key ${prefix}.key) and ${prefix}.pub (give it to mirrors and merge bots: verify-log --pub)\nkeyid ${keyid}\n`
      : `${created}wrote ${prefix}.key (private, keep it as a CI secret) and ${prefix}.pub (give it to the merge bot)\nkeyid ${keyid}\n` +
          `(a key for the server's push log: keygen --log; it stays on the git server, docs/push-log.md)\n`,
  );
  return 0;
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}
