// Policy globs, compiled to matchers whose time is linear in the path's length. Globs are
// picomatch globs (docs/paths.md § Globs); this module accepts the part of picomatch's language that a
// policy needs and refuses the rest with a sentence (malformed globs, ones no git path can
// match, ones picomatch itself would backtrack on catastrophically), so a policy means the
// same thing here and to anyone who reads it with picomatch:
//
//   literal characters, `\x` (x literally), `?` (one character), `*` (any run within a
//   segment), `**` as a whole segment (zero or more segments), `[...]` and `[^...]` classes
//   (ranges, POSIX classes such as `[:alpha:]`), `{a,b}` and `{1..3}` braces (which may hold
//   `/`), and the extglobs `@(a|b)`, `?(a|b)`, `+(a)`, `*(a)` over literals, `?` and classes.
//
// Matching is segment by segment: a glob is a sequence of segment matchers and globstars,
// and a path is run through it as a set of positions (an NFA over segments), each segment
// tested by a character NFA simulated as a set of states. Nothing backtracks, so the time is
// at most (path length) × (glob size).

import { caseFold, foldSegment, shortNameMayStandFor, type PathSegment, type ShortName } from './paths';

/** A glob the policy may not use; `message` says why, as a sentence fragment. */
export class GlobError extends Error {
  constructor(
    readonly glob: string,
    message: string,
  ) {
    super(message);
    this.name = 'GlobError';
  }
}

/** Brace expansion beyond this many alternatives is refused (`{a,b}{c,d}…` doubles each time). */
export const MAX_ALTERNATIVES = 256;
/** Globs with more segments than this are refused (positions are kept in a 32-bit mask). */
export const MAX_SEGMENTS = 31;
/** Longest glob accepted, in characters. */
export const MAX_GLOB_LENGTH = 4096;

type ClassItem = { t: 'char'; cp: number } | { t: 'range'; lo: number; hi: number } | { t: 'posix'; re: RegExp };
type Tok =
  | { t: 'lit'; ch: string }
  | { t: 'any' }
  | { t: 'star'; n: number; braced: boolean }
  | { t: 'class'; negated: boolean; items: ClassItem[]; source: string }
  | { t: 'sep' }
  | { t: 'brace'; alts: Tok[][] }
  | { t: 'ext'; op: '@' | '?' | '+' | '*'; alts: Tok[][] };

const POSIX_CLASSES: Record<string, RegExp> = {
  alnum: /[a-zA-Z0-9]/,
  alpha: /[a-zA-Z]/,
  ascii: /[\x00-\x7f]/,
  blank: /[ \t]/,
  cntrl: /[\x00-\x1f\x7f]/,
  digit: /[0-9]/,
  graph: /[\x21-\x7e]/,
  lower: /[a-z]/,
  print: /[\x20-\x7e]/,
  punct: /[!-/:-@[-`{-~]/,
  space: /[ \t\r\n\v\f]/,
  upper: /[A-Z]/,
  word: /[A-Za-z0-9_]/,
  xdigit: /[A-Fa-f0-9]/,
};

// ---------------------------------------------------------------------------------------------
// Parsing

type Context = 'top' | 'brace' | 'ext';

class Parser {
  private readonly cps: string[];
  private i = 0;

  constructor(private readonly glob: string) {
    this.cps = [...glob];
  }

  error(message: string): GlobError {
    return new GlobError(this.glob, message);
  }

  parse(): Tok[] {
    if (this.glob.length === 0) throw this.error('it is empty');
    if (this.glob.length > MAX_GLOB_LENGTH) throw this.error(`it is longer than ${MAX_GLOB_LENGTH} characters`);
    if (this.cps[0] === '!' && this.cps[1] !== '(') {
      throw this.error('a leading ! negates the whole glob, which a policy does not use; list what to except under "exceptions"');
    }
    const seq = this.sequence('top');
    if (this.i < this.cps.length) throw this.error(`an unbalanced ${this.cps[this.i]} at character ${this.i + 1}`);
    return seq;
  }

  private peek(k = 0): string | undefined {
    return this.cps[this.i + k];
  }

  /** A sequence up to (not including) a character that closes `ctx`. */
  private sequence(ctx: Context): Tok[] {
    const out: Tok[] = [];
    while (this.i < this.cps.length) {
      const c = this.cps[this.i]!;
      if (ctx === 'brace' && (c === ',' || c === '}')) return out;
      if (ctx === 'ext' && (c === '|' || c === ')')) return out;
      const next = this.peek(1);
      switch (c) {
        case '\\': {
          const escaped = this.peek(1);
          if (escaped === undefined) throw this.error('it ends with a lone \\');
          out.push({ t: 'lit', ch: escaped });
          this.i += 2;
          break;
        }
        case '*':
        case '?':
        case '+':
        case '@':
          if (next === '(') {
            if (ctx === 'ext') throw this.error(`an extglob nested in another at character ${this.i + 1}, which picomatch backtracks on catastrophically`);
            out.push(this.extglob(c));
          } else if (c === '*') {
            if (ctx === 'ext') throw this.error(`a * inside an extglob at character ${this.i + 1}, which picomatch backtracks on catastrophically`);
            let n = 0;
            while (this.peek() === '*' && this.peek(1) !== '(') {
              n++;
              this.i++;
            }
            out.push({ t: 'star', n, braced: ctx === 'brace' });
          } else if (c === '?') {
            out.push({ t: 'any' });
            this.i++;
          } else {
            out.push({ t: 'lit', ch: c });
            this.i++;
          }
          break;
        case '!':
          if (next === '(') throw this.error(`a negated extglob !(...) at character ${this.i + 1}, which a policy does not use; list what to except under "exceptions"`);
          out.push({ t: 'lit', ch: c });
          this.i++;
          break;
        case '(':
          throw this.error(`a bare ( at character ${this.i + 1}: write @(a|b) for a group, or \\( for the character`);
        case ')':
          throw this.error(`an unbalanced ) at character ${this.i + 1}`);
        case '|':
          throw this.error(`a | outside @(...) at character ${this.i + 1}: write @(a|b) for alternatives, or \\| for the character`);
        case '[':
          out.push(this.charClass());
          break;
        case ']':
          throw this.error(`an unbalanced ] at character ${this.i + 1}: write \\] for the character`);
        case '{':
          if (ctx === 'ext') throw this.error(`braces inside an extglob at character ${this.i + 1}`);
          out.push(this.brace());
          break;
        case '}':
          throw this.error(`an unbalanced } at character ${this.i + 1}: write \\} for the character`);
        case '/':
          if (ctx === 'ext') throw this.error(`a / inside an extglob at character ${this.i + 1}`);
          out.push({ t: 'sep' });
          this.i++;
          break;
        default:
          out.push({ t: 'lit', ch: c });
          this.i++;
      }
    }
    if (ctx === 'brace') throw this.error('an unbalanced { (no closing })');
    if (ctx === 'ext') throw this.error('an unbalanced ( (no closing ))');
    return out;
  }

  private extglob(op: string): Tok {
    const start = this.i;
    this.i += 2; // op and (
    const alts: Tok[][] = [];
    for (;;) {
      alts.push(this.sequence('ext'));
      const c = this.cps[this.i];
      this.i++;
      if (c === ')') break;
    }
    if ((op === '+' || op === '*') && alts.length > 1 && !alts.every((a) => a.length === 1)) {
      throw this.error(
        `${op}(...) with alternatives longer than one character at character ${start + 1} (as in +(a|aa)), which picomatch backtracks on catastrophically; write the alternatives as a class or list the globs`,
      );
    }
    return { t: 'ext', op: op as '@' | '?' | '+' | '*', alts };
  }

  private charClass(): Tok {
    const start = this.i;
    this.i++; // [
    let negated = false;
    if (this.peek() === '!') throw this.error(`[! at character ${start + 1}, which picomatch reads as a class holding '!': write [^...] for a negated class`);
    if (this.peek() === '^') {
      negated = true;
      this.i++;
    }
    const items: ClassItem[] = [];
    for (;;) {
      const c = this.peek();
      if (c === undefined) throw this.error(`an unbalanced [ at character ${start + 1} (no closing ])`);
      if (c === ']') {
        if (items.length === 0) throw this.error(`an empty class at character ${start + 1}: write \\] for the character`);
        this.i++;
        break;
      }
      if (c === '/') throw this.error(`a / inside a class at character ${start + 1}; a class matches one character of one segment`);
      if (c === '[' && this.peek(1) === ':') {
        const rest = this.cps.slice(this.i + 2).join('');
        const m = /^([a-z]+):\]/.exec(rest);
        if (!m || !POSIX_CLASSES[m[1]!]) throw this.error(`an unknown POSIX class at character ${this.i + 1}`);
        items.push({ t: 'posix', re: POSIX_CLASSES[m[1]!]! });
        this.i += 2 + m[0].length;
        continue;
      }
      let lo = c;
      if (c === '\\') {
        const e = this.peek(1);
        if (e === undefined) throw this.error(`an unbalanced [ at character ${start + 1} (no closing ])`);
        lo = e;
        this.i += 2;
      } else {
        this.i++;
      }
      if (this.peek() === '-' && this.peek(1) !== undefined && this.peek(1) !== ']') {
        let hi = this.peek(1)!;
        this.i += 2;
        if (hi === '\\') {
          const e = this.peek();
          if (e === undefined) throw this.error(`an unbalanced [ at character ${start + 1} (no closing ])`);
          hi = e;
          this.i++;
        }
        const a = lo.codePointAt(0)!;
        const b = hi.codePointAt(0)!;
        if (b < a) throw this.error(`a reversed range ${lo}-${hi} at character ${start + 1}`);
        items.push({ t: 'range', lo: a, hi: b });
      } else {
        items.push({ t: 'char', cp: lo.codePointAt(0)! });
      }
    }
    return { t: 'class', negated, items, source: this.cps.slice(start, this.i).join('') };
  }

  private brace(): Tok {
    const start = this.i;
    this.i++; // {
    // A range {1..5} or {a..e}: read as text up to the closing brace.
    const close = this.cps.indexOf('}', this.i);
    if (close > 0) {
      const inner = this.cps.slice(this.i, close).join('');
      const range = /^(-?[0-9]+|[A-Za-z])\.\.(-?[0-9]+|[A-Za-z])(?:\.\.([0-9]+))?$/.exec(inner);
      if (range) {
        this.i = close + 1;
        return { t: 'brace', alts: expandRange(this.glob, range[1]!, range[2]!, range[3]) };
      }
    }
    const alts: Tok[][] = [];
    for (;;) {
      alts.push(this.sequence('brace'));
      const c = this.cps[this.i];
      this.i++;
      if (c === '}') break;
    }
    if (alts.length < 2) throw this.error(`braces without a comma at character ${start + 1}: write {a,b} for alternatives, or \\{ for the character`);
    return { t: 'brace', alts };
  }
}

function expandRange(glob: string, from: string, to: string, stepText: string | undefined): Tok[][] {
  const numeric = /^-?[0-9]+$/.test(from);
  if (numeric !== /^-?[0-9]+$/.test(to)) throw new GlobError(glob, `a range {${from}..${to}} that mixes numbers and letters`);
  const a = numeric ? Number(from) : from.codePointAt(0)!;
  const b = numeric ? Number(to) : to.codePointAt(0)!;
  const step = Math.max(1, Math.abs(Number(stepText ?? 1)));
  const count = Math.floor(Math.abs(b - a) / step) + 1;
  if (count > MAX_ALTERNATIVES) throw new GlobError(glob, `a range {${from}..${to}} of more than ${MAX_ALTERNATIVES} values`);
  const out: Tok[][] = [];
  for (let k = 0; k < count; k++) {
    const v = a <= b ? a + k * step : a - k * step;
    const text = numeric ? String(v) : String.fromCodePoint(v);
    out.push([...text].map((ch) => ({ t: 'lit', ch })));
  }
  return out;
}

/** Brace expansion: the glob as a list of alternatives, none holding a brace. */
function expand(glob: string, seq: Tok[]): Tok[][] {
  let acc: Tok[][] = [[]];
  for (const tok of seq) {
    if (tok.t !== 'brace') {
      for (const a of acc) a.push(tok);
      continue;
    }
    const options = tok.alts.flatMap((alt) => expand(glob, alt));
    if (acc.length * options.length > MAX_ALTERNATIVES) {
      throw new GlobError(glob, `its braces expand to more than ${MAX_ALTERNATIVES} alternatives`);
    }
    const next: Tok[][] = [];
    for (const a of acc) for (const o of options) next.push([...a, ...o]);
    acc = next;
  }
  return acc;
}

// ---------------------------------------------------------------------------------------------
// Segment matchers

/** The steps a counted glob's matching took (see countedGlob). */
export interface StepCounter {
  steps: number;
}

type Pred = (ch: string) => boolean;

/** One segment of a glob (not a globstar). */
interface SegmentMatcher {
  /** Tests a folded segment. */
  test(key: string): boolean;
  /** True when some long name the short name may stand for could match (errs towards true). */
  mayMatchShort(short: ShortName): boolean;
  /** The segment as a literal key, when it has no wildcard. */
  literal: string | null;
}

type GlobSegment = { globstar: true } | { globstar: false; m: SegmentMatcher };

function classPred(tok: Extract<Tok, { t: 'class' }>, fold: boolean): Pred {
  const hit = (ch: string): boolean => {
    const cp = ch.codePointAt(0)!;
    for (const item of tok.items) {
      if (item.t === 'char' ? item.cp === cp : item.t === 'range' ? cp >= item.lo && cp <= item.hi : item.re.test(ch)) return true;
    }
    return false;
  };
  return (ch: string) => {
    // The path side is folded (lower case); a class such as [A-Z] must still take it.
    const inClass = hit(ch) || (fold && hit(ch.toUpperCase()));
    return inClass !== tok.negated;
  };
}

/** Folds the literal characters of a segment as names are folded (see foldSegment). */
function foldTokens(tokens: Tok[]): Tok[] {
  const out: Tok[] = [];
  let run = '';
  const flush = () => {
    if (run) for (const ch of caseFold(run)) out.push({ t: 'lit', ch });
    run = '';
  };
  for (const tok of tokens) {
    if (tok.t === 'lit') run += tok.ch;
    else {
      flush();
      out.push(tok);
    }
  }
  flush();
  // Win32 reads everything from a ':' as a stream name and drops trailing dots and spaces:
  // a glob segment that spells them matches what a checkout writes.
  const colon = out.findIndex((t) => t.t === 'lit' && t.ch === ':');
  if (colon >= 0) out.length = colon;
  while (out.length > 0) {
    const last = out[out.length - 1]!;
    if (last.t === 'lit' && (last.ch === '.' || last.ch === ' ')) out.pop();
    else break;
  }
  return out;
}

function literalOf(tokens: Tok[]): string | null {
  let s = '';
  for (const t of tokens) {
    if (t.t !== 'lit') return null;
    s += t.ch;
  }
  return s;
}

/** `test`, counting `cost(key)` steps per call on `counter` (a counted glob only). */
function countedTest(test: (key: string) => boolean, counter: StepCounter | null, cost: (key: string) => number): (key: string) => boolean {
  if (counter === null) return test;
  return (key) => {
    counter.steps += cost(key);
    return test(key);
  };
}

function compileSegment(tokens: Tok[], fold: boolean, counter: StepCounter | null): SegmentMatcher {
  const all = literalOf(tokens);
  if (all !== null) {
    const literal = fold ? foldSegment(all) : all;
    return {
      literal,
      test: countedTest((key) => key === literal, counter, () => 1),
      mayMatchShort: (short) => shortNameMayStandFor(short, literal),
    };
  }
  const toks = fold ? foldTokens(tokens) : tokens;
  const starAt = toks.map((t, i) => (t.t === 'star' ? i : -1)).filter((i) => i >= 0);
  const onlyLitsAndOneStar = starAt.length === 1 && toks.every((t) => t.t === 'lit' || t.t === 'star');
  if (onlyLitsAndOneStar) {
    const prefix = literalOf(toks.slice(0, starAt[0]))!;
    const suffix = literalOf(toks.slice(starAt[0]! + 1))!;
    return {
      literal: null,
      test: countedTest(
        (key) => key.length >= prefix.length + suffix.length && key.startsWith(prefix) && key.endsWith(suffix),
        counter,
        () => prefix.length + suffix.length + 1,
      ),
      mayMatchShort: (short) => {
        if (prefix !== '') return true; // errs towards a match
        // `*` + suffix: a long name the short name stands for can be built, so ask it exactly.
        const stem = suffix.includes('.') || short.ext === '' ? short.base : `${short.base}.${short.ext}`;
        return shortNameMayStandFor(short, stem + suffix);
      },
    };
  }
  return { literal: null, test: buildNfa(toks, fold, counter), mayMatchShort: () => true };
}

interface Nfa {
  edges: Array<Array<{ pred: Pred; to: number }>>;
  eps: number[][];
  start: number;
  accept: number;
}

/** The states and edges of one segment's tokens (Thompson's construction). */
function nfaOf(tokens: Tok[], fold: boolean): Nfa {
  const edges: Nfa['edges'] = [];
  const eps: number[][] = [];
  const state = () => {
    edges.push([]);
    eps.push([]);
    return edges.length - 1;
  };
  const ANY: Pred = () => true;
  const seq = (from: number, toks: Tok[]): number => {
    let s = from;
    for (const tok of toks) {
      const t = state();
      switch (tok.t) {
        case 'lit': {
          const ch = tok.ch;
          edges[s]!.push({ pred: (c) => c === ch, to: t });
          break;
        }
        case 'any':
          edges[s]!.push({ pred: ANY, to: t });
          break;
        case 'star':
          eps[s]!.push(t);
          edges[t]!.push({ pred: ANY, to: t });
          break;
        case 'class':
          edges[s]!.push({ pred: classPred(tok, fold), to: t });
          break;
        case 'ext': {
          for (const alt of tok.alts) {
            const a = state();
            eps[s]!.push(a);
            eps[seq(a, alt)]!.push(t);
          }
          if (tok.op === '?' || tok.op === '*') eps[s]!.push(t);
          if (tok.op === '+' || tok.op === '*') eps[t]!.push(s);
          break;
        }
        default:
          throw new Error(`unexpected token ${tok.t} in a segment`);
      }
      s = t;
    }
    return s;
  };
  const start = state();
  const accept = seq(start, tokens);
  return { edges, eps, start, accept };
}

/** A character NFA for one segment, simulated as a set of states (no backtracking). With a
 * counter, every edge tested and every state the epsilon closure may visit is a step. */
function buildNfa(tokens: Tok[], fold: boolean, counter: StepCounter | null): (key: string) => boolean {
  const { edges, eps, start, accept } = nfaOf(tokens, fold);
  if (counter !== null) {
    for (const list of edges) {
      for (const e of list) {
        const pred = e.pred;
        e.pred = (c) => {
          counter.steps++;
          return pred(c);
        };
      }
    }
  }
  const n = edges.length;
  const mark = new Int32Array(n).fill(-1);
  let generation = 0;
  const closure = (set: number[]): number[] => {
    generation++;
    const out: number[] = [];
    const stack = [...set];
    while (stack.length > 0) {
      const s = stack.pop()!;
      if (mark[s] === generation) continue;
      mark[s] = generation;
      out.push(s);
      for (const e of eps[s]!) if (mark[e] !== generation) stack.push(e);
    }
    return out;
  };
  // Counted: the states taken off the stack are at most the set plus the epsilon edges of the
  // states reached.
  const close =
    counter === null
      ? closure
      : (set: number[]): number[] => {
          const out = closure(set);
          counter.steps += set.length;
          for (const s of out) counter.steps += eps[s]!.length + 1;
          return out;
        };
  return (key: string) => {
    let current = close([start]);
    for (const ch of key) {
      const next: number[] = [];
      for (const s of current) {
        for (const e of edges[s]!) {
          if (e.pred(ch)) next.push(e.to);
        }
      }
      if (next.length === 0) return false;
      current = close(next);
    }
    return current.includes(accept);
  };
}

// ---------------------------------------------------------------------------------------------
// Whole globs

export interface CompiledGlob {
  readonly source: string;
  /** True when the glob matches the path (segments folded by pathSegments). A segment that is
   * an 8.3 short name matches a glob segment that any long name it may stand for matches. */
  matchSegments(segments: readonly PathSegment[]): boolean;
  /** True when some path strictly below `segments` (the path of a directory, a symlink or a
   * submodule) could match the glob. Exact for the glob language, except that every glob
   * segment is taken to match some name (errs towards true). */
  couldMatchBelow(segments: readonly PathSegment[]): boolean;
  /** True when the glob has no wildcard (one literal path per alternative). */
  readonly literal: boolean;
  /** The folded keys the first segment of a matching path must have, one per alternative, or
   * null when some alternative starts with a wildcard (an index for many globs). */
  readonly firstSegments: readonly string[] | null;
  /** The same for the last segment. */
  readonly lastSegments: readonly string[] | null;
}

function splitSegments(glob: string, alt: Tok[], fold: boolean, counter: StepCounter | null): GlobSegment[] {
  const parts: Tok[][] = [[]];
  for (const tok of alt) {
    if (tok.t === 'sep') parts.push([]);
    else parts[parts.length - 1]!.push(tok);
  }
  if (parts.length > 1 && parts[0]!.length === 0) {
    throw new GlobError(glob, 'it starts with /, and git paths are relative to the repository root: write the path without the leading /');
  }
  if (parts.length > 1 && parts[parts.length - 1]!.length === 0) {
    throw new GlobError(glob, 'it ends with /, which no git path does: write dir/** for everything in a folder');
  }
  if (parts.some((p) => p.length === 0)) throw new GlobError(glob, 'it has an empty segment (//), which no git path has');
  // picomatch reads a trailing /** after a segment that ends in a bare * (`docs*/**`, not
  // `{a,*}/**`) as one or more segments, where it elsewhere allows zero: read it the same way.
  let trailing = parts.length;
  while (trailing > 0 && isGlobstar(parts[trailing - 1]!)) trailing--;
  const beforeTrailing = parts[trailing - 1]?.at(-1);
  const oneOrMore = trailing > 0 && trailing < parts.length && beforeTrailing?.t === 'star' && !beforeTrailing.braced;
  if (oneOrMore) parts.splice(trailing, 0, [{ t: 'star', n: 1, braced: false }]);
  if (parts.length > MAX_SEGMENTS) throw new GlobError(glob, `it has more than ${MAX_SEGMENTS} segments`);
  return parts.map((p): GlobSegment => {
    const lit = literalOf(p);
    if (lit === '.' || lit === '..') {
      throw new GlobError(glob, `it has a "${lit}" segment, which no git path has: write the path from the repository root`);
    }
    if (isGlobstar(p)) return { globstar: true };
    return { globstar: false, m: compileSegment(p, fold, counter) };
  });
}

function isGlobstar(segment: Tok[]): boolean {
  return segment.length === 1 && segment[0]!.t === 'star' && segment[0]!.n >= 2;
}

/** Parses and checks `glob`, throwing GlobError with the reason when the policy may not use it. */
export function compileGlob(glob: string, opts: { fold: boolean }): CompiledGlob {
  // Compiled once per process: the policy's schema check compiles every glob to refuse the bad
  // ones, and the protection rules, matchers and fixture records then use the same objects.
  const key = `${opts.fold ? 'f' : 'c'}${glob}`;
  let known = compiledGlobs.get(key);
  if (known === undefined) {
    try {
      known = compileFresh(glob, opts);
    } catch (err) {
      if (!(err instanceof GlobError)) throw err;
      known = err;
    }
    if (compiledGlobs.size >= COMPILED_GLOBS_KEPT) compiledGlobs.clear();
    compiledGlobs.set(key, known);
  }
  if (known instanceof GlobError) throw known;
  return known;
}

/** Compiled globs (and refusals) by fold and source; a policy has tens, so the bound is loose. */
const compiledGlobs = new Map<string, CompiledGlob | GlobError>();
const COMPILED_GLOBS_KEPT = 4096;

/**
 * compileGlob's glob, compiled anew with matchers that count their steps (segment positions
 * visited, NFA edges tested and states closed over, characters compared) on `counter`: for
 * showing that matching is linear in the path's length without timing anything. Only tests
 * build one; the globs compileGlob gives count nothing.
 */
export function countedGlob(glob: string, opts: { fold: boolean }): { glob: CompiledGlob; counter: StepCounter } {
  const counter: StepCounter = { steps: 0 };
  return { glob: compileFresh(glob, opts, counter), counter };
}

function compileFresh(glob: string, opts: { fold: boolean }, counter: StepCounter | null = null): CompiledGlob {
  const alternatives = expand(glob, new Parser(glob).parse()).map((alt) => splitSegments(glob, alt, opts.fold, counter));
  const programs = alternatives.map((alt) => segmentProgram(alt, counter));
  return {
    source: glob,
    literal: alternatives.every((alt) => alt.every((s) => !s.globstar && s.m.literal !== null)),
    firstSegments: alternatives.every((alt) => !alt[0]!.globstar && alt[0]!.m.literal !== null)
      ? [...new Set(alternatives.map((alt) => (alt[0] as { m: SegmentMatcher }).m.literal!))]
      : null,
    lastSegments: alternatives.every((alt) => !alt.at(-1)!.globstar && (alt.at(-1) as { m: SegmentMatcher }).m.literal !== null)
      ? [...new Set(alternatives.map((alt) => (alt.at(-1) as { m: SegmentMatcher }).m.literal!))]
      : null,
    matchSegments: (segments) => programs.some((p) => (p.run(segments) & p.acceptBit) !== 0),
    couldMatchBelow: (segments) => programs.some((p) => (p.run(segments) & p.belowMask) !== 0),
  };
}

interface SegmentProgram {
  /** The set of glob positions reached after the segments (bit i: position i). */
  run(segments: readonly PathSegment[]): number;
  acceptBit: number;
  /** Positions from which at least one more segment can still be matched. */
  belowMask: number;
}

function segmentProgram(glob: GlobSegment[], counter: StepCounter | null): SegmentProgram {
  const m = glob.length;
  // Positions 0..m; a globstar at position i may be skipped (epsilon to i + 1).
  const closure = (set: number): number => {
    for (let i = 0; i < m; i++) if (set & (1 << i) && glob[i]!.globstar) set |= 1 << (i + 1);
    return set;
  };
  const run = (segments: readonly PathSegment[], from = closure(1)): number => {
    let set = from;
    for (const seg of segments) {
      let next = 0;
      for (let i = 0; i < m; i++) {
        if (!(set & (1 << i))) continue;
        const g = glob[i]!;
        if (g.globstar) next |= 1 << i;
        else if (g.m.test(seg.key) || (seg.short !== null && g.m.mayMatchShort(seg.short))) next |= 1 << (i + 1);
      }
      if (next === 0) return 0;
      set = closure(next);
    }
    return set;
  };
  // Counted: one step per glob position live before each segment (the positions the loop
  // above visits), computed from the same sets.
  const counted = (segments: readonly PathSegment[]): number => {
    let set = closure(1);
    for (let k = 0; k < segments.length; k++) {
      for (let i = 0; i < m; i++) if (set & (1 << i)) counter!.steps++;
      set = run(segments.slice(k, k + 1), set);
      if (set === 0) return 0;
    }
    return set;
  };
  return { run: counter === null ? run : counted, acceptBit: 1 << m, belowMask: (1 << m) - 1 };
}

// ---------------------------------------------------------------------------------------------
// The folder a glob starts in

const isExtglobChar = (c: number) => c === 0x2b /* + */ || c === 0x40 /* @ */ || c === 0x2a /* * */ || c === 0x3f /* ? */ || c === 0x21; /* ! */

/**
 * The leading part of `glob` before its first wildcard, as picomatch's `scan(glob).base` gives it
 * (picomatch 4, lib/scan.js, default options): the folders up to the last '/' before the first
 * `*`, `?`, `[...]`, `{...,...}`, `(` or extglob; the whole glob when it has none; '' when the
 * wildcard is in the first segment. Backslash escapes are kept as written, a leading `!` and
 * leading `./` are dropped. Every path the glob matches lies in this folder; the fixture
 * records are listed from it.
 */
export function globBase(input: string): string {
  const scan = new BaseScan(input);
  scan.run();
  let str = input;
  let lastIndex = scan.lastIndex;
  if (scan.start > 0) {
    str = input.slice(scan.start);
    lastIndex -= scan.start;
  }
  let base: string;
  if (input !== '' && scan.isGlob && lastIndex > 0) base = str.slice(0, lastIndex);
  else if (scan.isGlob) base = '';
  else base = str;
  if (base !== '' && base !== '/' && base !== str) {
    const last = base.charCodeAt(base.length - 1);
    if (last === 0x2f || last === 0x5c) base = base.slice(0, -1);
  }
  return base;
}

/** One left-to-right scan of a glob, as picomatch's `scan` walks it (the state it keeps for the
 * base: where the glob starts, the last '/' before the first wildcard, whether there is one). */
class BaseScan {
  private readonly length: number;
  private index = -1;
  private prev = -1;
  private code = -1;
  private braceEscaped = false;
  private finished = false;
  private braces = 0;
  start = 0;
  lastIndex = 0;
  isGlob = false;

  constructor(private readonly input: string) {
    this.length = input.length - 1;
  }

  private eos(): boolean {
    return this.index >= this.length;
  }

  private advance(): number {
    this.prev = this.code;
    return this.input.charCodeAt(++this.index);
  }

  run(): void {
    while (this.index < this.length) {
      const code = (this.code = this.advance());
      if (code === 0x5c /* \ */) {
        this.code = this.advance();
        if (this.code === 0x7b /* { */) this.braceEscaped = true;
        continue;
      }
      if (this.braceEscaped || code === 0x7b) {
        this.brace();
        return;
      }
      if (code === 0x2f /* / */) {
        this.slash();
        continue;
      }
      if (isExtglobChar(code) && this.input.charCodeAt(this.index + 1) === 0x28 /* ( */) {
        this.isGlob = true;
        return;
      }
      const step = this.wildcard(code);
      if (step === 'stop') return;
      if (step === 'next') continue;
      if (this.isGlob) {
        this.finished = true;
        return;
      }
    }
  }

  /** A '/': the base may end here (a leading './' is dropped). */
  private slash(): void {
    if (this.finished) return;
    if (this.prev === 0x2e && this.index === this.start + 1) {
      this.start += 2;
      return;
    }
    this.lastIndex = this.index + 1;
  }

  /** `*`, `?`, `[...]`, `(` end the base; a leading `!` is dropped. */
  private wildcard(code: number): 'stop' | 'next' | 'on' {
    switch (code) {
      case 0x2a /* * */:
      case 0x3f /* ? */:
      case 0x28 /* ( */:
        this.isGlob = true;
        return 'stop';
      case 0x5b /* [ */:
        this.bracket();
        return 'stop';
      case 0x21 /* ! */:
        if (this.index === this.start) {
          this.start++;
          return 'next';
        }
        return 'on';
      default:
        return 'on';
    }
  }

  /** After '[': a glob when a ']' closes it. */
  private bracket(): void {
    while (!this.eos()) {
      const next = this.advance();
      if (!next) break;
      if (next === 0x5c) {
        this.advance();
        continue;
      }
      if (next === 0x5d /* ] */) {
        this.isGlob = true;
        break;
      }
    }
  }

  /** After '{' (or an escaped one): a glob when a ',' or '..' comes before the closing '}'. */
  private brace(): void {
    this.braces++;
    while (!this.eos() && (this.code = this.advance())) {
      if (this.code === 0x5c) {
        this.advance();
        continue;
      }
      if (this.code === 0x7b) {
        this.braces++;
        continue;
      }
      if (!this.braceEscaped && this.code === 0x2e /* . */ && (this.code = this.advance()) === 0x2e) {
        this.isGlob = true;
        return;
      }
      if (!this.braceEscaped && this.code === 0x2c /* , */) {
        this.isGlob = true;
        return;
      }
      if (this.code === 0x7d /* } */) {
        this.braces--;
        if (this.braces === 0) {
          this.braceEscaped = false;
          return;
        }
      }
    }
  }
}
