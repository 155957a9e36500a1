import { UsageError, type CliIO } from '../io';

export const summary = 'verify a receipt before a merge';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('verify-receipt is not available in this build');
}
