import { UsageError, type CliIO } from '../io';

export const summary = 'the server hook: reads <old> <new> <ref> lines on stdin';

export async function run(_args: string[], _io: CliIO): Promise<number> {
  throw new UsageError('pre-receive is not available in this build');
}
