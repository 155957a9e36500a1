// The process edges, passed in so entries can be driven from tests without a child process.

import { fstatSync, readSync, writeSync } from 'node:fs';

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input (hook protocols). */
  readStdin(): Promise<string>;
  /** Reads all of standard input as bytes (pre-receive: ref names are bytes). */
  readStdinBytes?(): Promise<Buffer>;
  /** Resolves once everything written has reached the descriptors (optional: in-process io
   * has nothing to flush). */
  flush?(): Promise<void>;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

/**
 * The real process's io. Standard input is read, and answers are written, with synchronous
 * calls on file descriptors 0, 1 and 2: a hook's input and answer are a few lines, and the
 * process streams would cost a few milliseconds to set up on every push. A descriptor that
 * is non-blocking and not ready (EAGAIN) is handed to the process stream from then on, so
 * nothing is lost and the order of what is written is kept.
 */
export function processIO(): CliIO {
  const out = fdWriter(1);
  const err = fdWriter(answerFd(process.env));
  return {
    stdout: out.write,
    stderr: err.write,
    readStdin: async () => (await readStdinBytes()).toString('utf8'),
    readStdinBytes,
    flush: async () => {
      await out.flush();
      await err.flush();
    },
    env: process.env,
    cwd: process.cwd(),
  };
}

/**
 * Where the command's stderr text goes: descriptor 2, or the one RECEIPT_GATE_ANSWER_FD names
 * (3-9). The hook shim names one when it runs node from the startup snapshot: node's own words
 * on a snapshot it refuses go to descriptor 2, which the shim drops when the plain bundle then
 * answers, while the gate's answer reaches the pusher directly.
 */
function answerFd(env: NodeJS.ProcessEnv): number {
  const named = env.RECEIPT_GATE_ANSWER_FD;
  return named !== undefined && /^[3-9]$/.test(named) ? Number(named) : 2;
}

function fdWriter(fd: number): { write: (text: string) => void; flush: () => Promise<void> } {
  let stream: NodeJS.WriteStream | null = null;
  return {
    write: (text: string) => {
      if (stream !== null) {
        stream.write(text);
        return;
      }
      const buf = Buffer.from(text, 'utf8');
      let at = 0;
      while (at < buf.length) {
        try {
          at += writeSync(fd, buf, at, buf.length - at);
        } catch (e) {
          const code = (e as NodeJS.ErrnoException).code;
          if (code === 'EPIPE') return; // nobody reads the answer any more
          if (code !== 'EAGAIN') throw e;
          if (fd !== 1 && fd !== 2) {
            // No process stream for this descriptor: wait a millisecond and write on.
            Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
            continue;
          }
          stream = fd === 1 ? process.stdout : process.stderr;
          stream.write(buf.subarray(at));
          return;
        }
      }
    },
    flush: () => {
      const s = stream;
      return s === null ? Promise.resolve() : new Promise<void>((resolve) => s.write('', () => resolve()));
    },
  };
}

/** Standard input, whole; empty when it is a terminal (or another character device, such as
 * /dev/null) or closed. (node:tty's isatty would load the tty and net modules: ~10 ms.) */
function readStdinBytes(): Promise<Buffer> {
  let device: boolean;
  try {
    device = fstatSync(0).isCharacterDevice();
  } catch {
    device = true; // no descriptor 0
  }
  if (device) return Promise.resolve(Buffer.alloc(0));
  // One buffer, doubled when full: a push's few lines take one read, a 10 MB input about
  // 160 pipe-sized reads into it and a few copies, never a list of small chunks.
  let buf = Buffer.allocUnsafe(64 * 1024);
  let length = 0;
  for (;;) {
    if (length === buf.length) {
      const bigger = Buffer.allocUnsafe(buf.length * 2);
      buf.copy(bigger, 0, 0, length);
      buf = bigger;
    }
    let n: number;
    try {
      n = readSync(0, buf, length, buf.length - length, null);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'EOF') break;
      if (code !== 'EAGAIN') return Promise.reject(e instanceof Error ? e : new Error(String(e)));
      // A non-blocking descriptor: the rest comes through the process stream.
      const chunks: Buffer[] = [buf.subarray(0, length)];
      return new Promise((resolve, reject) => {
        process.stdin.on('data', (c: Buffer) => chunks.push(c));
        process.stdin.on('end', () => resolve(Buffer.concat(chunks)));
        process.stdin.on('error', reject);
      });
    }
    if (n === 0) break;
    length += n;
  }
  return Promise.resolve(buf.subarray(0, length));
}

/** A usage or setup error: nothing was checked (exit 2, treated as closed by every hook). */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UsageError';
  }
}

/** An io that keeps what a command writes, for running entries in-process (tests, tools). */
export function bufferedIO(opts: { env: NodeJS.ProcessEnv; cwd: string; stdin?: string }): {
  io: CliIO;
  stdout(): string;
  stderr(): string;
} {
  let out = '';
  let err = '';
  return {
    io: {
      stdout: (text) => {
        out += text;
      },
      stderr: (text) => {
        err += text;
      },
      readStdin: async () => opts.stdin ?? '',
      env: opts.env,
      cwd: opts.cwd,
    },
    stdout: () => out,
    stderr: () => err,
  };
}
