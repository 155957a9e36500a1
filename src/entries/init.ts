// `receipt-gate init [--owner NAME]... [--base-branch NAME] [--no-guard-absent] [--no-lint-staged] [--no-install] [--husky]`
// — sets a project up: the policy (the evidence layout, the gate's runner, CI and hook files
// guarded whether or not they exist yet, plus what the project holds), starter evidence, and
// the hooks, added to the hook manager the project already uses (src/client/managers.ts;
// husky 9 and lint-staged when it has none). Merges into what is there and never overwrites
// it; running it again changes nothing; CRLF files stay CRLF.

import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs';
import { dirname, isAbsolute, join, relative } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseCommandArgs } from '../args';
import { clientIdentity, gitConfig, locateWorktree, runGit } from '../client/git-cli';
import { planHooks, type Activation, type HookPlan } from '../client/hook-plan';
import { planCodeowners } from '../client/codeowners';
import { addOwnersToPolicyText, mergePackageJson, parsePackageJson, toLf, withEol } from '../client/init';
import { proposeFromLayout } from '../client/layout';
import { describeManager, detectHookManager, type HookManager, type ProjectView } from '../client/managers';
import { OverlaySource } from '../client/overlay-source';
import { CHECK_COMMAND, jsonText, lintStagedGlob, STARTER_FREEZE, starterPolicy } from '../client/templates';
import { today } from '../clock';
import { checkEvidence } from '../evidence/index';
import { DEFAULT_FREEZE, parsePolicy } from '../evidence/policy';
import { DirectorySource } from '../evidence/sources';
import { POLICY_PATH, type EvidenceReport, type Policy } from '../evidence/types';
import type { Finding } from '../findings';
import { ObjectStore } from '../git/store';
import { UsageError, type CliIO } from '../io';
import { printable } from '../quote';
import { sortFindings } from '../report/order';
import { findingLine } from '../report/text';
import { EXIT } from '../verdict';

declare const RECEIPT_GATE_VERSION: string;
/** receipt-gate pins itself exactly, as it pins husky and lint-staged. */
const SELF_VERSION = typeof RECEIPT_GATE_VERSION === 'string' ? RECEIPT_GATE_VERSION : '0.0.0-dev';

const USAGE = 'receipt-gate init [--owner NAME]... [--base-branch NAME] [--no-guard-absent] [--no-lint-staged] [--no-install] [--husky] [--now YYYY-MM-DD]';

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

interface InitOptions {
  owners: string[];
  baseBranch: string | undefined;
  lintStaged: boolean;
  install: boolean;
  /** Write the guard globs nothing matches yet too (protected before they exist); false with
   * --no-guard-absent. */
  guardAbsent: boolean;
  /** husky and lint-staged even in a Python project whose package.json only installs receipt-gate. */
  husky: boolean;
  date: string;
}

/** One run of init: the project it sets up, and what it plans to write and say. */
interface InitRun {
  io: CliIO;
  options: InitOptions;
  top: string;
  /** A path from the top (or absolute), made absolute. */
  abs: (path: string) => string;
  /** A file's text with LF line ends (CRLF files are written back with CRLF), or null. */
  read: (path: string) => string | null;
  /** Which files were read with CRLF line ends (by absolute path). */
  crlf: Map<string, boolean>;
  pending: PendingFile[];
  notes: string[];
}

/** The project as init found it: its package.json and hook manager. */
interface Project {
  packageJson: string | null;
  view: ProjectView;
  manager: HookManager;
}

/** What step 6 found to install: the command, and the sentence init stops with, if any. */
interface InstallOutcome {
  install: { missing: string[]; command: string[] } | null;
  stopped: string | null;
  /** The install init ran failed: the next commit would fail too. */
  failed: boolean;
}

export async function run(args: string[], io: CliIO): Promise<number> {
  const options = parseOptions(args, io);
  if (options === null) return 0;
  const r = await openRun(io, options);
  const project = findProject(r);

  // 1. The policy: kept when there is one (it must be valid; --owner adds owners to it), else
  //    the starter policy.
  const existing = r.read(POLICY_PATH);
  const policy = existing !== null ? keepPolicy(r, existing) : starterPolicyFor(r, project);
  if (typeof policy === 'number') return policy;

  // 2. Starter evidence: only files that are valid as written.
  if (policy.freeze && r.read(policy.freeze.path) === null) {
    r.pending.push({ path: policy.freeze.path, text: jsonText(STARTER_FREEZE) });
    r.notes.push(`wrote ${policy.freeze.path} (no frozen tests)`);
  }

  // 2b. The review lock on the forge: the receipt-gate block of CODEOWNERS.
  planCodeownersFiles(r, policy);

  // 3. The hooks, in that manager; 4. package.json.
  const plan = planHookFiles(r, project, policy);
  mergePackage(r, project, plan);
  ignoreNodeModules(r);

  // 5. Never write what the gate would reject: check the evidence as it will be.
  const report = await judgePending(r, policy);
  if (report === null) return EXIT.closed;
  writePending(r);

  // 6. Install what package.json now names; 7. let the manager install its hooks.
  const installed = installAdded(r, project);
  activateHooks(r, project, plan.activation);

  printSummary(r, policy, report.findings.filter((f) => f.severity === 'closed'), installed);
  return installed.failed ? EXIT.closed : EXIT.eligible;
}

function parseOptions(args: string[], io: CliIO): InitOptions | null {
  const parsed = parseCommandArgs(
    args,
    {
      owner: { type: 'string', multiple: true, description: 'an owner of the starter policy (repeatable; default: git config user.email), or one to add to an existing policy' },
      'base-branch': { type: 'string', description: "the policy's base branch (default: origin/HEAD, else the current branch)" },
      'no-lint-staged': { type: 'boolean', description: 'add no lint-staged line, dependency or entry' },
      'no-install': { type: 'boolean', description: 'do not install what package.json now names; print the one command to run' },
      'no-guard-absent': { type: 'boolean', description: 'write only the guard globs something matches; print the absent ones (evidence layout, runner, CI, hooks)' },
      // The default since guards are written before they exist; still accepted.
      'guard-absent': { type: 'boolean', description: 'protect the guard globs before their files exist (the default)' },
      husky: { type: 'boolean', description: 'add husky and lint-staged to a Python project whose package.json only installs receipt-gate (default there: plain git hooks)' },
      now: { type: 'string', description: "today's date for the starter evidence's checks (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
    },
    USAGE,
    io,
  );
  if (!parsed) return null;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`init takes no arguments, got '${positionals[0]}'\nusage: ${USAGE}`);
  return {
    owners: ownersList(values.owner as string[] | string | undefined),
    baseBranch: values['base-branch'] as string | undefined,
    lintStaged: values['no-lint-staged'] !== true,
    install: values['no-install'] !== true,
    guardAbsent: values['no-guard-absent'] !== true,
    husky: values.husky === true,
    date: today(io, values.now),
  };
}

/** The working tree init runs at the top of (refusing a repository the hooks could never check). */
async function openRun(io: CliIO, options: InitOptions): Promise<InitRun> {
  const top = locateWorktree(io.cwd, io.env).top;
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
  const read = (path: string): string | null => {
    const file = abs(path);
    if (!existsSync(file) || !statSync(file).isFile()) return null;
    const lf = toLf(readFileSync(file, 'utf8'));
    crlf.set(file, lf.crlf);
    return lf.text;
  };
  return { io, options, top, abs, read, crlf, pending: [], notes: [] };
}

/** The hook manager the project already uses (its configuration is protected too). */
function findProject(r: InitRun): Project {
  const packageJson = r.read('package.json');
  let pkg = null;
  if (packageJson !== null) {
    try {
      pkg = parsePackageJson(packageJson);
    } catch (err) {
      throw new UsageError(`cannot merge into package.json: ${err instanceof Error ? err.message : String(err)}; fix it and run init again`);
    }
  }
  const { abs, top, io } = r;
  const view: ProjectView = {
    read: r.read,
    exists: (path) => existsSync(abs(path)),
    isDirectory: (path) => existsSync(abs(path)) && statSync(abs(path)).isDirectory(),
    list: (dir) => (existsSync(abs(dir)) ? readdirSync(abs(dir)) : []),
    pkg,
    hooksPath: gitConfig('core.hooksPath', top, io.env),
    hooksDir: gitPath('hooks', top, io.env),
  };
  let manager = detectHookManager(view);
  // A Python project whose package.json is only the receipt-gate install (npm i -D writes it)
  // gets plain git hooks, not husky and lint-staged (Node tooling it never asked for).
  if (manager.kind === 'new-husky' && !r.options.husky && installsOnlyReceiptGate(pkg) && PYTHON_MARKERS.some((f) => view.exists(f))) {
    manager = { kind: 'git-hooks', dir: view.hooksDir, why: 'a Python project whose package.json only installs receipt-gate; --husky for husky and lint-staged' };
  }
  r.notes.push(`hook manager: ${describeManager(manager)}`);
  return { packageJson, view, manager };
}

/** Files that make a project a Python one, for the choice of hooks above. */
const PYTHON_MARKERS = ['pyproject.toml', 'setup.py', 'setup.cfg', 'requirements.txt', 'tox.ini', 'Pipfile', 'noxfile.py', 'pytest.ini'];

/** package.json names receipt-gate and nothing else: no scripts, no other dependency. */
function installsOnlyReceiptGate(pkg: ReturnType<typeof parsePackageJson> | null): boolean {
  if (pkg === null || pkg.scripts !== undefined) return false;
  const names = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'].flatMap((f) =>
    Object.keys(((pkg as Record<string, unknown>)[f] as Record<string, unknown> | undefined) ?? {}),
  );
  return names.length > 0 && names.every((n) => n === 'receipt-gate');
}

/** The existing policy, kept (it must be valid); --owner adds owners to it, which only an
 * owner may. An exit code when init stops. */
function keepPolicy(r: InitRun, existing: string): Policy | number {
  const { io, options } = r;
  const parsedPolicy = parsePolicy(Buffer.from(existing));
  if (!parsedPolicy.ok) {
    io.stderr(`receipt-gate init: the existing ${POLICY_PATH} is invalid; fix it first (init never overwrites it):\n`);
    for (const f of parsedPolicy.findings) io.stderr(`  ${findingLine(f)}\n`);
    return EXIT.closed;
  }
  const policy = parsedPolicy.policy;
  const adding = options.owners.filter((o) => !policy.owners.includes(o));
  if (adding.length === 0) {
    r.notes.push(`kept the existing ${POLICY_PATH}${options.owners.length > 0 ? ` (${options.owners.join(', ')} already owners)` : ''}`);
    return policy;
  }
  const identity = clientIdentity(r.top, io.env);
  if (identity === null || !policy.owners.includes(identity)) {
    io.stderr(
      `receipt-gate init: not adding ${adding.join(', ')} to the owners of ${POLICY_PATH}: only an owner (${policy.owners.join(', ') || 'none listed'}) may change the policy, and you are ${identity === null ? 'nobody (git config user.email is not set)' : identity}; the hooks and the server would refuse the commit. Ask an owner to run 'receipt-gate init --owner ${adding[0]}'. Nothing was written.\n`,
    );
    return EXIT.closed;
  }
  const text =
    addOwnersToPolicyText(existing, adding) ??
    jsonText({ ...(JSON.parse(existing) as Record<string, unknown>), owners: [...policy.owners, ...adding] });
  const reparsed = parsePolicy(Buffer.from(text));
  if (!reparsed.ok) {
    for (const f of reparsed.findings) io.stderr(`  ${findingLine(f)}\n`);
    throw new UsageError(`not adding ${adding.join(', ')} to the owners: the policy would be invalid (see above); check --owner. Nothing was written.`);
  }
  r.pending.push({ path: POLICY_PATH, text });
  r.notes.push(`added ${adding.join(', ')} to the owners in ${POLICY_PATH}`);
  return reparsed.policy;
}

/** The starter policy: the guard globs of the project's languages (written before their files
 * exist unless --no-guard-absent), and globs for what the project holds (git's tracked and
 * untracked, not ignored, files, and the files init is about to write), each with its reason. */
function starterPolicyFor(r: InitRun, project: Project): Policy {
  const { io, options, top } = r;
  const { manager } = project;
  const starterOwners = options.owners.length > 0 ? options.owners : defaultOwners(top, io.env);
  const baseBranch = options.baseBranch ?? defaultBranch(top, io.env);
  const hookFiles = manager.kind === 'new-husky' || (manager.kind === 'husky' && manager.major >= 5) ? ['.husky/pre-commit', '.husky/pre-push'] : [];
  const written = [POLICY_PATH, DEFAULT_FREEZE.path, ...hookFiles];
  const layout = proposeFromLayout(projectFiles(top, io.env), written, { guardAbsent: options.guardAbsent });
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
  r.pending.push({ path: POLICY_PATH, text });
  const hookConfig = hookConfigFiles(manager).filter((p) => !layout.protected.some((g) => g.glob === p));
  const found = [
    ...layout.protected.map((g) => `protected ${JSON.stringify(g.glob)}: ${printable(g.why)}`),
    ...hookConfig.map((p) => `protected ${JSON.stringify(p)}: the hook manager's configuration`),
    ...layout.exceptions.map((g) => `exception ${JSON.stringify(g.glob)}: ${printable(g.why)}`),
  ];
  r.notes.push(
    `wrote ${POLICY_PATH} (base branch ${baseBranch}, owners ${starterOwners.join(', ')}), from the guard globs and what the project holds:${found.length > 0 ? found.map((f) => `\n      ${f}`).join('') : ' nothing to protect yet'}`,
  );
  if (layout.absent.length > 0) {
    r.notes.push(
      `not protected (--no-guard-absent), because nothing matches them yet; add them to "protected" when the files arrive (check never reports a guard glob as a typo):${layout.absent
        .map((g) => `\n      ${JSON.stringify(g.glob)}: ${printable(g.why)}`)
        .join('')}`,
    );
  }
  return parsedPolicy.policy;
}

/** 2b. The block of CODEOWNERS that asks the owners to review every protected path, in the file
 * each forge reads (src/client/codeowners.ts, docs/authoring.md); a note instead when the
 * owners cannot be named there or the file's markers are broken. */
function planCodeownersFiles(r: InitRun, policy: Policy): void {
  let planned;
  try {
    planned = planCodeowners(policy, r.read);
  } catch (err) {
    r.notes.push(`CODEOWNERS left as it is: ${(err as Error).message}`);
    return;
  }
  if (planned.problem !== null) {
    r.notes.push(`CODEOWNERS not written: ${planned.problem}`);
    return;
  }
  for (const f of planned.files) {
    if (f.text === f.before) continue;
    r.pending.push({ path: f.path, text: f.text });
    r.notes.push(`${f.before === null ? 'wrote' : 'wrote the receipt-gate block in'} ${f.path} (read by ${f.forges.join(', ')}): the owners review every protected path on the forge`);
  }
}

/** 3. The hook files (or configuration entries) in the project's manager. */
function planHookFiles(r: InitRun, project: Project, policy: Policy): HookPlan {
  let plan: HookPlan;
  try {
    plan = planHooks({
      manager: project.manager,
      read: r.read,
      packageJson: project.packageJson,
      lintStagedGlob: lintStagedGlob(policy),
      selfVersion: SELF_VERSION,
      lintStaged: r.options.lintStaged,
    });
  } catch (err) {
    throw new UsageError(`cannot add the hooks: ${err instanceof Error ? err.message : String(err)}; fix it and run init again`);
  }
  r.notes.push(...plan.notes);
  r.pending.push(...plan.files.filter((f) => f.path !== 'package.json'));
  return plan;
}

/** 4. package.json (only when the project has one): prepare script, lint-staged entry (or the
 * note to add it to a separate lint-staged config that lacks it), exact dev dependencies. */
function mergePackage(r: InitRun, project: Project, plan: HookPlan): void {
  const { packageJson } = project;
  const otherConfig = OTHER_LINT_STAGED_CONFIGS.find((f) => existsSync(join(r.top, f))) ?? null;
  const plannedPkg = plan.files.find((f) => f.path === 'package.json')?.text ?? null;
  if (packageJson === null || plan.packageJson === null) {
    if (plannedPkg !== null) r.pending.push({ path: 'package.json', text: plannedPkg });
    return;
  }
  let pkgMerge;
  try {
    pkgMerge = mergePackageJson(plannedPkg ?? packageJson, { ...plan.packageJson, otherLintStagedConfig: otherConfig });
  } catch (err) {
    throw new UsageError(`cannot merge into package.json: ${err instanceof Error ? err.message : String(err)}; fix it and run init again`);
  }
  const text = pkgMerge.text ?? plannedPkg;
  if (text !== null) r.pending.push({ path: 'package.json', text });
  r.notes.push(...pkgMerge.notes);
  if (otherConfig !== null && plan.packageJson.glob !== null && !(r.read(otherConfig) ?? '').includes(CHECK_COMMAND)) {
    r.notes.push(`lint-staged is configured in ${otherConfig}: add "${plan.packageJson.glob}": "${CHECK_COMMAND}" there yourself`);
  }
}

/** 5. The evidence as it will be, judged by the gate's rules; null (and the reasons on
 * stderr) when the gate would reject a file init is about to write. */
async function judgePending(r: InitRun, policy: Policy): Promise<EvidenceReport | null> {
  const overlay = new OverlaySource(new DirectorySource(r.top, 'the working tree'), 'the working tree after init');
  for (const file of r.pending) if (!isAbsolute(file.path)) overlay.set(file.path, Buffer.from(file.text));
  const report = await checkEvidence({ policy, atNew: overlay, atBase: null, today: r.options.date });
  const written = new Set(r.pending.map((f) => f.path));
  const ours = report.findings.filter((f) => f.severity === 'closed' && f.path !== undefined && written.has(f.path));
  if (ours.length > 0) {
    r.io.stderr('receipt-gate init: refusing to write files the gate would reject:\n');
    for (const f of sortFindings(ours)) r.io.stderr(`  ${findingLine(f)}\n`);
    return null;
  }
  return report;
}

function writePending(r: InitRun): void {
  for (const file of r.pending) {
    const target = r.abs(file.path);
    mkdirSync(dirname(target), { recursive: true });
    writeFileSync(target, withEol(file.text, r.crlf.get(target) ?? false), file.mode !== undefined ? { mode: file.mode } : {});
  }
}

/** 6. What package.json now names must be installed before the next commit runs the hooks:
 * install it (the project's package manager), or stop with the one command to run. */
function installAdded(r: InitRun, project: Project): InstallOutcome {
  const install = missingInstall(r.top, project.packageJson, r.pending.find((f) => f.path === 'package.json')?.text ?? null);
  if (install === null) return { install, stopped: null, failed: false };
  const names = install.missing.join(', ');
  const command = install.command.join(' ');
  if (!r.options.install || !existsSync(join(r.top, 'node_modules'))) {
    const one = install.missing.length === 1;
    return {
      install,
      stopped: `run '${command}' before the next commit: package.json names ${names}, which ${one ? 'is' : 'are'} not installed yet and the hooks run ${one ? 'it' : 'them'}`,
      failed: false,
    };
  }
  const ran = spawnSync(install.command[0]!, install.command.slice(1), { cwd: r.top, env: r.io.env, encoding: 'utf8' });
  if (ran.status === 0) {
    r.notes.push(`ran '${command}': ${names} installed`);
    return { install, stopped: null, failed: false };
  }
  const why = (ran.stderr || ran.stdout || String(ran.error)).trim().split('\n').slice(-1)[0];
  return { install, stopped: `'${command}' failed (${why}): run it again before the next commit; package.json names ${names}, which the hooks run`, failed: true };
}

/** 7. Let the manager install the hooks it now has (never core.hooksPath for another one). */
function activateHooks(r: InitRun, project: Project, activation: Activation | null): void {
  if (activation === null || (activation.unlessHooksPath !== null && project.view.hooksPath === activation.unlessHooksPath)) return;
  const program = activation.program.includes('/') ? join(r.top, activation.program) : activation.program;
  if (activation.requires !== null && !existsSync(join(r.top, activation.requires))) {
    r.notes.push(activation.otherwise);
    return;
  }
  const ran = spawnSync(program, activation.args, { cwd: r.top, env: r.io.env, encoding: 'utf8' });
  const shown = [activation.program.replace(/^node_modules\/\.bin\//, ''), ...activation.args].join(' ');
  if (ran.status === 0) r.notes.push(`ran '${shown}': git runs the new hooks`);
  else r.notes.push(`'${shown}' did not succeed (${(ran.stderr || ran.stdout || String(ran.error)).trim().split('\n')[0]}); ${activation.otherwise}`);
}

/** What init did, what the gate already closes on, and the next steps. */
function printSummary(r: InitRun, policy: Policy, remaining: Finding[], installed: InstallOutcome): void {
  const { io, top } = r;
  io.stdout(`receipt-gate init in ${top}:\n`);
  if (r.pending.length === 0) {
    io.stdout('  nothing to change: the policy, evidence and hooks are in place\n');
  }
  for (const note of r.notes) io.stdout(`  - ${note}\n`);
  if (remaining.length > 0) {
    io.stdout(`  the gate closes on evidence already in the tree; fix these before the first push:\n`);
    for (const f of sortFindings(remaining)) io.stdout(`    ${findingLine(f)}\n`);
  }
  const toCommit = [...new Set([POLICY_PATH, ...(policy.freeze ? [policy.freeze.path] : []), ...r.pending.map((f) => f.path)])]
    .filter((p) => !isAbsolute(p) || !relative(top, p).startsWith('..'))
    .map((p) => (isAbsolute(p) ? relative(top, p) : p))
    .filter((p) => !p.startsWith('.git/'));
  for (const p of installChanges(r)) if (!toCommit.includes(p)) toCommit.push(p);
  const { stopped, install } = installed;
  if (stopped !== null) io.stdout(`  - ${stopped}\n`);
  io.stdout(
    [
      'next steps:',
      ...(stopped !== null && install !== null ? [`  0. before anything else, install what package.json now names: ${install.command.join(' ')}`] : []),
      `  1. review ${POLICY_PATH} (owners, protected paths), then commit it with the hooks as an owner:`,
      `       git add ${toCommit.join(' ')} && git commit -m "Guard evidence with receipt-gate"`,
      '  2. install the server hook, the control (client hooks are early feedback anyone can skip):',
      '       on the git server, from a receipt-gate checkout: ./install.sh --server /path/to/repository.git',
      '  3. owners pin the evidence: receipt-gate epoch pin, manifest sample, freeze add, observe (docs/client.md)',
      '',
    ].join('\n'),
  );
}

/** node_modules/ is never committed: init adds it to .gitignore when the project has one and
 * git does not ignore it yet (npm i -D in a project without a package.json makes it). */
function ignoreNodeModules(r: InitRun): void {
  if (!existsSync(join(r.top, 'node_modules'))) return;
  if (runGit(['check-ignore', '-q', 'node_modules'], r.top, r.io.env).status === 0) return;
  const pending = r.pending.find((f) => f.path === '.gitignore');
  const text = pending?.text ?? r.read('.gitignore') ?? '';
  const merged = `${text}${text === '' || text.endsWith('\n') ? '' : '\n'}node_modules/\n`;
  if (pending) pending.text = merged;
  else r.pending.push({ path: '.gitignore', text: merged });
  r.notes.push('added node_modules/ to .gitignore');
}

/** How the project obtains receipt-gate, as git sees it changed (new or modified): package.json,
 * its lock file, and a tarball inside the project that package.json installs receipt-gate from
 * (`npm i -D ./receipt-gate-X.tgz`). They are committed with the policy: CI and the scheduled
 * job install the receipt-gate the default branch's lock file names. */
function installChanges(r: InitRun): string[] {
  const status = runGit(['status', '--porcelain', '-z', '--untracked-files=all', '--', '.'], r.top, r.io.env);
  if (status.status !== 0) return [];
  const changed = new Set(status.stdout.split('\0').filter((e) => e.length > 3).map((e) => e.slice(3)));
  const candidates = ['package.json', 'package-lock.json', 'npm-shrinkwrap.json', 'yarn.lock', 'pnpm-lock.yaml'];
  const text = r.pending.find((f) => f.path === 'package.json')?.text ?? r.read('package.json');
  if (text !== null) {
    try {
      const pkg = parsePackageJson(text) as Record<string, Record<string, unknown> | undefined>;
      const spec = ['devDependencies', 'dependencies'].map((f) => pkg[f]?.['receipt-gate']).find((v) => typeof v === 'string') as string | undefined;
      const file = spec?.startsWith('file:') ? spec.slice('file:'.length).replace(/^\.\//, '') : null;
      if (file !== null && file.endsWith('.tgz') && !isAbsolute(file) && !file.startsWith('..')) candidates.push(file);
    } catch {
      // an unreadable package.json was reported by findProject already
    }
  }
  return candidates.filter((p) => changed.has(p));
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
