// compileProtection (src/protection.ts): aliases a checkout writes onto protected files (case,
// Unicode, Win32 trimming, NTFS streams, 8.3 short names), symlinks over protected folders, and
// exceptions that never cover a symlink or the policy, pin, manifest and freeze file.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { compileProtection } from '../../src/protection';
import { parsePolicy } from '../../src/evidence/policy';
import type { Policy } from '../../src/evidence/types';
import type { PathChange } from '../../src/git/types';
import { shortNameMayStandFor, shortNameOf } from '../../src/paths';
import { Deadline, DeadlineExceeded } from '../../src/deadline';
import { POLICY } from '../helpers/repo';

function policy(overrides: Record<string, unknown> = {}): Policy {
  const parsed = parsePolicy(Buffer.from(JSON.stringify({ ...POLICY, ...overrides })));
  if (!parsed.ok) throw new Error(JSON.stringify(parsed.findings));
  return parsed.policy;
}

const spec = compileProtection(policy());

test('aliases of protected files are protected, by the glob that protects the file', () => {
  const cases: [string, string][] = [
    ['Fixtures/orders/base.json', 'fixtures/**'],
    ['\ufb01xtures/orders/base.json', 'fixtures/**'],
    ['fixtures./orders/base.json', 'fixtures/**'],
    ['fixtures /orders/base.json', 'fixtures/**'],
    ['fixtures::$INDEX_ALLOCATION/orders/base.json', 'fixtures/**'],
    ['fix\u200ctures/orders/base.json', 'fixtures/**'],
    ['FREEZE.JSON', 'freeze.json'],
    ['freeze.json::$DATA', 'freeze.json'],
    ['freeze.json.', 'freeze.json'],
    ['tools/PATCH_RECEIPT.PY', 'tools/patch_receipt.py'],
    ['.GitHub/Workflows/ci.yml', '.github/workflows/**'],
    ['.receipt-gate.json:x', '.receipt-gate.json'],
    ['src/.GITATTRIBUTES', '**/.gitattributes'],
  ];
  for (const [path, by] of cases) assert.is(spec.protectedBy(path), by, path);
});

test('look-alikes that no filesystem folds stay free', () => {
  for (const path of ['f\u0131xtures/orders/base.json', '\uff46ixtures/orders/base.json', 'fixtures\uff0fx', 'freeze.json.bak', 'fixturesx/a', 'src/fixtures/a']) {
    assert.is(spec.protectedBy(path), null, path);
  }
});

test('8.3 short names: the shape, and which long names they may stand for', () => {
  assert.equal(shortNameOf('fixtur~1'), { segment: 'fixtur~1', base: 'fixtur', ext: '', hashed: false });
  assert.equal(shortNameOf('freeze~1.jso'), { segment: 'freeze~1.jso', base: 'freeze', ext: 'jso', hashed: false });
  assert.ok(shortNameOf('git~1'));
  assert.ok(shortNameOf('fi3a2b~1')!.hashed);
  for (const notShort of ['fixtures', 'fixture~', 'fixtur~x', 'fixture~1', 'a~1.json', '~1', 'fix.tu~1', 'ab cd~1', 'fixtur~12']) {
    assert.is(shortNameOf(notShort), null, notShort);
  }
  const stands = (short: string, long: string) => shortNameMayStandFor(shortNameOf(short)!, long);
  assert.ok(stands('fixtur~1', 'fixtures'));
  assert.ok(stands('fixtur~2', 'fixtures-old'));
  assert.ok(stands('freeze~1.jso', 'freeze.json'));
  assert.ok(stands('github~1', '.github')); // leading dots are dropped
  assert.ok(stands('gitatt~1', '.gitattributes'));
  assert.ok(stands('my_fil~1.txt', 'my+file.txt')); // `_` stands for a character a short name cannot hold
  assert.ok(stands('fi3a2b~1', 'fixtures')); // hashed: two characters and a hash
  assert.not.ok(stands('fixtur~1', 'fixtu'));
  assert.not.ok(stands('fixtur~1', 'fixing'));
  assert.not.ok(stands('freeze~1.jso', 'freeze.txt'));
  assert.not.ok(stands('freeze~1.jso', 'freeze'));
  assert.not.ok(stands('fi3a2b~1', 'other'));

});

test('short names alias protected files and folders; ordinary names with a tilde do not', () => {
  const cases: [string, string | null][] = [
    ['FIXTUR~1/orders/base.json', 'fixtures/**'],
    ['fixtur~1/ORDERS~1/base.json', 'fixtures/**'],
    ['FREEZE~1.JSO', 'freeze.json'],
    ['freeze~1.jso', 'freeze.json'],
    ['FREEZE~2.JSO', 'freeze.json'],
    ['GITHUB~1/workflows/ci.yml', '.github/workflows/**'],
    ['.github/WORKFL~1/ci.yml', '.github/workflows/**'],
    ['TOOLS/PATCH_~1.PY', 'tools/patch_receipt.py'],
    ['src/GITATT~1', '**/.gitattributes'],
    ['RECEIP~1.JSO', '.receipt-gate.json'],
    ['FREEZE~1.TXT', null], // another extension
    ['FIXTUR~1.MD', null], // a file named like a folder's short name, with an extension no glob protects
    ['src/backup~1', null],
    ['src/file~1.ts', null],
    ['fixtures~/x', null],
  ];
  for (const [path, by] of cases) assert.is(spec.protectedBy(path), by, path);
  // An exception never frees a path through a short name (it may stand for a protected name).
  assert.is(spec.protectedBy('fixtures/README~1.MD'), 'fixtures/**');
  assert.is(spec.protectedBy('fixtures/README.md'), null);
});

test('symlinks: at a protected path, or over a folder a protected glob reaches below, whatever the exceptions say', () => {
  const p = compileProtection(policy({ protected: ['fixtures/**', 'tools/patch_receipt.py', '.github/workflows/**', 'freeze.json'] }));
  const cases: [string, string | null][] = [
    ['tools', 'tools/patch_receipt.py'],
    ['.github', '.github/workflows/**'],
    ['.github/workflows', '.github/workflows/**'],
    ['fixtures', 'fixtures/**'],
    ['fixtures/README.md', 'fixtures/**'], // under the exception fixtures/**/*.md
    ['fixtures/notes', 'fixtures/**'],
    ['TOOLS', 'tools/patch_receipt.py'],
    ['TOOLS~1', 'tools/patch_receipt.py'],
    ['freeze.json', 'freeze.json'],
    ['tools/patch_receipt.py', 'tools/patch_receipt.py'],
    ['tools/other.py', null],
    ['src/tools', null],
    ['ci', null],
    ['docs/link', null],
  ];
  for (const [path, by] of cases) assert.is(p.protectedBy(path, 'symlink'), by, path);
  // A gitlink (submodule) at those paths is judged as the symlink is: `git clone
  // --recurse-submodules` writes the submodule's files below it.
  for (const [path, by] of cases) assert.is(p.protectedBy(path, 'gitlink'), by, `gitlink ${path}`);
  assert.match(p.explain('tools', 'gitlink').alias ?? '', /submodule \(gitlink\) at tools/);
  // The same paths as regular files are judged by the globs and exceptions alone.
  assert.is(p.protectedBy('tools', 'file'), null);
  assert.is(p.protectedBy('fixtures/README.md', 'file'), null);
  assert.is(p.protectedBy('fixtures/README.md'), null);
  const why = p.explain('tools', 'symlink');
  assert.is(why.by, 'tools/patch_receipt.py');
  assert.match(why.alias ?? '', /symlink/);
});

test('a glob that starts with ** makes a symlink a touch only where the rest of it could begin at the symlink', () => {
  // `**/.gitattributes` matches the real path of whatever a symlink to a folder exposes, so a
  // symlink to a folder is not itself a touch of it; one named .gitattributes is.
  assert.is(spec.protectedBy('src/lib', 'symlink'), null);
  assert.is(spec.protectedBy('src/.gitattributes', 'symlink'), '**/.gitattributes');
  const deep = compileProtection(policy({ protected: ['**/fixtures/**'] }));
  assert.is(deep.protectedBy('a/fixtures', 'symlink'), '**/fixtures/**');
  assert.is(deep.protectedBy('a/b', 'symlink'), null);
  const narrow = compileProtection(policy({ protected: ['fixtures/**'] }));
  assert.is(narrow.protectedBy('src/lib', 'symlink'), null);
  assert.is(narrow.protectedBy('fixtures', 'symlink'), 'fixtures/**');
});

test('protectedByChange judges the entry on both sides (adding, deleting, or retyping a symlink)', () => {
  const p = compileProtection(policy({ protected: ['tools/patch_receipt.py'] }));
  const link = { mode: '120000', kind: 'symlink' as const, oid: 'a'.repeat(40) };
  const tree = { mode: '40000', kind: 'tree' as const, oid: 'b'.repeat(40) };
  const file = { mode: '100644', kind: 'file' as const, oid: 'c'.repeat(40) };
  const changes: [PathChange, string | null][] = [
    [{ path: 'tools', change: 'add', after: link, unsafe: false }, 'tools/patch_receipt.py'],
    [{ path: 'tools', change: 'delete', before: link, unsafe: false }, 'tools/patch_receipt.py'],
    [{ path: 'tools', change: 'type', before: link, after: file, unsafe: false }, 'tools/patch_receipt.py'],
    [{ path: 'tools', change: 'type', before: tree, after: link, unsafe: false }, 'tools/patch_receipt.py'],
    [{ path: 'tools', change: 'add', after: file, unsafe: false }, null],
    [{ path: 'src/x', change: 'add', after: link, unsafe: false }, null],
  ];
  for (const [change, by] of changes) assert.is(p.protectedByChange(change), by, `${change.change} ${change.path}`);
});

test('the policy, pin, manifest and freeze file are never excepted; other exceptions open their paths', () => {
  const p = compileProtection(policy({ exceptions: ['fixtures/**/*.md', 'fixtures/EPOCH', 'freeze.json', '.receipt-gate.json', 'checks/**'] }));
  assert.is(p.protectedBy('fixtures/notes/README.md'), null);
  assert.is(p.explain('fixtures/notes/README.md').excepted, 'fixtures/**/*.md');
  assert.is(p.protectedBy('fixtures/EPOCH'), 'fixtures/EPOCH');
  assert.is(p.protectedBy('FIXTURES/epoch.'), 'fixtures/EPOCH');
  assert.is(p.protectedBy('freeze.json'), 'freeze.json');
  assert.is(p.protectedBy('.receipt-gate.json'), '.receipt-gate.json');
  assert.is(p.protectedBy('checks/manifest.json'), 'checks/manifest.json');
  assert.is(p.protectedBy('checks/other.txt'), null);
  const empty = compileProtection(policy({ protected: [], exceptions: [] }));
  assert.is(empty.protectedBy('.Receipt-Gate.JSON'), '.receipt-gate.json');
  assert.is(empty.protectedBy('src/a.ts'), null);
});

test('explain gives the folded key, the rule, the exception and the alias', () => {
  assert.equal(spec.explain('Fixtures./A.json'), { path: 'Fixtures./A.json', folded: 'fixtures/a.json', by: 'fixtures/**', excepted: null });
  const short = spec.explain('FIXTUR~1/a.json');
  assert.is(short.by, 'fixtures/**');
  assert.match(short.alias ?? '', /8\.3 short name/);
  assert.equal(spec.explain('src/a.ts'), { path: 'src/a.ts', folded: 'src/a.ts', by: null, excepted: null });
});

test('the deadline is checked while matching', () => {
  let now = 0;
  const deadline = new Deadline(10, 10, () => now);
  const p = compileProtection(policy(), { deadline });
  for (let i = 0; i < 100; i++) p.protectedBy(`src/${i}.ts`);
  now = 11;
  assert.throws(() => {
    for (let i = 0; i < 1000; i++) p.protectedBy(`src/${i}.ts`);
  }, (err: unknown) => err instanceof DeadlineExceeded);
});

test.run();
