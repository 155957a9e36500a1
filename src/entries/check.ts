import { UsageError, type CliIO } from '../io';

export const summary = 'validate evidence files in the working tree (lint-staged)';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('check is not available in this build');
}
