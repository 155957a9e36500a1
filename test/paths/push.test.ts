// Which file a pushed path names, end to end: real `git push` into a bare repository with the
// installed hook. Symlinks over protected folders, names a macOS or Windows checkout writes
// onto protected files (case, Unicode, Win32 trimming, NTFS streams, 8.3 short names), the
// look-alikes that stay apart, and policy globs the gate refuses.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { commitAll, git, machine, POLICY, push, refOid, type Remote, remotePerTest, write } from '../server/helpers';

const BOB = { REMOTE_USER: 'bob' };
const ALICE = { REMOTE_USER: 'alice' };

let r: Remote;
remotePerTest(test, 'paths', (remote) => {
  r = remote;
  git(r.work, ['checkout', '-q', '-b', 'topic']);
});

function symlink(target: string, path: string): void {
  const full = join(r.work, path);
  mkdirSync(dirname(full), { recursive: true });
  rmSync(full, { force: true, recursive: true });
  symlinkSync(target, full);
}

function rejected(result: ReturnType<typeof push>, code: string, path: string): void {
  assert.is.not(result.status, 0, `push should be rejected:\n${result.stderr}`);
  const m = machine(result);
  assert.is(m.verdict, 'closed', result.stderr);
  assert.ok(
    m.findings.some((f) => f.code === code && f.path === path),
    `expected ${code} on ${path} in:\n${result.stderr}`,
  );
}

function accepted(result: ReturnType<typeof push>): void {
  assert.is(result.status, 0, `push should be accepted:\n${result.stderr}`);
}

test('a symlink over a protected folder is a touch of it: tools, .github, fixtures/README.md', () => {
  write(r.work, 'src/tools/patch_receipt.py', 'print("patched")\n');
  symlink('src/tools', 'tools');
  commitAll(r.work, 'tools through a symlink');
  rejected(push(r.work, ['origin', 'topic'], BOB), 'PATH_PROTECTED', 'tools');

  git(r.work, ['reset', '-q', '--hard', 'origin/main']);
  write(r.work, 'ci/workflows/evil.yml', 'on: push\n');
  symlink('ci', '.github');
  commitAll(r.work, 'workflows through a symlink');
  rejected(push(r.work, ['origin', 'topic'], BOB), 'PATH_PROTECTED', '.github');

  // fixtures/README.md is under the exception fixtures/**/*.md, but an exception never covers a
  // symlink: fixtures/README.md/orders/base.json would exist in every checkout.
  git(r.work, ['reset', '-q', '--hard', 'origin/main']);
  write(r.work, 'src/fake/orders/base.json', '{"orders": [{"amount": -1}]}\n');
  symlink('../src/fake', 'fixtures/README.md');
  commitAll(r.work, 'a symlink under an exception');
  rejected(push(r.work, ['origin', 'topic'], BOB), 'PATH_PROTECTED', 'fixtures/README.md');
  assert.is(refOid(r.bare, 'refs/heads/topic'), null);

  // The owner may; and a non-owner may edit the excepted file as a regular file.
  accepted(push(r.work, ['origin', 'topic'], ALICE));
  git(r.work, ['reset', '-q', '--hard', 'origin/main']);
  write(r.work, 'fixtures/README.md', 'More notes.\n');
  commitAll(r.work, 'notes');
  accepted(push(r.work, ['origin', '+topic'], BOB));
});

test('names a checkout writes onto protected files are protected files', () => {
  const aliases = [
    'Fixtures/orders/base.json',
    '\ufb01xtures/orders/base.json', // ﬁ ligature (full case folding)
    'fixtures./orders/base.json', // Win32 drops the trailing dot
    'fixtures::$INDEX_ALLOCATION/orders/base.json', // an NTFS stream of the folder
    'fix\u200ctures/orders/base.json', // HFS+ ignores U+200C
    'FIXTUR~1/orders/base.json', // NTFS 8.3 short name of fixtures
    'FREEZE~1.JSO', // ... of freeze.json
    'freeze.json::$DATA',
    'tools/PATCH_RECEIPT.PY',
    '.GitHub/Workflows/ci.yml',
  ];
  for (const path of aliases) {
    git(r.work, ['reset', '-q', '--hard', 'origin/main']);
    write(r.work, path, '{"orders": [{"amount": -1}]}\n');
    commitAll(r.work, `alias ${path}`);
    rejected(push(r.work, ['origin', '+topic'], BOB), 'PATH_PROTECTED', path);
  }
});

test('look-alikes no filesystem folds stay ordinary paths: dotless i, fullwidth letters', () => {
  for (const path of ['f\u0131xtures/orders/base.json', '\uff46ixtures/orders/base.json', 'src/backup~1', 'docs/fixtures.md']) {
    git(r.work, ['reset', '-q', '--hard', 'origin/main']);
    write(r.work, path, 'x\n');
    commitAll(r.work, `look-alike ${path}`);
    accepted(push(r.work, ['origin', '+topic'], BOB));
  }
});

test('a policy whose globs the gate refuses is POLICY_INVALID, naming the glob and its index', () => {
  const bad = { ...POLICY, protected: [...POLICY.protected, 'data/*.{json,yaml', '+(a|aa)*(b)'] };
  write(r.work, '.receipt-gate.json', `${JSON.stringify(bad, null, 2)}\n`);
  commitAll(r.work, 'policy with unusable globs');
  const result = push(r.work, ['origin', 'topic:main'], ALICE);
  assert.is.not(result.status, 0, result.stderr);
  const text = result.remote.join('\n');
  const n = POLICY.protected.length;
  assert.match(text, `/protected/${n}: "data/*.{json,yaml" is not a usable glob`);
  assert.match(text, `/protected/${n + 1}: "+(a|aa)*(b)" is not a usable glob`);
  assert.ok(machine(result).findings.some((f) => f.code === 'POLICY_INVALID'), text);
});

test.run();
