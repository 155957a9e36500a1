// The merges `receipt-gate init` makes, as pure functions over file contents: each takes what
// the project has (or null) and returns what it should have, plus a sentence for each change.
// Running them on their own output changes nothing, which is what makes init idempotent.

import { CHECK_COMMAND, LINT_STAGED_COMMAND } from './templates';

export interface Merge {
  /** The new content, or null when nothing changes. */
  text: string | null;
  /** What changed, one sentence each. */
  notes: string[];
}

/**
 * Makes a hook script run `lines` (each added once, in order), keeping what it already runs.
 * A line counts as present when a command of the file runs the same program (however it is
 * launched: npx, pnpm, yarn, node_modules/.bin). Missing lines go before the first command of
 * the script, after its preamble (shebang, comments, `. husky.sh`, `set`, variables), so the
 * gate answers before the project's slow steps; a new file is `header` and the lines.
 */
export function mergeHook(existing: string | null, lines: string[], file: string, header = ''): Merge {
  if (existing === null) {
    return { text: `${header}${lines.join('\n')}\n`, notes: [`wrote ${file}`] };
  }
  const current = existing.split('\n');
  const missing = lines.filter((line) => !current.some((have) => runsSame(have, line)));
  if (missing.length === 0) return { text: null, notes: [] };
  const notes = [`added ${missing.map((m) => `'${m}'`).join(' and ')} to ${file}, before its other commands`];
  let at = 0;
  while (at < current.length && isPreamble(current[at]!)) at++;
  if (at === current.length) {
    // Only a preamble (or nothing): the lines are the hook's commands.
    const body = existing.replace(/\n+$/, '');
    return { text: `${body === '' ? '' : `${body}\n`}${missing.join('\n')}\n`, notes };
  }
  return { text: [...current.slice(0, at), ...missing, ...current.slice(at)].join('\n'), notes };
}

/** Lines a hook starts with before its first command. */
function isPreamble(line: string): boolean {
  const l = line.trim();
  return (
    l === '' ||
    l.startsWith('#') ||
    /^(\.|source)\s/.test(l) ||
    /^set\s/.test(l) ||
    /^(export\s+)?[A-Za-z_][A-Za-z0-9_]*=\S*$/.test(l)
  );
}

/** Ways a hook launches a project's program; what follows is the program's own command line. */
const LAUNCHERS = [
  /^exec\s+/,
  // `node [flags] path/to/program.js`: the program is the script (see programName).
  /^node\s+((--?[\w-]+(=\S+)?)\s+)*(?=\S)/,
  /^(\.\/)?node_modules\/\.bin\//,
  /^npx\s+((--no(-install)?|--yes|-y|--quiet|-q|--offline)\s+)*/,
  /^npm\s+(exec|x)\s+((--no|--yes|-y|--)\s+)*/,
  /^npm\s+run(-script)?\s+/,
  /^pnpm\s+((exec|dlx|run)\s+)?/,
  /^yarn\s+((exec|run|dlx)\s+)?/,
  /^bunx\s+/,
  /^bun\s+(x|run)\s+/,
];

/** The commands of a shell line (split on `&&`, `||`, `;`, `|`), each without its launcher. */
export function commandsOf(line: string): string[][] {
  const l = line.trim();
  if (l.startsWith('#')) return [];
  return l
    .split(/&&|\|\||;|\|/)
    .map((part) => {
      let cmd = part.trim();
      for (let again = true; again; ) {
        again = false;
        for (const launcher of LAUNCHERS) {
          const next = cmd.replace(launcher, '');
          if (next !== cmd) {
            cmd = next;
            again = true;
          }
        }
      }
      return cmd.split(/\s+/).filter((w) => w !== '');
    })
    .filter((words) => words.length > 0);
}

/** A command's program as a name: `bin/lint-staged.js`, `./node_modules/lint-staged/bin/lint-staged.mjs`
 * and `lint-staged` are all `lint-staged` (a script run by path, or through `node`). */
export function programName(word: string): string {
  const base = word.includes('/') ? word.slice(word.lastIndexOf('/') + 1) : word;
  return base.replace(/\.(c|m)?js$/, '');
}

/** True when some command of the line `have` runs `want`'s program and, for receipt-gate, the
 * same subcommand. */
export function runsSame(have: string, want: string): boolean {
  const wanted = commandsOf(want)[0];
  if (!wanted) return false;
  const key = wanted.slice(0, wanted[0] === 'receipt-gate' ? 2 : 1);
  return commandsOf(have).some((words) => key.every((w, i) => (i === 0 ? programName(words[0]!) === w : words[i] === w)));
}

/**
 * True when any line of a hook (or config value) already runs lint-staged, however it is
 * launched: `lint-staged`, `npx lint-staged`, `node bin/lint-staged.js`, or a package script
 * (`npm run precommit`, `yarn lint-staged`, …) whose command runs it, through `scripts`.
 */
export function runsLintStaged(text: string, scripts: Record<string, unknown> = {}, depth = 0): boolean {
  return text.split('\n').some((line) =>
    commandsOf(line).some((words) => {
      if (programName(words[0]!) === LINT_STAGED_COMMAND) return true;
      const script = Object.prototype.hasOwnProperty.call(scripts, words[0]!) ? scripts[words[0]!] : undefined;
      return typeof script === 'string' && depth < 8 && runsLintStaged(script, scripts, depth + 1);
    }),
  );
}

export interface PackageJson {
  [key: string]: unknown;
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  'lint-staged'?: Record<string, string | string[]>;
}

export interface PackageMergeOptions {
  /** The lint-staged glob for the evidence files; null: no lint-staged entry (the hook
   * manager runs no lint-staged). */
  glob: string | null;
  /** A lint-staged config file other than package.json ('.lintstagedrc.json', …), if any. */
  otherLintStagedConfig: string | null;
  /** The prepare script's husky command for this husky major ('husky', 'husky install'), or
   * null when the hook manager installs its hooks otherwise. */
  prepare: 'husky' | 'husky install' | null;
  /** Dev dependencies to add when the project does not already depend on them, exact versions. */
  devDependencies: [string, string][];
}

/** Parses package.json text: an object, or an error that says what is wrong. */
export function parsePackageJson(text: string): PackageJson {
  const parsed: unknown = JSON.parse(text);
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error('package.json is not a JSON object');
  }
  return parsed as PackageJson;
}

/** The indentation of a JSON document (its first member's), for writing it back alike. */
export function jsonIndent(text: string): string | number {
  return /^\{\s*\n([ \t]+)"/.exec(text)?.[1] ?? 2;
}

/**
 * Adds to an existing package.json: the prepare script's husky command (appended to an existing
 * prepare script), the lint-staged entry that runs `receipt-gate check` on evidence files, and
 * the dev dependencies the project does not already have. Keeps every other member and the
 * file's indentation. init never creates a package.json: a project without one keeps none.
 */
export function mergePackageJson(existing: string, opts: PackageMergeOptions): Merge {
  const notes: string[] = [];
  const pkg = parsePackageJson(existing);

  if (opts.prepare !== null) {
    const scripts = objectMember(pkg, 'scripts');
    const prepare = scripts.prepare;
    const want = opts.prepare;
    const wantRe = want === 'husky' ? /(^|[\s;&|])husky(\s+install)?(\s|$|;|&)/ : /(^|[\s;&|])husky\s+install(\s|$|;|&)/;
    if (typeof prepare !== 'string' || prepare.trim() === '') {
      scripts.prepare = want;
      notes.push(`set scripts.prepare to '${want}' (installs the git hooks on npm install)`);
    } else if (want === 'husky install' && /^\s*husky\s*$/.test(prepare)) {
      // husky 5-8 only print their usage for a bare `husky`: no hook would ever run.
      scripts.prepare = want;
      notes.push(`set scripts.prepare to '${want}' (a bare 'husky' installs nothing before husky 9)`);
    } else if (!wantRe.test(prepare)) {
      scripts.prepare = `${prepare} && ${want}`;
      notes.push(`appended '&& ${want}' to scripts.prepare`);
    }
  }

  if (opts.glob !== null && opts.otherLintStagedConfig === null) {
    const lintStaged = objectMember(pkg, 'lint-staged') as Record<string, string | string[]>;
    const already = Object.values(lintStaged).some((v) =>
      (Array.isArray(v) ? v : [v]).some((c) => typeof c === 'string' && c.includes(CHECK_COMMAND)),
    );
    if (!already) {
      const current = lintStaged[opts.glob];
      lintStaged[opts.glob] =
        current === undefined ? CHECK_COMMAND : [...(Array.isArray(current) ? current : [current]), CHECK_COMMAND];
      notes.push(`added a lint-staged entry: "${opts.glob}": "${CHECK_COMMAND}"`);
    }
  }

  const deps = { ...(pkg.dependencies ?? {}), ...(pkg.devDependencies ?? {}) };
  for (const [name, version] of opts.devDependencies) {
    if (deps[name] !== undefined) continue;
    objectMember(pkg, 'devDependencies')[name] = version;
    notes.push(`added ${name}@${version} to devDependencies (exact)`);
  }
  if (notes.length === 0) return { text: null, notes };
  return { text: `${JSON.stringify(pkg, null, jsonIndent(existing))}\n`, notes };
}

/**
 * Adds commands to a JSON object of hook name → shell command (husky 4's `husky.hooks`,
 * simple-git-hooks' config): each wanted command goes first in its hook, joined with `&&`.
 * `commands` maps a hook name to the command lines it must run.
 */
export function mergeCommandHooks(
  hooks: Record<string, unknown>,
  commands: Record<string, string[]>,
  where: string,
): { changed: boolean; notes: string[] } {
  const notes: string[] = [];
  for (const [hook, lines] of Object.entries(commands)) {
    const current = hooks[hook];
    if (current !== undefined && typeof current !== 'string') {
      throw new Error(`${where} "${hook}" is not a command string`);
    }
    const have = current ?? '';
    const missing = lines.filter((line) => !runsSame(have, line));
    if (missing.length === 0) continue;
    hooks[hook] = [...missing, ...(have.trim() === '' ? [] : [have.trim()])].join(' && ');
    notes.push(`added ${missing.map((m) => `'${m}'`).join(' and ')} to ${where} "${hook}", before its other commands`);
  }
  return { changed: notes.length > 0, notes };
}

export function objectMember(pkg: Record<string, unknown>, key: string): Record<string, string> {
  const value = pkg[key];
  if (value === undefined) {
    const created: Record<string, string> = {};
    pkg[key] = created;
    return created;
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new Error(`package.json member "${key}" is not an object`);
  }
  return value as Record<string, string>;
}

/** Line endings: a file that uses CRLF gets CRLF back. Merges work on LF text. */
export function toLf(text: string): { text: string; crlf: boolean } {
  const crlf = /\r\n/.test(text);
  return { text: crlf ? text.replace(/\r\n/g, '\n') : text, crlf };
}

export function withEol(text: string, crlf: boolean): string {
  return crlf ? text.replace(/\r?\n/g, '\r\n') : text;
}

/**
 * Adds owners to the policy's text, keeping its layout: each name is inserted after the last
 * element of the `owners` array, on a line of its own when the array spans lines. Returns null
 * when the text has no `owners` array it can edit (the caller re-serialises).
 */
export function addOwnersToPolicyText(text: string, add: string[]): string | null {
  const m = /("owners"\s*:\s*\[)([^\]]*)(\])/.exec(text);
  if (!m) return null;
  const inner = m[2]!;
  const multiline = inner.includes('\n');
  let addition: string;
  if (inner.trim() === '') {
    addition = add.map((o) => JSON.stringify(o)).join(', ');
    return text.slice(0, m.index) + m[1] + addition + m[3] + text.slice(m.index + m[0].length);
  }
  if (multiline) {
    const indent = /\n([ \t]*)"/.exec(inner)?.[1] ?? '    ';
    const trimmed = inner.replace(/\s*$/, '');
    const tail = inner.slice(trimmed.length);
    addition = trimmed + add.map((o) => `,\n${indent}${JSON.stringify(o)}`).join('') + tail;
  } else {
    const trimmed = inner.replace(/\s*$/, '');
    addition = trimmed + add.map((o) => `, ${JSON.stringify(o)}`).join('') + inner.slice(trimmed.length);
  }
  return text.slice(0, m.index) + m[1] + addition + m[3] + text.slice(m.index + m[0].length);
}
