// Raw objects for the object-store tests (repositories and git itself: test/helpers/git.ts).

import { commitAll, git, writeFiles } from '../helpers/git';
import type { RawTree } from '../../src/git/raw-tree';

/** Writes files, stages everything and commits; returns the commit oid. */
export function commit(repo: string, files: Record<string, string | Buffer>, message = 'change'): string {
  writeFiles(repo, files);
  return commitAll(repo, message);
}

/** Every object of a repository as `git cat-file --batch-all-objects` lists it. */
export function allObjects(repo: string): { oid: string; type: string; size: number }[] {
  return git(repo, ['cat-file', '--batch-all-objects', '--batch-check'])
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const [oid, type, size] = line.split(' ');
      return { oid: oid!, type: type!, size: Number(size) };
    });
}

/** Writes a raw object with `git hash-object --literally` and returns its oid. */
export function hashObject(repo: string, type: string, content: Buffer): string {
  return git(repo, ['hash-object', '--literally', '-w', '-t', type, '--stdin'], { input: content }).trim();
}

/** Builds raw tree content from entries (names as raw bytes). */
export function rawTree(entries: { mode: string; name: Buffer | string; oid: string }[]): Buffer {
  return Buffer.concat(
    entries.flatMap((e) => [Buffer.from(`${e.mode} `), Buffer.isBuffer(e.name) ? e.name : Buffer.from(e.name), Buffer.from([0]), Buffer.from(e.oid, 'hex')]),
  );
}

/** Everything a reader of a RawTree can ask, or the error reading it gives: two readings of the
 * same bytes compare equal exactly when every reader would see the same tree. */
export function reading(read: () => RawTree): unknown {
  let t: RawTree;
  try {
    t = read();
  } catch (err) {
    return { error: (err as Error).message };
  }
  const entries = [];
  for (let i = 0; i < t.length; i++) entries.push([t.rawMode(i), Buffer.from(t.rawName(i)).toString('hex'), t.side(i).oid, t.isTree(i), t.isFirstOfName(i), t.hasUnsafeName(i)]);
  return { length: t.length, ordered: t.ordered, entries, problems: t.problems, unsafe: t.unsafeProblems, ids: t.fsckIds() };
}
