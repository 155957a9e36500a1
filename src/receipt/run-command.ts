// Runs one grader command (`sh -c CMD`) in the materialised tree with a deadline, inside the
// grader's sandbox when one is given (bwrap: src/receipt/sandbox.ts). On timeout
// the whole process group is killed, so a property runner cannot outlive the receipt.

import { spawn } from 'node:child_process';

/** How long to wait for output pipes after the command has exited or was killed. */
const GRACE_MS = 2000;

export interface CommandRun {
  /** Exit status; null when the command was killed (timeout, signal) or could not start. */
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  /** Captured stdout (when `captureStdout`), else empty. */
  stdout: Buffer;
  stdoutTooLarge: boolean;
  /** Why the command did not start, if it did not. */
  spawnError: string | null;
}

export interface CommandOptions {
  command: string;
  cwd: string;
  env: NodeJS.ProcessEnv;
  stdin?: string | Uint8Array;
  timeoutMs: number;
  captureStdout: boolean;
  maxStdoutBytes?: number;
  /** Receives output that is not captured (the command's stderr, and stdout when not captured). */
  onOutput?: (chunk: Buffer) => void;
  /** Run inside this sandbox (src/receipt/sandbox.ts): the bwrap program and its arguments
   * before `--`. */
  sandbox?: { program: string; args: string[] };
}

export function runCommand(opts: CommandOptions): Promise<CommandRun> {
  return new Promise((resolve) => {
    const max = opts.maxStdoutBytes ?? 64 * 1024 * 1024;
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    let timedOut = false;
    let settled = false;
    const [file, argv] = opts.sandbox
      ? [opts.sandbox.program, [...opts.sandbox.args, '--', '/bin/sh', '-c', opts.command]]
      : ['/bin/sh', ['-c', opts.command]];
    const child = spawn(file, argv, {
      cwd: opts.cwd,
      env: opts.env,
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true, // its own process group, killed as a whole on timeout
    });
    const killGroup = () => {
      try {
        if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
      } catch {
        /* already gone */
      }
    };
    // After the command exits (or is killed), its output pipes may still be held open by a
    // process that left the group (setsid); stop waiting for them after a short grace.
    let grace: NodeJS.Timeout | undefined;
    const giveUpSoon = () => {
      if (grace) return;
      grace = setTimeout(() => {
        child.stdout.destroy();
        child.stderr.destroy();
        finish({ exitCode: timedOut || tooLarge ? null : child.exitCode, signal: child.signalCode ?? null, spawnError: null });
      }, GRACE_MS);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup();
      giveUpSoon();
    }, opts.timeoutMs);
    const finish = (run: Omit<CommandRun, 'stdout' | 'stdoutTooLarge' | 'timedOut'>) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      if (grace) clearTimeout(grace);
      resolve({ ...run, timedOut, stdout: Buffer.concat(chunks), stdoutTooLarge: tooLarge });
    };
    child.on('error', (err) => finish({ exitCode: null, signal: null, spawnError: err.message }));
    child.stdout.on('data', (c: Buffer) => {
      if (!opts.captureStdout) return opts.onOutput?.(c);
      size += c.length;
      if (size > max) {
        if (!tooLarge) killGroup();
        tooLarge = true;
        return;
      }
      chunks.push(c);
    });
    child.stderr.on('data', (c: Buffer) => opts.onOutput?.(c));
    child.stdin.on('error', () => {
      /* the command may exit without reading its input */
    });
    child.stdin.end(opts.stdin ?? '');
    child.on('exit', () => {
      // Anything the command left running in its group goes with it.
      killGroup();
      giveUpSoon();
    });
    child.on('close', (code, signal) => {
      // Anything the command left running in its group goes with it.
      killGroup();
      finish({ exitCode: timedOut || tooLarge ? null : code, signal: signal ?? null, spawnError: null });
    });
  });
}
