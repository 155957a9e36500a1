// What the owners' authoring commands (epoch pin, manifest sample, freeze, observe) share:
// the policy of the working tree, the base the gate will compare against, and the rule that
// nothing is written that the gate would reject — the files are checked with the gate's own
// evidence rules, over a view of the tree as it will be, before a byte is written.

import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { resolveBase } from '../run/base';
import { locateWorktree, type Worktree } from './git-cli';
import { OverlaySource } from './overlay-source';
import { checkEvidence } from '../evidence/index';
import { parsePolicy } from '../evidence/policy';
import { DirectorySource } from '../evidence/sources';
import { TreeSource } from '../evidence/tree-source';
import { POLICY_PATH, type ContextPolicy, type EvidenceReport, type EvidenceSource, type Policy } from '../evidence/types';
import { chooseScope, underRoot } from './context-scope';
import type { Finding } from '../findings';
import { ObjectStore } from '../git/store';
import { UsageError, type CliIO } from '../io';
import { sortFindings } from '../report/order';
import { findingLine } from '../report/text';

export interface Authoring {
  worktree: Worktree;
  /** The policy the command works under: the bounded context's (docs/contexts.md), else the
   * repository's. */
  policy: Policy;
  /** The context the command works in, or null for the repository as a whole. */
  context: ContextPolicy | null;
  /** The repository's policy (with every context). */
  repository: Policy;
  /** A path argument as a repository path: with --context NAME, relative to the context's root
   * (a path already under it is kept); else as given. */
  resolve(path: string): string;
  resolve(path: string | undefined): string | undefined;
  store: ObjectStore;
  /** The working tree as an evidence source. */
  tree: DirectorySource;
  /** The base's tree (remote-tracking base branch, else HEAD), for the epoch rule; null if none. */
  base: TreeSource | null;
  close(): void;
}

/** Which context a command works in (src/client/context-scope.ts): `--context NAME`, the
 * repository paths it was given, and what it needs of a policy. */
export interface ScopeRequest {
  context: string | undefined;
  paths?: readonly string[];
  needs: (policy: Policy) => boolean;
  /** More repository paths that say which context is meant, found in the working tree (the
   * observation a keyed freeze cites). */
  found?: (policy: Policy, tree: DirectorySource) => Promise<string[]>;
  /** What it needs, for the message: `"epoch" section`. */
  what: string;
}

/** Opens the working tree around io.cwd and reads its policy (which must exist and be valid);
 * with `scope`, the command works in the context it chooses. */
export async function openAuthoring(io: CliIO, command: string, scope?: ScopeRequest): Promise<Authoring> {
  const worktree = locateWorktree(io.cwd, io.env);
  const tree = new DirectorySource(worktree.top, 'the working tree');
  const entry = await tree.stat(POLICY_PATH);
  if (entry.kind !== 'file') {
    throw new UsageError(`${command} needs ${POLICY_PATH} at ${worktree.top}; run 'receipt-gate init' first`);
  }
  const parsed = parsePolicy(await entry.read());
  if (!parsed.ok) {
    throw new UsageError(
      `${POLICY_PATH} is invalid, fix it first:\n${parsed.findings.map((f) => `  ${findingLine(f)}`).join('\n')}`,
    );
  }
  const implied = scope?.context === undefined && scope?.found ? await scope.found(parsed.policy, tree) : [];
  const chosen =
    scope === undefined
      ? { policy: parsed.policy, context: null }
      : chooseScope(parsed.policy, { name: scope.context, paths: [...(scope.paths ?? []), ...implied], command, needs: scope.needs, what: scope.what });
  const store = await ObjectStore.discover(worktree.top, io.env);
  try {
    const base = await resolveBase(store, { kind: 'client', remote: 'origin', fallbacks: ['HEAD'] });
    const baseTree = base.tip === null ? null : (await store.commits.read(base.tip)).tree;
    return {
      worktree,
      policy: chosen.policy,
      context: chosen.context,
      repository: parsed.policy,
      resolve: ((path: string | undefined) =>
        path === undefined || scope?.context === undefined || chosen.context === null ? path : underRoot(chosen.context, path)) as Authoring['resolve'],
      store,
      tree,
      base: baseTree === null ? null : new TreeSource(store, baseTree, base.name ?? 'the base'),
      close: () => store.close(),
    };
  } catch (err) {
    store.close();
    throw err;
  }
}

export interface PlannedFile {
  path: string;
  bytes: Uint8Array;
}

/**
 * Runs every evidence rule over `under` with `files` in place, and returns the report and the
 * closing findings on those files (and on `alsoJudged`) that `tolerated` does not excuse (a
 * truthful record of a failure is worth writing even though the gate will close on it).
 */
export async function checkPlanned(
  a: Authoring,
  under: EvidenceSource,
  files: PlannedFile[],
  today: string,
  opts: { tolerated?: (f: Finding) => boolean; alsoJudged?: string[] } = {},
): Promise<{ report: EvidenceReport; refused: Finding[] }> {
  const tolerated = opts.tolerated ?? (() => false);
  const view = new OverlaySource(under);
  for (const f of files) view.set(f.path, f.bytes);
  const report = await checkEvidence({ policy: a.policy, atNew: view, atBase: a.base, today });
  const paths = new Set([...files.map((f) => f.path), ...(opts.alsoJudged ?? [])]);
  const refused = report.findings.filter(
    (f) => f.severity === 'closed' && f.path !== undefined && paths.has(f.path) && !tolerated(f),
  );
  return { report, refused };
}

/** Prints why nothing was written. */
export function printRefusal(io: CliIO, command: string, refused: Finding[]): void {
  io.stderr(`receipt-gate ${command}: nothing written; the gate would reject the result:\n`);
  for (const f of sortFindings(refused)) io.stderr(`  ${findingLine(f)}\n`);
}

export function writePlanned(a: Authoring, files: PlannedFile[]): void {
  for (const f of files) {
    const full = join(a.worktree.top, ...f.path.split('/'));
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, f.bytes);
  }
}

/** Where a section is missing, for a message: `the policy`, or `context billing of the policy`. */
export function scopeName(a: Pick<Authoring, 'context'>): string {
  return a.context === null ? 'the policy' : `context ${a.context.name} of the policy`;
}

/** The line that ends every authoring command: what to commit, and who may. */
export function commitHint(policy: Policy, paths: string[]): string {
  const owners = policy.owners.length ? policy.owners.join(', ') : 'an owner';
  return `next: git add ${paths.join(' ')} && git commit   (protected: only ${owners} may push it)\n`;
}
