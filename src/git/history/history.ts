// One History per object store: what the commit walks of a run learn about the repository's
// history and keep for the walks that follow. It is made where the store is opened (an entry,
// the server's push) and passed to every walk (new-commits.ts, server-new-commits.ts,
// merge-base.ts) and, through the run context, to the engine and the rules.
//
// What it keeps is exact (it only ever saves work, never changes an answer):
//   - the commit index (commit-index.ts): the shallow list and the commit-graph, read once,
//     and every commit a walk has read;
//   - on the server, the commit cache (commit-cache.ts), kept in the repository between pushes,
//     and the repository's packs read in pack order for the commits it does not list
//     (pack-commits.ts);
//   - the ancestry the walks have shown (a pushed tip is above the commits it brought, an
//     existing tip above the old commits a push builds on) and, per pushed commit, the old
//     commits its new commits were built on, so the fast-forward and merge-base questions that
//     follow on the same commits need no walk.

import type { Deadline } from '../../deadline';
import type { ObjectStore } from '../store';
import { CommitCache, commitCachePath, verifiedGraphsPath } from './commit-cache';
import { checkedAgainst, openCommitIndex, type CommitIndex } from './commit-index';
import { PackCommits } from './pack-commits';
import { dirname, join } from 'node:path';
import { objectDirectories } from '../object-dirs';

/** What the server's new-commits walk showed about a pushed commit (History.notePushedOnto). */
export interface PushedOnto {
  /** The commits its new commits were built on, each reached from an existing ref. */
  bases: readonly string[];
  /** Whether a commit is one of the existing refs' commits the walk judged against. */
  isExistingTip: (commit: string) => boolean;
}

export class History {
  private index: CommitIndex | null = null;
  /** Per commit: commits a walk has shown to be its ancestors (or it). */
  private readonly ancestors = new Map<string, Set<string>>();
  /** Per pushed commit, what the server's new-commits walk showed (notePushedOnto). */
  private readonly pushed = new Map<string, PushedOnto>();
  private cache: CommitCache | null = null;
  private packs: PackCommits | null = null;

  constructor(readonly store: ObjectStore) {}

  /** The commit index, its graph read once; `starts` are checked against the graph (a graph
   * that disagrees with one of them is dropped for the rest of the run). */
  async commitIndex(deadline: Deadline, starts: string[]): Promise<CommitIndex> {
    if (!this.index) {
      this.index = await openCommitIndex(this.store, deadline, this.cache ? verifiedGraphsPath(this.store.objects.ownDirectory) : undefined);
      if (this.cache) this.index.useCache(this.cache, await this.store.objects.hasReplacements(), this.packs);
    }
    this.index = await checkedAgainst(this.index, starts);
    return this.index;
  }

  /** The walks read and extend the server's commit cache (commit-cache.ts) from now on; call
   * before the first walk. */
  async useCommitCache(): Promise<void> {
    this.cache ??= CommitCache.open(commitCachePath(this.store.objects.ownDirectory));
    // The repository's own object directory and its alternates (never the quarantine).
    this.packs ??= new PackCommits(
      objectDirectories(dirname(this.store.objects.ownDirectory), {})
        .filter((d) => !d.quarantine)
        .map((d) => join(d.path, 'pack')),
    );
    if (this.index) this.index.useCache(this.cache, await this.store.objects.hasReplacements(), this.packs);
  }

  /** Writes what the walks added to the commit cache (nothing when no cache is in use or it
   * has nothing new). */
  saveCommitCache(): void {
    if (this.index?.commitCache) this.index.commitCache.save();
    this.packs?.release();
  }

  /**
   * One-line notices about the repository's commit-graph (found but not trusted: corrupt,
   * truncated, inconsistent with the objects), for the caller to print once. Empty until a walk
   * has run.
   */
  commitGraphNotices(): readonly string[] {
    return this.index?.notices ?? [];
  }

  /** The commit-graph files the walks use ([] when none, or none trusted). */
  commitGraphFiles(): readonly string[] {
    return this.index?.graph?.files ?? [];
  }

  /** Records what the server's new-commits walk showed about a pushed commit: the commits its
   * new commits were built on (`bases`: each reached from an existing ref; every other commit
   * below the pushed one is new, and no existing ref reaches a new commit) and the existing
   * refs' commits it was judged against. */
  notePushedOnto(pushed: string, bases: string[], isExistingTip: (commit: string) => boolean): void {
    this.pushed.set(pushed, { bases, isExistingTip });
  }

  /** True when a new-commits walk on the server judged a push against `commit` as an existing
   * ref's commit (everything it reaches was in the repository before the push). */
  isExistingTip(commit: string): boolean {
    for (const onto of this.pushed.values()) if (onto.isExistingTip(commit)) return true;
    return false;
  }

  /** What notePushedOnto recorded for `pushed`, or undefined. */
  pushedOnto(pushed: string): PushedOnto | undefined {
    return this.pushed.get(pushed);
  }

  /** Records that each of `ancestors` is an ancestor of `descendant` (or is it). */
  noteAncestors(descendant: string, ancestors: Iterable<string>): void {
    let set = this.ancestors.get(descendant);
    if (!set) this.ancestors.set(descendant, (set = new Set<string>()));
    for (const a of ancestors) set.add(a);
  }

  /** True when a walk has already shown `a` to be an ancestor of `b` (or `b`). */
  knownAncestor(a: string, b: string): boolean {
    return this.ancestors.get(b)?.has(a) ?? false;
  }
}
