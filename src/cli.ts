// receipt-gate command line: parse the command name, dispatch to one entry module.
// Every entry is a thin adapter from its protocol (argv, git's hook stdin) to the engine.

import { processIO, UsageError, type CliIO } from './io';
import { EXIT } from './verdict';

declare const RECEIPT_GATE_VERSION: string;
export const VERSION = typeof RECEIPT_GATE_VERSION === 'string' ? RECEIPT_GATE_VERSION : '0.0.0-dev';

export interface EntryModule {
  run(args: string[], io: CliIO): Promise<number>;
}

export interface Entry {
  summary: string;
  /** Loaded on demand: a hook evaluates only the code of the command it runs. */
  load(): Promise<EntryModule>;
}

export const COMMANDS: Record<string, Entry> = {
  'verify-ref': { summary: 'one-shot audit of REF (default HEAD) against the base', load: () => import('./entries/verify-ref') },
  'pre-receive': { summary: 'the server hook: reads <old> <new> <ref> lines on stdin', load: () => import('./entries/pre-receive') },
  'pre-push': { summary: 'the client pre-push hook: reads git pre-push lines on stdin', load: () => import('./entries/pre-push') },
  'pre-commit': { summary: 'the client pre-commit hook: checks the staged index', load: () => import('./entries/pre-commit') },
  'check': { summary: 'validate evidence files in the working tree (lint-staged)', load: () => import('./entries/check') },
  'receipt': { summary: 'run the grader on a clean tree and write the receipt', load: () => import('./entries/receipt') },
  'verify-receipt': { summary: 'verify a receipt before a merge', load: () => import('./entries/verify-receipt') },
  'keygen': { summary: 'write an ed25519 key pair for signing receipts', load: () => import('./entries/keygen') },
  'init': { summary: 'add the policy, starter evidence, husky hooks and lint-staged entries', load: () => import('./entries/init') },
  'epoch': { summary: 'epoch pin --id ID: pin the generator digest', load: () => import('./entries/epoch') },
  'manifest': { summary: 'manifest sample --seed N: draw the property manifest', load: () => import('./entries/manifest') },
  'freeze': { summary: 'freeze add|list|prune: manage freeze.json', load: () => import('./entries/freeze') },
  'observe': { summary: 'record an observation and its witness', load: () => import('./entries/observe') },
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
    return await (await entry.load()).run(rest, io);
  } catch (err) {
    // A setup error, or a question the repository cannot answer (history beyond a shallow
    // clone's boundary): nothing was checked, exit 2 with the fix.
    if (err instanceof UsageError || (err instanceof Error && err.name === 'ShallowBoundaryError')) {
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
      // The answer is out: exit as soon as it is flushed. Work abandoned at a deadline, or any
      // handle left open, must not keep the process (and the push or CI job waiting on it)
      // alive; a hook that answered and then hangs would be killed and fail closed.
      let pending = 2;
      const flushed = () => {
        if (--pending === 0) process.exit(code);
      };
      process.stdout.write('', flushed);
      process.stderr.write('', flushed);
      setTimeout(() => process.exit(code), 1000).unref();
    },
    (err) => {
      process.stderr.write(`receipt-gate: INTERNAL_ERROR: ${String(err)}\n`);
      process.exitCode = EXIT.closed;
    },
  );
}
