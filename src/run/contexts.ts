// Bounded contexts (monorepos, docs/contexts.md) as a run holds them: which context holds a
// path, who may change it, and which contexts a ref update touches. Built once per run
// (src/run/context.ts), and only for a policy that declares contexts; the evidence of each
// context is src/rules/contexts.ts's.

import type { Deadline } from '../deadline';
import type { ContextPolicy, Policy } from '../evidence/types';
import type { PathChange } from '../git/types';
import { compileGlob, type CompiledGlob } from '../glob';
import { foldKey, segmentsOf } from '../paths';
import { compileProtection, type Protection } from '../protection';
import { isOwner, ownersText } from './identity';

/** One context as a run uses it. Its protection is compiled on first use. */
export interface BoundedContext {
  name: string;
  root: string;
  policy: Policy;
  /** The root's folded key, the form paths are compared on. */
  key: string;
  owner: boolean;
  ownersText: string;
  protection(): Protection;
  dependsOn: CompiledGlob[];
}

/** Who may change a path a change touches, and the glob that protects it. */
export interface PathRule {
  glob: string;
  owner: boolean;
  ownersText: string;
  /** The context whose rule it is; absent for the repository-wide policy. */
  context?: string;
}

export interface Contexts {
  list: BoundedContext[];
  /** The context whose root holds the (folded) path, or null. */
  holding(folded: string): BoundedContext | null;
  /** The rule a non-owner breaks with this change, or null when the pusher may make it. */
  ruleFor(change: PathChange): PathRule | null;
  /** The contexts the changed paths touch, in policy order. */
  touchedBy(changes: readonly (readonly PathChange[])[]): BoundedContext[];
  /** True when some changed path lies outside every root. */
  touchesOutside(changes: readonly (readonly PathChange[])[]): boolean;
}

export interface ContextsSetup {
  policy: Policy & { contexts: ContextPolicy[] };
  identity: string | null;
  /** The repository-wide protection and whether the identity owns the repository. */
  protection: Protection;
  owner: boolean;
  ownersText: string;
  deadline: Deadline;
}

export function compileContexts(setup: ContextsSetup): Contexts {
  const list: BoundedContext[] = setup.policy.contexts.map((c) => {
    let compiled: Protection | null = null;
    return {
      name: c.name,
      root: c.root,
      policy: c.policy,
      key: foldKey(c.root),
      owner: isOwner(c.policy, setup.identity),
      ownersText: ownersText(c.policy),
      protection: () => (compiled ??= compileProtection(c.policy, { deadline: setup.deadline })),
      dependsOn: c.dependsOn.map((g) => compileGlob(g, { fold: true })),
    };
  });

  const holding = (folded: string): BoundedContext | null => {
    for (const c of list) {
      if (folded === c.key || (folded.startsWith(c.key) && folded.charCodeAt(c.key.length) === 47 /* '/' */)) return c;
    }
    return null;
  };

  const ruleOf = (c: BoundedContext, change: PathChange): PathRule | null => {
    if (c.owner) return null;
    const glob = c.protection().protectedByChange(change);
    return glob === null ? null : { glob, owner: false, ownersText: c.ownersText, context: c.name };
  };

  const ruleFor = (change: PathChange): PathRule | null => {
    const folded = foldKey(change.path);
    const holder = holding(folded);
    if (holder !== null) return ruleOf(holder, change);
    if (!setup.owner) {
      const glob = setup.protection.protectedByChange(change);
      if (glob !== null) return { glob, owner: false, ownersText: setup.ownersText };
    }
    // Outside every root: a symlink above a root, or a segment that may be an 8.3 short name of
    // a root folder, puts other bytes under that root in some checkout.
    const mayAlias = folded.includes('~');
    for (const c of list) {
      if (!mayAlias && !c.key.startsWith(folded + '/')) continue;
      const rule = ruleOf(c, change);
      if (rule !== null) return rule;
    }
    return null;
  };

  const touchedBy = (changes: readonly (readonly PathChange[])[]): BoundedContext[] => {
    const touched = new Set<BoundedContext>();
    for (const batch of changes) {
      for (const change of batch) {
        if (touched.size === list.length) return list;
        const folded = foldKey(change.path);
        const holder = holding(folded);
        if (holder !== null) {
          touched.add(holder);
          continue;
        }
        // Outside every root: the contexts that depend on it, else every context.
        const segments = segmentsOf(folded);
        const dependents = list.filter((c) => c.dependsOn.some((g) => g.matchSegments(segments)));
        for (const c of dependents.length > 0 ? dependents : list) touched.add(c);
      }
    }
    return list.filter((c) => touched.has(c));
  };

  const touchesOutside = (changes: readonly (readonly PathChange[])[]): boolean =>
    changes.some((batch) => batch.some((change) => holding(foldKey(change.path)) === null));

  return { list, holding, ruleFor, touchedBy, touchesOutside };
}
