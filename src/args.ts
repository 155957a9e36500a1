// Argument parsing shared by the entries: node's parseArgs, with its errors turned into
// usage errors (exit 2) that say what was wrong (and which flag was meant, for a misspelt
// one), and `--help`/`-h` answered the same way by every command, listing every flag it takes.

import { parseArgs, type ParseArgsConfig } from 'node:util';
import { UsageError, type CliIO } from './io';
import { printable } from './quote';

type Options = NonNullable<ParseArgsConfig['options']>;

export interface ParsedArgs<O extends Options> {
  values: { [K in keyof O]?: O[K]['type'] extends 'boolean' ? boolean : string };
  positionals: string[];
}

/** Parses `args`; prints `usage` and every flag, and returns null, when help was asked for. */
export function parseCommandArgs<O extends Options>(args: string[], options: O, usage: string, io: CliIO): ParsedArgs<O> | null {
  const all: Options = { ...options, help: { type: 'boolean', short: 'h' } };
  let parsed;
  try {
    parsed = parseArgs({ args, options: all, allowPositionals: true, strict: true });
  } catch (err) {
    throw new UsageError(`${argumentError(err, all)}\nusage: ${usage}`);
  }
  if ((parsed.values as { help?: boolean }).help) {
    io.stdout(helpText(usage, all));
    return null;
  }
  return parsed as never;
}

/** `usage`, then one line per flag with the placeholder the usage gives it. */
export function helpText(usage: string, options: Options): string {
  const lines = [`usage: ${usage}`, '', 'options:'];
  for (const [name, option] of Object.entries(options)) {
    const placeholder = option.type === 'string' ? ` ${placeholderOf(usage, name)}` : '';
    const short = option.short ? `-${option.short}, ` : '';
    // A command may describe a flag in one line (`description` beside its type).
    const described = name === 'help' ? 'show this help' : (option as { description?: string }).description;
    lines.push(`  ${short}--${name}${placeholder}${described ? `   ${described}` : ''}`);
  }
  return `${lines.join('\n')}\n`;
}

/** The word the usage writes after `--name` (`FILE`, `FILE.json`, `text|json`, `7d`), or VALUE. */
function placeholderOf(usage: string, name: string): string {
  const match = new RegExp(`--${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}[ =]([^\\s\\[\\]()-][^\\s\\[\\]()]*)`).exec(usage);
  return match?.[1] ?? 'VALUE';
}

/** parseArgs' complaint as one sentence, naming the flag; for an unknown flag, the nearest
 * known one. */
function argumentError(err: unknown, options: Options): string {
  const code = (err as { code?: string }).code;
  const message = err instanceof Error ? err.message.split('\n')[0]! : String(err);
  const flag = /'(-[^' ]+)/.exec(message)?.[1];
  if (code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' && flag) {
    const guess = nearestFlag(flag, Object.keys(options));
    return `unknown option '${printable(flag)}'${guess ? `; did you mean --${guess}?` : ''}`;
  }
  if (code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE' && flag) {
    const name = flag.replace(/^-+/, '').split(/[ =]/)[0]!;
    const option = options[name] ?? Object.entries(options).find(([, o]) => o.short === name)?.[1];
    if (option?.type === 'string') return `--${name} needs a value`;
    return `--${name} takes no value`;
  }
  return printable(message);
}

/** The known flag closest to `given` (edit distance at most 2, or a unique prefix). */
export function nearestFlag(given: string, known: readonly string[]): string | null {
  return nearestName(given.replace(/^-+/, '').split('=')[0]!, known);
}

/** The known name (a flag, a command) closest to `name`: a unique prefix, else the nearest by
 * edit distance when it is at most 2 (1 for short names); null when nothing is that close. */
export function nearestName(name: string, known: readonly string[]): string | null {
  const prefixed = known.filter((k) => k.startsWith(name) && name.length >= 2);
  if (prefixed.length === 1) return prefixed[0]!;
  let best: string | null = null;
  let bestDistance = Infinity;
  for (const k of known) {
    const d = editDistance(name, k);
    if (d < bestDistance) {
      best = k;
      bestDistance = d;
    }
  }
  return best !== null && bestDistance <= Math.min(2, Math.max(1, Math.floor(best.length / 3))) ? best : null;
}

/** Damerau-Levenshtein distance (adjacent transpositions count as one edit). */
function editDistance(a: string, b: string): number {
  const d: number[][] = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)));
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1);
    }
  }
  return d[a.length]![b.length]!;
}
