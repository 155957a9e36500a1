// `receipt-gate init [--owner NAME]... [--base-branch NAME]` — sets a project up: the policy,
// starter evidence, the husky hooks and the lint-staged entry. Merges into what is there and
// never overwrites it; running it again changes nothing.

import { existsSync, mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { parseCommandArgs } from '../args';
import { gitConfig, locateWorktree, runGit } from '../client/git-cli';
import { mergeHook, mergePackageJson } from '../client/init';
import { OverlaySource } from '../client/overlay-source';
import {
  HUSKY_PRE_COMMIT,
  HUSKY_PRE_PUSH,
  jsonText,
  lintStagedGlob,
  STARTER_FREEZE,
  starterPolicy,
} from '../client/templates';
import { today } from '../clock';
import { checkEvidence } from '../evidence/index';
import { parsePolicy } from '../evidence/policy';
import { DirectorySource } from '../evidence/sources';
import { POLICY_PATH, type Policy } from '../evidence/types';
import { UsageError, type CliIO } from '../io';
import { findingLine, sortFindings } from '../render';
import { EXIT } from '../verdict';

declare const RECEIPT_GATE_VERSION: string;
const SELF_VERSION = typeof RECEIPT_GATE_VERSION === 'string' ? `^${RECEIPT_GATE_VERSION}` : 'latest';

const USAGE = 'receipt-gate init [--owner NAME]... [--base-branch NAME] [--now YYYY-MM-DD]';

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
      now: { type: 'string' },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values } = parsed;
  const date = today(io, values.now);
  const worktree = locateWorktree(io.cwd, io.env);
  const top = worktree.top;
  if (realpathSync(io.cwd) !== realpathSync(top)) {
    throw new UsageError(`run init at the top level of the working tree (${top}), where package.json and .husky/ belong`);
  }
  const read = (path: string): string | null => (existsSync(join(top, path)) ? readFileSync(join(top, path), 'utf8') : null);

  const pending: PendingFile[] = [];
  const notes: string[] = [];

  // 1. The policy: kept when there is one (it must be valid), else the starter policy.
  let policy: Policy;
  const existingPolicy = read(POLICY_PATH);
  if (existingPolicy !== null) {
    const parsed = parsePolicy(Buffer.from(existingPolicy));
    if (!parsed.ok) {
      io.stderr(`receipt-gate init: the existing ${POLICY_PATH} is invalid; fix it first (init never overwrites it):\n`);
      for (const f of parsed.findings) io.stderr(`  ${findingLine(f)}\n`);
      return EXIT.closed;
    }
    policy = parsed.policy;
    notes.push(`kept the existing ${POLICY_PATH}`);
  } else {
    const owners = ownersFrom(values.owner as string[] | string | undefined, top, io.env);
    const baseBranch = (values['base-branch'] as string | undefined) ?? defaultBranch(top, io.env);
    const text = jsonText(starterPolicy({ baseBranch, owners }));
    const parsed = parsePolicy(Buffer.from(text));
    if (!parsed.ok) {
      // e.g. an owner or branch name the schema refuses
      for (const f of parsed.findings) io.stderr(`  ${findingLine(f)}\n`);
      throw new UsageError(`the policy init would write is invalid (see above); check --owner and --base-branch`);
    }
    policy = parsed.policy;
    pending.push({ path: POLICY_PATH, text });
    notes.push(`wrote ${POLICY_PATH} (base branch ${baseBranch}, owners ${owners.join(', ')})`);
  }

  // 2. Starter evidence: only files that are valid as written.
  if (policy.freeze && read(policy.freeze.path) === null) {
    pending.push({ path: policy.freeze.path, text: jsonText(STARTER_FREEZE) });
    notes.push(`wrote ${policy.freeze.path} (no frozen tests)`);
  }

  // 3. The husky hooks.
  for (const [file, lines] of [
    ['.husky/pre-commit', HUSKY_PRE_COMMIT],
    ['.husky/pre-push', HUSKY_PRE_PUSH],
  ] as const) {
    const merge = mergeHook(read(file), lines.trimEnd().split('\n'), file);
    if (merge.text !== null) pending.push({ path: file, text: merge.text, mode: 0o755 });
    notes.push(...merge.notes);
  }

  // 4. package.json: prepare script, lint-staged entry, dev dependencies.
  const otherConfig = OTHER_LINT_STAGED_CONFIGS.find((f) => existsSync(join(top, f))) ?? null;
  let pkgMerge;
  try {
    pkgMerge = mergePackageJson(read('package.json'), {
      glob: lintStagedGlob(policy),
      name: basename(top).toLowerCase().replace(/[^a-z0-9._-]/g, '-') || 'project',
      otherLintStagedConfig: otherConfig,
      selfVersion: SELF_VERSION,
    });
  } catch (err) {
    throw new UsageError(`cannot merge into package.json: ${err instanceof Error ? err.message : String(err)}; fix it and run init again`);
  }
  if (pkgMerge.text !== null) pending.push({ path: 'package.json', text: pkgMerge.text });
  notes.push(...pkgMerge.notes);
  if (otherConfig !== null) {
    notes.push(`lint-staged is configured in ${otherConfig}: add "${lintStagedGlob(policy)}": "receipt-gate check" there yourself`);
  }

  // 5. Never write what the gate would reject: check the evidence as it will be.
  const view = new OverlaySource(new DirectorySource(top, 'the working tree'), 'the working tree after init');
  for (const file of pending) view.set(file.path, Buffer.from(file.text));
  const report = await checkEvidence({ policy, atNew: view, atBase: null, today: date });
  const written = new Set(pending.map((f) => f.path));
  const ours = report.findings.filter((f) => f.severity === 'closed' && f.path !== undefined && written.has(f.path));
  if (ours.length > 0) {
    io.stderr('receipt-gate init: refusing to write files the gate would reject:\n');
    for (const f of sortFindings(ours)) io.stderr(`  ${findingLine(f)}\n`);
    return EXIT.closed;
  }

  for (const file of pending) {
    mkdirSync(dirname(join(top, file.path)), { recursive: true });
    writeFileSync(join(top, file.path), file.text, file.mode !== undefined ? { mode: file.mode } : {});
  }

  // 6. Switch the hooks on when husky is installed (otherwise npm install will, via prepare).
  const hooksPath = gitConfig('core.hooksPath', top, io.env);
  const huskyBin = join(top, 'node_modules', '.bin', 'husky');
  if (hooksPath !== '.husky/_') {
    if (existsSync(huskyBin)) {
      const ran = spawnSync(huskyBin, [], { cwd: top, env: io.env, encoding: 'utf8' });
      if (ran.status === 0) notes.push('ran husky: git now runs the hooks in .husky/');
      else notes.push(`husky did not switch the hooks on (${(ran.stderr || ran.stdout || String(ran.error)).trim()}); run 'npx husky'`);
    } else {
      notes.push("run 'npm install' to install husky and lint-staged; its prepare script switches the hooks on");
    }
  }

  const remaining = report.findings.filter((f) => f.severity === 'closed');
  io.stdout(`receipt-gate init in ${top}:\n`);
  if (pending.length === 0) {
    io.stdout('  nothing to change: the policy, evidence, hooks and lint-staged entry are in place\n');
  }
  for (const note of notes) io.stdout(`  - ${note}\n`);
  if (remaining.length > 0) {
    io.stdout(`  the gate closes on evidence already in the tree; fix these before the first push:\n`);
    for (const f of sortFindings(remaining)) io.stdout(`    ${findingLine(f)}\n`);
  }
  io.stdout(
    [
      'next steps:',
      `  1. review ${POLICY_PATH} (owners, protected paths), then commit it with the hooks as an owner:`,
      `       git add ${[...new Set([POLICY_PATH, ...(policy.freeze ? [policy.freeze.path] : []), '.husky', 'package.json'])].join(' ')} && git commit -m "Guard evidence with receipt-gate"`,
      '  2. install the server hook, the control (client hooks are early feedback anyone can skip):',
      '       on the git server, from a receipt-gate checkout: ./install.sh --server /path/to/repository.git',
      '  3. owners pin the evidence: receipt-gate epoch pin, manifest sample, freeze add, observe (docs/client.md)',
      '',
    ].join('\n'),
  );
  return EXIT.eligible;
}

function ownersFrom(given: string[] | string | undefined, top: string, env: NodeJS.ProcessEnv): string[] {
  const list = given === undefined ? [] : Array.isArray(given) ? given : [given];
  if (list.length > 0) return [...new Set(list)];
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
