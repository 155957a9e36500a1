// git's pkt-line framing (gitprotocol-common(5)), as the proc-receive hook speaks it with
// receive-pack over its stdin and stdout: each packet is four hex digits giving its length
// (the four digits included) and its payload; "0000" is a flush. Blocking reads and writes on
// a file descriptor: the hook answers receive-pack in turn, one conversation per push.

import { readSync, writeSync } from 'node:fs';

/** The largest packet git writes or accepts (LARGE_PACKET_MAX). */
export const PKT_MAX = 65520;

export type Packet = { kind: 'data'; payload: Buffer } | { kind: 'flush' } | { kind: 'eof' };

export class PktLineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'PktLineError';
  }
}

/** Reads packets from a file descriptor (receive-pack's pipe), buffered. */
export class PktReader {
  private buf = Buffer.alloc(0);
  private ended = false;

  constructor(private readonly fd: number) {}

  /** The next packet; `eof` when the stream ends between packets. A stream that ends inside a
   * packet, or a length that is not four hex digits within git's bounds, is a PktLineError. */
  read(): Packet {
    if (!this.fill(4)) {
      if (this.buf.length === 0) return { kind: 'eof' };
      throw new PktLineError('the pkt-line stream ended inside a length');
    }
    const head = this.buf.toString('latin1', 0, 4);
    if (!/^[0-9a-f]{4}$/.test(head)) throw new PktLineError(`bad pkt-line length '${head.replace(/[^\x20-\x7e]/g, '?')}'`);
    const len = parseInt(head, 16);
    if (len === 0) {
      this.buf = this.buf.subarray(4);
      return { kind: 'flush' };
    }
    if (len < 4 || len > PKT_MAX) throw new PktLineError(`pkt-line length ${len} out of range`);
    if (!this.fill(len)) throw new PktLineError('the pkt-line stream ended inside a packet');
    const payload = Buffer.from(this.buf.subarray(4, len));
    this.buf = this.buf.subarray(len);
    return { kind: 'data', payload };
  }

  /** Packets up to the next flush (the flush not included). */
  readUntilFlush(): Buffer[] {
    const out: Buffer[] = [];
    for (;;) {
      const p = this.read();
      if (p.kind === 'flush') return out;
      if (p.kind === 'eof') throw new PktLineError('the pkt-line stream ended before a flush');
      out.push(p.payload);
    }
  }

  private fill(n: number): boolean {
    while (this.buf.length < n && !this.ended) {
      const chunk = Buffer.alloc(Math.max(65536, n - this.buf.length));
      let got: number;
      try {
        got = readSync(this.fd, chunk, 0, chunk.length, null);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code === 'EAGAIN') continue;
        if ((err as NodeJS.ErrnoException).code === 'EOF') got = 0;
        else throw err;
      }
      if (got === 0) this.ended = true;
      else this.buf = this.buf.length ? Buffer.concat([this.buf, chunk.subarray(0, got)]) : chunk.subarray(0, got);
    }
    return this.buf.length >= n;
  }
}

/** One packet's bytes. */
export function pkt(payload: string | Buffer): Buffer {
  const body = typeof payload === 'string' ? Buffer.from(payload, 'utf8') : payload;
  if (body.length + 4 > PKT_MAX) throw new PktLineError(`a pkt-line payload of ${body.length} bytes is over git's limit`);
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0'), 'latin1'), body]);
}

export const FLUSH = Buffer.from('0000', 'latin1');

/** The proc-receive hook's report handing `refs` back to receive-pack (`ok REF` and `option
 * fall-through` for each, git 2.29+), without the final flush. A name is its bytes, held one
 * character per byte (latin1), as read from receive-pack. */
export function fallThroughReport(refs: readonly string[]): Buffer[] {
  return refs.flatMap((r) => [pkt(Buffer.from(`ok ${r}`, 'latin1')), pkt('option fall-through')]);
}

/** Writes every byte to a file descriptor (blocking). */
export function writeAll(fd: number, bytes: Buffer): void {
  let off = 0;
  while (off < bytes.length) {
    try {
      off += writeSync(fd, bytes, off, bytes.length - off);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'EAGAIN') throw err;
    }
  }
}
