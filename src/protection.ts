// Which paths a non-owner may not change, compiled once per run from the policy.

import type { EntryKind } from './git/types';
import { evidencePaths } from './evidence/policy';
import { POLICY_PATH, type Policy } from './evidence/types';
import { foldPath, matcher } from './paths';

export interface Protection {
  /** The glob (or file) that protects `path` when an entry of `kind` is there, for messages;
   * null when anyone may change it. A symlink is protected when its path is, or when a
   * protected glob could match below it (a checkout would follow it). */
  protectedBy(path: string, kind?: EntryKind): string | null;
}

export function compileProtection(policy: Policy): Protection {
  // The policy, pin, manifest and freeze file can never be excepted.
  const pinned = [POLICY_PATH, policy.epoch?.pin, policy.manifest?.path, policy.freeze?.path]
    .filter((p): p is string => typeof p === 'string')
    .map(foldPath);
  const globs = [...policy.protected, ...evidencePaths(policy)];
  const perGlob = globs.map((g) => ({ glob: g, match: matcher([g]), folded: foldPath(g) }));
  const isException = matcher(policy.exceptions);
  const protectedBy = (path: string, kind?: EntryKind): string | null => {
    const folded = foldPath(path);
    const fixed = pinned.find((p) => p === folded || (kind === 'symlink' && p.startsWith(`${folded}/`)));
    if (fixed !== undefined) return fixed;
    if (kind !== 'symlink' && isException(path)) return null;
    const direct = perGlob.find((g) => g.match(path))?.glob;
    if (direct !== undefined) return direct;
    if (kind === 'symlink') {
      // A glob whose literal start lies below the symlink, or that starts with a wildcard.
      const below = perGlob.find((g) => {
        const literal = g.folded.split(/[*?[{(!+@]/)[0]!;
        return literal.startsWith(`${folded}/`) || `${folded}/`.startsWith(literal);
      });
      if (below) return below.glob;
    }
    return null;
  };
  return { protectedBy };
}
