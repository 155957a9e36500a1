import { UsageError, type CliIO } from '../io';

export const summary = 'record an observation and its witness';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('observe is not available in this build');
}
