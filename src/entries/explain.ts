// `receipt-gate explain PATH... [--identity NAME] [--base REF] [--repo DIR] [--format text|json]`
// For owners and authors: which of the policy's rules and globs protect PATH (and under which
// folded key, when a checkout would see it as another name), whether an exception lifts it,
// and who may change it. The policy is the one in force: the base's, as verify-ref reads it.

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseCommandArgs } from '../args';
import { contextHolding, contextNamed, underRoot } from '../client/context-scope';
import { locateWorktree } from '../client/git-cli';
import { evidencePaths, parsePolicy } from '../evidence/policy';
import { POLICY_PATH, type ContextPolicy, type Policy } from '../evidence/types';
import { UsageError, type CliIO } from '../io';
import { matcher } from '../matchers';
import { foldKey } from '../paths';
import { compileProtection } from '../protection';
import { printable, quotePath } from '../quote';
import { formatOption, SetupError, short } from '../report/index';
import { resolveBase, type Base } from '../run/base';
import { isOwner, ownersText } from '../run/identity';
import { openRepository } from '../run/repository';

const USAGE = 'receipt-gate explain PATH... [--context NAME] [--identity NAME] [--base REF] [--repo DIR] [--format text|json] [--json]';

/** What protects one path, as the gate would judge a change to it. */
export interface Protection {
  path: string;
  /** The key globs are matched on (folded as checkouts fold names); differs from `path` for
   * an alias. */
  key: string;
  protected: boolean;
  /** Pinned evidence (policy, pin, manifest, freeze file): no exception can lift it. */
  pinned: string | null;
  /** Every glob that matches, with the list it comes from. */
  globs: { list: 'protected' | 'evidence'; glob: string }[];
  /** Exception globs that match (they lift the protection unless the path is pinned). */
  exceptions: string[];
  /** The glob the gate names in a PATH_PROTECTED message, or null. */
  protectedBy: string | null;
  /** How the path reaches a protected file other than by its own name (an 8.3 short name). */
  alias: string | null;
}

/**
 * The one place explain asks the policy about a path: the gate's own compiled protection for
 * the verdict (so explain and the gate cannot disagree), each glob on its own for the reasons.
 */
export function protectionOf(policy: Policy, path: string): Protection {
  const verdict = compileProtection(policy).explain(path);
  const key = foldKey(path);
  const pinnedPaths = [POLICY_PATH, policy.epoch?.pin, policy.manifest?.path, policy.freeze?.path].filter((p): p is string => typeof p === 'string');
  const pinned = pinnedPaths.find((p) => foldKey(p) === key) ?? null;
  const globs = [
    ...policy.protected.map((glob) => ({ list: 'protected' as const, glob })),
    ...evidencePaths(policy).map((glob) => ({ list: 'evidence' as const, glob })),
  ].filter((g) => matcher([g.glob])(path));
  const exceptions = policy.exceptions.filter((g) => matcher([g])(path));
  return {
    path,
    key: verdict.folded,
    protected: verdict.by !== null,
    pinned,
    globs,
    exceptions,
    protectedBy: verdict.by,
    alias: verdict.alias ?? null,
  };
}

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      identity: { type: 'string', description: 'say whether this identity may change PATH; owners are matched on it exactly (default: nobody)' },
      context: { type: 'string', description: "answer under this bounded context's policy only" },
      base: { type: 'string', description: "the branch whose policy judges (default: the policy's baseBranch, preferring refs/remotes/origin/<baseBranch>)" },
      repo: { type: 'string', description: 'the repository to read (default: the current directory)' },
      format: { type: 'string', description: 'how the answer is printed: text (default) or json' },
      json: { type: 'boolean', description: 'the same as --format json' },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const format = formatOption(values);
  if (format !== 'text' && format !== 'json') throw new UsageError(`explain prints text or json, not ${format}\nusage: ${USAGE}`);
  if (positionals.length === 0) throw new UsageError(`name at least one PATH (a path in the repository, e.g. fixtures/orders/base.json)\nusage: ${USAGE}`);
  const paths = positionals.map((p) => p.replace(/^(\.\/)+/, ''));
  const identity = values.identity === undefined || values.identity === '' ? null : values.identity;

  const store = await openRepository(values.repo ?? io.cwd, io.env);
  try {
    const base = await resolveBase(store, values.base === undefined ? { kind: 'default' } : { kind: 'named', spec: values.base });
    const { policy, source } = policyInForce(base, values.repo ?? io.cwd, io.env);
    const answers = scopedAnswers(policy, paths, values.context);
    if (format === 'json') {
      io.stdout(`${JSON.stringify(explainJson(base, policy, answers, identity), null, 2)}\n`);
      return 0;
    }
    const lines = [`receipt-gate explain: ${source}`];
    for (const a of answers) {
      const scoped = a.context?.policy ?? policy;
      const where = policy.contexts ? [a.context === null ? '  outside every context root: the repository-wide globs and owners' : `  in context ${a.context.name} (${quotePath(a.context.root)}): its globs and evidence, the repository-wide globs, its owners`] : [];
      const [first, ...rest] = explainLines(scoped, a, identity, isOwner(scoped, identity));
      lines.push(first!, ...where, ...rest);
    }
    io.stdout(`${lines.join('\n')}\n`);
    return 0;
  } finally {
    store.close();
  }
}

/** The policy explain answers from, and how its first line names it: the base's; when the base
 * has none yet (before the first commit or push), the one proposed in the working tree. */
function policyInForce(base: Base, dir: string, env: NodeJS.ProcessEnv): { policy: Policy; source: string } {
  const where = base.policyCommit === null ? null : `${printable(base.name ?? 'the base')} (${short(base.policyCommit)})`;
  if (base.policy) return { policy: base.policy, source: `the policy at ${where}` };
  if (base.policyCommit !== null && base.findings.length > 0) {
    throw new SetupError(
      `the policy at ${where} is invalid: ${base.findings.map((f) => f.message || f.code).join('; ')}. An owner fixes it ('receipt-gate check ${POLICY_PATH}' names each problem)`,
      { base: base.policyCommit },
    );
  }
  return {
    policy: proposedPolicy(dir, env, where),
    source: `the proposed policy in the working tree (${POLICY_PATH}; ${where === null ? 'no base holds one yet' : `${where} has none yet`}: it applies once an owner commits and pushes it)`,
  };
}

type Answer = Protection & { context: ContextPolicy | null };

/** Each path's protection. With bounded contexts a path is judged by the context whose root
 * holds it (--context NAME: PATHs relative to its root), else by the repository-wide policy. */
function scopedAnswers(policy: Policy, paths: string[], contextName: string | undefined): Answer[] {
  const named = contextName === undefined ? null : contextNamed(policy, contextName, 'explain');
  const asked = named === null ? paths : paths.map((p) => underRoot(named, p));
  return asked.map((p) => {
    const holder = contextHolding(policy, p);
    if (named !== null && holder !== named) {
      throw new UsageError(`${quotePath(p)} is not under the root ${quotePath(named.root)} of context ${named.name}; name a path relative to that root, or leave --context out`);
    }
    return { ...protectionOf(holder?.policy ?? policy, p), context: holder };
  });
}

function explainJson(base: Base, policy: Policy, answers: Answer[], identity: string | null): Record<string, unknown> {
  return {
    base: base.policyCommit,
    base_name: base.name,
    policy_source: base.policy ? 'base' : 'working tree',
    owners: policy.owners,
    identity,
    identity_is_owner: isOwner(policy, identity),
    paths: answers.map((a) => ({
      path: a.path,
      ...(policy.contexts ? { context: a.context?.name ?? null, owners: (a.context?.policy ?? policy).owners } : {}),
      key: a.key,
      protected: a.protected,
      protected_by: a.protectedBy,
      pinned: a.pinned,
      globs: a.globs,
      exceptions: a.exceptions,
      alias: a.alias,
      may_change: a.protected ? isOwner(a.context?.policy ?? policy, identity) : true,
    })),
  };
}

function explainLines(policy: Policy, a: Protection, identity: string | null, owner: boolean): string[] {
  const name = quotePath(a.path);
  const lines = [`${name}: ${a.protected ? 'protected' : 'not protected'}`];
  if (a.key !== a.path) lines.push(`  matched as ${quotePath(a.key)} (folded as checkouts on macOS and Windows fold names: they write both as one file)`);
  if (a.alias !== null) lines.push(`  reaches a protected file by another name: ${printable(originalCase(a.path, a.alias))}`);
  if (a.pinned !== null) lines.push(`  pinned evidence (${quotePath(a.pinned)}): always protected, no exception lifts it`);
  for (const g of a.globs) {
    lines.push(`  ${g.list === 'protected' ? 'protected glob' : 'evidence the policy names'} ${printable(JSON.stringify(g.glob))} matches`);
  }
  for (const e of a.exceptions) {
    lines.push(`  exception ${printable(JSON.stringify(e))} matches${a.protected ? ', but does not lift pinned evidence' : ': anyone may change it'}`);
  }
  if (a.globs.length === 0 && a.pinned === null) lines.push('  no protected glob matches: anyone may change it');
  if (a.protected) {
    lines.push(`  may be changed by: ${printable(ownersText(policy))}`);
    const who = identity === null ? 'nobody (no --identity)' : printable(identity);
    lines.push(
      owner
        ? `  as ${who}: an owner, may change it`
        : `  as ${who}: not an owner, a change to it is PATH_PROTECTED (named as ${printable(JSON.stringify(a.protectedBy))})`,
    );
  }
  return lines;
}

/** The working tree's .receipt-gate.json, parsed; a setup error that says what to do when it
 * is missing or invalid. `where` is the base that has none (null: no base at all). */
function proposedPolicy(dir: string, env: NodeJS.ProcessEnv, where: string | null): Policy {
  const none = where === null ? `no base holds a ${POLICY_PATH}` : `${where} has no ${POLICY_PATH}`;
  let top: string | null = null;
  try {
    top = locateWorktree(dir, env).top;
  } catch {
    top = null;
  }
  const file = top === null ? null : join(top, POLICY_PATH);
  if (file === null || !existsSync(file)) {
    throw new SetupError(
      `${none}, and the working tree has none either: nothing is protected yet. Propose one with 'receipt-gate init', or pass --base REF to read another base`,
      { unguarded: true },
    );
  }
  const parsed = parsePolicy(readFileSync(file));
  if (!parsed.ok) {
    throw new SetupError(
      `${none}, and the proposed ${POLICY_PATH} in the working tree is invalid: ${parsed.findings.map((f) => f.message || f.code).join('; ')}. Fix it ('receipt-gate check ${POLICY_PATH}' names each problem)`,
      { unguarded: true },
    );
  }
  return parsed.policy;
}

/** An alias sentence about a folded segment (`fixtur~1 reads as …`) with the segment as the
 * path spells it (`FIXTUR~1 reads as …`). */
function originalCase(path: string, alias: string): string {
  for (const segment of path.split('/')) {
    const folded = segment.toLowerCase();
    if (folded !== segment && alias.startsWith(`${folded} `)) return `${segment}${alias.slice(folded.length)}`;
  }
  return alias;
}
