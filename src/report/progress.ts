// Progress for long commands (receipt runs the grader, fixtures, properties): one line on a
// terminal, rewritten in place as steps go by, and erased at the end; nothing at all when
// stderr is not a terminal (CI logs, hooks, pipes), where such lines would only be noise.

import { printable } from '../quote';

export interface Progress {
  /** Shows `text` as the current step (terminal only). */
  step(text: string): void;
  /** Clears the progress line; later output starts on a clean line. */
  done(): void;
}

export interface ProgressTarget {
  write(text: string): void;
  /** Whether the stream is a terminal; default: process.stderr.isTTY. */
  isTTY?: boolean;
  /** Columns to fit the line in; default: process.stderr.columns or 80. */
  columns?: number;
  env?: NodeJS.ProcessEnv;
}

const QUIET: Progress = { step: () => undefined, done: () => undefined };

export function progress(target: ProgressTarget): Progress {
  const tty = target.isTTY ?? process.stderr.isTTY === true;
  // NO_COLOR users still get progress; TERM=dumb cannot rewrite a line.
  if (!tty || target.env?.TERM === 'dumb' || target.env?.CI) return QUIET;
  const width = Math.max(20, (target.columns ?? process.stderr.columns ?? 80) - 1);
  let shown = false;
  return {
    step(text: string) {
      const line = printable(text);
      const fitted = line.length > width ? `${line.slice(0, width - 3)}...` : line;
      target.write(`\r\u001b[2K${fitted}`);
      shown = true;
    },
    done() {
      if (shown) target.write('\r\u001b[2K');
      shown = false;
    },
  };
}
