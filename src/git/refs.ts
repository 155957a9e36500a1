// Refs read straight from `<gitdir>/refs/…`, `packed-refs` and `HEAD`.
//
// isomorphic-git's listRefs on a packed repository returns the `^{}` peel lines as extra
// names, and resolving each ref through its API costs a full call each (seconds for a thousand
// refs). Reading the two sources directly is milliseconds and exact.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { GitReadError } from './types';

const OID_RE = /^[0-9a-f]{40}$/;
/** git follows at most this many symbolic refs (SYMREF_MAXDEPTH). */
const MAX_SYMREF_DEPTH = 5;

/** The rules `git rev-parse` tries, in order, to turn a short name into a full ref. */
const REV_PARSE_RULES = ['%s', 'refs/%s', 'refs/tags/%s', 'refs/heads/%s', 'refs/remotes/%s', 'refs/remotes/%s/HEAD'];

/**
 * True when `name` is a well-formed ref name (git check-ref-format rules, plus `HEAD`-like
 * top-level names): no `..`, no component starting with `.` or ending with `.lock`, no control
 * characters, space, `~ ^ : ? * [ \`, no `@{`, no empty component. Names that fail are never
 * looked up, so a name can never reach outside the repository.
 */
export function isValidRefName(name: string): boolean {
  if (name === '' || name === '@' || name.startsWith('/') || name.endsWith('/') || name.endsWith('.')) return false;
  if (name.includes('..') || name.includes('//') || name.includes('@{')) return false;
  if (/[\x00-\x20\x7f~^:?*[\\]/.test(name)) return false;
  return name.split('/').every((part) => part !== '' && !part.startsWith('.') && !part.endsWith('.lock'));
}

/** True for `<40 lowercase hex> <name>` with a name of printable ASCII (no space): a line the
 * pattern /^([0-9a-f]{40}) (\S.*)$/ accepts, recognised without running it. */
function plainRefLine(text: string, start: number, end: number): boolean {
  if (end - start < 42 || text.charCodeAt(start + 40) !== 0x20) return false;
  for (let i = start; i < start + 40; i++) {
    const c = text.charCodeAt(i);
    if (!((c >= 0x30 && c <= 0x39) || (c >= 0x61 && c <= 0x66))) return false;
  }
  for (let i = start + 41; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x21 || c > 0x7e) return false;
  }
  return true;
}

/** Calls `visit` for each ref line (name, oid) and peel line (oid, with `peel` true) of a
 * packed-refs text; throws GitReadError naming `file` on a malformed line. A peel line whose
 * value is not an oid is ignored, as before. */
function forEachPackedLine(text: string, file: string, visit: (name: string, oid: string, peel: boolean) => void): void {
  // A file of 100,000 refs is read on every push: lines are taken with indexOf and the common
  // shape (40 hex digits, a space, a printable ASCII name) is checked by character codes; any
  // other line goes through the full pattern.
  for (let start = 0; start < text.length; ) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    const lineStart = start;
    start = end + 1;
    if (end === lineStart) continue;
    const first = text.charCodeAt(lineStart);
    if (first === 0x23 /* # */) continue;
    if (first === 0x5e /* ^ */) {
      const oid = text.slice(lineStart + 1, end).trim();
      if (OID_RE.test(oid)) visit('', oid, true);
      continue;
    }
    if (plainRefLine(text, lineStart, end)) {
      visit(text.slice(lineStart + 41, end), text.slice(lineStart, lineStart + 40), false);
      continue;
    }
    const line = text.slice(lineStart, end);
    const m = /^([0-9a-f]{40}) (\S.*)$/.exec(line);
    if (!m) throw new GitReadError(`${file} has a malformed line ${JSON.stringify(line)}; run \`git pack-refs\` to rewrite it.`);
    visit(m[2]!, m[1]!, false);
  }
}

interface PackedRefs {
  refs: Map<string, string>;
  /** Peeled value of annotated tags (`^` lines). */
  peeled: Map<string, string>;
}

export class RefReader {
  private packed: PackedRefs | null = null;
  private text: string | null = null;

  /**
   * @param gitdir the repository's git directory (HEAD lives here)
   * @param commondir where refs and packed-refs live (differs from gitdir in a linked worktree)
   */
  constructor(
    readonly gitdir: string,
    readonly commondir: string,
  ) {}

  /** The packed-refs text, every line checked once (a malformed line anywhere is an error,
   * whatever is looked up). */
  private packedText(): string {
    if (this.text !== null) return this.text;
    let text = '';
    const file = join(this.commondir, 'packed-refs');
    try {
      text = readFileSync(file, 'utf8');
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new GitReadError(`Cannot read ${file}: ${(err as Error).message}.`);
      }
    }
    forEachPackedLine(text, file, () => undefined);
    this.text = text;
    return text;
  }

  /** Every packed ref and peel line, as maps (for listing). */
  private packedRefs(): PackedRefs {
    if (this.packed) return this.packed;
    const refs = new Map<string, string>();
    const peeled = new Map<string, string>();
    let last: string | null = null;
    forEachPackedLine(this.packedText(), 'packed-refs', (name, oid, peel) => {
      if (peel) {
        if (last) peeled.set(last, oid);
        return;
      }
      refs.set(name, oid);
      last = name;
    });
    this.packed = { refs, peeled };
    return this.packed;
  }

  /** The oid packed-refs records for `name` (the last line naming it, as the maps keep it),
   * found by searching the text rather than building the maps: a push looks up a few refs in
   * a file that may list 100,000. */
  private packedLookup(name: string): string | undefined {
    if (this.packed) return this.packed.refs.get(name);
    const text = this.packedText();
    const needle = ' ' + name;
    for (let at = text.lastIndexOf(needle); at >= 0; at = at === 0 ? -1 : text.lastIndexOf(needle, at - 1)) {
      const end = at + needle.length;
      if (end !== text.length && text.charCodeAt(end) !== 0x0a) continue;
      const start = at - 40;
      if (start < 0 || (start > 0 && text.charCodeAt(start - 1) !== 0x0a)) continue;
      const oid = text.slice(start, at);
      if (OID_RE.test(oid)) return oid;
    }
    return undefined;
  }

  /** Directory holding `name`: HEAD and per-worktree refs in gitdir, the rest in commondir. */
  private dirFor(name: string): string {
    return name === 'HEAD' || name.startsWith('refs/bisect/') || name.startsWith('refs/worktree/') || !name.startsWith('refs/')
      ? this.gitdir
      : this.commondir;
  }

  /** Reads one ref without following it: an oid, a symbolic target, or null when absent. */
  readRaw(name: string): { oid: string } | { symbolic: string } | null {
    if (name !== 'HEAD' && !isValidRefName(name)) return null;
    const file = join(this.dirFor(name), name);
    let text: string | null = null;
    try {
      if (statSync(file).isFile()) text = readFileSync(file, 'utf8');
    } catch {
      text = null;
    }
    if (text !== null) {
      const value = text.trim();
      if (value.startsWith('ref:')) return { symbolic: value.slice(4).trim() };
      if (OID_RE.test(value)) return { oid: value };
      throw new GitReadError(`The ref ${name} (${file}) holds neither an object id nor a symbolic ref; repair it with \`git update-ref\`.`);
    }
    const packed = this.packedLookup(name);
    return packed ? { oid: packed } : null;
  }

  /** Follows `name` through symbolic refs to an oid; null when it (or its target) is absent. */
  resolveFull(name: string): string | null {
    let current = name;
    for (let depth = 0; depth <= MAX_SYMREF_DEPTH; depth++) {
      const raw = this.readRaw(current);
      if (!raw) return null;
      if ('oid' in raw) return raw.oid;
      current = raw.symbolic;
    }
    throw new GitReadError(`The ref ${name} is a chain of more than ${MAX_SYMREF_DEPTH} symbolic refs; git refuses such a chain too.`);
  }

  /** The full ref name a short name stands for, the way `git rev-parse` picks it. */
  expand(name: string): string | null {
    for (const rule of REV_PARSE_RULES) {
      const full = rule.replace('%s', name);
      if (full !== 'HEAD' && !full.startsWith('refs/') && rule === '%s' && !/^[A-Z_]+$/.test(full)) continue;
      if (this.readRaw(full) !== null && this.resolveFull(full) !== null) return full;
    }
    return null;
  }

  /** HEAD's target when HEAD is symbolic (e.g. 'refs/heads/main'), null when detached. */
  headTarget(): string | null {
    const raw = this.readRaw('HEAD');
    return raw && 'symbolic' in raw ? raw.symbolic : null;
  }

  /** The peeled value packed-refs records for an annotated tag ref, if any. */
  packedPeeled(name: string): string | undefined {
    return this.packedRefs().peeled.get(name);
  }

  /** Every ref under refs/ (loose refs override packed ones), full name -> oid. Symbolic refs
   * are resolved; dangling ones are left out. */
  list(): Map<string, string> {
    const names = new Set<string>(this.packedRefs().refs.keys());
    const walk = (dir: string, prefix: string) => {
      let items: string[];
      try {
        items = readdirSync(join(dir, prefix));
      } catch {
        return;
      }
      for (const item of items) {
        const name = `${prefix}/${item}`;
        const path = join(dir, name);
        let isDir = false;
        try {
          isDir = statSync(path).isDirectory();
        } catch {
          continue;
        }
        if (isDir) walk(dir, name);
        else if (isValidRefName(name)) names.add(name);
      }
    };
    walk(this.commondir, 'refs');
    if (this.commondir !== this.gitdir && existsSync(join(this.gitdir, 'refs'))) walk(this.gitdir, 'refs');
    const out = new Map<string, string>();
    for (const name of [...names].sort()) {
      const oid = this.resolveFull(name);
      if (oid) out.set(name, oid);
    }
    return out;
  }
}
