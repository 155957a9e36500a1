// A small writer for `git fast-import` streams: the benchmark builds every repository with
// real git, deterministically (fixed seed, fixed dates), without a working tree.
import { spawn } from 'node:child_process';
import { once } from 'node:events';

const FLUSH_BYTES = 1 << 20;

export class FastImport {
  /**
   * @param {string} gitdir bare repository to import into
   * @param {{ config?: string[], exportMarks?: string }} [opts]
   */
  constructor(gitdir, opts = {}) {
    const args = [];
    for (const c of opts.config ?? []) args.push('-c', c);
    args.push('--git-dir', gitdir, 'fast-import', '--quiet', '--done');
    if (opts.exportMarks) args.push(`--export-marks=${opts.exportMarks}`);
    this.proc = spawn('git', args, { stdio: ['pipe', 'inherit', 'pipe'] });
    this.stderr = '';
    this.proc.stderr.on('data', (c) => {
      this.stderr += c;
    });
    this.exit = once(this.proc, 'close');
    this.pending = [];
    this.pendingBytes = 0;
    this.nextMark = 1;
    this.when = 1764000000; // fixed commit dates: same objects on every machine
    this.tick = () => 1; // seconds from one commit to the next
  }

  mark() {
    return this.nextMark++;
  }

  async write(chunk) {
    const buf = typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
    this.pending.push(buf);
    this.pendingBytes += buf.length;
    if (this.pendingBytes >= FLUSH_BYTES) await this.flush();
  }

  async flush() {
    if (this.pending.length === 0) return;
    const buf = this.pending.length === 1 ? this.pending[0] : Buffer.concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    if (!this.proc.stdin.write(buf)) {
      await Promise.race([
        once(this.proc.stdin, 'drain'),
        this.exit.then(() => {
          throw new Error(`git fast-import exited early: ${this.stderr.trim()}`);
        }),
      ]);
    }
  }

  /** A blob; `content` is a Buffer/string, or an async iterable of Buffers with its total size. */
  async blob(content, size) {
    const m = this.mark();
    if (content && typeof content[Symbol.asyncIterator] === 'function') {
      await this.write(`blob\nmark :${m}\ndata ${size}\n`);
      let written = 0;
      for await (const chunk of content) {
        await this.write(chunk);
        written += chunk.length;
      }
      if (written !== size) throw new Error(`blob stream wrote ${written} bytes, declared ${size}`);
      await this.write('\n');
    } else {
      const buf = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
      await this.write(`blob\nmark :${m}\ndata ${buf.length}\n`);
      await this.write(buf);
      await this.write('\n');
    }
    return m;
  }

  /**
   * A commit on `ref`. `from`/`merges` are marks (numbers) or full object names (strings);
   * `changes` is a list of { path, mark, mode } (add/modify) or { path, delete: true }.
   */
  async commit(ref, { from, merges = [], message, changes }) {
    const m = this.mark();
    const t = this.when;
    this.when += this.tick();
    const who = `Bench <bench@example.com> ${t} +0000`;
    const msg = Buffer.from(message, 'utf8');
    let head = `commit ${ref}\nmark :${m}\nauthor ${who}\ncommitter ${who}\ndata ${msg.length}\n${message}\n`;
    if (from !== undefined) head += `from ${ref_(from)}\n`;
    for (const p of merges) head += `merge ${ref_(p)}\n`;
    const lines = changes.map((c) =>
      c.delete ? `D ${quote(c.path)}\n` : `M ${c.mode ?? '100644'} :${c.mark} ${quote(c.path)}\n`,
    );
    await this.write(head + lines.join('') + '\n');
    return m;
  }

  async reset(ref, from) {
    await this.write(`reset ${ref}\nfrom ${ref_(from)}\n\n`);
  }

  async close() {
    await this.write('done\n');
    await this.flush();
    this.proc.stdin.end();
    const [code] = await this.exit;
    if (code !== 0) throw new Error(`git fast-import failed (exit ${code}): ${this.stderr.trim()}`);
  }
}

function ref_(x) {
  return typeof x === 'number' ? `:${x}` : x;
}

function quote(path) {
  if (/^[\x21-\x7e][\x20-\x7e]*$/.test(path) && !path.startsWith('"')) return path;
  return JSON.stringify(path);
}
