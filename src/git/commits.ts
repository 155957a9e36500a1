// Commits and tags, read from the object database and parsed by the one parser
// (src/git/parse/): what every reader of a commit or a tag uses (the walks, revisions, the
// evidence readers, receipts, materialize, the push log).

import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Deadline } from '../deadline';
import type { ObjectDatabase } from './objects';
import { isOid } from '../types';
import { ObjectInvalidError, fsckCommit, parseCommit } from './parse/commit';
import type { ObjectMessage } from './parse/common';
import { fsckTag, parseTag, type ParsedTag } from './parse/tag';
import type { RefReader } from './refs';
import { GitReadError, type Commit, type CommitRecord, type ObjectType } from './types';

/** Parsed commits kept by oid (a few hundred bytes each), apart from the object budget. */
const MAX_COMMIT_RECORDS = 200_000;

/** A commit with what the walks need beyond the public shape. */
export type { CommitRecord } from './types';

export class CommitReader {
  private readonly records = new Map<string, CommitRecord>();
  private shallowSet: Set<string> | null = null;

  /**
   * @param objects where commits and tags are read
   * @param refs packed-refs' record of what tags peel to (peelHint)
   * @param commondir where the `shallow` file lives
   */
  constructor(
    private readonly objects: ObjectDatabase,
    private readonly refs: RefReader,
    private readonly commondir: string,
  ) {}

  async read(oid: string): Promise<Commit> {
    const c = await this.record(oid);
    return { oid: c.oid, tree: c.tree, parents: [...c.parents] };
  }

  /** The parsed commit with its committer time (cached: commits never change). */
  async record(oid: string): Promise<CommitRecord> {
    const kept = this.records.get(oid);
    if (kept) return kept;
    await this.objects.ready();
    return this.recordNow(oid);
  }

  /** `record`, synchronously: only after the object database's `ready()`. A walk over many
   * commits awaits once, not once per commit. */
  recordNow(oid: string): CommitRecord {
    const kept = this.records.get(oid);
    if (kept) return kept;
    const entry = this.objects.readNow(oid, 'commit');
    if (entry.commit && entry.commit.oid !== oid) {
      // The object is a replacement read for another oid: git names the commit by the oid
      // looked up, so the parsed form is made for it (not kept on the shared entry).
      const record = { ...entry.commit, oid };
      this.records.set(oid, record);
      return record;
    }
    if (!entry.commit) {
      entry.commit = { oid, ...parseCommit(oid, entry.content) };
      this.objects.charge(oid, entry, 48 + 48 * entry.commit.parents.length);
    }
    // Parsed commits are kept apart from the byte-budgeted contents: a long range's trees
    // would otherwise push them out between the walk, the ordering and the diffs, and every
    // commit would be read and hashed again.
    if (this.records.size >= MAX_COMMIT_RECORDS) this.records.clear();
    this.records.set(oid, entry.commit);
    return entry.commit;
  }

  /** True when the commit `oid` was read and parsed in this run, with no replace ref in force
   * (so it is the object itself that was read): the repository holds it, known without
   * looking it up again. */
  isRecorded(oid: string): boolean {
    return this.objects.knownUnreplaced() && this.records.has(oid);
  }

  /** The commit object's bytes as stored (header and message), checked against its oid: the
   * push log keeps each entry in its commit's message. */
  async bytes(oid: string): Promise<Uint8Array> {
    return (await this.objects.read(oid, 'commit')).content;
  }

  /**
   * Follows annotated tags to the object they name, whatever its type: a tag on a tree or a
   * blob peels to that tree or blob, without an exception. `oid` itself when it is no tag.
   * Each tag is read as git reads it (src/git/parse/tag.ts: the `object` line that opens it),
   * and the object it names must have the type its `type` line gives (ObjectInvalidError
   * otherwise: git refuses to peel such a tag). Chains of any depth are followed, as git
   * does (a chain cannot loop: each tag names an object that existed before it), with
   * `deadline` checked at each tag. `tags` lists the tags followed, outermost first.
   */
  async peel(oid: string, deadline?: Deadline): Promise<{ type: ObjectType; oid: string; tags: string[] }> {
    await this.objects.ready();
    return this.peelNow(oid, deadline);
  }

  /** `peel`, synchronously: only after the object database's `ready()`. */
  peelNow(oid: string, deadline?: Deadline): { type: ObjectType; oid: string; tags: string[] } {
    const tags: string[] = [];
    let current = oid;
    let expected: ObjectType | null = null;
    let via = '';
    for (;;) {
      deadline?.tick(64);
      let type: ObjectType = 'commit';
      let tag: ParsedTag | null = null;
      if (!this.records.has(current)) {
        const entry = this.objects.readNow(current);
        type = entry.type;
        if (type === 'tag') tag = entry.tag ??= parseTag(current, entry.content);
      }
      if (expected !== null && type !== expected) {
        throw new ObjectInvalidError(
          `Tag ${via} names ${current} as a ${expected}, but that object is a ${type}: git refuses to read the tag too (bad tag pointer). The tag is malformed or crafted.`,
          via,
          'tag',
          [],
        );
      }
      if (tag === null) return { type, oid: current, tags };
      tags.push(current);
      via = current;
      expected = tag.type;
      current = tag.object;
    }
  }

  /** Follows annotated tags down to the commit they name; a GitReadError when they name
   * something else. */
  async peelToCommit(oid: string, deadline?: Deadline): Promise<string> {
    await this.objects.ready();
    return this.peelToCommitNow(oid, deadline);
  }

  /** `peelToCommit`, synchronously: only after the object database's `ready()`. */
  peelToCommitNow(oid: string, deadline?: Deadline): string {
    const peeled = this.peelNow(oid, deadline);
    if (peeled.type !== 'commit') {
      throw new GitReadError(`Object ${oid} is a ${peeled.type}${peeled.oid !== oid ? ` (through tag ${oid})` : ''}, not a commit.`, oid);
    }
    this.recordNow(peeled.oid); // a malformed commit fails here, not later
    return peeled.oid;
  }

  /** What packed-refs records an annotated tag peels to, without reading the tag; undefined
   * when it records nothing, or when replace refs are (or may be) in force: packed-refs
   * records what the stored tag names, and git would read something else. A hint only: the
   * walks still read every commit they use. */
  peelHint(oid: string): string | undefined {
    if (!this.objects.knownUnreplaced()) return undefined;
    return this.refs.packedPeel(oid);
  }

  /** What `git fsck` prints for a commit or a tag (src/git/parse/): its messages in fsck's
   * order, an error last when there is one. [] for a tree or a blob. */
  async fsckMessages(oid: string): Promise<ObjectMessage[]> {
    await this.objects.ready();
    return this.fsckMessagesNow(oid);
  }

  /** `fsckMessages`, synchronously: only after the object database's `ready()`. */
  fsckMessagesNow(oid: string): ObjectMessage[] {
    const { type, content } = this.objects.readNow(oid);
    if (type === 'commit') return fsckCommit(content);
    if (type === 'tag') return fsckTag(content);
    return [];
  }

  /** Commits whose parents git hides (a shallow clone's boundary), from `<commondir>/shallow`. */
  async shallow(): Promise<Set<string>> {
    return this.shallowNow();
  }

  /** `shallow`, synchronously (the file is read with synchronous calls). */
  shallowNow(): Set<string> {
    if (!this.shallowSet) {
      this.shallowSet = new Set();
      const file = join(this.commondir, 'shallow');
      try {
        // Most repositories are not shallow: asked with existsSync, no error is built for them.
        if (existsSync(file)) for (const line of readFileSync(file, 'utf8').split('\n')) {
          if (isOid(line.trim())) this.shallowSet.add(line.trim());
        }
      } catch {
        // not shallow
      }
    }
    return this.shallowSet;
  }
}
