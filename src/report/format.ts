// --format: which form a command prints its outcome in. Every format prints setup errors too
// (exit 2) and internal errors (exit 1), so a CI step that asked for SARIF or JUnit always
// gets a document to upload, never an empty stdout.

import { UsageError } from '../io';
import type { SetupFailure } from './failure';
import { githubFailure, toGithub } from './github';
import { jsonFailure, renderJson, toJson } from './json';
import { junitFailure, toJunit } from './junit';
import type { Outcome } from './outcome';
import { renderSarif, sarifFailure, toSarif } from './sarif';
import { renderText } from './text';
import { printable } from '../quote';

export const FORMATS = ['text', 'json', 'sarif', 'github', 'junit'] as const;
export type Format = (typeof FORMATS)[number];

export function isFormat(value: string): value is Format {
  return (FORMATS as readonly string[]).includes(value);
}

/** The format from `--format NAME` and `--json` (the same as `--format json`). */
export function formatOption(values: { format?: string; json?: boolean }): Format {
  const given = values.format;
  if (given === undefined) return values.json ? 'json' : 'text';
  if (!isFormat(given)) throw new UsageError(`--format must be one of ${FORMATS.join(', ')}; got '${printable(given)}'`);
  if (values.json && given !== 'json') throw new UsageError(`--json is --format json; it cannot be combined with --format ${given}`);
  return given;
}

/**
 * The format a command line asks for, read before the command's own parsing (which may be
 * what fails): the last `--format NAME`, `--format=NAME` or `--json`. Unknown names are
 * text: an error about the format itself is then printed as text.
 */
export function requestedFormat(args: readonly string[]): Format {
  let format: Format = 'text';
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    if (arg === '--') break;
    if (arg === '--json') format = 'json';
    const value = arg === '--format' ? args[i + 1] : arg.startsWith('--format=') ? arg.slice('--format='.length) : undefined;
    if (value !== undefined && isFormat(value)) format = value;
  }
  return format;
}

/** The outcome in `format`; for text, what goes to the terminal. */
export function renderOutcome(format: Format, outcome: Outcome, version: string): string {
  switch (format) {
    case 'json':
      return renderJson(toJson(outcome));
    case 'sarif':
      return renderSarif(toSarif(outcome, version));
    case 'github':
      return toGithub(outcome);
    case 'junit':
      return toJunit(outcome);
    case 'text':
      return renderText(outcome);
  }
}

/** A run that checked nothing, in `format`; null for text (its sentence goes to stderr). */
export function renderFailure(format: Format, failure: SetupFailure, version: string): string | null {
  switch (format) {
    case 'json':
      return renderJson(jsonFailure(failure));
    case 'sarif':
      return renderSarif(sarifFailure(failure, version));
    case 'github':
      return githubFailure(failure);
    case 'junit':
      return junitFailure(failure);
    case 'text':
      return null;
  }
}
