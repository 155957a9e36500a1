import { UsageError, type CliIO } from '../io';

export const summary = 'add the policy, starter evidence, husky hooks and lint-staged entries';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('init is not available in this build');
}
