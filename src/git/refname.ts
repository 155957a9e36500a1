// Ref names are bytes, as git keeps them (any byte from 0x80 up is allowed, UTF-8 or not).
// receipt-gate holds a ref name as a JS string that is its UTF-8 text, with each byte that is
// not part of valid UTF-8 kept as the lone surrogate U+DC80–U+DCFF (Python's
// "surrogateescape"): a UTF-8 name is ordinary text (what users type and policies hold), any
// other name is kept exactly, and encodeRefName gives the bytes back. Where bytes matter (ref
// files, packed-refs, check_refname_format, protectedRefs matching) the name is converted to
// a byte string (`latin1`: one character per byte).

/** Length of the valid UTF-8 sequence at `i` (1 to 4), 0 when the byte there starts none
 * (stray continuation, overlong form, surrogate, above U+10FFFF, truncated). */
export function utf8SequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]!;
  if (c < 0x80) return 1;
  const cont = (k: number, lo = 0x80, hi = 0xbf) => i + k < b.length && b[i + k]! >= lo && b[i + k]! <= hi;
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0;
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;
  if (c >= 0xe1 && c <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}

/** A ref name from its bytes: UTF-8 text, each stray byte as U+DC00 + byte. */
export function decodeRefName(bytes: Uint8Array): string {
  let ascii = true;
  for (const b of bytes) {
    if (b >= 0x80) {
      ascii = false;
      break;
    }
  }
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (ascii) return buf.toString('latin1');
  let out = '';
  let run = 0; // start of the current run of valid UTF-8
  let i = 0;
  while (i < buf.length) {
    const n = utf8SequenceLength(buf, i);
    if (n > 0) {
      i += n;
      continue;
    }
    out += buf.toString('utf8', run, i) + String.fromCharCode(0xdc00 + buf[i]!);
    i++;
    run = i;
  }
  return out + buf.toString('utf8', run, buf.length);
}

/** The bytes of a ref name held as decodeRefName gives it. */
export function encodeRefName(name: string): Buffer {
  if (!/[^\x00-\x7f]/.test(name)) return Buffer.from(name, 'latin1');
  if (!/[\udc80-\udcff]/.test(name)) return Buffer.from(name, 'utf8');
  const parts: Buffer[] = [];
  let run = 0;
  for (let i = 0; i < name.length; i++) {
    const c = name.charCodeAt(i);
    if (c < 0xdc80 || c > 0xdcff) continue;
    // A lone low surrogate (a high surrogate before it would make it half of a pair).
    const prev = i > 0 ? name.charCodeAt(i - 1) : 0;
    if (prev >= 0xd800 && prev <= 0xdbff) continue;
    parts.push(Buffer.from(name.slice(run, i), 'utf8'), Buffer.from([c - 0xdc00]));
    run = i + 1;
  }
  parts.push(Buffer.from(name.slice(run), 'utf8'));
  return Buffer.concat(parts);
}

/** The name's bytes as a byte string (one character per byte). */
export function refNameLatin1(name: string): string {
  return /[^\x00-\x7f]/.test(name) ? encodeRefName(name).toString('latin1') : name;
}

/** A name from a byte string (one character per byte). */
export function refNameFromLatin1(bytes: string): string {
  return /[^\x00-\x7f]/.test(bytes) ? decodeRefName(Buffer.from(bytes, 'latin1')) : bytes;
}
