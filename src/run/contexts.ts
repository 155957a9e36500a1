// Bounded contexts (monorepos, docs/contexts.md) as a run holds them: which context holds a
// path, who may change it, and which contexts a ref update touches. Built once per run
// (src/run/context.ts), and only for a policy that declares contexts; the evidence of each
// context is src/rules/contexts.ts's.
//
// What a context's evidence reads: the paths its policy names (pin, manifest, catalog, freeze
// file, observations and their witnesses, keyed freezes, fixture records), all under its root
// (a policy that puts one elsewhere is POLICY_INVALID), and the paths its epoch pin names
// (generator, inputs), which may lie anywhere, under another context's root too. The pin is
// read at the base once per run (`prepare`); a change to a path it names touches the context
// and needs an owner of it, whoever's root holds the path.

import type { Deadline } from '../deadline';
import { readPin } from '../evidence/epoch';
import { escapeGlob } from '../evidence/policy';
import { TreeSource } from '../evidence/tree-source';
import type { ContextPolicy, Policy } from '../evidence/types';
import type { ObjectStore } from '../git/store';
import type { PathChange } from '../git/types';
import { compileGlob, type CompiledGlob } from '../glob';
import { foldKey, segmentsOf } from '../paths';
import { compileProtection, type PathMemory, type Protection } from '../protection';
import { short } from '../wording';
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
  /** The paths its epoch pin names at the base (set by `prepare`): the generator and inputs. */
  reads: EvidenceRead[];
}

/** A path a context's evidence reads because its epoch pin names it. */
export interface EvidenceRead {
  path: string;
  /** For messages: `generator named by services/billing/fixtures/EPOCH`. */
  what: string;
}

/** A context whose evidence reads a changed path, and what the path is to it. */
export interface EvidenceReader {
  context: BoundedContext;
  what: string;
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
  /** The contexts whose evidence reads what the change changes through their pins (the
   * generator and inputs at the base), wherever it lies. */
  readersOf(change: PathChange): EvidenceReader[];
  /**
   * Reads each context's epoch pin at the base tip, once per run (later calls share the first
   * read): what `ruleFor`, `touchedBy` and `readersOf` need, so they refuse to answer before it.
   */
  prepare(store: ObjectStore, baseTip: string | null): Promise<void>;
}

export interface ContextsSetup {
  policy: Policy & { contexts: ContextPolicy[] };
  identity: string | null;
  /** The repository-wide protection and whether the identity owns the repository. */
  protection: Protection;
  owner: boolean;
  ownersText: string;
  deadline: Deadline;
  /** The run's switch for remembering paths' answers (src/protection.ts). */
  pathMemory?: PathMemory;
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
      protection: () => (compiled ??= compileProtection(c.policy, { deadline: setup.deadline, memory: setup.pathMemory })),
      dependsOn: c.dependsOn.map((g) => compileGlob(g, { fold: true })),
      reads: [],
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

  // What the pins name, read at the base by `prepare`: per context, its reads as a protection
  // (so a symlink or submodule over a read path's folder, or an 8.3 short name of it, is a
  // touch of it, as for a protected file), and the folded read paths and their folders, so a
  // change that reaches none of them costs one lookup.
  let prepared: { tip: string | null; done: Promise<void> } | null = null;
  let ready = false;
  const readSets: { context: BoundedContext; protection: Protection; what: Map<string, string> }[] = [];
  const readKeys = new Set<string>();

  const load = async (store: ObjectStore, baseTip: string | null): Promise<void> => {
    if (baseTip !== null) {
      const source = new TreeSource(store, (await store.commits.read(baseTip)).tree, `commit ${short(baseTip)}`);
      for (const c of list) {
        const pinPath = c.policy.epoch?.pin;
        if (pinPath === undefined) continue;
        setup.deadline.check();
        // A pin that is missing or invalid at the base names nothing: the context's own check
        // reports it whatever else changes.
        const { pin } = await readPin(source, pinPath, c.policy, setup.deadline);
        if (pin === null) continue;
        c.reads = [{ path: pin.generator, what: `generator named by ${pinPath}` }, ...pin.inputs.map((p) => ({ path: p, what: `input named by ${pinPath}` }))];
      }
    }
    for (const c of list) {
      if (c.reads.length === 0) continue;
      const what = new Map<string, string>();
      for (const r of c.reads) if (!what.has(escapeGlob(r.path))) what.set(escapeGlob(r.path), r.what);
      const policy: Policy = { ...c.policy, protected: [...what.keys()], exceptions: [], epoch: undefined, manifest: undefined, freeze: undefined, observations: undefined, fixtures: undefined };
      readSets.push({ context: c, protection: compileProtection(policy, { deadline: setup.deadline, memory: setup.pathMemory }), what });
      for (const r of c.reads) {
        const segments = foldKey(r.path).split('/');
        for (let i = 1; i <= segments.length; i++) readKeys.add(segments.slice(0, i).join('/'));
      }
    }
    ready = true;
  };

  const prepare = (store: ObjectStore, baseTip: string | null): Promise<void> => {
    if (prepared !== null && prepared.tip !== baseTip) throw new Error(`bounded contexts: the pins were read at ${prepared.tip ?? 'no base'}, not at ${baseTip ?? 'no base'}`);
    prepared ??= { tip: baseTip, done: load(store, baseTip) };
    return prepared.done;
  };

  const mustBeReady = (what: string): void => {
    if (!ready) throw new Error(`bounded contexts: ${what} was asked before the contexts' epoch pins were read at the base (Contexts.prepare)`);
  };

  const readersOf = (change: PathChange): EvidenceReader[] => {
    mustBeReady('readersOf');
    if (readSets.length === 0) return [];
    const folded = foldKey(change.path);
    if (!readKeys.has(folded) && !folded.includes('~')) return [];
    const out: EvidenceReader[] = [];
    for (const set of readSets) {
      const label = set.protection.protectedByChange(change);
      const what = label === null ? undefined : set.what.get(label);
      if (what !== undefined) out.push({ context: set.context, what });
    }
    return out;
  };

  const ruleFor = (change: PathChange): PathRule | null => {
    mustBeReady('ruleFor');
    const own = holderRuleFor(change);
    if (own !== null) return own;
    // A path some context's evidence reads: an owner of every such context may change it.
    for (const r of readersOf(change)) {
      if (!r.context.owner) return { glob: r.what, owner: false, ownersText: r.context.ownersText, context: r.context.name };
    }
    return null;
  };

  const holderRuleFor = (change: PathChange): PathRule | null => {
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
    mustBeReady('touchedBy');
    const touched = new Set<BoundedContext>();
    for (const batch of changes) {
      for (const change of batch) {
        if (touched.size === list.length) return list;
        // The contexts whose pins name the path, whoever's root holds it.
        for (const r of readersOf(change)) touched.add(r.context);
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

  return { list, holding, ruleFor, touchedBy, touchesOutside, readersOf, prepare };
}
