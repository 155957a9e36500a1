// PATH_PROTECTED and PATH_UNSAFE: what a change does to paths a non-owner may not change, and
// to paths no checkout can write safely (whoever pushes).

import { finding, type Finding } from '../findings';
import type { PathChange } from '../git/types';
import { foldKey } from '../paths';
import type { RunContext } from '../run/context';
import { gateRunnerChange, runnerFileOf } from './gate-runner';

/** One finding per path and rule: the first change seen (callers pass changes parents first). */
export function protectedPathFindings(ctx: RunContext, changes: readonly PathChange[], at: { ref?: string; commit?: string }): Finding[] {
  return changes.flatMap((change) => globFindings(ctx, change, at));
}

/** protectedPathFindings, and a change to how the project obtains receipt-gate
 * (src/rules/gate-runner.ts) on a path no glob already reports: a change to the gate's own
 * runner, closed for non-owners as a protected path is. */
export async function pathFindings(ctx: RunContext, changes: readonly PathChange[], at: { ref?: string; commit?: string }): Promise<Finding[]> {
  const out: Finding[] = [];
  for (const change of changes) {
    const found = globFindings(ctx, change, at);
    out.push(...found);
    if (found.length === 0 && runnerFileOf(change.path) !== null) {
      const f = await gateRunnerFinding(ctx, change, at);
      if (f) out.push(f);
    }
  }
  return out;
}

/** pathFindings, synchronously, when no change without a glob finding is to a runner file
 * (whose entry would be read); null when one is: then ask pathFindings. */
export function pathFindingsNow(ctx: RunContext, changes: readonly PathChange[], at: { ref?: string; commit?: string }): Finding[] | null {
  const out: Finding[] = [];
  for (const change of changes) {
    const found = globFindings(ctx, change, at);
    if (found.length === 0 && runnerFileOf(change.path) !== null) return null;
    out.push(...found);
  }
  return out;
}

/** PATH_PROTECTED for a change to the receipt-gate entry of a runner file by a non-owner: the
 * owners of the context whose root holds the file, else the repository's. */
async function gateRunnerFinding(ctx: RunContext, change: PathChange, at: { ref?: string; commit?: string }): Promise<Finding | null> {
  const holder = ctx.contexts?.holding(foldKey(change.path)) ?? null;
  const owner = holder !== null ? holder.owner : ctx.owner;
  if (owner) return null;
  const runner = await gateRunnerChange(ctx.store, change, ctx.deadline);
  if (runner === null) return null;
  const owners = holder !== null ? holder.ownersText : ctx.ownersText;
  return finding('PATH_PROTECTED', {
    ...at,
    path: change.path,
    ...(holder !== null ? { context: holder.name } : {}),
    message: `${describeChange(change)} the receipt-gate entry of ${change.path} (${runner.entry}) as ${ctx.identity ?? 'nobody'}, who is not an owner${holder !== null ? ` of ${holder.name}` : ''}: how the project obtains receipt-gate is the gate's own runner, and a patch must not choose the verifier that judges it`,
    fix: `only an owner (${owners}) changes how receipt-gate is installed; take the change to its entry in ${change.path} out of this push, or ask an owner to make it`,
  });
}

/** PATH_UNSAFE, and PATH_PROTECTED by the policy's globs. */
function globFindings(ctx: RunContext, change: PathChange, at: { ref?: string; commit?: string }): Finding[] {
  if (change.unsafe && change.after) {
    return [
      finding('PATH_UNSAFE', {
        ...at,
        path: change.path,
        message:
          change.unsafeReason ??
          `the tree has an entry no checkout can write safely (a segment that is .git in any case, '.', '..', empty, or holds '\\' or NUL)`,
        fix: `remove the entry; such a path is refused for every pusher`,
      }),
    ];
  }
  if (ctx.contexts !== null) {
    // Bounded contexts: the rule and the owners of the context whose root holds the path.
    const rule = ctx.contexts.ruleFor(change);
    if (rule === null) return [];
    return [
      finding('PATH_PROTECTED', {
        ...at,
        path: change.path,
        ...(rule.context !== undefined ? { context: rule.context } : {}),
        message: `${describeChange(change)} a protected path (${rule.glob}${rule.context !== undefined ? ` of context ${rule.context}` : ''}) as ${ctx.identity ?? 'nobody'}, who is not an owner${rule.context !== undefined ? ` of ${rule.context}` : ''}`,
        fix: `${rule.glob} may only be changed by: ${rule.ownersText}; take the change out of this push, or ask an owner to make it`,
      }),
    ];
  }
  if (ctx.owner) return [];
  const glob = ctx.protection.protectedByChange(change);
  if (glob === null) return [];
  return [
    finding('PATH_PROTECTED', {
      ...at,
      path: change.path,
      message: `${describeChange(change)} a protected path (${glob}) as ${ctx.identity ?? 'nobody'}, who is not an owner`,
      fix: `${glob} may only be changed by: ${ctx.ownersText}; take the change out of this push, or ask an owner to make it`,
    }),
  ];
}

function describeChange(change: PathChange): string {
  const kind = change.after?.kind;
  const symlink = kind === 'symlink' ? ' a symlink at' : kind === 'gitlink' ? ' a submodule (gitlink) at' : '';
  switch (change.change) {
    case 'add':
      return `adds${symlink}`;
    case 'delete':
      return 'deletes';
    case 'mode':
      return `changes the mode (${change.before?.mode} -> ${change.after?.mode}) of`;
    case 'type':
      return `changes the type (${change.before?.kind} -> ${change.after?.kind}) of`;
    default:
      return `changes${symlink}`;
  }
}

/** The same rule on the same path from several commits is one finding (the first commit). */
export function dedupePathFindings(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    if (f.code !== 'PATH_PROTECTED' && f.code !== 'PATH_UNSAFE') return true;
    const key = `${f.code}\0${f.path}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
