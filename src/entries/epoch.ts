import { UsageError, type CliIO } from '../io';

export const summary = 'epoch pin --id ID: pin the generator digest';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('epoch is not available in this build');
}
