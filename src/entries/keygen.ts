import { UsageError, type CliIO } from '../io';

export const summary = 'write an ed25519 key pair for signing receipts';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('keygen is not available in this build');
}
