// The process edges, passed in so entries can be driven from tests without a child process.

export interface CliIO {
  stdout(text: string): void;
  stderr(text: string): void;
  /** Reads all of standard input (hook protocols). */
  readStdin(): Promise<string>;
  env: NodeJS.ProcessEnv;
  cwd: string;
}

export function processIO(): CliIO {
  return {
    stdout: (text) => process.stdout.write(text),
    stderr: (text) => process.stderr.write(text),
    readStdin: () =>
      new Promise((resolve, reject) => {
        if (process.stdin.isTTY) return resolve('');
        const chunks: Buffer[] = [];
        process.stdin.on('data', (c: Buffer) => chunks.push(c));
        process.stdin.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
        process.stdin.on('error', reject);
      }),
    env: process.env,
    cwd: process.cwd(),
  };
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
