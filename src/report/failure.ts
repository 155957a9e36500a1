// A run that checked nothing (exit 2: bad arguments, no repository, no policy at the base) or
// failed on something unexpected (INTERNAL_ERROR, exit 1). Machine formats print it too, so a
// CI step that asked for SARIF or JUnit never gets an empty stdout.

import { UsageError } from '../io';

export interface SetupFailure {
  command: string;
  message: string;
  /** 2 for a usage or setup error, 1 for an internal error (the gate failed closed). */
  exitCode: number;
  unguarded?: boolean;
  base?: string | null;
  head?: string | null;
}

/** A setup error that knows more than its sentence: the commits involved, whether the
 * repository is unguarded. Thrown by an entry; src/cli.ts prints it in the requested format. */
export class SetupError extends UsageError {
  readonly details: Pick<SetupFailure, 'unguarded' | 'base' | 'head'>;
  constructor(message: string, details: Pick<SetupFailure, 'unguarded' | 'base' | 'head'> = {}) {
    super(message);
    this.name = 'SetupError';
    this.details = details;
  }
}
