// Attack: tree entries a checkout refuses or writes elsewhere — `.git` in any spelling, `..`,
// a name listed twice (git reads the first copy, a checkout writes the last), entries out of
// git's order, a `.gitmodules` that is a symlink. PATH_UNSAFE for every pusher, owners
// included (docs/contract.md §6, "Trees"). The trees are written byte by byte (hash-object --literally),
// so git's own checks on names are not in the way; receive-pack does not fsck by default.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ALICE, arenaPerFile, assertClosed, BOB, push, serverFile, serverRefs } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

/** A tree object written byte by byte (hash-object --literally), so git's own checks on names
 * are not in the way. */
function literalTree(lines: string[]): string {
  const r = arena();
  const parts: Buffer[] = [];
  const sorted = lines
    .map((l) => {
      const [meta, name] = l.split('\t') as [string, string];
      const [mode, , oid] = meta.split(' ') as [string, string, string];
      return { mode: mode.replace(/^0+/, ''), name, oid };
    })
    .sort((a, b) => Buffer.compare(Buffer.from(a.mode === '40000' ? `${a.name}/` : a.name), Buffer.from(b.mode === '40000' ? `${b.name}/` : b.name)));
  for (const e of sorted) parts.push(Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.oid, 'hex'));
  return rawTreeOf(r, Buffer.concat(parts));
}

/** Writes `bytes` as a tree object as they are (no sorting, no checks). */
function rawTreeOf(r: ReturnType<typeof arena>, bytes: Buffer): string {
  const file = join(r.root, 'tree.bin');
  writeFileSync(file, bytes);
  return gitValue(r.work, ['hash-object', '-w', '-t', 'tree', '--literally', file]);
}

/** Raw tree bytes for entries in the order given. */
function entries(list: { mode: string; name: string; oid: string }[]): Buffer {
  return Buffer.concat(list.flatMap((e) => [Buffer.from(`${e.mode} ${e.name}\0`), Buffer.from(e.oid, 'hex')]));
}

/** main's root tree with its entry `name` replaced (or added) by one of `mode` and `oid`. */
function rootWith(r: ReturnType<typeof arena>, extra: { mode: string; name: string; oid: string }[]): string[] {
  const head = gitValue(r.work, ['rev-parse', 'HEAD^{tree}']);
  const names = new Set(extra.map((e) => e.name));
  const kept = gitValue(r.work, ['ls-tree', head]).split('\n').filter((l) => !names.has(l.split('\t')[1]!));
  return [...kept, ...extra.map((e) => `${e.mode} x ${e.oid}\t${e.name}`)];
}

function pushTree(tree: string, ref: string, who: Record<string, string>) {
  const r = arena();
  const commit = gitValue(r.work, ['commit-tree', tree, '-p', 'HEAD', '-m', 'crafted']);
  return push(r.work, ['origin', `${commit}:${ref}`], who);
}

test('crafted tree entries (.git, ..) made with mktree are rejected for everyone', () => {
  const r = arena();
  const blob = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: '[core]\n\tfsmonitor = evil\n' });
  const bad = gitValue(r.work, ['mktree'], { input: `100644 blob ${blob}\tconfig\n` });
  // git mktree refuses '..' and '.git' names in recent versions; write the tree literally.
  const head = gitValue(r.work, ['rev-parse', 'HEAD^{tree}']);
  const lines = [...gitValue(r.work, ['ls-tree', head]).split('\n'), `040000 tree ${bad}\t.git`, `040000 tree ${bad}\t.GIT`, `040000 tree ${bad}\t..`];
  const treeOid = literalTree(lines);
  const result = pushTree(treeOid, 'refs/heads/feature/crafted', ALICE);
  const m = assertClosed(r, result, 'PATH_UNSAFE');
  const unsafe = m.findings.filter((f) => f.code === 'PATH_UNSAFE').map((f) => f.path ?? '');
  assert.ok(unsafe.some((p) => p.startsWith('.git/')) && unsafe.some((p) => p.startsWith('../')) && unsafe.some((p) => p.startsWith('.GIT/')), result.stderr);
});

test('.git spellings a checkout on NTFS or HFS+ reads as .git: git~1, .git., .g\u200cit', () => {
  const r = arena();
  const blob = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: '[core]\n\thooksPath = /tmp\n' });
  const bad = gitValue(r.work, ['mktree'], { input: `100644 blob ${blob}\tconfig\n` });
  for (const name of ['git~1', '.git.', '.g\u200cit', '.Git ']) {
    const tree = literalTree(rootWith(r, [{ mode: '40000', name, oid: bad }]));
    for (const who of [BOB, ALICE]) {
      const result = pushTree(tree, 'refs/heads/feature/dotgit', who);
      const m = assertClosed(r, result, 'PATH_UNSAFE');
      assert.ok(m.findings.some((f) => f.code === 'PATH_UNSAFE' && (f.path ?? '').startsWith(name)), `${JSON.stringify(name)}:\n${result.stderr}`);
    }
  }
});

test('a name listed twice, and entries out of git\'s order: unsafe for the owner too', () => {
  const r = arena();
  const good = gitValue(r.work, ['rev-parse', 'HEAD:README.md']);
  const evil = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: '# evil\n' });
  const orders = gitValue(r.work, ['rev-parse', 'HEAD:fixtures/orders']);
  const rootOf = (src: Buffer) => literalTree(rootWith(r, [{ mode: '40000', name: 'src', oid: rawTreeOf(r, src) }]));
  // git show reads the first copy of README.md; a checkout writes the last.
  const twice = rootOf(entries([{ mode: '100644', name: 'README.md', oid: good }, { mode: '100644', name: 'README.md', oid: evil }]));
  const unordered = rootOf(entries([{ mode: '100644', name: 'b.py', oid: good }, { mode: '100644', name: 'a.py', oid: evil }]));
  const dirAndFile = rootOf(entries([{ mode: '100644', name: 'orders', oid: evil }, { mode: '40000', name: 'orders', oid: orders }]));
  for (const [tree, why] of [[twice, 'duplicateEntries'], [unordered, 'treeNotSorted'], [dirAndFile, 'duplicateEntries']] as const) {
    const result = pushTree(tree, 'refs/heads/feature/tree', ALICE);
    assertClosed(r, result, 'PATH_UNSAFE');
    assert.match(result.remote.join('\n'), new RegExp(`git fsck: ${why}`), result.stderr);
  }
  assert.is(serverFile(r, 'README.md'), '# orders');
});

test('a .gitmodules that is a symlink, at the root or in a folder', () => {
  const r = arena();
  const target = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: '/etc/passwd' });
  const root = literalTree(rootWith(r, [{ mode: '120000', name: '.gitmodules', oid: target }]));
  const result = pushTree(root, 'refs/heads/feature/modules', ALICE);
  assertClosed(r, result, 'PATH_UNSAFE', '.gitmodules');
  assert.match(result.remote.join('\n'), /gitmodulesSymlink/);
  const sub = rawTreeOf(r, entries([{ mode: '120000', name: '.gitmodules', oid: target }]));
  const nested = literalTree(rootWith(r, [{ mode: '40000', name: 'vendor', oid: sub }]));
  assertClosed(r, pushTree(nested, 'refs/heads/feature/modules', BOB), 'PATH_UNSAFE', 'vendor/.gitmodules');
});


test('in a wide folder on main, a new version that adds .git, repeats a name or adds a directory beside a file of its name is refused; an honest one is accepted', () => {
  const r = arena();
  const blob = gitValue(r.work, ['hash-object', '-w', '--stdin'], { input: 'x\n' });
  const sub = gitValue(r.work, ['mktree'], { input: `100644 blob ${blob}\tconfig\n` });
  const files = Array.from({ length: 120 }, (_, k) => ({ mode: '100644', name: `f${String(k).padStart(3, '0')}`, oid: blob }));
  const folder = (list: { mode: string; name: string; oid: string }[]) => rawTreeOf(r, entries(list));
  const withFolder = (tree: string) => literalTree(rootWith(r, [{ mode: '40000', name: 'wide', oid: tree }]));
  // main gets the wide folder as git writes it (an owner's push; this test is the file's last,
  // as it moves main), so that each crafted version below is read beside it.
  const first = gitValue(r.work, ['commit-tree', withFolder(folder(files)), '-p', 'HEAD', '-m', 'wide folder']);
  const base = push(r.work, ['origin', `${first}:refs/heads/main`], ALICE);
  assert.is(base.status, 0, base.stderr);
  r.refs = serverRefs(r.bare);
  const crafted: [string, { mode: string; name: string; oid: string }[]][] = [
    ['.git', [{ mode: '40000', name: '.git', oid: sub }, ...files]],
    ['f060', [...files.slice(0, 61), files[60]!, ...files.slice(61)]],
    ['f060', [...files.slice(0, 61), { mode: '40000', name: 'f060', oid: sub }, ...files.slice(61)]],
  ];
  for (const [name, list] of crafted) {
    const second = gitValue(r.work, ['commit-tree', withFolder(folder(list)), '-p', first, '-m', 'crafted wide folder']);
    const result = push(r.work, ['origin', `${second}:refs/heads/feature/wide`], ALICE);
    const m = assertClosed(r, result, 'PATH_UNSAFE');
    assert.ok(m.findings.some((f) => f.code === 'PATH_UNSAFE' && (f.path ?? '').startsWith(`wide/${name}`)), result.stderr);
  }
  // The honest second version (one file changed) is accepted.
  const honest = gitValue(r.work, ['commit-tree', withFolder(folder(files.map((f, k) => (k === 60 ? { ...f, oid: sub, mode: '40000' } : f)))), '-p', first, '-m', 'f060 becomes a folder']);
  const ok = push(r.work, ['origin', `${honest}:refs/heads/feature/wide-ok`], ALICE);
  assert.is(ok.status, 0, ok.stderr);
});

test.run();
