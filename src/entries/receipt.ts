import { UsageError, type CliIO } from '../io';

export const summary = 'run the grader on a clean tree and write the receipt';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('receipt is not available in this build');
}
