// RawTree.problems against `git fsck` itself: random crafted trees (names listed twice with
// the evil copy first, entries out of order, a file and a directory of one name, bad,
// zero-padded and legacy modes, .git and .gitmodules spellings) are written with
// `git hash-object --literally`, and the message ids `git fsck --no-dangling` prints for each
// tree must be exactly the ones recorded for it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { spawnSync } from 'node:child_process';
import { ObjectStore } from '../../src/git/index';
import { hashObject, rawTree } from './helpers';
import { cleanupTempDirs, git, GIT_ENV, initRepo } from '../helpers/git';

test.after(cleanupTempDirs);

const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/** fsck's message ids per object, from its output ("error in tree OID: id: text"). */
function fsckIds(repo: string): Map<string, Set<string>> {
  const r = spawnSync('git', ['fsck', '--no-dangling', '--no-progress'], { cwd: repo, env: GIT_ENV, encoding: 'utf8' });
  const out = new Map<string, Set<string>>();
  for (const line of `${r.stdout}\n${r.stderr}`.split('\n')) {
    const m = /^(?:error|warning) in tree ([0-9a-f]{40}): (\w+):/.exec(line);
    if (!m) continue;
    if (!out.has(m[1]!)) out.set(m[1]!, new Set());
    out.get(m[1]!)!.add(m[2]!);
  }
  return out;
}

const NAMES = [
  'a', 'a.b', 'a-', 'a0', 'b', 'base.json', 'foo', 'foo.bar', 'foo.bar.baz',
  '.git', '.GIT', '.Git.', '.git ', 'git~1', 'GIT~1', '.g\u200cit', '\ufeff.git', '.git::$INDEX_ALLOCATION', '.git:x',
  'a\\.git', 'x\\git~1', '.', '..', 'a/b', '.gitmodules', 'GITMOD~1', 'gi7eba~9', '.gitattributes', '.gitignore', '.mailmap', 'mailma~1',
  '.git\u00e9', 'caf\u00e9',
];
const MODES = ['100644', '100664', '100755', '120000', '160000', '40000', '040000', '0100644', '100600', '100700', '100777', '40755', '120777', '1100644', '644', '0', '140000', '170000'];

/** The object an entry of this mode must point to for fsck to find it (a gitlink is never read). */
function oidFor(mode: string, blob: string): string {
  const m = parseInt(mode, 8) & 0o170000;
  if (m === 0o040000) return EMPTY_TREE;
  if (m === 0o100000 || m === 0o120000) return blob;
  return 'c0ffee'.padEnd(40, '0');
}

const treeArb = fc.array(fc.record({ name: fc.constantFrom(...NAMES), mode: fc.constantFrom(...MODES) }), { minLength: 1, maxLength: 7 });

test('the fsck ids recorded for a crafted tree are the ones git fsck prints', async () => {
  const repo = initRepo();
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'x\n' }).trim();
  hashObject(repo, 'tree', Buffer.alloc(0));
  const cases = fc.sample(fc.tuple(treeArb, fc.boolean()), { seed: 20261201, numRuns: 400 });
  const written = new Map<string, { mode: string; name: string }[]>();
  for (const [entries, sort] of cases) {
    // Half of the trees in git's order (so that duplicates, bad modes and names show alone).
    const key = (e: { name: string; mode: string }) => Buffer.from(e.name + ((parseInt(e.mode, 8) & 0o170000) === 0o040000 ? '/' : '\0'));
    const list = sort ? [...entries].sort((x, y) => Buffer.compare(key(x), key(y))) : entries;
    const oid = hashObject(repo, 'tree', rawTree(list.map((e) => ({ ...e, oid: oidFor(e.mode, blob) }))));
    written.set(oid, list);
  }
  const expected = fsckIds(repo);
  const store = await ObjectStore.discover(repo);
  const seen = new Set<string>();
  for (const [oid, list] of written) {
    const mine = (await store.objects.readRawTree(oid)).fsckIds();
    const theirs = [...(expected.get(oid) ?? [])];
    assert.equal([...mine].sort(), theirs.sort(), `tree ${oid}: ${JSON.stringify(list)}`);
    for (const id of mine) seen.add(id);
  }
  // (nullSha1 is the crafted case below: the random trees point at real objects.)
  for (const id of ['duplicateEntries', 'treeNotSorted', 'badFilemode', 'zeroPaddedFilemode', 'fullPathname', 'hasDot', 'hasDotdot', 'hasDotgit', 'gitmodulesSymlink', 'gitattributesSymlink', 'gitignoreSymlink', 'mailmapSymlink']) {
    assert.ok(seen.has(id), `${id} was exercised`);
  }
});

test('crafted trees the issue names: what git fsck says of each, and what is recorded', async () => {
  const repo = initRepo();
  const evil = git(repo, ['hash-object', '-w', '--stdin'], { input: 'evil\n' }).trim();
  const good = git(repo, ['hash-object', '-w', '--stdin'], { input: 'good\n' }).trim();
  const cases: [string, { mode: string; name: string; oid: string }[], string[]][] = [
    ['a name twice, the evil copy first', [{ mode: '100644', name: 'base.json', oid: evil }, { mode: '100644', name: 'base.json', oid: good }], ['duplicateEntries']],
    ['a file and a directory of one name, apart', [{ mode: '100644', name: 'foo', oid: good }, { mode: '100644', name: 'foo.bar', oid: good }, { mode: '40000', name: 'foo', oid: EMPTY_TREE }], ['duplicateEntries']],
    ['out of order', [{ mode: '100644', name: 'b', oid: good }, { mode: '100644', name: 'a', oid: good }], ['treeNotSorted']],
    ['a bad mode', [{ mode: '100600', name: 'a', oid: good }], ['badFilemode']],
    ['a zero-padded directory mode', [{ mode: '040000', name: 'd', oid: EMPTY_TREE }], ['zeroPaddedFilemode']],
    ['the legacy 100664', [{ mode: '100664', name: 'a', oid: good }], []],
    ['a null oid', [{ mode: '160000', name: 'm', oid: '0'.repeat(40) }], ['nullSha1']],
  ];
  const oids = cases.map(([, entries]) => hashObject(repo, 'tree', rawTree(entries)));
  const expected = fsckIds(repo);
  const store = await ObjectStore.discover(repo);
  for (const [k, [what, , ids]] of cases.entries()) {
    const theirs = [...(expected.get(oids[k]!) ?? [])].sort();
    assert.equal(theirs, [...ids].sort(), `git fsck on ${what}`);
    assert.equal((await store.objects.readRawTree(oids[k]!)).fsckIds().sort(), theirs, `recorded for ${what}`);
  }
});

test('an empty name: git cannot read the tree at all (badTree); it is read here and recorded as emptyName', async () => {
  const repo = initRepo();
  const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: 'x\n' }).trim();
  const oid = hashObject(repo, 'tree', rawTree([{ mode: '100644', name: '', oid: blob }]));
  assert.ok(fsckIds(repo).get(oid)?.has('badTree'), 'git fsck: badTree');
  const store = await ObjectStore.discover(repo);
  assert.equal((await store.objects.readRawTree(oid)).fsckIds(), ['emptyName']);
});

test.run();
