import { UsageError, type CliIO } from '../io';

export const summary = 'the client pre-push hook: reads git pre-push lines on stdin';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('pre-push is not available in this build');
}
