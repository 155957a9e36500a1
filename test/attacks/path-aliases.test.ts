// Attack: a name git keeps apart from a protected path but a macOS or Windows checkout writes
// onto it — case, Unicode case folding and NFC, the code points HFS+ ignores, what Win32 drops
// (trailing dots and spaces, NTFS streams such as `::$DATA`), NTFS 8.3 short names — and the
// look-alikes no filesystem folds, which stay ordinary paths (docs/contract.md §6, "Aliases").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { accept, ALICE, arenaPerFile, assertClosed, BOB, commitAll, POLICY, push, serverFile, write } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

test('names a checkout writes onto protected files are protected files', () => {
  const r = arena();
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
    gitValue(r.work, ['checkout', '-q', '-f', '-B', 'topic', 'origin/main']);
    write(r.work, path, '{"orders": [{"amount": -1}]}\n');
    commitAll(r.work, `alias ${path}`);
    assertClosed(r, push(r.work, ['origin', '+topic'], BOB), 'PATH_PROTECTED', path);
  }
});

test('more spellings: a trailing space or dot, Kelvin sign, long s, U+200D and U+FEFF, a stream of a file', () => {
  const r = arena();
  const before = serverFile(r, 'freeze.json');
  const aliases = [
    'fixtures/orders/base.json:evil', // an NTFS alternate stream of the file
    'fixtures /orders/base.json', // Win32 drops the trailing space
    'FIXTURES/ORDERS/BASE.JSON',
    'checks/manifest.json.', // trailing dot on the file itself
    'observations/obs-1.json::$DATA',
    '.github/workflows/\u212a.yml', // Kelvin sign folds to k: still below .github/workflows
    'fixtures\u200d/x.json', // U+200D
    'fixtures\ufeff/x.json', // U+FEFF
    '.gitattribute\u017f', // long s folds to s: .gitattributes
    'src/.GitAttributes', // **/.gitattributes, in any case
  ];
  for (const path of aliases) {
    gitValue(r.work, ['checkout', '-q', '-f', '-B', 'topic', 'origin/main']);
    write(r.work, path, '{}\n');
    commitAll(r.work, `alias ${path}`);
    assertClosed(r, push(r.work, ['origin', '+topic:main'], BOB), 'PATH_PROTECTED', path);
  }
  assert.is(serverFile(r, 'freeze.json'), before);
});

test('look-alikes no filesystem folds stay ordinary paths: dotless i, fullwidth letters', () => {
  const r = arena();
  for (const path of ['f\u0131xtures/orders/base.json', '\uff46ixtures/orders/base.json', 'src/backup~1', 'docs/fixtures.md']) {
    gitValue(r.work, ['checkout', '-q', '-f', '-B', 'topic', 'origin/main']);
    write(r.work, path, 'x\n');
    commitAll(r.work, `look-alike ${path}`);
    accept(r, push(r.work, ['origin', '+topic'], BOB));
  }
});

test('case variants of a protected path are protected', () => {
  const r = arena();
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/variants', 'origin/main']);
  write(r.work, 'Fixtures/orders/base.json', '{"orders": [2]}\n');
  write(r.work, 'FREEZE.JSON', '{}\n');
  commitAll(r.work, 'variants');
  const result = push(r.work, ['origin', 'feature/variants'], BOB);
  const m = assertClosed(r, result, 'PATH_PROTECTED', 'Fixtures/orders/base.json');
  assert.ok(m.blocked_paths.includes('FREEZE.JSON'), result.stderr);
});

// Last: it changes main's policy for the tests after it.
test('a Unicode-decomposed variant of a protected folder is protected', () => {
  const r = arena();
  // Protect a folder with a precomposed name, then push its decomposed spelling.
  const policy = { ...POLICY, protected: [...POLICY.protected, 'r\u00e9sultats/**'] };
  write(r.work, '.receipt-gate.json', `${JSON.stringify(policy, null, 2)}\n`);
  commitAll(r.work, 'protect résultats');
  accept(r, push(r.work, ['origin', 'HEAD:main'], ALICE));
  gitValue(r.work, ['checkout', '-q', '-B', 'feature/nfd', 'HEAD']);
  write(r.work, 're\u0301sultats/x.json', '{}\n');
  commitAll(r.work, 'nfd');
  assertClosed(r, push(r.work, ['origin', 'feature/nfd'], BOB), 'PATH_PROTECTED', 're\u0301sultats/x.json');
});

test.run();
