// receipt-gate command line: parse the command name, dispatch to one entry module.
// Every entry is a thin adapter from its protocol (argv, git's hook stdin) to the engine.

import { processIO, UsageError, type CliIO } from './io';
import { EXIT } from './verdict';
import * as verifyRef from './entries/verify-ref';
import * as preReceive from './entries/pre-receive';
import * as prePush from './entries/pre-push';
import * as preCommit from './entries/pre-commit';
import * as check from './entries/check';
import * as receipt from './entries/receipt';
import * as verifyReceipt from './entries/verify-receipt';
import * as keygen from './entries/keygen';
import * as init from './entries/init';
import * as epoch from './entries/epoch';
import * as manifest from './entries/manifest';
import * as freeze from './entries/freeze';
import * as observe from './entries/observe';

declare const RECEIPT_GATE_VERSION: string;
export const VERSION = typeof RECEIPT_GATE_VERSION === 'string' ? RECEIPT_GATE_VERSION : '0.0.0-dev';

export interface Entry {
  summary: string;
  run(args: string[], io: CliIO): Promise<number>;
}

export const COMMANDS: Record<string, Entry> = {
  'verify-ref': verifyRef,
  'pre-receive': preReceive,
  'pre-push': prePush,
  'pre-commit': preCommit,
  check,
  receipt,
  'verify-receipt': verifyReceipt,
  keygen,
  init,
  epoch,
  manifest,
  freeze,
  observe,
};

function usage(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((c) => c.length));
  const lines = Object.entries(COMMANDS).map(([name, e]) => `  ${name.padEnd(width)}  ${e.summary}`);
  return [
    `receipt-gate ${VERSION}: keeps a patch off the evidence that judges it.`,
    '',
    'usage: receipt-gate <command> [options]   (receipt-gate <command> --help for its options)',
    '',
    ...lines,
    '',
    'exit codes: 0 eligible, 1 closed, 3 hold, 2 usage or setup error (nothing was checked)',
    '',
  ].join('\n');
}

export async function main(argv: string[], io: CliIO): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    io.stdout(usage());
    return command === undefined ? EXIT.usage : 0;
  }
  if (command === '--version' || command === 'version') {
    io.stdout(`${VERSION}\n`);
    return 0;
  }
  const entry = COMMANDS[command];
  if (!entry) {
    io.stderr(`receipt-gate: unknown command '${command}'. Run 'receipt-gate help' for the list.\n`);
    return EXIT.usage;
  }
  try {
    return await entry.run(rest, io);
  } catch (err) {
    if (err instanceof UsageError) {
      io.stderr(`receipt-gate ${command}: ${err.message}\n`);
      return EXIT.usage;
    }
    // Fail closed: an unexpected error is a rejection with a sentence, never a pass.
    const message = err instanceof Error ? err.message : String(err);
    io.stderr(
      `receipt-gate ${command}: INTERNAL_ERROR: ${message}\n` +
        `  the gate failed closed; re-run with RECEIPT_GATE_DEBUG=1 for the stack and report it.\n`,
    );
    if (io.env.RECEIPT_GATE_DEBUG && err instanceof Error) io.stderr(`${err.stack}\n`);
    return EXIT.closed;
  }
}

if (require.main === module) {
  main(process.argv.slice(2), processIO()).then(
    (code) => {
      process.exitCode = code;
      // The answer is out: work abandoned at a deadline must not keep the process (and a
      // waiting push or CI job) alive. Exit at once if nothing else is pending.
      setTimeout(() => process.exit(code), 100).unref();
    },
    (err) => {
      process.stderr.write(`receipt-gate: INTERNAL_ERROR: ${String(err)}\n`);
      process.exitCode = EXIT.closed;
    },
  );
}
