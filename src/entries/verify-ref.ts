import { UsageError, type CliIO } from '../io';

export const summary = 'one-shot audit of REF (default HEAD) against the base';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('verify-ref is not available in this build');
}
