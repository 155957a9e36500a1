// Which paths a non-owner may not touch, compiled once per run from the policy. A path is
// protected when it is the policy file, the pin, the manifest or the freeze file (never
// excepted), or when a `protected` glob or an evidence path of the policy matches it and no
// `exceptions` glob does. All of it on the folded key of src/paths.ts, so an alias a checkout
// would write onto a protected file (`Fixtures/x`, `ﬁxtures/x`, `FIXTUR~1/x`) is that file.
//
// Symlinks and gitlinks: an entry of kind `symlink` or `gitlink` whose path is protected, or is
// a folder below which a protected glob could match, puts other bytes at the protected path in
// every checkout (`tools -> src/tools` makes `tools/patch_receipt.py`; a submodule at `tools`
// makes it in every `git clone --recurse-submodules`). Such an entry is a touch of the
// protected path, and exceptions never cover it.

import type { Deadline } from './deadline';
import { escapeGlob, evidencePaths } from './evidence/policy';
import { POLICY_PATH, type Policy } from './evidence/types';
import type { EntryKind, PathChange } from './git/types';
import { compileGlob, type CompiledGlob } from './glob';
import { foldKey, segmentsOf, type PathSegment } from './paths';

export interface ProtectionExplanation {
  /** The path as asked. */
  path: string;
  /** Its folded key, the form globs are matched on. */
  folded: string;
  /** The glob (or evidence file) that protects it, null when it is free. */
  by: string | null;
  /** The exception glob that frees it, when one does (and `by` is then null). */
  excepted: string | null;
  /** How the path reaches a protected file other than by its own name, when it does: an 8.3
   * short name, or a symlink or submodule over a protected folder. */
  alias?: string;
}

export interface Protection {
  /** The glob or file that protects `path` for an entry of `kind` (default a regular file),
   * for messages; null when a non-owner may change it. */
  protectedBy(path: string, kind?: EntryKind): string | null;
  /** True when a non-owner may not change `path`. */
  isProtected(path: string, kind?: EntryKind): boolean;
  /** protectedBy for a change, judged on the entry on each side (deleting a symlink over a
   * protected folder changes what a checkout has there as much as adding one). */
  protectedByChange(change: PathChange): string | null;
  /** Why `path` is or is not protected, for `explain`. */
  explain(path: string, kind?: EntryKind): ProtectionExplanation;
}

interface Rule {
  /** As written in the policy (or the evidence path), for messages. */
  label: string;
  glob: CompiledGlob;
  // For a glob that starts with a globstar segment, such as **\/.gitattributes: the glob after it.
  rest?: CompiledGlob;
}

// A rule for a policy glob. A glob that starts with a globstar segment matches a file wherever
// it lies, so a symlink to a folder of the tree exposes nothing its real path does not already
// show to the same glob: such a glob makes a symlink a touch only when what follows the
// globstar could begin at or above the symlink (the glob **\/fixtures/** for a symlink at
// a/fixtures), not when it lies wholly below it (**\/.gitattributes for any folder).
function globRule(label: string): Rule {
  const glob = compileGlob(label, { fold: true });
  if (!label.startsWith('**/')) return { label, glob };
  let rest = label.slice(3);
  while (rest.startsWith('**/')) rest = rest.slice(3);
  return rest === '' || rest === '**' ? { label, glob } : { label, glob, rest: compileGlob(rest, { fold: true }) };
}

/** A folded path, split into segments only when some rule needs them. */
class FoldedPath {
  private split: PathSegment[] | null = null;
  readonly first: string;
  readonly last: string;
  /** True when the first or last segment has a `~` (it may be an 8.3 short name). */
  readonly tilde: boolean;

  constructor(readonly key: string) {
    const a = key.indexOf('/');
    const b = key.lastIndexOf('/');
    this.first = a < 0 ? key : key.slice(0, a);
    this.last = b < 0 ? key : key.slice(b + 1);
    this.tilde = this.first.includes('~') || this.last.includes('~');
  }

  get segments(): PathSegment[] {
    return (this.split ??= segmentsOf(this.key));
  }
}

/**
 * Rules in policy order, indexed by the literal first segment most globs start with (and
 * filtered by a literal last segment), so a path is tried against the few rules it could
 * match instead of every glob. A path whose first or last segment could be an 8.3 short name
 * is tried against all of them.
 */
class RuleSet {
  private readonly byFirst = new Map<string, number[]>();
  private readonly anyFirst: number[] = [];
  private readonly lastKeys: (Set<string> | null)[];
  private readonly all: number[];

  constructor(readonly rules: Rule[]) {
    this.all = rules.map((_, i) => i);
    this.lastKeys = rules.map((r) => (r.glob.lastSegments === null ? null : new Set(r.glob.lastSegments)));
    rules.forEach((rule, i) => {
      const firsts = rule.glob.firstSegments;
      if (firsts === null) {
        this.anyFirst.push(i);
        return;
      }
      for (const key of firsts) {
        const list = this.byFirst.get(key) ?? [];
        if (!list.includes(i)) list.push(i);
        this.byFirst.set(key, list);
      }
    });
  }

  /** Indices of the rules the path could match or lie above, in policy order. */
  private candidates(path: FoldedPath): number[] {
    if (path.tilde) return this.all;
    const listed = this.byFirst.get(path.first);
    if (listed === undefined) return this.anyFirst;
    if (this.anyFirst.length === 0) return listed;
    return [...listed, ...this.anyFirst].sort((a, b) => a - b);
  }

  /** The first rule that matches the path. */
  matching(path: FoldedPath): Rule | undefined {
    for (const i of this.candidates(path)) {
      const last = this.lastKeys[i];
      if (last !== null && !path.tilde && !last.has(path.last)) continue;
      if (this.rules[i]!.glob.matchSegments(path.segments)) return this.rules[i];
    }
    return undefined;
  }

  /** The first rule that matches the path or could match below it, and which of the two. */
  matchingOrBelow(path: FoldedPath): { rule: Rule; below: boolean } | undefined {
    for (const i of this.candidates(path)) {
      const rule = this.rules[i]!;
      if (rule.glob.matchSegments(path.segments)) return { rule, below: false };
      if (rule.glob.couldMatchBelow(path.segments) && reachesAbove(rule, path.segments)) return { rule, below: true };
    }
    return undefined;
  }
}

/** For a globstar rule: true when what follows the globstar could match a path that starts at
 * one of the segments (so the symlink's own name is part of the match); always true for other
 * rules. */
function reachesAbove(rule: Rule, segments: readonly PathSegment[]): boolean {
  const rest = rule.rest;
  if (rest === undefined) return true;
  for (let i = 0; i < segments.length; i++) {
    const suffix = segments.slice(i);
    if (rest.matchSegments(suffix) || rest.couldMatchBelow(suffix)) return true;
  }
  return false;
}

/** Kinds whose entry makes a checkout put other content below its path: a symlink, and a
 * gitlink (a submodule, whose files `git clone --recurse-submodules` writes below it). A glob
 * that starts with a globstar judges both as it judges a symlink (see globRule): only where
 * what follows the globstar could begin at or above the entry. */
function coversFolder(kind: EntryKind | undefined): boolean {
  return kind === 'symlink' || kind === 'gitlink';
}

/** Paths whose answer a Protection remembers, for each of the two kinds of entry. */
export const PATH_ANSWERS_KEPT = 16_384;

/** Whether the protections of a run remember each path's answer (one switch for all of a
 * run's protections, the bounded contexts' included). */
export interface PathMemory {
  on: boolean;
}

export interface ProtectionOptions {
  /** Checked while matching (limits.timeoutMs); DeadlineExceeded propagates to the caller. */
  deadline?: Deadline;
  /** The run's switch: while on, answers are remembered (see compileProtection). */
  memory?: PathMemory;
}

/**
 * Compiles the policy's protection once. Throws GlobError for a glob the policy validation
 * refuses (a policy from parsePolicy never has one).
 */
export function compileProtection(policy: Policy, options: ProtectionOptions = {}): Protection {
  const deadline = options.deadline;
  // The policy, pin, manifest and freeze file can never be excepted.
  const pinnedRules: Rule[] = [POLICY_PATH, policy.epoch?.pin, policy.manifest?.path, policy.freeze?.path]
    .filter((p): p is string => typeof p === 'string')
    .map((p) => ({ label: p, glob: compileGlob(escapeGlob(p), { fold: true }) }));
  const globRules: Rule[] = [...policy.protected, ...evidencePaths(policy)].map(globRule);
  const pinned = new RuleSet(pinnedRules);
  const globs = new RuleSet(globRules);
  const everything = new RuleSet([...globRules, ...pinnedRules]);
  const exceptions = new RuleSet(policy.exceptions.map((g) => ({ label: g, glob: compileGlob(g, { fold: true }) })));

  // The pinned files are literal paths: one lookup of the folded key answers for all of them
  // (short-name segments still go through the globs).
  const literal = new Map<string, string>();
  for (const rule of pinnedRules) if (!literal.has(foldKey(rule.label))) literal.set(foldKey(rule.label), rule.label);

  /** The decision for one path: the rule that protects it, or the exception that frees it. */
  interface Decision {
    by: string | null;
    excepted: string | null;
    /** Why the path reaches the protected file other than by its own name, if it does. */
    alias?: () => string;
  }
  const FREE: Decision = { by: null, excepted: null };

  const decide = (path: string, kind: EntryKind | undefined, folded: string): Decision => {
    deadline?.tick(64);
    const at = new FoldedPath(folded);
    // Which segment, if any, is an 8.3 short name (only a path with a `~` can have one).
    let short: PathSegment['short'] = null;
    if (folded.includes('~')) for (const s of at.segments) if (s.short !== null) short = s.short;
    const viaShort = short === null ? undefined : () => `${short!.segment} reads as an NTFS 8.3 short name, which may stand for a longer name`;

    const pin = literal.get(folded) ?? pinned.matching(at)?.label;
    if (pin !== undefined) return { by: pin, excepted: null, alias: viaShort };

    if (coversFolder(kind)) {
      // Exceptions never cover a symlink or a gitlink; one over a protected folder is a touch.
      const hit = everything.matchingOrBelow(at);
      if (hit === undefined) return FREE;
      if (!hit.below) return { by: hit.rule.label, excepted: null, alias: viaShort };
      const label = hit.rule.label;
      const what = kind === 'gitlink' ? 'submodule (gitlink)' : kind;
      return { by: label, excepted: null, alias: () => `a ${what} at ${path} decides what a checkout has below it, where ${label} protects files` };
    }

    const by = globs.matching(at);
    if (by === undefined) return FREE;
    // A short-name segment may stand for names an exception does not cover: exceptions are
    // not applied to such a path (the closed side).
    if (short === null) {
      const except = exceptions.matching(at);
      if (except !== undefined) return { by: null, excepted: except.label };
    }
    return { by: by.label, excepted: null, alias: viaShort };
  };

  // Once the run's memory is on (a push of more than one commit, whose commits name the same
  // paths again and again), each path's answer is remembered, by whether the entry covers a
  // folder (the only way its kind enters the answer). Up to PATH_ANSWERS_KEPT paths; past
  // that a path is matched each time it is asked. Off, nothing is remembered: asking a map
  // costs as much as matching a path that is asked once (see docs/paths.md).
  const memory = options.memory;
  const answers = new Map<string, string | null>();
  const folderAnswers = new Map<string, string | null>();
  const protectedBy = (path: string, kind?: EntryKind): string | null => {
    if (memory === undefined || !memory.on) return decide(path, kind, foldKey(path)).by;
    const kept = coversFolder(kind) ? folderAnswers : answers;
    let by = kept.get(path);
    if (by === undefined) {
      by = decide(path, kind, foldKey(path)).by;
      if (kept.size < PATH_ANSWERS_KEPT) kept.set(path, by);
    }
    return by;
  };

  const protection: Protection = {
    protectedBy,
    isProtected: (path, kind) => protectedBy(path, kind) !== null,
    protectedByChange: (change) =>
      protection.protectedBy(change.path, change.after?.kind ?? change.before?.kind) ??
      (change.before && change.after && change.before.kind !== change.after.kind ? protection.protectedBy(change.path, change.before.kind) : null),
    explain: (path, kind) => {
      const folded = foldKey(path);
      const d = decide(path, kind, folded);
      const out: ProtectionExplanation = { path, folded, by: d.by, excepted: d.excepted };
      if (d.by !== null && d.alias !== undefined) out.alias = d.alias();
      return out;
    },
  };
  return protection;
}

export type { PathSegment };
