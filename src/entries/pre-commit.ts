import { UsageError, type CliIO } from '../io';

export const summary = 'the client pre-commit hook: checks the staged index';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('pre-commit is not available in this build');
}
