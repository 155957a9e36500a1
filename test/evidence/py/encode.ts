// Byte encodings of JavaScript strings for feeding json.loads, lone surrogates included
// (encoded as Python's 'surrogatepass' handler writes them).

export type ByteEncoding =
  | 'utf-8'
  | 'utf-8-sig'
  | 'utf-16-le'
  | 'utf-16-be'
  | 'utf-16-le-bom'
  | 'utf-16-be-bom'
  | 'utf-32-le'
  | 'utf-32-be'
  | 'utf-32-le-bom'
  | 'utf-32-be-bom';

export const BYTE_ENCODINGS: readonly ByteEncoding[] = [
  'utf-8',
  'utf-8-sig',
  'utf-16-le',
  'utf-16-be',
  'utf-16-le-bom',
  'utf-16-be-bom',
  'utf-32-le',
  'utf-32-be',
  'utf-32-le-bom',
  'utf-32-be-bom',
];

/** Code points of a JS string: valid pairs combine, lone surrogates stay. */
export function codePoints(s: string): number[] {
  const out: number[] = [];
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    const d = s.charCodeAt(i + 1);
    if (c >= 0xd800 && c <= 0xdbff && d >= 0xdc00 && d <= 0xdfff) {
      out.push(0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00));
      i++;
    } else {
      out.push(c);
    }
  }
  return out;
}

export function isWellFormed(s: string): boolean {
  return codePoints(s).every((c) => c < 0xd800 || c > 0xdfff);
}

export function encode(text: string, encoding: ByteEncoding): Uint8Array {
  const bytes: number[] = [];
  const bom = encoding.endsWith('-bom') || encoding === 'utf-8-sig';
  const cps = codePoints(text);
  if (encoding.startsWith('utf-8')) {
    if (bom) bytes.push(0xef, 0xbb, 0xbf);
    for (const c of cps) {
      if (c < 0x80) bytes.push(c);
      else if (c < 0x800) bytes.push(0xc0 | (c >> 6), 0x80 | (c & 0x3f));
      else if (c < 0x10000) bytes.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
      else bytes.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 0x3f), 0x80 | ((c >> 6) & 0x3f), 0x80 | (c & 0x3f));
    }
  } else if (encoding.startsWith('utf-16')) {
    const le = encoding.startsWith('utf-16-le');
    const unit = (u: number) => (le ? bytes.push(u & 0xff, u >> 8) : bytes.push(u >> 8, u & 0xff));
    if (bom) unit(0xfeff);
    for (let i = 0; i < text.length; i++) unit(text.charCodeAt(i));
  } else {
    const le = encoding.startsWith('utf-32-le');
    const word = (w: number) =>
      le
        ? bytes.push(w & 0xff, (w >> 8) & 0xff, (w >> 16) & 0xff, w >>> 24)
        : bytes.push(w >>> 24, (w >> 16) & 0xff, (w >> 8) & 0xff, w & 0xff);
    if (bom) word(0xfeff);
    for (const c of cps) word(c);
  }
  return Uint8Array.from(bytes);
}

/** The UTF-16-LE code units of a JS string (how the oracle receives `str` input). */
export function utf16leBase64(text: string): string {
  return Buffer.from(encode(text, 'utf-16-le')).toString('base64');
}
