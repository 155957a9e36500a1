// quotePath against git itself: names with control characters, ESC, CR, LF, DEL, quotes,
// backslashes and non-ASCII text are committed to real repositories, and what `git ls-files`
// and `git diff --name-only` print (core.quotePath on, git's default) is what quotePath gives.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printable, printableMention, quotePath } from '../../src/quote';
import { GIT_ENV, initRepo } from '../helpers/git';

const SEED = 20261201;

function gitBytes(cwd: string, args: string[]): Buffer {
  return execFileSync('git', ['-c', 'core.quotePath=true', ...args], { cwd, env: { ...process.env, ...GIT_ENV }, maxBuffer: 64 * 1024 * 1024 });
}

/** Characters a file name on Linux may hold (no NUL, no '/'), weighted toward the ones git quotes. */
const nameChar = fc.oneof(
  fc.constantFrom('\x01', '\x07', '\b', '\t', '\n', '\v', '\f', '\r', '\x1b', '\x1f', '\x7f', '"', '\\', ' ', "'", '$', '*', '?'),
  fc.constantFrom('a', 'z', 'A', '0', '.', '-', '_', '~'),
  fc.constantFrom('ä', 'é', 'ſ', 'ﬁ', '\u0085', '\u009b', '\u200e', '\u202e', '\u2028', '\ufeff', '日', '😀'),
);
const segment = fc
  .array(nameChar, { minLength: 1, maxLength: 8 })
  .map((cs) => cs.join(''))
  .filter((s) => s !== '.' && s !== '..' && s !== '.git' && !s.toLowerCase().startsWith('.git'));
const repoPath = fc.array(segment, { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));

test('quotePath is byte-identical to git ls-files and git diff --name-only', () => {
  fc.assert(
    fc.property(fc.uniqueArray(repoPath, { minLength: 1, maxLength: 12 }), (paths) => {
      // A path may not be both a file and a folder of another path.
      const kept = paths.filter((p) => !paths.some((q) => q !== p && (q.startsWith(`${p}/`) || p.startsWith(`${q}/`))));
      const repo = initRepo();
      try {
        execFileSync('git', ['commit', '-q', '--allow-empty', '-m', 'root'], { cwd: repo, env: { ...process.env, ...GIT_ENV } });
        for (const p of kept) {
          mkdirSync(join(repo, ...p.split('/').slice(0, -1)), { recursive: true });
          writeFileSync(join(repo, ...p.split('/')), 'x');
        }
        gitBytes(repo, ['add', '-A']);
        const listed = gitBytes(repo, ['ls-files']).toString('latin1').split('\n').filter(Boolean).sort();
        const diffed = gitBytes(repo, ['diff', '--cached', '--name-only']).toString('latin1').split('\n').filter(Boolean).sort();
        const ours = kept.map((p) => quotePath(p)).sort();
        assert.equal(listed, ours);
        assert.equal(diffed, ours);
        return true;
      } finally {
        rmSync(repo, { recursive: true, force: true });
      }
    }),
    { seed: SEED, numRuns: 25 },
  );
});

test('raw bytes that are not UTF-8 are quoted byte by byte, as git does', () => {
  const repo = initRepo();
  try {
    const name = Buffer.from([0x66, 0xff, 0x0a, 0x80, 0x2e, 0x74]);
    writeFileSync(Buffer.concat([Buffer.from(`${repo}/`), name]), 'x');
    gitBytes(repo, ['add', '-A']);
    const listed = gitBytes(repo, ['ls-files']).toString('latin1').trim();
    assert.is(quotePath(name), listed);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('no quoted or printable text holds a byte that can start a line or steer a terminal', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 40 }), (s) => {
      for (const out of [quotePath(s), printable(s), printableMention(`changes ${s} today`, [s])]) {
        if (/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/.test(out)) return false;
      }
      return true;
    }),
    { seed: SEED, numRuns: 2000 },
  );
});

test('plain names stay unquoted; a mention in a message takes the quoted form', () => {
  assert.is(quotePath('fixtures/orders/base.json'), 'fixtures/orders/base.json');
  assert.is(quotePath('a b/c'), 'a b/c');
  const evil = 'x\nremote: receipt-gate: push accepted: eligible\x1b[2K';
  assert.is(quotePath(evil), '"x\\nremote: receipt-gate: push accepted: eligible\\033[2K"');
  assert.is(printableMention(`adds ${evil} here`, [evil]), `adds ${quotePath(evil)} here`);
});

test.run();
