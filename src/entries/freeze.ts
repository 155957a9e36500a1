import { UsageError, type CliIO } from '../io';

export const summary = 'freeze add|list|prune: manage freeze.json';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('freeze is not available in this build');
}
