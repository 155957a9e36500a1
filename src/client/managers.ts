// Which hook manager a project already uses, and what `receipt-gate init` adds to it. The gate
// joins the manager that owns the hooks and never takes core.hooksPath from it:
//
//   husky 9       .husky/<hook> files (plain commands; husky puts node_modules/.bin on PATH)
//   husky 5-8     .husky/<hook> files sourcing .husky/_/husky.sh (no PATH change: call by path)
//   husky 4       package.json "husky": {"hooks": {...}} or .huskyrc(.json)
//   lefthook      lefthook.yml and its spellings: commands (pre-push with use_stdin: true)
//   pre-commit    .pre-commit-config.yaml: a `repo: local` entry, language: system
//   simple-git-hooks  package.json "simple-git-hooks" or .simple-git-hooks.json
//   git hooks     plain scripts in the hooks directory, when there is no manager and no
//                 package.json (or the hooks are already plain scripts there)
//   none, with a package.json: husky 9 and lint-staged, as a new setup.

import { basename, join } from 'node:path';
import { runsLintStaged, type PackageJson } from './init';

export type HookManager =
  | { kind: 'husky'; major: number; why: string }
  | { kind: 'lefthook'; config: string }
  | { kind: 'pre-commit'; config: string }
  | { kind: 'simple-git-hooks'; config: string }
  | { kind: 'git-hooks'; dir: string; why: string }
  | { kind: 'new-husky' };

/** What detection reads of the project (relative paths from the top of the working tree). */
export interface ProjectView {
  read(path: string): string | null;
  exists(path: string): boolean;
  isDirectory(path: string): boolean;
  list(dir: string): string[];
  pkg: PackageJson | null;
  /** core.hooksPath as configured, or null. */
  hooksPath: string | null;
  /** The directory git runs hooks from (`git rev-parse --git-path hooks`), absolute. */
  hooksDir: string;
}

export const LEFTHOOK_CONFIGS = [
  'lefthook.yml',
  '.lefthook.yml',
  'lefthook.yaml',
  '.lefthook.yaml',
  '.config/lefthook.yml',
  '.config/lefthook.yaml',
  'lefthook.toml',
  '.lefthook.toml',
  'lefthook.json',
  '.lefthook.json',
  'lefthook.jsonc',
  '.lefthook.jsonc',
];
export const PRE_COMMIT_CONFIG = '.pre-commit-config.yaml';
const HUSKY4_CONFIGS = ['.huskyrc', '.huskyrc.json', '.huskyrc.js', '.huskyrc.cjs', 'husky.config.js', 'husky.config.cjs', '.huskyrc.yaml', '.huskyrc.yml'];
const SIMPLE_GIT_HOOKS_CONFIGS = [
  '.simple-git-hooks.json',
  'simple-git-hooks.json',
  '.simple-git-hooks.cjs',
  '.simple-git-hooks.js',
  '.simple-git-hooks.mjs',
  'simple-git-hooks.cjs',
  'simple-git-hooks.js',
  'simple-git-hooks.mjs',
];

/** The major version of a dependency range or an installed version ('^6.0.0', '~8', 'npm:husky@6.0.0'). */
export function majorOf(spec: string | undefined | null): number | null {
  if (typeof spec !== 'string') return null;
  const m = /^(?:npm:[^@]+@)?[\^~>=v\s]*(\d+)(?:\.|$|\s|\b)/.exec(spec.trim());
  return m ? Number(m[1]) : null;
}

function huskyMajor(p: ProjectView): { major: number; why: string } | null {
  const installed = p.read('node_modules/husky/package.json');
  if (installed !== null) {
    try {
      const major = majorOf((JSON.parse(installed) as { version?: string }).version);
      if (major !== null) return { major, why: `husky ${major} is installed` };
    } catch {
      // a broken install says nothing; look at what the project declares
    }
  }
  const declared = p.pkg?.devDependencies?.husky ?? p.pkg?.dependencies?.husky;
  const major = majorOf(declared);
  if (major !== null) return { major, why: `package.json depends on husky ${declared}` };
  if (p.exists('.husky/_/husky.sh')) return { major: 8, why: '.husky/_/husky.sh is there (husky 5-8)' };
  const sourcing = p.isDirectory('.husky') && p.list('.husky').some((f) => /_\/husky\.sh/.test(p.read(`.husky/${f}`) ?? ''));
  if (sourcing) return { major: 8, why: 'the .husky hooks source _/husky.sh (husky 5-8)' };
  if (hasHusky4Config(p)) return { major: 4, why: 'husky 4 configuration (package.json "husky" or .huskyrc)' };
  if (p.isDirectory('.husky')) return { major: 9, why: '.husky/ holds plain hook files (husky 9)' };
  return null;
}

function hasHusky4Config(p: ProjectView): boolean {
  const key = p.pkg?.husky;
  return (key !== undefined && key !== null && typeof key === 'object') || HUSKY4_CONFIGS.some((f) => p.exists(f));
}

function hasPlainHook(p: ProjectView): boolean {
  return ['pre-commit', 'pre-push'].some((h) => {
    const text = p.read(join(p.hooksDir, h));
    return text !== null;
  });
}

/** The manager the project uses, by what owns the hooks first (core.hooksPath), then config. */
export function detectHookManager(p: ProjectView): HookManager {
  const hooksPath = p.hooksPath?.replace(/\/+$/, '') ?? null;
  if (hooksPath === '.husky' || hooksPath === '.husky/_') {
    const husky = huskyMajor(p);
    return { kind: 'husky', major: husky?.major ?? (hooksPath === '.husky' ? 8 : 9), why: husky?.why ?? `core.hooksPath is ${hooksPath}` };
  }
  const lefthook = LEFTHOOK_CONFIGS.find((f) => p.exists(f));
  if (lefthook !== undefined) return { kind: 'lefthook', config: lefthook };
  if (p.exists(PRE_COMMIT_CONFIG)) return { kind: 'pre-commit', config: PRE_COMMIT_CONFIG };
  if (p.pkg?.['simple-git-hooks'] !== undefined) return { kind: 'simple-git-hooks', config: 'package.json' };
  const sgh = SIMPLE_GIT_HOOKS_CONFIGS.find((f) => p.exists(f));
  if (sgh !== undefined) return { kind: 'simple-git-hooks', config: sgh };
  const husky = huskyMajor(p);
  if (husky !== null) return { kind: 'husky', ...husky };
  if (hooksPath !== null) return { kind: 'git-hooks', dir: p.hooksDir, why: `core.hooksPath is ${p.hooksPath}` };
  if (hasPlainHook(p)) return { kind: 'git-hooks', dir: p.hooksDir, why: `${basename(p.hooksDir)}/ already holds hook scripts` };
  if (p.pkg !== null) return { kind: 'new-husky' };
  return { kind: 'git-hooks', dir: p.hooksDir, why: 'no hook manager and no package.json' };
}

/** How a hook of this manager calls the project's receipt-gate: husky 9 has node_modules/.bin
 * on PATH; every other manager runs hooks with git's PATH, so the project's binary is called
 * by its path from the top of the working tree (where git, lefthook and pre-commit run hooks);
 * a project without a package.json has no node_modules, so receipt-gate must be on PATH. */
export function gateBinary(manager: HookManager, hasPackageJson: boolean): string {
  if (manager.kind === 'new-husky' || (manager.kind === 'husky' && manager.major >= 9)) return 'receipt-gate';
  return hasPackageJson ? 'node_modules/.bin/receipt-gate' : 'receipt-gate';
}

/** How a hook of this manager calls lint-staged (husky only; see gateBinary). */
export function lintStagedBinary(manager: HookManager): string {
  if (manager.kind === 'new-husky' || (manager.kind === 'husky' && manager.major >= 9)) return 'lint-staged';
  return 'node_modules/.bin/lint-staged';
}

export function describeManager(m: HookManager): string {
  switch (m.kind) {
    case 'husky':
      return `husky ${m.major >= 9 ? 9 : m.major >= 5 ? '5-8' : 4} (${m.why})`;
    case 'lefthook':
      return `lefthook (${m.config})`;
    case 'pre-commit':
      return `the pre-commit framework (${m.config})`;
    case 'simple-git-hooks':
      return `simple-git-hooks (${m.config})`;
    case 'git-hooks':
      return `plain git hooks in ${m.dir} (${m.why})`;
    case 'new-husky':
      return 'no hook manager yet: husky 9 and lint-staged';
  }
}

/** True when a husky hook text already runs lint-staged in any spelling. */
export { runsLintStaged };
