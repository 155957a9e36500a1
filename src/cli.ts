// receipt-gate command line: parse the command name, dispatch to one entry module.
// Every entry is a thin adapter from its protocol (argv, git's hook stdin) to the engine.

import { statSync } from 'node:fs';
import { processIO, UsageError, type CliIO } from './io';
import { nearestName } from './args';
import { printable } from './quote';
import { renderFailure, requestedFormat, SetupError, withoutServerPaths, type Format } from './report/index';
import { EXIT, SHIM_EXIT } from './verdict';

import { VERSION } from './version';

export { VERSION };

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
  'verify-log': { summary: 'verify the signed push log: every move of each protected ref is an entry', load: () => import('./entries/verify-log') },
  'log': { summary: 'log acknowledge: on the server, sign an owner\'s acceptance of moves the push log cannot account for', load: () => import('./entries/log-acknowledge') },
  'reference-transaction': { summary: 'the server hook that appends to the push log (reference-transaction)', load: () => import('./entries/reference-transaction') },
  'proc-receive': { summary: 'the server hook that creates the new refs of a push in one transaction, for the push log (proc-receive)', load: () => import('./entries/proc-receive') },
  'keygen': { summary: 'write an ed25519 key pair for signing receipts', load: () => import('./entries/keygen') },
  'explain': { summary: 'explain PATH: which rules and globs protect it, and who may change it', load: () => import('./entries/explain') },
  'init': { summary: 'add the policy, starter evidence, husky hooks and lint-staged entries', load: () => import('./entries/init') },
  'epoch': { summary: 'epoch pin --id ID: pin the generator digest', load: () => import('./entries/epoch') },
  'manifest': { summary: 'manifest sample --seed N: draw the property manifest', load: () => import('./entries/manifest') },
  'freeze': { summary: 'freeze add|list|prune|review|lift: manage freeze.json; freeze add --observation: a keyed freeze; freeze lift ID: remove it, keep the witness', load: () => import('./entries/freeze') },
  'observe': { summary: 'record an observation and its witness', load: () => import('./entries/observe') },
  'policy': { summary: 'policy enable SECTION: turn on an evidence section (epoch, manifest, freeze, observations, fixtures)', load: () => import('./entries/policy') },
  'fixture': { summary: 'fixture record ID --cmd CMD: write a fixture record with the digest of the command\'s output on a commit\'s tree', load: () => import('./entries/fixture') },
  'codeowners': { summary: 'write (--write) or check (--check) the CODEOWNERS block asking the owners to review protected paths', load: () => import('./entries/codeowners') },
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
    const guess = nearestName(command, Object.keys(COMMANDS));
    io.stderr(`receipt-gate: unknown command '${printable(command)}'${guess ? `; did you mean '${guess}'?` : ''} Run 'receipt-gate help' for the list.\n`);
    return EXIT.usage;
  }
  // Commands with machine formats print their failures in the format asked for, read before
  // the command parses its arguments (that parsing may be what fails).
  const format: Format = FORMATTED.has(command) ? requestedFormat(rest) : 'text';
  try {
    return await (await entry.load()).run(rest, io);
  } catch (err) {
    // A setup error, or a question the repository cannot answer (history beyond a shallow
    // clone's boundary): nothing was checked, exit 2 with the fix, in the format asked for.
    if (err instanceof UsageError || (err instanceof Error && err.name === 'ShallowBoundaryError')) {
      const details = err instanceof SetupError ? err.details : {};
      const doc = renderFailure(format, { command, message: err.message, exitCode: EXIT.usage, ...details }, VERSION);
      if (doc !== null) io.stdout(doc);
      io.stderr(`receipt-gate ${command}: ${withoutServerPaths(err.message, io.env).split('\n').map((line) => printable(line)).join('\n')}\n`);
      return EXIT.usage;
    }
    // Fail closed: an unexpected error is a rejection with a sentence, never a pass.
    // A hook's error never shows the server's directories (its quarantine, its path).
    const message = withoutServerPaths(err instanceof Error ? err.message : String(err), io.env);
    const doc = renderFailure(format, { command, message: `INTERNAL_ERROR: ${message}`, exitCode: EXIT.closed }, VERSION);
    if (doc !== null) io.stdout(doc);
    io.stderr(
      `receipt-gate ${command}: INTERNAL_ERROR: ${printable(message)}\n` +
        `  the gate failed closed; re-run with RECEIPT_GATE_DEBUG=1 for the stack and report it.\n`,
    );
    if (io.env.RECEIPT_GATE_DEBUG && err instanceof Error) io.stderr(`${err.stack}\n`);
    return EXIT.closed;
  }
}

/** The commands that take --format (and --json). */
const FORMATTED = new Set(['verify-ref', 'check', 'explain', 'verify-log']);

/** Runs the command line as this process: exit as soon as the answer is flushed. */
function runAsProcess(): void {
  const io = processIO();
  main(process.argv.slice(2), io).then(
    (code) => {
      process.exitCode = code;
      // The answer is out: exit as soon as it is flushed. Work abandoned at a deadline, or any
      // handle left open, must not keep the process (and the push or CI job waiting on it)
      // alive; a hook that answered and then hangs would be killed and fail closed.
      void io.flush!().then(() => process.exit(code));
      setTimeout(() => process.exit(code), 1000).unref();
    },
    (err) => {
      process.stderr.write(`receipt-gate: INTERNAL_ERROR: ${String(err)}\n`);
      process.exitCode = EXIT.closed;
    },
  );
}

/**
 * `node --build-snapshot receipt-gate.cjs` (scripts/install-server.sh, docs/server.md): the
 * pre-receive entry's modules are evaluated into a V8 startup snapshot, and the command line
 * runs when the snapshot is deserialized, from `node --snapshot-blob receipt-gate.blob
 * receipt-gate.cjs pre-receive` (argv as in a plain run). Nothing of the run is read before
 * that: arguments, environment, directory and clock are the push's. The one thing taken at
 * build time is the bundle's size, so that a snapshot started beside another bundle (one
 * copied over by hand) refuses with exit 2 (SHIM_EXIT.snapshotRefused under the shim) and no
 * machine line, and the shim runs the bundle.
 */
function prepareStartupSnapshot(): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- only when building a snapshot: plain runs do not load node:v8
  const { startupSnapshot } = require('node:v8') as typeof import('node:v8');
  if (!startupSnapshot.isBuildingSnapshot()) return;
  // The hook's module, loaded; then its warm-up (src/server/warmup.ts: two pushes judged, and
  // the push log's append path, src/pushlog/warm.ts) on throwaway repositories, so that the
  // snapshot holds the bytecode of the code a push runs. The snapshot is taken once the event
  // loop is empty. A warm-up that fails leaves a colder snapshot, never a different gate:
  // nothing of it is kept but compiled functions and content-keyed caches.
  // (RECEIPT_GATE_SNAPSHOT_WARMUP=0 builds one without, to measure what the warm-up buys.)
  const warm = process.env.RECEIPT_GATE_SNAPSHOT_WARMUP !== '0';
  void COMMANDS['pre-receive']!
    .load()
    .then((m) => (warm ? (m as EntryModule & { warmUp?: () => Promise<void> }).warmUp?.() : undefined))
    .catch(() => undefined);
  const builtFrom = statSync(__filename).size;
  startupSnapshot.setDeserializeMainFunction(() => {
    const bundle = process.argv[1] ?? '';
    let size = -1;
    try {
      size = statSync(bundle).size;
    } catch {
      /* no such bundle: refused below */
    }
    if (size !== builtFrom) {
      process.stderr.write(
        `receipt-gate: this startup snapshot was built from a ${builtFrom}-byte bundle, not from '${printable(bundle)}'; ` +
          'run the bundle itself, or re-run ./install.sh --server to rebuild the snapshot\n',
      );
      process.exitCode = process.env.RECEIPT_GATE_SHIM === '1' ? SHIM_EXIT.snapshotRefused : EXIT.usage;
      return;
    }
    runAsProcess();
  });
}

// `module` is undefined in the snapshot builder (the bundle's banner gives it a stand-in).
if (process.execArgv.includes('--build-snapshot')) prepareStartupSnapshot();
else if (require.main === module) runAsProcess();
