import { UsageError, type CliIO } from '../io';

export const summary = 'manifest sample --seed N: draw the property manifest';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('manifest is not available in this build');
}
