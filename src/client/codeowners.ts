// The review lock on the forge: a marked block of CODEOWNERS (`# BEGIN receipt-gate` …
// `# END receipt-gate`) that asks the policy's owners to review every path the gate protects,
// written where each forge looks (docs/authoring.md § CODEOWNERS):
//
//   GitHub  .github/CODEOWNERS, CODEOWNERS, docs/CODEOWNERS   (the first found is used)
//   GitLab  CODEOWNERS, docs/CODEOWNERS, .gitlab/CODEOWNERS
//   Gitea   CODEOWNERS, docs/CODEOWNERS, .gitea/CODEOWNERS
//
// The block goes in the file each forge reads now; with none at all, in CODEOWNERS at the root,
// which all three read (first for GitLab and Gitea, after .github/ for GitHub). GitHub and GitLab
// read gitignore-style patterns, Gitea Go regular expressions anchored at both ends; a file
// Gitea reads gets a regular expression for each glob, wrapped in parentheses (a pattern that
// names no real path under gitignore rules), before the gitignore patterns (which match no path
// as Gitea reads them, a leading `/` included). Text outside the markers is never changed.

import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { escapeGlob, evidencePaths } from '../evidence/policy';
import { POLICY_PATH, type Policy } from '../evidence/types';

export type Forge = 'GitHub' | 'GitLab' | 'Gitea';

export const SEARCH_ORDER: Record<Forge, readonly string[]> = {
  GitHub: ['.github/CODEOWNERS', 'CODEOWNERS', 'docs/CODEOWNERS'],
  GitLab: ['CODEOWNERS', 'docs/CODEOWNERS', '.gitlab/CODEOWNERS'],
  Gitea: ['CODEOWNERS', 'docs/CODEOWNERS', '.gitea/CODEOWNERS'],
};
const FORGES = Object.keys(SEARCH_ORDER) as Forge[];
/** The file only that forge reads. */
const OWN_FOLDER: Record<Forge, string> = { GitHub: '.github/CODEOWNERS', GitLab: '.gitlab/CODEOWNERS', Gitea: '.gitea/CODEOWNERS' };
/** Every place a forge looks (each is protected by the block itself). */
export const CODEOWNERS_PATHS = [...new Set(FORGES.flatMap((f) => SEARCH_ORDER[f]))];

export const BEGIN = '# BEGIN receipt-gate';
export const END = '# END receipt-gate';

/** The files the block goes in, each with the forges that read it. A forge that reads no file
 * yet gets CODEOWNERS (or docs/CODEOWNERS) when that shadows no file another forge reads now,
 * else the file in its own folder. */
export function codeownersTargets(exists: (path: string) => boolean): { path: string; forges: Forge[] }[] {
  const effective = new Map<Forge, string>();
  for (const forge of FORGES) {
    const found = SEARCH_ORDER[forge].find(exists);
    if (found !== undefined) effective.set(forge, found);
  }
  const lacking = FORGES.filter((f) => !effective.has(f));
  if (lacking.length > 0) {
    const shadowsNothing = (candidate: string) =>
      [...effective].every(([forge, file]) => {
        const at = SEARCH_ORDER[forge].indexOf(candidate);
        return at < 0 || at > SEARCH_ORDER[forge].indexOf(file);
      });
    const shared = ['CODEOWNERS', 'docs/CODEOWNERS'].find(shadowsNothing);
    for (const forge of lacking) effective.set(forge, shared ?? OWN_FOLDER[forge]);
  }
  const byPath = new Map<string, Forge[]>();
  for (const forge of FORGES) {
    const path = effective.get(forge)!;
    byPath.set(path, [...(byPath.get(path) ?? []), forge]);
  }
  return [...byPath].map(([path, forges]) => ({ path, forges }));
}

/** One glob as CODEOWNERS patterns: gitignore-style (GitHub, GitLab) and Gitea's regular
 * expressions; `exact` is false when the patterns cover more than the glob (a part that
 * CODEOWNERS cannot say was widened), with why. */
export interface Converted {
  glob: string;
  gitignore: string[];
  regex: string[];
  exact: boolean;
  why: string | null;
}

type Token = { t: 'lit'; c: string } | { t: 'star' } | { t: 'globstar' } | { t: 'one' };

const MAX_ALTERNATIVES = 32;

export function convertGlob(glob: string): Converted {
  const whys: string[] = [];
  let alternatives: string[];
  if (glob.startsWith('!')) {
    whys.push('a negated glob');
    alternatives = ['**'];
  } else {
    alternatives = expandBraces(glob, whys);
  }
  const gitignore: string[] = [];
  const regex: string[] = [];
  for (const alt of alternatives) {
    const segments = tokenize(alt, whys);
    pushUnique(gitignore, toGitignore(segments, whys));
    pushUnique(regex, toRegex(segments));
  }
  const why = whys.length === 0 ? null : [...new Set(whys)].join('; ');
  return { glob, gitignore, regex, exact: why === null, why };
}

function pushUnique(list: string[], item: string): void {
  if (!list.includes(item)) list.push(item);
}

/** `{a,b}` alternatives, expanded; a range (`{1..3}`) or too many alternatives cut the glob at
 * the brace's segment (everything under the folder before it). */
function expandBraces(glob: string, whys: string[]): string[] {
  const open = findUnescaped(glob, '{');
  if (open < 0) return [glob];
  let depth = 0;
  let close = -1;
  const commas: number[] = [];
  for (let i = open; i < glob.length; i++) {
    const c = glob[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) {
      close = i;
      break;
    } else if (c === ',' && depth === 1) commas.push(i);
  }
  if (close < 0 || commas.length === 0) {
    whys.push(`the brace ${close < 0 ? 'that never closes' : 'range or single alternative'} in ${JSON.stringify(glob)}`);
    return [cutAtSegment(glob, open)];
  }
  const parts: string[] = [];
  let from = open + 1;
  for (const comma of [...commas, close]) {
    parts.push(glob.slice(from, comma));
    from = comma + 1;
  }
  const out = parts.flatMap((p) => expandBraces(glob.slice(0, open) + p + glob.slice(close + 1), whys));
  if (out.length > MAX_ALTERNATIVES) {
    whys.push(`more than ${MAX_ALTERNATIVES} brace alternatives`);
    return [cutAtSegment(glob, open)];
  }
  return out;
}

function findUnescaped(text: string, char: string): number {
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '\\') i++;
    else if (text[i] === char) return i;
  }
  return -1;
}

/** The glob up to the segment holding `at`, then `**`. */
function cutAtSegment(glob: string, at: number): string {
  const slash = glob.lastIndexOf('/', at);
  return slash < 0 ? '**' : `${glob.slice(0, slash)}/**`;
}

/** Segments of tokens; an extglob or group (`+(…)`, `@(…)`, `(a|b)`) ends the glob with `**`
 * at its segment. A character class is one character. */
function tokenize(glob: string, whys: string[]): Token[][] {
  const segments: Token[][] = [[]];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i]!;
    const seg = segments[segments.length - 1]!;
    if (c === '/') {
      segments.push([]);
    } else if (c === '\\' && i + 1 < glob.length) {
      seg.push({ t: 'lit', c: glob[++i]! });
    } else if (c === '(' || ('@!+*?'.includes(c) && glob[i + 1] === '(')) {
      whys.push(`the pattern group at ${JSON.stringify(glob.slice(i))}`);
      segments[segments.length - 1] = [{ t: 'globstar' }];
      return segments;
    } else if (c === '*') {
      let n = 1;
      while (glob[i + 1] === '*') {
        n++;
        i++;
      }
      const whole = seg.length === 0 && (i + 1 === glob.length || glob[i + 1] === '/');
      seg.push(n >= 2 && whole ? { t: 'globstar' } : { t: 'star' });
    } else if (c === '?') {
      seg.push({ t: 'one' });
    } else if (c === '[' && glob.indexOf(']', i + 2) > 0) {
      whys.push(`the character class ${JSON.stringify(glob.slice(i, glob.indexOf(']', i + 2) + 1))} (one character of any kind)`);
      i = glob.indexOf(']', i + 2);
      seg.push({ t: 'one' });
    } else {
      seg.push({ t: 'lit', c });
    }
  }
  return segments;
}

const isGlobstar = (seg: Token[]) => seg.length === 1 && seg[0]!.t === 'globstar';

/** gitignore text of a segment: `*`, `?`, and literal characters CODEOWNERS reads as
 * themselves; any other character (space, `#`, `\`, `!`, `[`, `]`, `*`, `?` as a literal) is
 * `?`, one character of any kind. */
function gitignoreSegment(seg: Token[], whys: string[]): string {
  return seg
    .map((tok) => {
      if (tok.t === 'star' || tok.t === 'globstar') return '*';
      if (tok.t === 'one') return '?';
      if (/^[\p{L}\p{N}._\-@+~,=%&'$;:^]$/u.test(tok.c)) return tok.c;
      whys.push(`the character ${JSON.stringify(tok.c)} (written as ?, any one character)`);
      return '?';
    })
    .join('');
}

function toGitignore(segments: Token[][], whys: string[]): string {
  if (segments.every(isGlobstar)) return '*';
  const segs = [...segments];
  let dirOnly = false;
  if (segs.length > 1 && isGlobstar(segs[segs.length - 1]!)) {
    segs.pop();
    dirOnly = true;
  }
  const text = (list: Token[][]) => list.map((s) => (isGlobstar(s) ? '**' : gitignoreSegment(s, whys))).join('/');
  if (isGlobstar(segs[0]!)) {
    const rest = segs.slice(1);
    if (rest.length === 1 && !dirOnly) return text(rest);
    return `**/${text(rest)}${dirOnly ? '/' : ''}`;
  }
  return `/${text(segs)}${dirOnly ? '/' : ''}`;
}

/** Gitea's regular expression (anchored by Gitea at both ends), in parentheses; a character
 * that is not a letter, digit, '/', '-' or '_' is '.', any character, and a star '.*' (it may
 * cross a '/': wider than the glob, never narrower). */
function toRegex(segments: Token[][]): string {
  let out = '';
  segments.forEach((seg, i) => {
    const last = i === segments.length - 1;
    if (isGlobstar(seg)) {
      out += last ? '.*' : '(.*/)?';
      return;
    }
    for (const tok of seg) {
      // No brackets: GitHub refuses a line with [ ] (a character range), and '.*' only widens.
      if (tok.t === 'star' || tok.t === 'globstar') out += '.*';
      else if (tok.t === 'one') out += '.';
      else out += /^[\p{L}\p{N}_-]$/u.test(tok.c) ? tok.c : '.';
    }
    if (!last) out += '/';
  });
  return `(${out})`;
}

/** An owner as CODEOWNERS names it: `@name` (`@org/team`), or an email as written; null for a
 * name CODEOWNERS cannot hold (white space, '#'). */
export function ownerToken(owner: string): string | null {
  if (/[\s#]/.test(owner) || owner === '') return null;
  if (owner.startsWith('@') || /^[^@]+@[^@]+$/.test(owner)) return owner;
  return `@${owner}`;
}

export interface BlockPlan {
  /** Non-comment lines for Gitea (regular expressions) and for GitHub and GitLab. */
  regexLines: string[];
  gitignoreLines: string[];
  /** Globs the patterns widen, with why (for the summary and the docs). */
  widened: Converted[];
  /** Owners that cannot be written. */
  unwritable: string[];
}

/** The block's lines for a policy: every protected glob and evidence path with the owners who
 * may change it (the repository's, then each context's), the CODEOWNERS files, and the policy
 * file last (the last matching line wins on GitHub and GitLab). Exceptions are not written:
 * owners review them too (the conservative side). */
export function planBlock(policy: Policy): BlockPlan {
  const plan: BlockPlan = { regexLines: [], gitignoreLines: [], widened: [], unwritable: [] };
  const add = (globs: string[], owners: string[]) => {
    const tokens = owners.map((o) => ({ o, t: ownerToken(o) }));
    for (const { o, t } of tokens) if (t === null && !plan.unwritable.includes(o)) plan.unwritable.push(o);
    const names = tokens.map((x) => x.t).filter((t): t is string => t !== null);
    if (names.length === 0) return;
    for (const glob of globs) {
      const c = convertGlob(glob);
      if (!c.exact && !plan.widened.some((w) => w.glob === glob)) plan.widened.push(c);
      for (const r of c.regex) pushUnique(plan.regexLines, `${r} ${names.join(' ')}`);
      for (const g of c.gitignore) pushUnique(plan.gitignoreLines, `${g} ${names.join(' ')}`);
    }
  };
  add([...policy.protected, ...evidencePaths(policy)], policy.owners);
  // A context's policy also holds the repository-wide globs: only those under its root are its own.
  for (const context of policy.contexts ?? []) {
    const own = (g: string) => g.startsWith(`${escapeGlob(context.root)}/`);
    add([...context.policy.protected.filter(own), ...evidencePaths(context.policy).filter(own)], context.policy.owners);
  }
  add([...CODEOWNERS_PATHS.map(escapeGlob), escapeGlob(POLICY_PATH)], policy.owners);
  return plan;
}


/** The block as it goes in a file that `forges` read. */
export function renderBlock(plan: BlockPlan, forges: readonly Forge[]): string {
  const lines = [
    BEGIN,
    `# Written from ${POLICY_PATH} by 'receipt-gate codeowners --write': the owners review every path the gate protects.`,
    '# Change the policy and run it again; these lines are replaced, the rest of the file is kept.',
  ];
  if (forges.includes('Gitea')) lines.push('# Gitea (regular expressions):', ...plan.regexLines);
  if (forges.some((f) => f !== 'Gitea')) lines.push(`# ${forges.filter((f) => f !== 'Gitea').join(' and ')} (gitignore patterns):`, ...plan.gitignoreLines);
  lines.push(END);
  return `${lines.join('\n')}\n`;
}

/** Where the block is in `text` (LF line ends): [start, end) of its lines; null when there is
 * none. Throws when the markers are not one BEGIN followed by one END. */
export function findBlock(text: string): { start: number; end: number } | null {
  const lines = text.split('\n');
  const begins = lines.flatMap((l, i) => (l.trim() === BEGIN ? [i] : []));
  const ends = lines.flatMap((l, i) => (l.trim() === END ? [i] : []));
  if (begins.length === 0 && ends.length === 0) return null;
  if (begins.length !== 1 || ends.length !== 1 || ends[0]! < begins[0]!) {
    throw new Error(`the file has ${begins.length} '${BEGIN}' and ${ends.length} '${END}' line(s); it needs one of each, in that order (remove the stray marker)`);
  }
  const offset = (line: number) => lines.slice(0, line).reduce((n, l) => n + l.length + 1, 0);
  return { start: offset(begins[0]!), end: Math.min(text.length, offset(ends[0]! + 1)) };
}

/** `text` with the block in place: the old block replaced, else the block appended. */
export function withBlock(text: string | null, block: string): string {
  if (text === null || text === '') return block;
  const at = findBlock(text);
  if (at !== null) return text.slice(0, at.start) + block + text.slice(at.end);
  return `${text.endsWith('\n') ? text : `${text}\n`}\n${block}`;
}

/** How the block in `text` differs from `block`: the rule lines it lacks and those it has
 * beyond it; null when there is no block. */
export function blockDifference(text: string, block: string): { missing: string[]; extra: string[] } | null {
  const at = findBlock(text);
  if (at === null) return null;
  const rules = (t: string) => t.split('\n').map((l) => l.trim()).filter((l) => l !== '' && !l.startsWith('#'));
  const have = rules(text.slice(at.start, at.end));
  const want = rules(block);
  return { missing: want.filter((l) => !have.includes(l)), extra: have.filter((l) => !want.includes(l)) };
}

/** The sentences `check` and `codeowners --check` print when the files the forges read and the
 * policy disagree; empty when they agree. `read` gives a file's LF text or null. When
 * `optional`, a project with no block anywhere has opted out and nothing is said. */
export function codeownersDisagreement(policy: Policy, read: (path: string) => string | null, optional: boolean): string[] {
  const targets = codeownersTargets((p) => read(p) !== null);
  const plan = planBlock(policy);
  const anyBlock = CODEOWNERS_PATHS.some((p) => {
    const text = read(p);
    try {
      return text !== null && findBlock(text) !== null;
    } catch {
      return true;
    }
  });
  if (optional && !anyBlock) return [];
  const out: string[] = [];
  for (const { path, forges } of targets) {
    const text = read(path);
    const readers = forges.join(', ');
    if (text === null) {
      out.push(`${path} (read by ${readers}) does not exist: the owners' review of protected paths is not asked for there; run 'receipt-gate codeowners --write'`);
      continue;
    }
    let diff;
    try {
      diff = blockDifference(text, renderBlock(plan, forges));
    } catch (err) {
      out.push(`${path}: ${(err as Error).message}`);
      continue;
    }
    if (diff === null) {
      out.push(`${path} (read by ${readers}) has no receipt-gate block: the owners' review of protected paths is not asked for; run 'receipt-gate codeowners --write'`);
    } else if (diff.missing.length > 0 || diff.extra.length > 0) {
      const show = (list: string[]) => list.slice(0, 5).map((l) => `'${l}'`).join(', ') + (list.length > 5 ? ` and ${list.length - 5} more` : '');
      out.push(
        `the receipt-gate block of ${path} (read by ${readers}) disagrees with ${POLICY_PATH}:` +
          `${diff.missing.length > 0 ? ` it lacks ${show(diff.missing)};` : ''}${diff.extra.length > 0 ? ` it has ${show(diff.extra)}, which the policy no longer asks for;` : ''}` +
          ` an owner runs 'receipt-gate codeowners --write' and commits ${path}`,
      );
    }
  }
  return out;
}

export interface PlannedCodeowners {
  files: { path: string; forges: string[]; before: string | null; text: string }[];
  notes: string[];
  /** Why no block can be written (no owner CODEOWNERS can name), or null. */
  problem: string | null;
}

/** The CODEOWNERS files with the block in place (init and codeowners --write), and notes on
 * what the patterns widen. */
export function planCodeowners(policy: Policy, read: (path: string) => string | null): PlannedCodeowners {
  const plan = planBlock(policy);
  const notes: string[] = [];
  if (plan.gitignoreLines.length === 0) {
    return { files: [], notes, problem: `no owner of the policy can be named in CODEOWNERS (${plan.unwritable.join(', ') || 'none listed'}): an owner is a forge login or an email, without spaces` };
  }
  if (plan.unwritable.length > 0) notes.push(`not in CODEOWNERS (a name with a space or '#'): ${plan.unwritable.join(', ')}`);
  for (const w of plan.widened) notes.push(`CODEOWNERS cannot say ${JSON.stringify(w.glob)} exactly (${w.why}): written as ${w.gitignore.join(', ')}, which covers more`);
  const files = codeownersTargets((p) => read(p) !== null).map(({ path, forges }) => {
    const before = read(path);
    let text: string;
    try {
      text = withBlock(before, renderBlock(plan, forges));
    } catch (err) {
      throw new Error(`${path}: ${(err as Error).message}`);
    }
    return { path, forges, before, text };
  });
  return { files, notes, problem: null };
}

/** codeownersDisagreement over the working tree at `top`, for `check`: said only when the
 * project has a receipt-gate block somewhere (one without has not asked for the review lock). */
export function codeownersWarnings(top: string, policy: Policy): string[] {
  const read = (path: string): string | null => {
    const file = join(top, ...path.split('/'));
    return existsSync(file) && statSync(file).isFile() ? readFileSync(file, 'utf8').replace(/\r\n/g, '\n') : null;
  };
  return codeownersDisagreement(policy, read, true);
}
