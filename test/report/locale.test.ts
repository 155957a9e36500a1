// Output is byte-identical under any locale: findings and paths are ordered by code point, not
// by the collation of LANG/LC_ALL (in Swedish `ä` sorts after `z`, in English before it).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { CLI, guardedRepo } from '../helpers/repo';
import { commitAll, git, GIT_ENV, writeFiles } from '../helpers/git';

const LOCALES = ['sv_SE.UTF-8', 'C', 'en_US.UTF-8', 'de_DE.UTF-8'];

function run(cwd: string, args: string[], locale: string): Buffer {
  const env: NodeJS.ProcessEnv = { ...process.env, ...GIT_ENV, LC_ALL: locale, LANG: locale, LANGUAGE: '' };
  const r = spawnSync(process.execPath, [CLI, ...args], { cwd, env });
  assert.is(r.status, 1, r.stderr.toString());
  return r.stdout;
}

test('verify-ref prints the same bytes under sv_SE, C, en_US and de_DE, in code point order', () => {
  const repo = guardedRepo();
  try {
    git(repo, ['checkout', '-q', '-b', 'feature']);
    writeFiles(repo, { 'fixtures/data/ä.txt': 'a\n', 'fixtures/data/z.txt': 'z\n', 'fixtures/data/a.txt': 'a\n', 'fixtures/data/Ö.txt': 'o\n' });
    commitAll(repo, 'touch');
    for (const format of ['text', 'json', 'sarif', 'github', 'junit']) {
      const outputs = LOCALES.map((l) => run(repo, ['verify-ref', 'feature', '--base', 'main', '--now', '2026-09-10', '--format', format], l));
      for (const [i, out] of outputs.entries()) assert.ok(out.equals(outputs[0]!), `${format} differs under ${LOCALES[i]}`);
    }
    const json = JSON.parse(run(repo, ['verify-ref', 'feature', '--base', 'main', '--now', '2026-09-10', '--json'], 'sv_SE.UTF-8').toString());
    const paths = json.findings.map((f: { path: string }) => f.path);
    // UTF-8 byte order, which is code point order.
    const byBytes = [...paths].sort((a: string, b: string) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    assert.equal(paths, byBytes);
    assert.equal(paths, ['fixtures/data/a.txt', 'fixtures/data/z.txt', 'fixtures/data/Ö.txt', 'fixtures/data/ä.txt']);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('the comparison is by code point beyond the BMP too (U+FF5E before U+1F600)', async () => {
  const { compareCodePoints } = await import('../../src/code-points');
  assert.ok(compareCodePoints('\uff5e', '😀') < 0);
  assert.ok('\uff5e' > '😀', 'UTF-16 code unit order would put them the other way round');
  assert.ok(compareCodePoints('z', 'ä') < 0);
  assert.is(compareCodePoints('a', 'a'), 0);
});

test.run();
