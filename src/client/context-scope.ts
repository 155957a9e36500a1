// Which bounded context (docs/contexts.md) a command-line tool works in: the one `--context NAME`
// names, else the one whose root holds the paths it was given, else the repository as a whole
// when the policy has what the command needs there. A policy without contexts is always the
// repository's. The tools then use the context's policy, whose evidence paths are repository
// paths already (the root joined to what the policy file wrote).

import { nearestName } from '../args';
import type { ContextPolicy, Policy } from '../evidence/types';
import { UsageError } from '../io';
import { foldKey } from '../paths';
import { printable } from '../quote';

export interface Scope {
  /** The policy the command works under: the context's, or the repository's. */
  policy: Policy;
  /** The context, or null for the repository as a whole. */
  context: ContextPolicy | null;
}

/** The names a policy declares, as a sentence's list. */
export function contextNames(policy: Policy): string {
  return (policy.contexts ?? []).map((c) => c.name).join(', ');
}

/** The context `--context NAME` names: a usage error with the nearest name and the list when
 * the policy declares no such context (or none at all). */
export function contextNamed(policy: Policy, name: string, command: string): ContextPolicy {
  const declared = policy.contexts ?? [];
  if (declared.length === 0) {
    throw new UsageError(`--context ${printable(name)}: the policy declares no bounded contexts; run '${command}' without --context`);
  }
  const found = declared.find((c) => c.name === name);
  if (found) return found;
  const guess = nearestName(name, declared.map((c) => c.name));
  throw new UsageError(
    `--context ${printable(name)}: the policy declares no such context${guess === null ? '' : `; did you mean ${guess}?`} It declares ${contextNames(policy)}: pass one of them`,
  );
}

/** The context whose root holds `path` (a repository path), compared as the gate compares
 * paths (folded as checkouts fold names); null outside every root. */
export function contextHolding(policy: Policy, path: string): ContextPolicy | null {
  const key = foldKey(path);
  for (const c of policy.contexts ?? []) {
    const root = foldKey(c.root);
    if (key === root || key.startsWith(`${root}/`)) return c;
  }
  return null;
}

/**
 * The scope a command works in: the context `name` names, else, when `paths` (the repository
 * paths the command was given: a generator) all lie in one context's root, that context.
 * `needs(policy)` says whether a policy has what the command needs (its evidence section):
 * with contexts and nothing that names or implies one, the repository-wide policy is used when
 * it has it and no context has its own; otherwise a usage error names the contexts.
 */
export function chooseScope(
  policy: Policy,
  opts: { name: string | undefined; paths?: readonly string[]; command: string; needs: (policy: Policy) => boolean; what: string },
): Scope {
  if (opts.name !== undefined) {
    const context = contextNamed(policy, opts.name, opts.command);
    return { policy: context.policy, context };
  }
  if (!policy.contexts || policy.contexts.length === 0) return { policy, context: null };
  const holders = [...new Set((opts.paths ?? []).map((p) => contextHolding(policy, p)).filter((c): c is ContextPolicy => c !== null))];
  if (holders.length > 1) {
    throw new UsageError(`the paths given lie in the contexts ${holders.map((c) => c.name).join(' and ')}; '${opts.command}' works in one context at a time: run it once per context with --context NAME`);
  }
  if (holders.length === 1) return { policy: holders[0]!.policy, context: holders[0]! };
  // The repository-wide section, when no context has one of its own (else which is meant?).
  const having = policy.contexts.filter((c) => opts.needs(c.policy));
  if (opts.needs(policy) && having.length === 0) return { policy, context: null };
  throw new UsageError(
    having.length > 0
      ? `'${opts.command}' works in one bounded context, and ${having.length === 1 ? 'the context' : 'the contexts'} ${having.map((c) => c.name).join(', ')} ${having.length === 1 ? 'has its' : 'have their'} own ${opts.what}: pass --context NAME, one of ${contextNames(policy)}`
      : `'${opts.command}' needs a ${opts.what}, and neither the repository-wide policy nor any of its contexts (${contextNames(policy)}) has one; an owner adds it to .receipt-gate.json first`,
  );
}

/** A PATH given with `--context`: relative to the context's root (a path already under the
 * root is taken as it is). */
export function underRoot(context: ContextPolicy, path: string): string {
  const clean = path.replace(/^(\.\/)+/, '');
  const key = foldKey(clean);
  const root = foldKey(context.root);
  if (key === root || key.startsWith(`${root}/`)) return clean;
  return clean === '' || clean === '.' ? context.root : `${context.root}/${clean}`;
}
