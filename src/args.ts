// Argument parsing shared by the entries: node's parseArgs, with its errors turned into
// usage errors (exit 2) that say what was wrong, and `--help`/`-h` answered the same way by
// every command.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type CliIO } from './io';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs<O extends Options> {
  values: { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };
  positionals: string[];
}

/** Parses `args`; prints `usage` and returns null when help was asked for. */
export function parseCommandArgs<O extends Options>(args: string[], options: O, usage: string, io: CliIO): ParsedArgs<O> | null {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: { ...options, help: { type: 'boolean', short: 'h' } },
      allowPositionals: true,
      strict: true,
    });
  } catch (err) {
    const message = err instanceof Error ? err.message.split('\n')[0] : String(err);
    throw new UsageError(`${message}\nusage: ${usage}`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    io.stdout(`usage: ${usage}\n`);
    return null;
  }
  return parsed as never;
}
