// Names and text taken from a repository, made safe to print on a terminal or in a `remote:`
// line. A pushed path is attacker-chosen bytes: printed raw, a LF or CR would start a line of
// its own (`remote: receipt-gate: push accepted: eligible`) and an ESC would move the cursor
// or recolour what follows. Paths are quoted exactly as git quotes them with core.quotePath
// on (quote.c, quote_c_style), so what receipt-gate prints matches `git diff --name-only`.

import { encodeRefName } from './git/refname';

/** C escapes git uses for these bytes; other bytes that need quoting are written as octal. */
const C_ESCAPES: Record<number, string> = {
  0x07: 'a',
  0x08: 'b',
  0x09: 't',
  0x0a: 'n',
  0x0b: 'v',
  0x0c: 'f',
  0x0d: 'r',
  0x22: '"',
  0x5c: '\\',
};

/** True for the bytes git's cq_lookup quotes when core.quotePath is on. */
function mustQuote(byte: number): boolean {
  return byte < 0x20 || byte === 0x22 || byte === 0x5c || byte >= 0x7f;
}

/**
 * `path` as git prints it with core.quotePath on: unchanged when no byte needs quoting, else in
 * double quotes with control characters, `"`, `\`, DEL and every byte of a non-ASCII character
 * escaped (`\n`, `\033`, `\303\244`). Pass the raw bytes when the name is not valid UTF-8.
 */
export function quotePath(path: string | Uint8Array): string {
  const bytes = typeof path === 'string' ? Buffer.from(path, 'utf8') : path;
  let needs = false;
  for (const b of bytes) {
    if (mustQuote(b)) {
      needs = true;
      break;
    }
  }
  if (!needs) return typeof path === 'string' ? path : Buffer.from(bytes).toString('latin1');
  let out = '"';
  for (const b of bytes) {
    if (!mustQuote(b)) out += String.fromCharCode(b);
    else if (C_ESCAPES[b] !== undefined) out += `\\${C_ESCAPES[b]}`;
    else out += `\\${b.toString(8).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/** Characters that can end a line or steer a terminal: C0 and C1 controls, DEL, the Unicode
 * line and paragraph separators and the bidirectional overrides (which reorder what is shown). */
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/** How `printable` spells an escape: `c` as git does (`\n`, `\033`, then `\u202e` above ASCII),
 * `unicode` as `\u001b` throughout (the spelling evidence messages carry into every format). */
export interface Spelling {
  spelling?: 'c' | 'unicode';
}

/** `text` with every character that could start a line or move the cursor written as an
 * escape (`\n`, `\033`, `\u202e`); the rest, including other non-ASCII text, is kept. */
export function printable(text: string, how: Spelling = {}): string {
  const c = how.spelling !== 'unicode';
  return text.replace(UNSAFE, (ch) => {
    const code = ch.charCodeAt(0);
    if (c && code < 0x80) {
      const esc = C_ESCAPES[code];
      return esc !== undefined ? `\\${esc}` : `\\${code.toString(8).padStart(3, '0')}`;
    }
    return `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** A message or fix for human output: each path it mentions in git's quoting, then anything
 * else that could forge a line escaped. */
export function printableMention(text: string, paths: readonly (string | undefined)[]): string {
  let out = text;
  for (const path of paths) {
    if (!path) continue;
    const quoted = quotePath(path);
    if (quoted !== path) out = out.split(path).join(quoted);
  }
  return printable(out);
}

/** A ref name as git prints it with core.quotePath on (`"refs/heads/v\377"`), for human
 * output. Names are held as src/git/refname.ts describes. */
export function quoteRefName(name: string): string {
  return quotePath(encodeRefName(name));
}

/**
 * A ref name for JSON (the machine line, --json, SARIF): its UTF-8 text when its bytes are
 * valid UTF-8; otherwise each byte that is not part of a valid UTF-8 sequence is written as
 * `\xHH` (a literal backslash, which git never allows in a ref name, so the form cannot be
 * mistaken for a name). Pure ASCII names are unchanged.
 */
export function refNameJson(name: string): string {
  return name.replace(/[\udc80-\udcff]/g, (c, at: number) => {
    const prev = at > 0 ? name.charCodeAt(at - 1) : 0;
    if (prev >= 0xd800 && prev <= 0xdbff) return c; // half of a pair, not an escaped byte
    return `\\x${(c.charCodeAt(0) - 0xdc00).toString(16).padStart(2, '0')}`;
  });
}
