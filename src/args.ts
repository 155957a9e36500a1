// Argument parsing shared by the entries: node's parseArgs, with its errors turned into
// usage errors (exit 2) that say what was wrong.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError } from './io';

type Options = NonNullable<ParseArgsConfig['options']>;

export function parseCommandArgs<O extends Options>(
  args: string[],
  options: O,
  usage: string,
): { values: { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string }; positionals: string[] } {
  try {
    const parsed = parseArgs({ args, options, allowPositionals: true, strict: true });
    return parsed as never;
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UsageError(`${message}\nusage: ${usage}`);
  }
}
