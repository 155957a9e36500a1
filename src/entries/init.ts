// `receipt-gate init [--owner NAME]... [--base-branch NAME] [--no-lint-staged] [--no-install]` — sets a project up: the policy,
// starter evidence, and the hooks, added to the hook manager the project already uses
// (src/client/managers.ts; husky 9 and lint-staged when it has none). Merges into what is
// there and never overwrites it; running it again changes nothing; CRLF files stay CRLF.

import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseCommandArgs } from '../args';
import { clientIdentity, gitConfig, locateWorktree, runGit } from '../client/git-cli';
import { planHooks } from '../client/hook-plan';
import { addOwnersToPolicyText, mergePackageJson, parsePackageJson, toLf, withEol } from '../client/init';
import { proposeFromLayout } from '../client/layout';
import { describeManager, detectHookManager, type HookManager, type ProjectView } from '../client/managers';
import { OverlaySource } from '../client/overlay-source';
import { CHECK_COMMAND, jsonText, lintStagedGlob, STARTER_FREEZE, starterPolicy } from '../client/templates';
import { today } from '../clock';
import { checkEvidence } from '../evidence/index';
import { parsePolicy } from '../evidence/policy';
import { DirectorySource } from '../evidence/sources';
import { POLICY_PATH, type Policy } from '../evidence/types';
import { ObjectStore } from '../git/store';
import { UsageError, type CliIO } from '../io';
import { printable } from '../quote';
import { sortFindings } from '../report/order';
import { findingLine } from '../report/text';
import { EXIT } from '../verdict';

declare const RECEIPT_GATE_VERSION: string;
/** receipt-gate pins itself exactly, as it pins husky and lint-staged. */
const SELF_VERSION = typeof RECEIPT_GATE_VERSION === 'string' ? RECEIPT_GATE_VERSION : '0.0.0-dev';

const USAGE = 'receipt-gate init [--owner NAME]... [--base-branch NAME] [--no-lint-staged] [--no-install] [--now YYYY-MM-DD]';

const OTHER_LINT_STAGED_CONFIGS = [
  '.lintstagedrc',
  '.lintstagedrc.json',
  '.lintstagedrc.yaml',
  '.lintstagedrc.yml',
  '.lintstagedrc.mjs',
  '.lintstagedrc.cjs',
  '.lintstagedrc.js',
  'lint-staged.config.js',
  'lint-staged.config.mjs',
  'lint-staged.config.cjs',
];

interface PendingFile {
  /** From the top of the working tree, or absolute (the hooks directory). */
  path: string;
  text: string;
  mode?: number;
}

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      owner: { type: 'string', multiple: true },
      'base-branch': { type: 'string' },
      'no-lint-staged': { type: 'boolean' },
      'no-install': { type: 'boolean' },
      now: { type: 'string' },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`init takes no arguments, got '${positionals[0]}'\nusage: ${USAGE}`);
  const date = today(io, values.now);
  const worktree = locateWorktree(io.cwd, io.env);
  const top = worktree.top;
  if (realpathSync(io.cwd) !== realpathSync(top)) {
    throw new UsageError(`run init at the top level of the working tree (${top}), where package.json and the hook configuration belong`);
  }
  // Refuse what the hooks could never check before writing anything: the store refuses
  // SHA-256 and reftable repositories when it opens them.
  try {
    (await ObjectStore.discover(top, io.env)).close();
  } catch (err) {
    throw new UsageError(`${err instanceof Error ? err.message : String(err)} Nothing was written.`);
  }

  const abs = (path: string) => (isAbsolute(path) ? path : join(top, path));
  const crlf = new Map<string, boolean>();
  /** A file's text with LF line ends (CRLF files are written back with CRLF), or null. */
  const read = (path: string): string | null => {
    const file = abs(path);
    if (!existsSync(file) || !statSync(file).isFile()) return null;
    const lf = toLf(readFileSync(file, 'utf8'));
    crlf.set(file, lf.crlf);
    return lf.text;
  };

  const pending: PendingFile[] = [];
  const notes: string[] = [];
  const owners = ownersList(values.owner as string[] | string | undefined);

  // The hook manager the project already uses (its configuration is protected too).
  const packageJson = read('package.json');
  let pkg = null;
  if (packageJson !== null) {
    try {
      pkg = parsePackageJson(packageJson);
    } catch (err) {
      throw new UsageError(`cannot merge into package.json: ${err instanceof Error ? err.message : String(err)}; fix it and run init again`);
    }
  }
  const hooksDir = gitPath('hooks', top, io.env);
  const view: ProjectView = {
    read,
    exists: (path) => existsSync(abs(path)),
    isDirectory: (path) => existsSync(abs(path)) && statSync(abs(path)).isDirectory(),
    list: (dir) => (existsSync(abs(dir)) ? readdirSync(abs(dir)) : []),
    pkg,
    hooksPath: gitConfig('core.hooksPath', top, io.env),
    hooksDir,
  };
  const manager = detectHookManager(view);
  notes.push(`hook manager: ${describeManager(manager)}`);

  // 1. The policy: kept when there is one (it must be valid; --owner adds owners to it), else
  //    the starter policy.
  let policy: Policy;
  const existingPolicy = read(POLICY_PATH);
  if (existingPolicy !== null) {
    const parsedPolicy = parsePolicy(Buffer.from(existingPolicy));
    if (!parsedPolicy.ok) {
      io.stderr(`receipt-gate init: the existing ${POLICY_PATH} is invalid; fix it first (init never overwrites it):\n`);
      for (const f of parsedPolicy.findings) io.stderr(`  ${findingLine(f)}\n`);
      return EXIT.closed;
    }
    policy = parsedPolicy.policy;
    const adding = owners.filter((o) => !policy.owners.includes(o));
    if (adding.length === 0) {
      notes.push(`kept the existing ${POLICY_PATH}${owners.length > 0 ? ` (${owners.join(', ')} already owners)` : ''}`);
    } else {
      const identity = clientIdentity(top, io.env);
      if (identity === null || !policy.owners.includes(identity)) {
        io.stderr(
          `receipt-gate init: not adding ${adding.join(', ')} to the owners of ${POLICY_PATH}: only an owner (${policy.owners.join(', ') || 'none listed'}) may change the policy, and you are ${identity === null ? 'nobody (git config user.email is not set)' : identity}; the hooks and the server would refuse the commit. Ask an owner to run 'receipt-gate init --owner ${adding[0]}'. Nothing was written.\n`,
        );
        return EXIT.closed;
      }
      const text =
        addOwnersToPolicyText(existingPolicy, adding) ??
        jsonText({ ...(JSON.parse(existingPolicy) as Record<string, unknown>), owners: [...policy.owners, ...adding] });
      const reparsed = parsePolicy(Buffer.from(text));
      if (!reparsed.ok) {
        for (const f of reparsed.findings) io.stderr(`  ${findingLine(f)}\n`);
        throw new UsageError(`not adding ${adding.join(', ')} to the owners: the policy would be invalid (see above); check --owner. Nothing was written.`);
      }
      policy = reparsed.policy;
      pending.push({ path: POLICY_PATH, text });
      notes.push(`added ${adding.join(', ')} to the owners in ${POLICY_PATH}`);
    }
  } else {
    const starterOwners = owners.length > 0 ? owners : defaultOwners(top, io.env);
    const baseBranch = (values['base-branch'] as string | undefined) ?? defaultBranch(top, io.env);
    // The protected globs from what the project holds (git's tracked and untracked, not
    // ignored, files, and the hook files init is about to write), each with its reason.
    const written = manager.kind === 'new-husky' || (manager.kind === 'husky' && manager.major >= 5) ? ['.husky/pre-commit', '.husky/pre-push'] : [];
    const layout = proposeFromLayout(projectFiles(top, io.env), written);
    const text = jsonText(
      starterPolicy({
        baseBranch,
        owners: starterOwners,
        hookConfig: hookConfigFiles(manager),
        protected: layout.protected.map((g) => g.glob),
        exceptions: layout.exceptions.map((g) => g.glob),
      }),
    );
    const parsedPolicy = parsePolicy(Buffer.from(text));
    if (!parsedPolicy.ok) {
      // e.g. an owner or branch name the schema refuses
      for (const f of parsedPolicy.findings) io.stderr(`  ${findingLine(f)}\n`);
      throw new UsageError(`the policy init would write is invalid (see above); check --owner and --base-branch`);
    }
    policy = parsedPolicy.policy;
    pending.push({ path: POLICY_PATH, text });
    const hookConfig = hookConfigFiles(manager).filter((p) => !layout.protected.some((g) => g.glob === p));
    const found = [
      ...layout.protected.map((g) => `protected ${JSON.stringify(g.glob)}: ${printable(g.why)}`),
      ...hookConfig.map((p) => `protected ${JSON.stringify(p)}: the hook manager's configuration`),
      ...layout.exceptions.map((g) => `exception ${JSON.stringify(g.glob)}: ${printable(g.why)}`),
    ];
    notes.push(
      `wrote ${POLICY_PATH} (base branch ${baseBranch}, owners ${starterOwners.join(', ')}), from what the project holds:${found.map((f) => `\n      ${f}`).join('')}`,
    );
  }

  // 2. Starter evidence: only files that are valid as written.
  if (policy.freeze && read(policy.freeze.path) === null) {
    pending.push({ path: policy.freeze.path, text: jsonText(STARTER_FREEZE) });
    notes.push(`wrote ${policy.freeze.path} (no frozen tests)`);
  }

  // 3. The hooks, in that manager.
  let plan;
  try {
    plan = planHooks({
      manager,
      read,
      packageJson,
      lintStagedGlob: lintStagedGlob(policy),
      selfVersion: SELF_VERSION,
      lintStaged: values['no-lint-staged'] !== true,
    });
  } catch (err) {
    throw new UsageError(`cannot add the hooks: ${err instanceof Error ? err.message : String(err)}; fix it and run init again`);
  }
  notes.push(...plan.notes);
  pending.push(...plan.files.filter((f) => f.path !== 'package.json'));

  // 4. package.json (only when the project has one): prepare script, lint-staged entry, exact
  //    dev dependencies.
  const otherConfig = OTHER_LINT_STAGED_CONFIGS.find((f) => existsSync(join(top, f))) ?? null;
  const plannedPkg = plan.files.find((f) => f.path === 'package.json')?.text ?? null;
  if (packageJson !== null && plan.packageJson !== null) {
    let pkgMerge;
    try {
      pkgMerge = mergePackageJson(plannedPkg ?? packageJson, { ...plan.packageJson, otherLintStagedConfig: otherConfig });
    } catch (err) {
      throw new UsageError(`cannot merge into package.json: ${err instanceof Error ? err.message : String(err)}; fix it and run init again`);
    }
    const text = pkgMerge.text ?? plannedPkg;
    if (text !== null) pending.push({ path: 'package.json', text });
    notes.push(...pkgMerge.notes);
    if (otherConfig !== null && plan.packageJson.glob !== null && !(read(otherConfig) ?? '').includes(CHECK_COMMAND)) {
      notes.push(`lint-staged is configured in ${otherConfig}: add "${plan.packageJson.glob}": "${CHECK_COMMAND}" there yourself`);
    }
  } else if (plannedPkg !== null) {
    pending.push({ path: 'package.json', text: plannedPkg });
  }

  // 5. Never write what the gate would reject: check the evidence as it will be.
  const overlay = new OverlaySource(new DirectorySource(top, 'the working tree'), 'the working tree after init');
  for (const file of pending) if (!isAbsolute(file.path)) overlay.set(file.path, Buffer.from(file.text));
  const report = await checkEvidence({ policy, atNew: overlay, atBase: null, today: date });
  const written = new Set(pending.map((f) => f.path));
  const ours = report.findings.filter((f) => f.severity === 'closed' && f.path !== undefined && written.has(f.path));
  if (ours.length > 0) {
    io.stderr('receipt-gate init: refusing to write files the gate would reject:\n');
    for (const f of sortFindings(ours)) io.stderr(`  ${findingLine(f)}\n`);
    return EXIT.closed;
  }

  for (const file of pending) {
    const target = abs(file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, withEol(file.text, crlf.get(target) ?? false), file.mode !== undefined ? { mode: file.mode } : {});
  }

  // 6. What package.json now names must be installed before the next commit runs the hooks:
  //    install it (the project's package manager), or stop with the one command to run.
  const install = missingInstall(top, packageJson, pending.find((f) => f.path === 'package.json')?.text ?? null);
  let stopped: string | null = null;
  if (install !== null) {
    const names = install.missing.join(', ');
    if (values['no-install'] === true || !existsSync(join(top, 'node_modules'))) {
      stopped = `run '${install.command.join(' ')}' before the next commit: package.json names ${names}, which ${install.missing.length === 1 ? 'is' : 'are'} not installed yet and the hooks run ${install.missing.length === 1 ? 'it' : 'them'}`;
    } else {
      const ran = spawnSync(install.command[0]!, install.command.slice(1), { cwd: top, env: io.env, encoding: 'utf8' });
      if (ran.status === 0) {
        notes.push(`ran '${install.command.join(' ')}': ${names} installed`);
      } else {
        const why = (ran.stderr || ran.stdout || String(ran.error)).trim().split('\n').slice(-1)[0];
        stopped = `'${install.command.join(' ')}' failed (${why}): run it again before the next commit; package.json names ${names}, which the hooks run`;
      }
    }
  }

  // 7. Let the manager install the hooks it now has (never core.hooksPath for another one).
  const activation = plan.activation;
  if (activation !== null && (activation.unlessHooksPath === null || view.hooksPath !== activation.unlessHooksPath)) {
    const program = activation.program.includes('/') ? join(top, activation.program) : activation.program;
    if (activation.requires !== null && !existsSync(join(top, activation.requires))) {
      notes.push(activation.otherwise);
    } else {
      const ran = spawnSync(program, activation.args, { cwd: top, env: io.env, encoding: 'utf8' });
      const shown = [activation.program.replace(/^node_modules\/\.bin\//, ''), ...activation.args].join(' ');
      if (ran.status === 0) notes.push(`ran '${shown}': git runs the new hooks`);
      else notes.push(`'${shown}' did not succeed (${(ran.stderr || ran.stdout || String(ran.error)).trim().split('\n')[0]}); ${activation.otherwise}`);
    }
  }

  const remaining = report.findings.filter((f) => f.severity === 'closed');
  io.stdout(`receipt-gate init in ${top}:\n`);
  if (pending.length === 0) {
    io.stdout('  nothing to change: the policy, evidence and hooks are in place\n');
  }
  for (const note of notes) io.stdout(`  - ${note}\n`);
  if (remaining.length > 0) {
    io.stdout(`  the gate closes on evidence already in the tree; fix these before the first push:\n`);
    for (const f of sortFindings(remaining)) io.stdout(`    ${findingLine(f)}\n`);
  }
  const toCommit = [...new Set([POLICY_PATH, ...(policy.freeze ? [policy.freeze.path] : []), ...pending.map((f) => f.path)])]
    .filter((p) => !isAbsolute(p) || !relative(top, p).startsWith('..'))
    .map((p) => (isAbsolute(p) ? relative(top, p) : p))
    .filter((p) => !p.startsWith('.git/'));
  if (stopped !== null) io.stdout(`  - ${stopped}\n`);
  io.stdout(
    [
      'next steps:',
      ...(stopped !== null ? [`  0. before anything else, install what package.json now names: ${install!.command.join(' ')}`] : []),
      `  1. review ${POLICY_PATH} (owners, protected paths), then commit it with the hooks as an owner:`,
      `       git add ${toCommit.join(' ')} && git commit -m "Guard evidence with receipt-gate"`,
      '  2. install the server hook, the control (client hooks are early feedback anyone can skip):',
      '       on the git server, from a receipt-gate checkout: ./install.sh --server /path/to/repository.git',
      '  3. owners pin the evidence: receipt-gate epoch pin, manifest sample, freeze add, observe (docs/client.md)',
      '',
    ].join('\n'),
  );
  // The install init ran failed: the next commit would fail too.
  return stopped !== null && install !== null && values['no-install'] !== true && existsSync(join(top, 'node_modules')) ? EXIT.closed : EXIT.eligible;
}

/** The files that configure the manager's hooks, for the starter policy's protected paths
 * (.husky/** is protected already; package.json is everyone's to edit). */
function hookConfigFiles(manager: HookManager): string[] {
  switch (manager.kind) {
    case 'lefthook':
    case 'pre-commit':
      return [manager.config];
    case 'simple-git-hooks':
      return manager.config === 'package.json' ? [] : [manager.config];
    default:
      return [];
  }
}

function ownersList(given: string[] | string | undefined): string[] {
  const list = given === undefined ? [] : Array.isArray(given) ? given : [given];
  return [...new Set(list)];
}

/** `git rev-parse --git-path NAME`, absolute: where git looks for hooks (core.hooksPath
 * honoured, the common directory of a linked worktree). */
function gitPath(name: string, top: string, env: NodeJS.ProcessEnv): string {
  const run = runGit(['rev-parse', '--git-path', name], top, env);
  if (run.status !== 0) throw new UsageError(`git rev-parse --git-path ${name} failed: ${run.stderr.trim()}`);
  const path = run.stdout.trim();
  return isAbsolute(path) ? path : join(top, path);
}

function defaultOwners(top: string, env: NodeJS.ProcessEnv): string[] {
  const email = gitConfig('user.email', top, env);
  if (email === null) {
    throw new UsageError(
      'name the owners with --owner NAME (their server logins, and the emails they commit with for the client hooks); git config user.email is not set to default to',
    );
  }
  return [email];
}

/** The branch the server's HEAD names (origin/HEAD), else the current branch, else main. */
function defaultBranch(top: string, env: NodeJS.ProcessEnv): string {
  const remoteHead = runGit(['symbolic-ref', '--quiet', 'refs/remotes/origin/HEAD'], top, env);
  if (remoteHead.status === 0) return remoteHead.stdout.trim().replace(/^refs\/remotes\/origin\//, '');
  const head = runGit(['symbolic-ref', '--quiet', '--short', 'HEAD'], top, env);
  if (head.status === 0 && head.stdout.trim() !== '') return head.stdout.trim();
  return 'main';
}

/**
 * The dev dependencies init added to package.json that node_modules lacks, and the project's
 * install command (by its lock file), or null when there is nothing to install.
 */
function missingInstall(top: string, before: string | null, after: string | null): { missing: string[]; command: string[] } | null {
  if (before === null || after === null) return null;
  const deps = (text: string): Record<string, string> => {
    const pkg = parsePackageJson(text);
    return { ...(pkg.dependencies ?? {}), ...(pkg.devDependencies ?? {}) };
  };
  const had = deps(before);
  const added = Object.entries(deps(after)).filter(([name]) => had[name] === undefined);
  const missing = added.filter(([name]) => !existsSync(join(top, 'node_modules', name, 'package.json'))).map(([n, v]) => `${n}@${v}`);
  if (missing.length === 0) return null;
  const command = existsSync(join(top, 'pnpm-lock.yaml'))
    ? ['pnpm', 'install']
    : existsSync(join(top, 'yarn.lock'))
      ? ['yarn', 'install']
      : ['npm', 'install'];
  return { missing, command };
}

/** The files git knows in the working tree: tracked, and untracked but not ignored (a project
 * runs init before its first commit). */
function projectFiles(top: string, env: NodeJS.ProcessEnv): string[] {
  const run = runGit(['ls-files', '-z', '--cached', '--others', '--exclude-standard', '--', '.', ':(exclude)node_modules'], top, env);
  if (run.status !== 0) throw new UsageError(`git ls-files failed: ${run.stderr.trim()}`);
  return [...new Set(run.stdout.split('\0').filter((p) => p !== ''))];
}
