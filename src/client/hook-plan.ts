// What `receipt-gate init` writes for each hook manager (src/client/managers.ts says how the
// manager is found): the hook files or config entries, the package.json changes, and the one
// command that switches the manager's hooks on. Pure over the files' text, so a test can hold
// each plan against the real tool.

import { ConfigShapeError, mergeLefthook, mergePreCommitConfig, type LefthookCommand, type PreCommitHook } from './hook-config';
import { mergeCommandHooks, mergeHook, parsePackageJson, jsonIndent, runsLintStaged, runsSame, type Merge, type PackageMergeOptions } from './init';
import { gateBinary, lintStagedBinary, type HookManager } from './managers';
import { HUSKY_LEGACY_HEADER, HUSKY_VERSION, LINT_STAGED_COMMAND, LINT_STAGED_VERSION, PRE_COMMIT_COMMAND } from './templates';

export interface PlannedFile {
  /** Path from the top of the working tree, or absolute (a hooks directory inside .git). */
  path: string;
  text: string;
  mode?: number;
}

/** A program init runs after writing, so the manager installs the hooks it now has. */
export interface Activation {
  /** The program, from the top of the working tree (node_modules/.bin/husky) or on PATH. */
  program: string;
  args: string[];
  /** Run only when this file exists (the project's own installation of the manager). */
  requires: string | null;
  /** Skip when core.hooksPath already has this value (husky). */
  unlessHooksPath: string | null;
  /** What to tell the user when it cannot be run. */
  otherwise: string;
}

export interface HookPlan {
  files: PlannedFile[];
  notes: string[];
  /** How package.json changes; null when init leaves package.json alone (or there is none). */
  packageJson: Omit<PackageMergeOptions, 'otherLintStagedConfig'> | null;
  activation: Activation | null;
}

export interface PlanInput {
  manager: HookManager;
  /** Text (LF line ends) of a project file, or null. Absolute paths for the hooks directory. */
  read(path: string): string | null;
  /** package.json's text, or null when the project has none. */
  packageJson: string | null;
  lintStagedGlob: string;
  /** The exact version of receipt-gate to pin in devDependencies. */
  selfVersion: string;
  /** false (--no-lint-staged): add no lint-staged line, dependency or entry. */
  lintStaged?: boolean;
}

/**
 * Whether init adds lint-staged to a pre-commit hook (husky's), and why not when it does not.
 * lint-staged is added on the first setup only: once the hook runs the gate, a hook without
 * lint-staged is how its owner wants it (never re-added), and a project that runs it in any
 * spelling (a package script, `node bin/lint-staged.js`) gets no second run.
 */
export function lintStagedDecision(
  preCommit: string | null,
  input: Pick<PlanInput, 'packageJson' | 'lintStaged'>,
  where: string,
): { runs: boolean; add: boolean; entry: boolean; note: string | null } {
  const pkg = (() => {
    try {
      return input.packageJson === null ? null : parsePackageJson(input.packageJson);
    } catch {
      return null;
    }
  })();
  const scripts = pkg?.scripts !== null && typeof pkg?.scripts === 'object' ? (pkg.scripts as Record<string, unknown>) : {};
  const text = preCommit ?? '';
  const runs = runsLintStaged(text, scripts);
  const gateThere = text.split('\n').some((line) => runsSame(line, PRE_COMMIT_COMMAND));
  if (input.lintStaged === false) {
    return {
      runs,
      add: false,
      entry: false,
      note: `--no-lint-staged: no lint-staged line, dependency or entry added${runs ? ` (the lint-staged ${where} already runs is kept)` : ''}; 'receipt-gate pre-commit' gates the commit alone`,
    };
  }
  if (runs) return { runs, add: false, entry: !gateThere, note: null };
  if (gateThere) {
    return {
      runs,
      add: false,
      entry: false,
      note: `lint-staged not added: ${where} already runs the gate without it (init adds lint-staged on the first setup only and never re-adds it; pass --no-lint-staged to say so)`,
    };
  }
  if (pkg?.name === LINT_STAGED_COMMAND) {
    return { runs, add: false, entry: false, note: `lint-staged not added: this project is lint-staged itself` };
  }
  return { runs, add: true, entry: true, note: null };
}

const HOOK_MODE = 0o755;

/** What every manager's plan starts from: the gate's command, the pinned devDependency, and the
 * files and notes the plan collects as it merges each file. */
interface PlanParts {
  input: PlanInput;
  /** The gate's command as the hooks call it. */
  bin: string;
  /** ['receipt-gate', version]: the devDependency every plan pins. */
  self: [string, string];
  hasPkg: boolean;
  files: PlannedFile[];
  notes: string[];
}

/** A merged file goes into the plan (when it changed), with the notes its merge made. */
function addMerge(parts: PlanParts, file: { path: string; merge: Merge; mode?: number }): void {
  if (file.merge.text !== null) parts.files.push({ path: file.path, text: file.merge.text, ...(file.mode !== undefined ? { mode: file.mode } : {}) });
  parts.notes.push(...file.merge.notes);
}

/** A manager's configuration file merged into the plan; one whose shape init cannot edit
 * becomes a note asking for the receipt-gate `what` (commands, hooks) by hand. */
function addConfigMerge(parts: PlanParts, file: { path: string; merge: () => Merge; what: string }): void {
  try {
    addMerge(parts, { path: file.path, merge: file.merge() });
  } catch (err) {
    if (!(err instanceof ConfigShapeError)) throw err;
    parts.notes.push(`${file.path}: ${err.message}; add the receipt-gate ${file.what} yourself (docs/client.md)`);
  }
}

/** package.json for a manager that only needs receipt-gate pinned. */
function pinSelfOnly(parts: PlanParts): HookPlan['packageJson'] {
  return parts.hasPkg ? { glob: null, prepare: null, devDependencies: [parts.self] } : null;
}

export function planHooks(input: PlanInput): HookPlan {
  const { manager } = input;
  const hasPkg = input.packageJson !== null;
  const parts: PlanParts = { input, bin: gateBinary(manager, hasPkg), self: ['receipt-gate', input.selfVersion], hasPkg, files: [], notes: [] };
  switch (manager.kind) {
    case 'new-husky':
    case 'husky': {
      const major = manager.kind === 'new-husky' ? 9 : manager.major;
      if (major <= 4) return planHusky4(parts);
      return planHusky(parts, { major, installsHusky: manager.kind === 'new-husky' });
    }
    case 'lefthook':
      return planLefthook(parts, manager.config);
    case 'pre-commit':
      return planPreCommit(parts, manager.config);
    case 'simple-git-hooks':
      return planSimpleGitHooks(parts, manager.config);
    case 'git-hooks':
      return planGitHooks(parts, manager.dir);
  }
}

/** husky 5 and later: shell hooks in .husky/, switched on by the prepare script. */
function planHusky(parts: PlanParts, husky: { major: number; installsHusky: boolean }): HookPlan {
  const { input, bin, notes, files } = parts;
  const { major } = husky;
  const header = major >= 9 ? '' : HUSKY_LEGACY_HEADER;
  const preCommit = input.read('.husky/pre-commit');
  const lines = [`${bin} pre-commit`];
  const lint = lintStagedDecision(preCommit, input, '.husky/pre-commit');
  if (lint.note !== null) notes.push(lint.note);
  if (lint.add) lines.push(lintStagedBinary(input.manager));
  addMerge(parts, { path: '.husky/pre-commit', merge: mergeHook(preCommit, lines, '.husky/pre-commit', header), mode: HOOK_MODE });
  addMerge(parts, { path: '.husky/pre-push', merge: mergeHook(input.read('.husky/pre-push'), [`${bin} pre-push "$@"`], '.husky/pre-push', header), mode: HOOK_MODE });
  const devDependencies: [string, string][] = [];
  if (husky.installsHusky) devDependencies.push(['husky', HUSKY_VERSION]);
  if (lint.add) devDependencies.push([LINT_STAGED_COMMAND, LINT_STAGED_VERSION]);
  devDependencies.push(parts.self);
  const prepare = major >= 9 ? 'husky' : 'husky install';
  return {
    files,
    notes,
    packageJson: parts.hasPkg ? { glob: lint.entry ? input.lintStagedGlob : null, prepare, devDependencies } : null,
    activation: {
      program: 'node_modules/.bin/husky',
      args: major >= 9 ? [] : ['install'],
      requires: 'node_modules/.bin/husky',
      unlessHooksPath: major >= 9 ? '.husky/_' : '.husky',
      otherwise: `run 'npm install': its prepare script ('${prepare}') switches the hooks in .husky/ on`,
    },
  };
}

/** lefthook: two commands merged into its YAML configuration. */
function planLefthook(parts: PlanParts, config: string): HookPlan {
  const { input, bin, notes, files, hasPkg } = parts;
  const text = input.read(config) ?? '';
  if (!/\.ya?ml$/.test(config)) {
    notes.push(
      `lefthook is configured in ${config}, which init does not edit: add a pre-commit command '${bin} pre-commit' and a pre-push command '${bin} pre-push {1} {2}' with use_stdin: true`,
    );
  } else {
    const commands: LefthookCommand[] = [
      { hook: 'pre-commit', name: 'receipt-gate', run: `${bin} pre-commit`, useStdin: false },
      // use_stdin: lefthook otherwise gives commands a terminal, not git's ref lines.
      { hook: 'pre-push', name: 'receipt-gate', run: `${bin} pre-push {1} {2}`, useStdin: true },
    ];
    addConfigMerge(parts, { path: config, merge: () => mergeLefthook(text, commands, config), what: 'commands' });
  }
  return {
    files,
    notes,
    packageJson: pinSelfOnly(parts),
    activation: {
      program: hasPkg ? 'node_modules/.bin/lefthook' : 'lefthook',
      args: ['install'],
      requires: hasPkg ? 'node_modules/.bin/lefthook' : null,
      unlessHooksPath: null,
      otherwise: "run 'lefthook install' so git runs lefthook's pre-push hook too",
    },
  };
}

/** pre-commit (the Python framework): two local hooks merged into .pre-commit-config.yaml. */
function planPreCommit(parts: PlanParts, config: string): HookPlan {
  const { input, bin, notes, files } = parts;
  const hooks: PreCommitHook[] = [
    { id: 'receipt-gate-pre-commit', name: 'receipt-gate pre-commit', entry: `${bin} pre-commit`, stage: 'commit' },
    { id: 'receipt-gate-pre-push', name: 'receipt-gate pre-push', entry: `${bin} pre-push`, stage: 'push' },
  ];
  addConfigMerge(parts, { path: config, merge: () => mergePreCommitConfig(input.read(config) ?? '', hooks, config), what: 'hooks' });
  return {
    files,
    notes,
    packageJson: pinSelfOnly(parts),
    activation: {
      program: 'pre-commit',
      args: ['install', '--hook-type', 'pre-commit', '--hook-type', 'pre-push'],
      requires: null,
      unlessHooksPath: null,
      otherwise: "run 'pre-commit install --hook-type pre-commit --hook-type pre-push'",
    },
  };
}

/** simple-git-hooks: commands merged into package.json's "simple-git-hooks" or its JSON file. */
function planSimpleGitHooks(parts: PlanParts, config: string): HookPlan {
  const { input, bin, notes, files } = parts;
  const commands = { 'pre-commit': [`${bin} pre-commit`], 'pre-push': [`${bin} pre-push "$@"`] };
  if (config === 'package.json' && input.packageJson !== null) {
    const pkg = parsePackageJson(input.packageJson);
    const hooks = pkg['simple-git-hooks'];
    if (hooks === null || typeof hooks !== 'object' || Array.isArray(hooks)) {
      throw new Error('package.json member "simple-git-hooks" is not an object');
    }
    const merged = mergeCommandHooks(hooks as Record<string, unknown>, commands, 'package.json simple-git-hooks');
    notes.push(...merged.notes);
    // package.json is merged once, with this as its starting text.
    if (merged.changed) files.push({ path: 'package.json', text: `${JSON.stringify(pkg, null, jsonIndent(input.packageJson))}\n` });
  } else if (/\.json$/.test(config)) {
    const text = input.read(config) ?? '{}';
    const hooks = JSON.parse(text) as Record<string, unknown>;
    const merged = mergeCommandHooks(hooks, commands, config);
    notes.push(...merged.notes);
    if (merged.changed) files.push({ path: config, text: `${JSON.stringify(hooks, null, jsonIndent(text))}\n` });
  } else {
    notes.push(`simple-git-hooks is configured in ${config}, which init does not edit: add "pre-commit": "${bin} pre-commit" and "pre-push": "${bin} pre-push \\"$@\\""`);
  }
  return {
    files,
    notes,
    packageJson: pinSelfOnly(parts),
    activation: {
      program: 'node_modules/.bin/simple-git-hooks',
      args: [],
      requires: 'node_modules/.bin/simple-git-hooks',
      unlessHooksPath: null,
      otherwise: "run 'npx simple-git-hooks' so git runs the new commands",
    },
  };
}

/** Plain git hooks: shell files in the hooks directory (core.hooksPath or .git/hooks). */
function planGitHooks(parts: PlanParts, dir: string): HookPlan {
  const { input, bin, notes, files, hasPkg } = parts;
  const header = '#!/bin/sh\n';
  for (const [hook, line] of [
    ['pre-commit', `${bin} pre-commit`],
    ['pre-push', `${bin} pre-push "$@"`],
  ] as const) {
    const path = `${dir}/${hook}`;
    const shown = path.includes('/.git/') ? path.slice(path.lastIndexOf('/.git/') + 1) : path;
    addMerge(parts, { path, merge: mergeHook(input.read(path), [line], shown, header), mode: HOOK_MODE });
  }
  if (!hasPkg) notes.push(`the hooks call 'receipt-gate' from PATH (the project has no package.json): install it with 'npm install --global ./receipt-gate-${parts.self[1]}.tgz' (the release tarball; README: On a laptop)`);
  return { files, notes, packageJson: pinSelfOnly(parts), activation: null };
}

/** husky 4: commands in package.json "husky": {"hooks"} or .huskyrc(.json); the pre-push
 * command reads git's lines from HUSKY_GIT_STDIN and the arguments from HUSKY_GIT_PARAMS. */
function planHusky4(parts: PlanParts): HookPlan {
  const { input, bin, self, notes, files } = parts;
  const rcFile = ['.huskyrc', '.huskyrc.json'].find((f) => input.read(f) !== null) ?? null;
  const where = rcFile ?? 'package.json';
  const text = rcFile !== null ? input.read(rcFile)! : input.packageJson;
  const existingPreCommit = (() => {
    if (text === null) return '';
    try {
      const doc = JSON.parse(text) as Record<string, unknown>;
      const config = (rcFile !== null ? doc : doc.husky) as { hooks?: Record<string, unknown> } | undefined;
      const pc = config?.hooks?.['pre-commit'];
      return typeof pc === 'string' ? pc : '';
    } catch {
      return '';
    }
  })();
  const lint = lintStagedDecision(existingPreCommit, input, `${where} husky pre-commit`);
  const addsLintStaged = lint.add;
  if (lint.note !== null) notes.push(lint.note);
  const commands = {
    'pre-commit': [`${bin} pre-commit`, ...(addsLintStaged ? ['node_modules/.bin/lint-staged'] : [])],
    'pre-push': [`${bin} pre-push $HUSKY_GIT_PARAMS`],
  };
  if (text === null) {
    notes.push(`husky 4 is configured in a file init does not edit: add "pre-commit": "${commands['pre-commit'].join(' && ')}" and "pre-push": "${commands['pre-push'][0]}" to its hooks`);
  } else {
    const doc = JSON.parse(text) as Record<string, unknown>;
    const config = rcFile !== null ? doc : ((doc.husky ??= {}) as Record<string, unknown>);
    const hooks = (config.hooks ??= {}) as Record<string, unknown>;
    const merged = mergeCommandHooks(hooks, commands, `${where} husky hooks`);
    notes.push(...merged.notes);
    if (merged.changed) files.push({ path: where, text: `${JSON.stringify(doc, null, jsonIndent(text))}\n` });
  }
  const devDependencies: [string, string][] = [...(addsLintStaged ? [[LINT_STAGED_COMMAND, LINT_STAGED_VERSION] as [string, string]] : []), self];
  return {
    files,
    notes,
    packageJson: input.packageJson !== null ? { glob: lint.entry ? input.lintStagedGlob : null, prepare: null, devDependencies } : null,
    activation: null,
  };
}
