// The merges `receipt-gate init` makes, as pure functions over file contents: each takes what
// the project has (or null) and returns what it should have, plus a sentence for each change.
// Running them on their own output changes nothing, which is what makes init idempotent.

import {
  CHECK_COMMAND,
  HUSKY_VERSION,
  LINT_STAGED_COMMAND,
  LINT_STAGED_VERSION,
} from './templates';

export interface Merge {
  /** The new content, or null when nothing changes. */
  text: string | null;
  /** What changed, one sentence each. */
  notes: string[];
}

/**
 * Makes a husky hook file run `lines` (each added once, in order, at the end), keeping what it
 * already runs. A line counts as present when a line of the file runs the same command.
 */
export function mergeHook(existing: string | null, lines: string[], file: string): Merge {
  if (existing === null) {
    return { text: `${lines.join('\n')}\n`, notes: [`wrote ${file}`] };
  }
  const have = existing.split('\n').map((l) => l.trim());
  const missing = lines.filter((line) => !have.some((h) => runsSame(h, line)));
  if (missing.length === 0) return { text: null, notes: [] };
  const notes = [`added ${missing.map((m) => `'${m}'`).join(' and ')} to ${file}`];
  // Lines after an `exit` or `exec` would never run: go before the first one.
  const current = existing.split('\n');
  const stop = current.findIndex((l) => /^\s*(exit|exec)(\s|$)/.test(l));
  if (stop >= 0) {
    return { text: [...current.slice(0, stop), ...missing, ...current.slice(stop)].join('\n'), notes };
  }
  const base = existing.length === 0 || existing.endsWith('\n') ? existing : `${existing}\n`;
  return { text: `${base}${missing.join('\n')}\n`, notes };
}

/** True when the hook line `have` already runs `want`'s command (with or without npx): the
 * same program and, for `receipt-gate`, the same subcommand. */
function runsSame(have: string, want: string): boolean {
  if (have.startsWith('#')) return false;
  const words = (s: string) => s.replace(/^(exec\s+)?npx\s+(--no(-install)?\s+)?/, '').split(/\s+/);
  const h = words(have);
  return words(want)
    .slice(0, 2)
    .filter((w) => !w.startsWith('"'))
    .every((w, i) => h[i] === w);
}

interface PackageJson {
  [key: string]: unknown;
  scripts?: Record<string, string>;
  devDependencies?: Record<string, string>;
  dependencies?: Record<string, string>;
  'lint-staged'?: Record<string, string | string[]>;
}

export interface PackageMergeOptions {
  /** The lint-staged glob for the evidence files. */
  glob: string;
  /** Project name for a package.json init has to create. */
  name: string;
  /** A lint-staged config file other than package.json ('.lintstagedrc.json', …), if any. */
  otherLintStagedConfig: string | null;
  /** The version range to record for receipt-gate itself when the project does not list it. */
  selfVersion: string;
}

/**
 * Adds to package.json: `prepare: husky` (appended to an existing prepare script), the
 * lint-staged entry that runs `receipt-gate check` on evidence files, and husky, lint-staged and
 * receipt-gate as devDependencies when the project does not already depend on them. Keeps
 * every other member and the file's indentation.
 */
export function mergePackageJson(existing: string | null, opts: PackageMergeOptions): Merge {
  const notes: string[] = [];
  let pkg: PackageJson;
  let indent: string | number = 2;
  if (existing === null) {
    pkg = { name: opts.name, private: true };
    notes.push('wrote package.json (the project had none; husky and lint-staged are installed through it)');
  } else {
    const parsed: unknown = JSON.parse(existing);
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error('package.json is not a JSON object');
    }
    pkg = parsed as PackageJson;
    indent = /^\{\s*\n([ \t]+)"/.exec(existing)?.[1] ?? 2;
  }

  const scripts = objectMember(pkg, 'scripts');
  const prepare = scripts.prepare;
  if (typeof prepare !== 'string' || prepare.trim() === '') {
    scripts.prepare = 'husky';
    notes.push("set scripts.prepare to 'husky' (installs the git hooks on npm install)");
  } else if (!/(^|[\s;&|])husky(\s|$|;|&)/.test(prepare)) {
    scripts.prepare = `${prepare} && husky`;
    notes.push("appended '&& husky' to scripts.prepare");
  }

  if (opts.otherLintStagedConfig === null) {
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
  const wanted: [string, string][] = [
    ['husky', HUSKY_VERSION],
    [LINT_STAGED_COMMAND, LINT_STAGED_VERSION],
    ['receipt-gate', opts.selfVersion],
  ];
  for (const [name, version] of wanted) {
    if (deps[name] !== undefined) continue;
    objectMember(pkg, 'devDependencies')[name] = version;
    notes.push(`added ${name}@${version} to devDependencies`);
  }
  if (notes.length === 0) return { text: null, notes };
  return { text: `${JSON.stringify(pkg, null, indent)}\n`, notes };
}

function objectMember(pkg: PackageJson, key: string): Record<string, string> {
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
