// Revisions as git users type them: resolveRevision against `git rev-parse --verify` (the oid)
// and `git rev-parse --symbolic-full-name` (the ref) on a real repository with merges,
// annotated and lightweight tags (on commits, a tree and a blob), a remote with upstream
// branches, and abbreviated oids, some of them ambiguous.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { ObjectStore } from '../../src/git/store';
import { GitReadError } from '../../src/git/types';
import { mapRefspec, resolveRevision, RevisionError } from '../../src/git/revision';
import { commit, hashObject } from './helpers';
import { cleanupTempDirs, git, GIT_ENV, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

interface Fixture {
  clone: string;
  oids: string[];
  ambiguous: string[];
}

let fixture: Fixture | null = null;

/** origin: a history with merges and tags; clone: tracks it, with a local branch ahead. */
function build(): Fixture {
  if (fixture) return fixture;
  const origin = initRepo();
  commit(origin, { 'a.txt': 'a\n' }, 'root');
  for (let i = 0; i < 4; i++) commit(origin, { 'a.txt': `main ${i}\n` }, `main ${i}`);
  git(origin, ['checkout', '-q', '-b', 'topic', 'HEAD~2']);
  for (let i = 0; i < 3; i++) commit(origin, { [`t${i}.txt`]: `topic ${i}\n` }, `topic ${i}`);
  git(origin, ['checkout', '-q', 'main']);
  git(origin, ['merge', '-q', '--no-ff', '-m', 'merge topic', 'topic']);
  commit(origin, { 'b.txt': 'after merge\n' }, 'after');
  git(origin, ['tag', '-a', '-m', 'release', 'v1', 'HEAD~1']);
  git(origin, ['tag', 'light', 'topic']);
  git(origin, ['tag', '-a', '-m', 'on a tree', 'treetag', 'HEAD^{tree}']);
  git(origin, ['tag', 'blobtag', 'HEAD:b.txt']);
  git(origin, ['tag', '-a', '-m', 'tag of a tag', 'v1-again', 'v1']);
  const clone = join(tempDir(), 'clone');
  execFileSync('git', ['clone', '-q', origin, clone], { env: GIT_ENV });
  git(clone, ['checkout', '-q', '-b', 'feature', 'origin/topic']);
  git(clone, ['branch', '-q', '--set-upstream-to', 'origin/topic']);
  commit(clone, { 'f.txt': 'feature\n' }, 'feature');
  git(clone, ['branch', '-q', 'local-upstream', 'main']);
  git(clone, ['config', 'branch.local-upstream.remote', '.']);
  git(clone, ['config', 'branch.local-upstream.merge', 'refs/heads/main']);
  git(clone, ['branch', '-q', 'no-upstream']);
  git(clone, ['checkout', '-q', 'main']);
  // Many blobs, so that some 4-digit prefixes are shared.
  for (let i = 0; i < 400; i++) hashObject(clone, 'blob', Buffer.from(`blob ${i}\n`));
  git(clone, ['gc', '-q']);
  for (let i = 400; i < 700; i++) hashObject(clone, 'blob', Buffer.from(`blob ${i}\n`)); // loose ones too
  const oids = git(clone, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']).trim().split('\n');
  const byPrefix = new Map<string, number>();
  for (const oid of oids) byPrefix.set(oid.slice(0, 4), (byPrefix.get(oid.slice(0, 4)) ?? 0) + 1);
  const ambiguous = [...byPrefix].filter(([, n]) => n > 1).map(([p]) => p);
  fixture = { clone, oids, ambiguous };
  return fixture;
}

function gitRevParse(repo: string, spec: string): { oid: string | null; ref: string | null } {
  let oid: string | null = null;
  try {
    oid = git(repo, ['rev-parse', '--verify', '-q', spec]).trim() || null;
  } catch {
    oid = null;
  }
  let ref: string | null = null;
  if (oid !== null) {
    try {
      ref = git(repo, ['rev-parse', '--symbolic-full-name', spec]).trim() || null;
    } catch {
      ref = null;
    }
  }
  return { oid, ref };
}

test('resolveRevision agrees with git rev-parse on random revisions', async () => {
  const { clone, oids, ambiguous } = build();
  assert.ok(ambiguous.length > 0, 'the fixture has ambiguous 4-digit prefixes');
  const store = await ObjectStore.discover(clone);
  const names = [
    'HEAD', '@', 'main', 'refs/heads/main', 'heads/main', 'origin/main', 'origin', 'refs/remotes/origin/HEAD', 'origin/topic', 'topic',
    'feature', 'v1', 'v1-again', 'refs/tags/v1', 'light', 'treetag', 'blobtag', 'nope', 'refs/heads/nope',
    '@{u}', '@{upstream}', 'HEAD@{u}', 'main@{u}', 'feature@{upstream}', 'feature@{U}', 'local-upstream@{u}', 'no-upstream@{u}', 'nope@{u}',
  ];
  const base = fc.oneof(
    fc.constantFrom(...names),
    fc.record({ oid: fc.constantFrom(...oids), len: fc.integer({ min: 4, max: 40 }) }).map(({ oid, len }) => oid.slice(0, len)),
    fc.constantFrom(...ambiguous),
    fc.constantFrom('abc', '0000', 'ffff'),
  );
  const suffix = fc.constantFrom('~', '~1', '~2', '~3', '~7', '^', '^1', '^2', '^3', '^0', '^{commit}', '^{tree}', '^{}', '^{tag}', '^{blob}', '^{object}');
  await fc.assert(
    fc.asyncProperty(base, fc.array(suffix, { maxLength: 3 }), async (name, suffixes) => {
      const spec = name + suffixes.join('');
      const want = gitRevParse(clone, spec);
      let got: { oid: string | null; ref: string | null };
      try {
        got = await resolveRevision(store, spec);
      } catch (err) {
        if (!(err instanceof RevisionError) && !(err instanceof GitReadError)) throw err;
        assert.match((err as Error).message, /receipt-gate accepts|not a|is a /, spec);
        got = { oid: null, ref: null };
      }
      assert.equal(got, want, spec);
    }),
    { seed: 20261201, numRuns: 400 },
  );
  store.close();
});

test('an ambiguous abbreviation lists its candidates; an unknown name says what is accepted', async () => {
  const { clone, oids, ambiguous } = build();
  const store = await ObjectStore.discover(clone);
  const prefix = ambiguous[0]!;
  try {
    await resolveRevision(store, prefix);
    assert.unreachable();
  } catch (err) {
    assert.instance(err, RevisionError);
    for (const oid of oids.filter((o) => o.startsWith(prefix))) assert.ok((err as Error).message.includes(oid), oid);
  }
  try {
    await resolveRevision(store, 'no/such/branch~2');
    assert.unreachable();
  } catch (err) {
    assert.instance(err, RevisionError);
    assert.match((err as Error).message, /HEAD~N|~N, \^N/);
    assert.match((err as Error).message, /abbreviated object ids/);
  }
  store.close();
});

test('fetch refspecs map an upstream as git maps it', () => {
  assert.is(mapRefspec('+refs/heads/*:refs/remotes/origin/*', 'refs/heads/a/b'), 'refs/remotes/origin/a/b');
  assert.is(mapRefspec('refs/heads/main:refs/remotes/origin/main', 'refs/heads/main'), 'refs/remotes/origin/main');
  assert.is(mapRefspec('refs/heads/main:refs/remotes/origin/main', 'refs/heads/other'), null);
  assert.is(mapRefspec('^refs/heads/x', 'refs/heads/x'), null);
});

test('a shallow clone has no parents past its boundary, as for git', async () => {
  const { clone } = build();
  const shallow = join(tempDir(), 'shallow');
  execFileSync('git', ['clone', '-q', '--depth', '2', `file://${clone}`, shallow], { env: GIT_ENV });
  const store = await ObjectStore.discover(shallow);
  for (const spec of ['HEAD~1', 'HEAD~2', 'HEAD^^', 'HEAD~1^2']) {
    const want = gitRevParse(shallow, spec).oid;
    const got = await resolveRevision(store, spec).then((r) => r.oid, () => null);
    assert.is(got, want, spec);
  }
  store.close();
});

test.run();
