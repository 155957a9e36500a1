// `receipt-gate pre-commit [--identity NAME] [--now YYYY-MM-DD]` — the client's husky
// pre-commit hook. It judges the staged index, the tree the commit being made will have:
//
//   HEAD's tree ─► diff against the index ─► protected paths (policy at the base)
//   the index    ─► every evidence file checked, as the server will check it at `new`
//
// The policy is the one in force before this commit: the remote-tracking base branch
// (refs/remotes/<remote>/<baseBranch>, what the server will use), or HEAD's when the policy was
// never pushed. Identity is `git config user.email` (advisory: the server decides).

import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parseCommandArgs } from '../args';
import { clientIdentity, gitConfig, locateWorktree } from '../client/git-cli';
import { IndexSource } from '../client/index-source';
import { forStagedCommit, printResult, rejectedVerdict } from '../client/report';
import { skippedByBypass } from '../client/skip';
import { today } from '../clock';
import { POLICY_PATH } from '../evidence/types';
import { evaluateIndex } from '../engine';
import { finding } from '../findings';
import { indexChangesAgainstTree, indexFilePath, readStagedIndex, type StagedIndex } from '../git/staged-index';
import { History } from '../git/history/history';
import { ObjectStore } from '../git/store';
import type { PathChange } from '../git/types';
import type { CliIO } from '../io';
import { shortRef } from '../wording';
import { resolveBase } from '../run/base';
import { isOid } from '../types';
import { EXIT } from '../verdict';
import type { Policy } from '../evidence/types';
import { parsePolicy } from '../evidence/policy';
import { matcher } from '../matchers';
import { isGuardGlob } from '../client/layout';
import { printable, quotePath } from '../quote';

const USAGE = 'receipt-gate pre-commit [--identity NAME] [--now YYYY-MM-DD]   (bypass: RECEIPT_GATE_SKIP=1 or HUSKY=0)';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      identity: { type: 'string', description: 'who the hook acts as (default: git config user.email); advisory, the server decides' },
      now: { type: 'string', description: "today's date for expiry checks (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values } = parsed;
  if (skippedByBypass('pre-commit', io)) return EXIT.eligible;
  const date = today(io, values.now);

  const worktree = locateWorktree(io.cwd, io.env);
  const store = await ObjectStore.discover(worktree.top, io.env);
  try {
    const index = await readStagedIndex(indexFilePath(worktree.gitdir, io.env, io.cwd));
    const headOid = store.refs.resolve('HEAD');
    const head = headOid === null ? null : await store.commits.peelToCommit(headOid);
    const branch = store.refs.headTarget() ?? 'HEAD';
    const remote = branch.startsWith('refs/heads/')
      ? (gitConfig(`branch.${branch.slice('refs/heads/'.length)}.remote`, worktree.top, io.env) ?? 'origin')
      : 'origin';
    const base = await resolveBase(store, { kind: 'client', remote, fallbacks: ['HEAD'] });
    const identity = clientIdentity(worktree.top, io.env, values.identity);
    const where = `${shortRef(branch)} (staged)`;

    const conflicts = index.conflicts.map((path) =>
      finding('INTERNAL_ERROR', {
        ref: branch,
        path,
        message: 'the index has an unresolved merge conflict at this path',
        fix: 'resolve the conflict and `git add` the result, then commit again',
      }),
    );
    const changes = await stagedChanges(store, head, await mergeParents(worktree.gitdir), index);
    const staged = new IndexSource(store, index.entries);
    const stagedPolicyOid = index.entries.find((e) => e.path === POLICY_PATH)?.oid ?? null;
    const result = await evaluateIndex(
      { store, history: new History(store), base, identity, today: date, scope: { kind: 'base', exclude: [] } },
      { ref: branch, head, changes, staged, stagedPolicyOid, findings: conflicts },
    );
    for (const ref of result.refs) ref.findings = forStagedCommit(ref.findings);
    result.findings = forStagedCommit(result.findings);

    // Globs that protect nothing once this commit lands: a typo in a staged policy, or a
    // rename that leaves a glob behind. Said here, where the committer sees it (lint-staged
    // shows no output of a task that passes).
    const stagedPolicy = await staged.stat(POLICY_PATH);
    const policyChanged = stagedPolicy.kind === 'file' && stagedPolicyOid !== base.policyOid;
    if (base.policy !== null) {
      printGlobWarnings(io, stagedGlobWarnings(index, policyChanged ? await stagedPolicy.read() : null, changes, base.policy));
    }

    if (result.unguarded && result.verdict === 'eligible') {
      // Nothing to judge yet (the server accepts such pushes with a notice).
      printGlobWarnings(io, stagedGlobWarnings(index, stagedPolicy.kind === 'file' ? await stagedPolicy.read() : null, [], null));
      io.stderr(
        `receipt-gate pre-commit: no ${POLICY_PATH} at ${remote}'s base branch or HEAD: the repository is unguarded and nothing was checked\n`,
      );
      return EXIT.eligible;
    }
    const rejected = rejectedVerdict(result);
    if (result.findings.length > 0 || rejected) {
      const header =
        result.policy === null && !result.unguarded
          ? `receipt-gate pre-commit: the policy at ${base.name} is invalid`
          : result.unguarded
            ? `receipt-gate pre-commit ${where}: the staged policy is invalid`
            : `receipt-gate pre-commit ${where} against ${base.name} as ${identity ?? 'nobody'} on ${date}`;
      printResult(io, result, header);
    }
    if (rejected === 'closed') return EXIT.closed;
    if (rejected === 'hold') return EXIT.hold;
    return EXIT.eligible;
  } finally {
    store.close();
  }
}

/** The other parents of the merge being concluded (`git commit` after a conflicted merge):
 * MERGE_HEAD's oids, or none. */
async function mergeParents(gitdir: string): Promise<string[]> {
  try {
    const text = await readFile(join(gitdir, 'MERGE_HEAD'), 'utf8');
    return text.split('\n').map((l) => l.trim()).filter((l) => isOid(l));
  } catch {
    return [];
  }
}

/**
 * What the commit being made changes: HEAD's tree against the index (the empty tree for an
 * unborn HEAD). For a merge, a path counts only when it differs from every parent, as a
 * pushed merge commit is judged: merging the base branch into a work branch brings the
 * owners' changes along without touching them.
 */
async function stagedChanges(store: ObjectStore, head: string | null, others: string[], index: StagedIndex): Promise<PathChange[]> {
  const against = async (commit: string | null) =>
    indexChangesAgainstTree(store, commit === null ? null : (await store.commits.read(commit)).tree, index);
  let changes = await against(head);
  for (const parent of others) {
    const differs = new Set((await against(await store.commits.peelToCommit(parent))).map((c) => c.path));
    changes = changes.filter((c) => differs.has(c.path));
  }
  return changes;
}

function printGlobWarnings(io: CliIO, warnings: string[]): void {
  for (const w of warnings) io.stderr(`receipt-gate pre-commit: warning: ${w}\n`);
}

/**
 * The policy's globs that match no staged path. With a staged policy (`stagedPolicy`, added or
 * changed): each of its globs that matches nothing (a typo protects nothing). Otherwise, for
 * the policy in force: each glob that matched a path this commit deletes or renames away and
 * matches nothing after it.
 */
function stagedGlobWarnings(
  index: StagedIndex,
  stagedPolicy: Uint8Array | null,
  changes: readonly PathChange[],
  policy: Policy | null,
): string[] {
  const paths = index.entries.map((e) => e.path);
  const matchesAny = (glob: string) => {
    const m = matcher([glob]);
    return paths.some((p) => m(p));
  };
  const out: string[] = [];
  if (stagedPolicy !== null) {
    const parsed = parsePolicy(stagedPolicy);
    if (!parsed.ok) return out;
    for (const [list, globs] of [['protected', parsed.policy.protected], ['exceptions', parsed.policy.exceptions]] as const) {
      for (const glob of globs) {
        if (!isGuardGlob(glob) && !matchesAny(glob)) {
          out.push(`the ${list} glob ${printable(JSON.stringify(glob))} of the staged ${POLICY_PATH} matches no staged path: it protects nothing yet; check it for a typo (receipt-gate explain PATH shows what a glob covers)`);
        }
      }
    }
    return out;
  }
  if (policy === null) return out;
  const removed = changes.filter((c) => c.after === undefined).map((c) => c.path);
  if (removed.length === 0) return out;
  for (const glob of policy.protected) {
    const m = matcher([glob]);
    const lost = removed.filter((p) => m(p));
    if (lost.length > 0 && !matchesAny(glob)) {
      out.push(
        `after this commit the protected glob ${printable(JSON.stringify(glob))} matches no path (it matched ${lost.slice(0, 2).map((p) => quotePath(p)).join(', ')}${lost.length > 2 ? ', …' : ''}, which this commit removes or renames): an owner updates ${POLICY_PATH} to the new names`,
      );
    }
  }
  return out;
}
