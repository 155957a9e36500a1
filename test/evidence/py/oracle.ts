// Runs a Python reference script over many requests in one process (one JSON line each way),
// so differential tests stay fast.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const here = path.dirname(fileURLToPath(import.meta.url));

let checkedVersion = false;

/** The reference is CPython 3.11: json's messages and the int digit limit differ elsewhere. */
function requirePython311(): void {
  if (checkedVersion) return;
  const run = spawnSync('python3', ['-c', 'import sys; print("%d.%d" % sys.version_info[:2])'], { encoding: 'utf8' });
  const version = run.stdout?.trim();
  if (run.error || version !== '3.11') {
    throw new Error(
      `these differential tests compare with CPython 3.11 as python3, found ${run.error ? String(run.error) : version}; ` +
        'install python3.11 (Debian 12: apt-get install python3) or put it first on PATH as python3',
    );
  }
  checkedVersion = true;
}

export function askPython<T>(script: 'pyjson_oracle.py' | 'pyrandom_oracle.py', requests: readonly object[]): T[] {
  if (requests.length === 0) return [];
  requirePython311();
  const input = requests.map((r) => JSON.stringify(r)).join('\n') + '\n';
  const run = spawnSync('python3', [path.join(here, script)], {
    input,
    encoding: 'utf8',
    maxBuffer: 512 * 1024 * 1024,
  });
  if (run.error) throw run.error;
  if (run.status !== 0) throw new Error(`python3 ${script} exited ${run.status}: ${run.stderr}`);
  const lines = run.stdout.split('\n').filter((l) => l.length > 0);
  if (lines.length !== requests.length) {
    throw new Error(`python3 ${script}: ${requests.length} requests, ${lines.length} answers`);
  }
  return lines.map((l) => JSON.parse(l) as T);
}

/**
 * Answers looked up by key; prefetch() asks Python for a whole batch at once, get() asks for
 * one missing answer (a value fast-check produced while shrinking a failure).
 */
export class Oracle<Q, A> {
  private readonly answers = new Map<string, A>();

  constructor(
    private readonly script: 'pyjson_oracle.py' | 'pyrandom_oracle.py',
    private readonly request: (q: Q) => object,
  ) {}

  prefetch(queries: readonly Q[]): void {
    const missing = new Map<string, Q>();
    for (const q of queries) {
      const key = JSON.stringify(this.request(q));
      if (!this.answers.has(key)) missing.set(key, q);
    }
    const keys = [...missing.keys()];
    const answers = askPython<A>(this.script, keys.map((k) => JSON.parse(k) as object));
    keys.forEach((k, i) => this.answers.set(k, answers[i]!));
  }

  get(q: Q): A {
    const key = JSON.stringify(this.request(q));
    if (!this.answers.has(key)) this.prefetch([q]);
    return this.answers.get(key)!;
  }
}
