// Refs read straight from `<gitdir>/refs/…`, `packed-refs` and `HEAD`, as git's files backend
// stores them. Ref names are bytes: files are opened by the name's bytes, packed-refs and ref
// files are read as bytes, and names are given to callers as src/git/refname.ts holds them
// (UTF-8 text, stray bytes as lone surrogates), sorted by their bytes as git sorts them.
//
// isomorphic-git's listRefs on a packed repository returns the `^{}` peel lines as extra
// names, and resolving each ref through its API costs a full call each (seconds for a thousand
// refs). Reading the two sources directly is milliseconds and exact.
//
// Namespaces (GIT_NAMESPACE, gitnamespaces(7)): a reader opened with a namespace is
// namespace-transparent. Every name it takes and gives is the name the client of
// `git receive-pack` sees (`HEAD`, `refs/heads/main`); on disk that is
// `refs/namespaces/<ns>/HEAD`, `refs/namespaces/<ns>/refs/heads/main` (a nested `a/b` is
// `refs/namespaces/a/refs/namespaces/b/…`). Names outside `refs/` and HEAD (FETCH_HEAD …) are
// not namespaced, as in git.

import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { quotePath } from '../quote';
import { refNameFromLatin1, refNameLatin1 } from './refname';
import { GitReadError } from './types';
import { PackedRefsFile } from './packed-refs';
import { isOid } from '../types';

/** git follows at most this many symbolic refs (SYMREF_MAXDEPTH). */
const MAX_SYMREF_DEPTH = 5;

/** The rules `git rev-parse` tries, in order, to turn a short name into a full ref
 * (ref_rev_parse_rules in git's refs.c). */
export const REV_PARSE_RULES = ['%s', 'refs/%s', 'refs/tags/%s', 'refs/heads/%s', 'refs/remotes/%s', 'refs/remotes/%s/HEAD'];

/** The on-disk prefix of a namespace as GIT_NAMESPACE spells it: '' for none, `a/b` →
 * `refs/namespaces/a/refs/namespaces/b/` (empty components are dropped, as git does). Throws
 * GitReadError for a component that is not a valid ref name component. */
export function namespacePrefix(namespace: string | undefined): string {
  if (namespace === undefined || namespace === '') return '';
  const parts = namespace.split('/').filter((p) => p !== '');
  let out = '';
  for (const part of parts) {
    if (!isValidRefName(`refs/namespaces/${part}`)) {
      throw new GitReadError(`GIT_NAMESPACE=${JSON.stringify(namespace)} has the component ${JSON.stringify(part)}, which is not a valid ref name component; git refuses it too.`);
    }
    out += `refs/namespaces/${part}/`;
  }
  return out;
}

/**
 * How git's refs.c treats each byte of a ref name (refname_disposition): 0 ordinary, 1 ends a
 * component (`/`, NUL), 2 `.` (no `..`), 3 `{` (no `@{`), 4 forbidden (controls, DEL, space,
 * `: ? [ \\ ^ ~`), 5 `*` (only in a refspec pattern). Bytes from 0x80 up are ordinary.
 */
const DISPOSITION = (() => {
  const d = new Uint8Array(256);
  for (let c = 0; c < 0x20; c++) d[c] = 4;
  d[0] = 1;
  d[0x2f] = 1;
  d[0x2e] = 2;
  d[0x7b] = 3;
  for (const c of ' :?[\\^~\x7f') d[c.charCodeAt(0)] = 4;
  d[0x2a] = 5;
  return d;
})();

export interface RefnameFlags {
  /** REFNAME_ALLOW_ONELEVEL: a name of one component (`main`, `HEAD`) is accepted. */
  allowOnelevel?: boolean;
  /** REFNAME_REFSPEC_PATTERN: one `*` is accepted. */
  refspecPattern?: boolean;
}

/**
 * git's check_refname_format (refs.c), on a ref name given as a byte string (one character
 * per byte, as the pre-receive input and the refs files hold it): true when git accepts it.
 * Every component is non-empty, does not start with `.`, does not end with `.lock`, and holds
 * no `..`, no `@{`, no control byte, DEL, space, `: ? [ \\ ^ ~`, and no `*` (unless a refspec
 * pattern: one); the name is not `@` and does not end with `.`; without allowOnelevel it has
 * at least two components. A character above 0xff (not a byte string) is refused.
 */
export function checkRefnameFormat(name: string, flags: RefnameFlags = {}): boolean {
  if (name === '@') return false;
  let pattern = flags.refspecPattern === true;
  let components = 0;
  let at = 0;
  for (;;) {
    // One component, from `at` to the next `/` or the end.
    const start = at;
    let last = 0;
    for (; at < name.length; at++) {
      const ch = name.charCodeAt(at);
      if (ch > 0xff) return false;
      const disp = DISPOSITION[ch]!;
      if (disp === 1) {
        if (ch === 0) return false; // a NUL ends the C string early: git sees another name
        break;
      }
      if (disp === 2 && last === 0x2e) return false;
      if (disp === 3 && last === 0x40) return false;
      if (disp === 4) return false;
      if (disp === 5) {
        if (!pattern) return false;
        pattern = false;
      }
      last = ch;
    }
    if (at === start) return false; // empty component
    if (name.charCodeAt(start) === 0x2e) return false;
    if (at - start >= 5 && name.slice(at - 5, at) === '.lock') return false;
    components++;
    if (at >= name.length) break;
    at++; // the '/'
  }
  if (name.charCodeAt(name.length - 1) === 0x2e) return false;
  if (!flags.allowOnelevel && components < 2) return false;
  return true;
}

/**
 * True when `name` (a byte string) is a ref name git's files backend could hold, one-level
 * names (`HEAD`, `FETCH_HEAD`, a short name to expand) included: check_refname_format with
 * REFNAME_ALLOW_ONELEVEL. Names that fail are never looked up, so a name can never reach
 * outside the repository.
 */
export function isValidRefName(name: string): boolean {
  return validReal(refNameLatin1(name));
}

/** isValidRefName on a byte string (one character per byte). */
function validReal(real: string): boolean {
  return checkRefnameFormat(real, { allowOnelevel: true });
}

/** A byte-string name as git prints it (core.quotePath), for messages. */
function quoteReal(real: string): string {
  return quotePath(Buffer.from(real, 'latin1'));
}

/** `text` without leading and trailing ASCII whitespace (what git's strbuf_trim removes). */
function asciiTrim(text: string): string {
  return text.replace(/^[ \t\n\r\v\f]+|[ \t\n\r\v\f]+$/g, '');
}

/** A filesystem path for a ref file: `dir` (text) joined with a byte-string ref name. */
function refPath(dir: string, name: string): Buffer {
  return Buffer.concat([Buffer.from(join(dir, '/'), 'utf8'), Buffer.from(name, 'latin1')]);
}

/** One ref as stored: an oid, or the name of the ref it points to. */
export type RawRef = { oid: string } | { symbolic: string };

/** Where a chain of symbolic refs ends. */
export interface ResolvedRef {
  /** The last ref of the chain (the name itself when it is not symbolic). */
  ref: string;
  /** Its oid; null when the chain ends at a ref that does not exist (dangling, or an unborn
   * branch). */
  oid: string | null;
  /** True when the chain leaves the namespace: `ref` is then the full on-disk name. */
  outsideNamespace?: true;
}

/** One ref of a listing. */
export interface RefEntry {
  /** Full name (namespace-relative inside a namespace), e.g. refs/heads/main. */
  name: string;
  /** The oid it resolves to (through symbolic refs); null for a dangling symbolic ref. */
  oid: string | null;
  /** For a symbolic ref: the ref its chain ends at, as `git for-each-ref` prints %(symref)
   * (readRaw gives the ref it names directly); null for an ordinary ref. */
  symbolic: string | null;
}

export class RefReader {
  private packed: PackedRefsFile | null = null;
  /** The loose refs distinctOids listed (on-disk names under this namespace's refs/). */
  private listedLoose: Set<string> | null = null;
  /** While set (useLooseListing), a name under refs/ that listing lacks is not looked for as a
   * file: it is packed or absent. */
  private looseListing: Set<string> | null = null;
  /** The namespace prefix as bytes (one character per byte). */
  private readonly ns: string;

  /**
   * @param gitdir the repository's git directory (HEAD lives here)
   * @param commondir where refs and packed-refs live (differs from gitdir in a linked worktree)
   * @param namespace the on-disk prefix of the namespace (see namespacePrefix), '' for none
   * @param hasObject whether the repository holds an object (a full oid given to `resolve`
   *   names itself when it does, as in `git rev-parse`); without it, a full oid names nothing
   */
  constructor(
    readonly gitdir: string,
    readonly commondir: string,
    readonly namespace = '',
    private readonly hasObject: (oid: string) => boolean = () => false,
  ) {
    this.ns = refNameLatin1(namespace);
  }

  /** Resolves a name the way `git rev-parse` does: a full oid (when present), `HEAD`, a full
   * ref, or a short name (`main`, `v1`, `origin/main`, `origin`). Null when nothing matches.
   * Annotated tags resolve to the tag object (CommitReader.peelToCommit gives the commit). For
   * revision syntax (`main~2`, abbreviated oids, `@{u}`) see resolveRevision in revision.ts. */
  resolve(name: string): string | null {
    if (isOid(name)) return this.hasObject(name) ? name : null;
    if (name === 'HEAD' || name === '@') return this.resolveFull('HEAD');
    if (!isValidRefName(name)) return null;
    const full = this.expand(name);
    return full ? this.resolveFull(full) : null;
  }

  /** The oid the full ref `name` (a byte string) holds, through symbolic refs; null when it
   * does not exist. No short-name rules: `refs/heads/x` never finds `refs/tags/refs/heads/x`. */
  resolveExact(name: string): string | null {
    if (name !== 'HEAD' && !isValidRefName(name)) return null;
    return this.resolveFull(name);
  }

  /** The ref a name given on a command line (`--ref`) names: a full name as it is, else the
   * ref under refs/ dwim() finds, else the branch of that name (which may not exist yet). */
  refArgument(name: string): string {
    if (name.startsWith('refs/')) return name;
    const full = this.dwim(name);
    return full !== null && full.startsWith('refs/') ? full : `refs/heads/${name}`;
  }

  /** The full ref name a short name stands for by git's rev-parse rules (`main` →
   * refs/heads/main, tags first), before following symbolic refs; null when none exists. */
  dwim(name: string): string | null {
    if (name === 'HEAD') return this.resolveFull('HEAD') !== null ? 'HEAD' : null;
    if (!isValidRefName(name)) return null;
    return this.expand(name);
  }

  /** The on-disk name of a ref given as the client sees it (inside GIT_NAMESPACE). */
  namespacedRef(name: string): string {
    if (this.namespace === '' || (name !== 'HEAD' && !name.startsWith('refs/'))) return name;
    return this.namespace + name;
  }

  // Names the reader takes and gives are text (src/git/refname.ts); on disk, and inside the
  // reader ("real" names), they are byte strings.

  /** The on-disk name (bytes) of a namespace-relative ref name. */
  private real(name: string): string {
    const bytes = refNameLatin1(name);
    if (this.ns === '' || (name !== 'HEAD' && !name.startsWith('refs/'))) return bytes;
    return this.ns + bytes;
  }

  /** The namespace-relative name of an on-disk name; null when it lies outside the namespace. */
  private relative(real: string): string | null {
    if (this.ns === '' || (real !== 'HEAD' && !real.startsWith('refs/'))) return refNameFromLatin1(real);
    return real.startsWith(this.ns) ? refNameFromLatin1(real.slice(this.ns.length)) : null;
  }

  /** packed-refs, read once as bytes and every line checked once (a malformed line anywhere is
   * an error, whatever is looked up): src/git/packed-refs.ts. */
  private packedFile(): PackedRefsFile {
    if (this.packed) return this.packed;
    let buf = Buffer.alloc(0);
    const file = join(this.commondir, 'packed-refs');
    try {
      buf = readFileSync(file);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') {
        throw new GitReadError(`Cannot read ${file}: ${(err as Error).message}.`);
      }
    }
    this.packed = new PackedRefsFile(buf, file);
    return this.packed;
  }

  /** What packed-refs records an annotated tag `oid` peels to (git writes it on pack-refs), so
   * a ref tip is known without reading the tag; undefined when it records nothing. A hint only:
   * the walks still read every commit they use. */
  packedPeel(oid: string): string | undefined {
    return this.packedFile().peeled.get(oid);
  }

  /** The oid packed-refs records for the on-disk name `real` (binary search in a sorted file;
   * the last line naming it otherwise). */
  private packedLookup(real: string): string | undefined {
    const file = this.packedFile();
    const i = file.find(real);
    return i < 0 ? undefined : file.oidAt(i);
  }

  /** The packed refs whose on-disk names start with `prefix` (the last line naming a ref
   * wins). */
  private packedUnder(prefix: string): Map<string, string> {
    const file = this.packedFile();
    const p = Buffer.from(prefix, 'latin1');
    const out = new Map<string, string>();
    const [from, to] = file.range(prefix);
    for (let i = from; i < to; i++) if (file.nameStartsWith(i, p)) out.set(file.nameAt(i), file.oidAt(i));
    return out;
  }

  /** Directory holding an on-disk name: HEAD and per-worktree refs in gitdir, the rest in
   * commondir. */
  private dirFor(real: string): string {
    return real === 'HEAD' || real.startsWith('refs/bisect/') || real.startsWith('refs/worktree/') || !real.startsWith('refs/')
      ? this.gitdir
      : this.commondir;
  }

  /**
   * For a run that reads many refs one by one (a push of 50,000 tags): from now until the
   * returned function is called, the loose refs distinctOids listed (the server lists them
   * once per push, for the existing tips) stand for the folders' contents, and a name they do
   * not hold is looked up in packed-refs without a stat of its own. The refs are read as they
   * stood at that listing, as packed-refs is read once. No effect when nothing was listed.
   */
  useLooseListing(): () => void {
    this.looseListing = this.listedLoose;
    return () => {
      this.looseListing = null;
    };
  }

  /** Reads one on-disk ref without following it. */
  private readReal(real: string): RawRef | null {
    if (real !== 'HEAD' && !validReal(real)) return null;
    const listed = this.looseListing;
    // A name the listing does not hold is packed or absent, when a file could hold it at all:
    // one no file could (a component over NAME_MAX, a path over PATH_MAX) is asked of the file
    // system below, which says what it says of such a name.
    if (listed !== null && real.startsWith(this.ns + 'refs/') && !listed.has(real) && !real.split('/').some((c) => c.length > 255) && Buffer.byteLength(this.dirFor(real)) + real.length < 4095) {
      const packed = this.packedLookup(real);
      return packed ? { oid: packed } : null;
    }
    const file = join(this.dirFor(real), quoteReal(real));
    let text: string | null = null;
    try {
      // Ref names are bytes: the file's path is the name's bytes, its content read as bytes.
      // A packed ref has no file: statSync says so without an error being built (only for an
      // absent file; any other failure, ENAMETOOLONG or EACCES, still throws and is said).
      const path = refPath(this.dirFor(real), real);
      const st = statSync(path, { throwIfNoEntry: false });
      if (st !== undefined && !st.isDirectory()) text = readFileSync(path, 'latin1');
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code;
      // A directory of that name (refs/heads for refs/heads/x) or a missing one: not loose.
      if (code !== 'ENOENT' && code !== 'EISDIR' && code !== 'ENOTDIR') {
        throw new GitReadError(`Cannot read the ref ${quoteReal(real)} (${file}): ${code ?? (err as Error).message}.`);
      }
    }
    if (text !== null) {
      // ASCII whitespace only: a name's last byte may be 0xa0, which String.trim would drop.
      const value = asciiTrim(text);
      if (value.startsWith('ref:')) {
        const target = asciiTrim(value.slice(4));
        if (target !== 'HEAD' && !validReal(target)) {
          throw new GitReadError(`The ref ${quoteReal(real)} is a symbolic ref to ${quoteReal(target)}, which is not a valid ref name; repair it with \`git symbolic-ref\`.`);
        }
        return { symbolic: target };
      }
      if (isOid(value)) return { oid: value };
      throw new GitReadError(`The ref ${quoteReal(real)} (${file}) holds neither an object id nor a symbolic ref; repair it with \`git update-ref\`.`);
    }
    const packed = this.packedLookup(real);
    return packed ? { oid: packed } : null;
  }

  /** Reads one ref without following it: an oid, a symbolic target (namespace-relative when
   * inside the namespace), or null when absent. */
  readRaw(name: string): RawRef | null {
    const raw = this.readReal(this.real(name));
    if (raw && 'symbolic' in raw) return { symbolic: this.relative(raw.symbolic) ?? refNameFromLatin1(raw.symbolic) };
    return raw;
  }

  /** Follows `name` through symbolic refs, as git does (at most SYMREF_MAXDEPTH links): the
   * ref the chain ends at and its oid (null when that ref does not exist). Null when `name`
   * itself does not exist. */
  resolveSymbolic(name: string): ResolvedRef | null {
    let current = this.real(name);
    for (let depth = 0; depth <= MAX_SYMREF_DEPTH; depth++) {
      const raw = this.readReal(current);
      if (!raw) {
        if (depth === 0) return null;
        return this.resolved(current, null);
      }
      if ('oid' in raw) return this.resolved(current, raw.oid);
      current = raw.symbolic;
    }
    throw new GitReadError(`The ref ${quoteReal(this.real(name))} is a chain of more than ${MAX_SYMREF_DEPTH} symbolic refs; git refuses such a chain too.`);
  }

  private resolved(real: string, oid: string | null): ResolvedRef {
    const ref = this.relative(real);
    return ref === null ? { ref: refNameFromLatin1(real), oid, outsideNamespace: true } : { ref, oid };
  }

  /** Follows `name` through symbolic refs to an oid; null when it (or its target) is absent. */
  resolveFull(name: string): string | null {
    return this.resolveSymbolic(name)?.oid ?? null;
  }

  /** The full ref name a short name stands for, the way `git rev-parse` picks it (the first
   * rule whose ref exists and resolves), or null. */
  expand(name: string): string | null {
    for (const rule of REV_PARSE_RULES) {
      const full = rule.replace('%s', name);
      if (full !== 'HEAD' && !full.startsWith('refs/') && rule === '%s' && !/^[A-Z_]+$/.test(full)) continue;
      if (this.resolveFull(full) !== null) return full;
    }
    return null;
  }

  /** HEAD's target when HEAD is symbolic (e.g. 'refs/heads/main'), null when detached. */
  headTarget(): string | null {
    const raw = this.readRaw('HEAD');
    return raw && 'symbolic' in raw ? raw.symbolic : null;
  }

  /** Every ref under refs/ (inside the namespace, when there is one), sorted by name, each
   * with its oid or its symbolic target (loose refs override packed ones). */
  entries(under = 'refs/'): RefEntry[] {
    if (!under.startsWith('refs/') || !under.endsWith('/')) throw new Error(`entries: ${under} is not a folder of refs/`);
    const prefix = this.ns + refNameLatin1(under);
    const loose = this.looseUnder(prefix);
    const packed = this.packedUnder(prefix);
    // Sorted by the names' bytes, as git lists them.
    const out: { key: string; entry: RefEntry }[] = [];
    const add = (real: string, raw: RawRef) => {
      const key = real.slice(this.ns.length);
      const name = refNameFromLatin1(key);
      if ('oid' in raw) out.push({ key, entry: { name, oid: raw.oid, symbolic: null } });
      else {
        const end = this.resolveSymbolic(name);
        out.push({ key, entry: { name, oid: end?.oid ?? null, symbolic: end?.ref ?? (this.relative(raw.symbolic) ?? refNameFromLatin1(raw.symbolic)) } });
      }
    };
    for (const real of loose) {
      const raw = this.readReal(real);
      if (raw) add(real, raw);
    }
    for (const [real, oid] of packed) {
      if (!loose.has(real)) add(real, { oid });
    }
    return out.sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).map((o) => o.entry);
  }

  /**
   * The distinct oids of the refs under refs/ (inside the namespace) that resolve, leaving
   * out every ref whose namespace-relative name starts with one of `exclude` (text): the oids
   * of list() without a name made for each packed ref. Loose refs override packed ones, a
   * symbolic ref counts by its own name with the oid its chain ends at (a dangling one is left
   * out), as list() has them.
   */
  distinctOids(exclude: readonly string[]): string[] {
    const prefix = this.ns + 'refs/';
    const excluded = exclude.map((e) => this.ns + refNameLatin1(e));
    const isExcluded = (real: string) => excluded.some((e) => real.startsWith(e));
    const { loose, complete } = this.looseListingUnder(prefix);
    this.listedLoose = complete ? loose : null;
    const out = new Set<string>();
    for (const real of loose) {
      if (isExcluded(real)) continue;
      const raw = this.readReal(real);
      if (!raw) continue;
      const oid = 'oid' in raw ? raw.oid : this.resolveSymbolic(refNameFromLatin1(real.slice(this.ns.length)))?.oid;
      if (oid) out.add(oid);
    }
    const file = this.packedFile();
    if (!file.sorted) {
      for (const [real, oid] of this.packedUnder(prefix)) if (!loose.has(real) && !isExcluded(real)) out.add(oid);
      return [...out];
    }
    // A sorted file names each ref once, and the refs under a prefix are one range of lines:
    // the refs/ range less the excluded prefixes' ranges, less the lines loose refs override,
    // grouped by oid without a string per line.
    const [from, to] = file.range(prefix);
    const holes = excluded.map((e) => file.range(e)).filter(([a, b]) => b > a).sort((x, y) => x[0] - y[0]);
    const segments: [number, number][] = [];
    let at = from;
    for (const [a, b] of holes) {
      if (a > at) segments.push([at, Math.min(a, to)]);
      at = Math.max(at, b);
    }
    if (at < to) segments.push([at, to]);
    const overridden = new Set<number>();
    for (const real of loose) {
      const i = file.find(real);
      if (i >= 0) overridden.add(i);
    }
    for (const oid of file.distinctOids(segments, overridden)) out.add(oid);
    return [...out];
  }

  /** The loose refs (on-disk names) under `prefix` (an on-disk folder ending in `/`), in the
   * common directory and, for a linked worktree, its own. */
  private looseUnder(prefix: string): Set<string> {
    return this.looseListingUnder(prefix).loose;
  }

  /** looseUnder, and whether the listing saw every folder: a folder that could not be listed
   * (a file in it may still be read by its name) or a symbolic link to one (git reads refs
   * through it) leaves it incomplete, and then it never stands for the folders' contents. */
  private looseListingUnder(prefix: string): { loose: Set<string>; complete: boolean } {
    const loose = new Set<string>();
    let complete = true;
    const walk = (dir: string, name: string) => {
      let items: import('node:fs').Dirent<Buffer>[];
      try {
        // Names as bytes: a ref whose name is not UTF-8 is listed as git lists it.
        items = readdirSync(refPath(dir, name), { withFileTypes: true, encoding: 'buffer' });
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') complete = false;
        return;
      }
      for (const item of items) {
        const child = `${name}/${Buffer.from(item.name as unknown as Uint8Array).toString('latin1')}`;
        if (item.isSymbolicLink()) complete = false;
        if (item.isDirectory()) walk(dir, child);
        else if (validReal(child)) loose.add(child);
      }
    };
    const top = prefix.slice(0, -1);
    walk(this.commondir, top);
    if (this.commondir !== this.gitdir && existsSync(join(this.gitdir, 'refs'))) walk(this.gitdir, top);
    return { loose, complete };
  }

  /** Every ref under refs/ that resolves, full name -> oid (dangling symbolic refs left out). */
  list(): Map<string, string> {
    const out = new Map<string, string>();
    for (const e of this.entries()) if (e.oid !== null) out.set(e.name, e.oid);
    return out;
  }
}
