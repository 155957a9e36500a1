// PATH_PROTECTED and PATH_UNSAFE: what a change does to paths a non-owner may not change, and
// to paths no checkout can write safely (whoever pushes).

import { finding, type Finding } from '../findings';
import type { PathChange } from '../git/types';
import type { RunContext } from '../run/context';

/** One finding per path and rule: the first change seen (callers pass changes parents first). */
export function protectedPathFindings(ctx: RunContext, changes: readonly PathChange[], at: { ref?: string; commit?: string }): Finding[] {
  const out: Finding[] = [];
  for (const change of changes) {
    if (change.unsafe && change.after) {
      out.push(
        finding('PATH_UNSAFE', {
          ...at,
          path: change.path,
          message:
            change.unsafeReason ??
            `the tree has an entry no checkout can write safely (a segment that is .git in any case, '.', '..', empty, or holds '\\' or NUL)`,
          fix: `remove the entry; such a path is refused for every pusher`,
        }),
      );
      continue;
    }
    if (ctx.contexts !== null) {
      // Bounded contexts: the rule and the owners of the context whose root holds the path.
      const rule = ctx.contexts.ruleFor(change);
      if (rule === null) continue;
      out.push(
        finding('PATH_PROTECTED', {
          ...at,
          path: change.path,
          ...(rule.context !== undefined ? { context: rule.context } : {}),
          message: `${describeChange(change)} a protected path (${rule.glob}${rule.context !== undefined ? ` of context ${rule.context}` : ''}) as ${ctx.identity ?? 'nobody'}, who is not an owner${rule.context !== undefined ? ` of ${rule.context}` : ''}`,
          fix: `${rule.glob} may only be changed by: ${rule.ownersText}; take the change out of this push, or ask an owner to make it`,
        }),
      );
      continue;
    }
    if (ctx.owner) continue;
    const glob = ctx.protection.protectedByChange(change);
    if (glob === null) continue;
    out.push(
      finding('PATH_PROTECTED', {
        ...at,
        path: change.path,
        message: `${describeChange(change)} a protected path (${glob}) as ${ctx.identity ?? 'nobody'}, who is not an owner`,
        fix: `${glob} may only be changed by: ${ctx.ownersText}; take the change out of this push, or ask an owner to make it`,
      }),
    );
  }
  return out;
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
