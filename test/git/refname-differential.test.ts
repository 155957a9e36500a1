// Ref names are bytes. Differential tests against git itself:
//   - checkRefnameFormat (git's check_refname_format, ported) against `git check-ref-format`,
//     with and without --allow-onelevel and --refspec-pattern, on byte names drawn from the
//     bytes that matter (., /, @, {, *, controls, DEL, 0x80-0xff, UTF-8 sequences, `.lock`);
//     one bash process runs git once per name (NUL-separated input), so any byte reaches git;
//   - protectedRefs matching on byte names against `git for-each-ref PATTERN` (ref-filter's
//     wildmatch with WM_PATHNAME, git's own ref matching), and the store's listing of byte
//     names against `git for-each-ref`, on loose and on packed refs.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { baseEnv, cleanup } from '../server/helpers';
import { checkRefnameFormat } from '../../src/git/refs';
import { ObjectStore } from '../../src/git/store';
import { refMatcher } from '../../src/matchers';
import { refNameFromLatin1, refNameLatin1 } from '../../src/git/refname';
import { gitValue, tempDir } from '../helpers/git';

const SEED = 20261201;

/** Byte strings (one char per byte) built from the pieces check_refname_format cares about. */
const PIECES = ['a', 'b', 'Z', '0', '.', '..', '/', '//', '@', '@{', '{', '}', '*', '-', '_', '.lock', 'lock', ' ', '\t', '\x01', '\x1f', '\x7f', '~', '^', ':', '?', '[', '\\', '\x80', '\xff', '\xc2\xa0', '\xe2\x80\xae', '\xf0\x9f\x98\x80', 'refs', 'heads'];
const byteName = fc.array(fc.constantFrom(...PIECES), { minLength: 1, maxLength: 8 }).map((parts) => parts.join(''));
const prefixed = fc.tuple(fc.constantFrom('', 'refs/', 'refs/heads/', 'refs/tags/'), byteName).map(([p, n]) => p + n);

/** git check-ref-format's answer (0 accepts) for each name, in one bash process. */
function gitAccepts(names: string[], flags: string[]): boolean[] {
  const input = Buffer.concat(names.map((n) => Buffer.concat([Buffer.from(n, 'latin1'), Buffer.from([0])])));
  const script = `while IFS= read -r -d '' n; do if git check-ref-format ${flags.join(' ')} "$n"; then printf 1; else printf 0; fi; done`;
  const out = execFileSync('bash', ['-c', script], { input, env: baseEnv(), encoding: 'latin1' });
  assert.is(out.length, names.length, 'one answer per name');
  return [...out].map((c) => c === '1');
}

test('checkRefnameFormat agrees with git check-ref-format on byte names (seeded)', () => {
  const names = fc.sample(fc.oneof(byteName, prefixed), { seed: SEED, numRuns: 400 });
  // Names git's argv cannot carry (a NUL) are tested apart: git never sees one in a ref name.
  const usable = [...new Set(names)].filter((n) => !n.includes('\0') && !n.startsWith('-'));
  for (const [flags, ours] of [
    [[], (n: string) => checkRefnameFormat(n)],
    [['--allow-onelevel'], (n: string) => checkRefnameFormat(n, { allowOnelevel: true })],
    [['--refspec-pattern'], (n: string) => checkRefnameFormat(n, { refspecPattern: true })],
  ] as const) {
    const theirs = gitAccepts(usable, [...flags]);
    const differ = usable.filter((n, i) => ours(n) !== theirs[i]);
    assert.equal(differ.map((n) => JSON.stringify(n)), [], `disagreements with git check-ref-format ${flags.join(' ')}`);
  }
  // The sample is not all accepted or all refused.
  const verdicts = gitAccepts(usable, []);
  assert.ok(verdicts.filter(Boolean).length > 20 && verdicts.filter((v) => !v).length > 20, `${verdicts.filter(Boolean).length} of ${usable.length} accepted`);
  assert.is(checkRefnameFormat('refs/heads/a\0b'), false, 'a NUL is never part of a name git accepts');
});

test('protectedRefs on byte names agree with git for-each-ref patterns; the store lists byte names as git does (loose and packed)', async () => {
  const root = tempDir('refname-diff');
  try {
    const bare = join(root, 'r.git');
    gitValue(root, ['init', '-q', '--bare', bare]);
    const tree = gitValue(bare, ['hash-object', '-w', '-t', 'tree', '--stdin'], { input: '' });
    const oid = gitValue(bare, ['commit-tree', '-m', 'tip', tree]);
    const component = fc
      .array(fc.constantFrom('a', 'v', '1', '-', '.', '\x80', '\xff', '\xc2\xa0', '\xe2\x80\xae', 'x'), { minLength: 1, maxLength: 4 })
      .map((p) => p.join(''));
    const name = fc
      .tuple(fc.constantFrom('refs/heads/', 'refs/heads/release/', 'refs/tags/', 'refs/heads/release/v\xff/', 'refs/notes/'), fc.array(component, { minLength: 1, maxLength: 2 }))
      .map(([p, cs]) => p + cs.join('/'));
    // Leaves only: no name may be a folder of another (git's D/F rule).
    const all = [...new Set(fc.sample(name, { seed: SEED, numRuns: 120 }))].filter((n) => checkRefnameFormat(n));
    const names = all.filter((n) => !all.some((o) => o !== n && o.startsWith(`${n}/`))).sort();
    const stdin = Buffer.concat(names.map((n) => Buffer.concat([Buffer.from(`create `), Buffer.from(n, 'latin1'), Buffer.from(` ${oid}\n`)])));
    execFileSync('git', ['--git-dir', bare, 'update-ref', '--stdin'], { input: stdin, env: baseEnv() });
    const patterns = ['refs/heads/release/**', 'refs/heads/*', 'refs/tags/v*', 'refs/heads/release/v\u00ff/**', 'refs/heads/*\u00a0*', 'refs/**/x'];
    // argv is bytes for git but UTF-8 for node: the pattern reaches git through printf %b.
    const listed = (pattern?: string): string[] => {
      const hex = pattern === undefined ? '' : [...Buffer.from(pattern, 'latin1')].map((c) => `\\x${c.toString(16).padStart(2, '0')}`).join('');
      const script = pattern === undefined ? 'git for-each-ref --format="%(refname)"' : 'git for-each-ref --format="%(refname)" "$(printf %b "$P")"';
      return execFileSync('bash', ['-c', script], { env: baseEnv({ GIT_DIR: bare, P: hex }), encoding: 'latin1' })
        .split('\n')
        .filter((l) => l !== '');
    };
    for (const packed of [false, true]) {
      if (packed) gitValue(bare, ['pack-refs', '--all']);
      const store = await ObjectStore.open({ gitdir: bare, env: {} });
      assert.equal([...store.refs.list().keys()].map(refNameLatin1), listed(), `the store lists the byte names git lists (${packed ? 'packed' : 'loose'})`);
      for (const n of names) assert.is(store.refs.resolveExact(refNameFromLatin1(n)), oid, JSON.stringify(n));
      store.close();
      for (const pattern of patterns) {
        // The policy holds text; git is given its UTF-8 bytes.
        const gitPattern = Buffer.from(pattern, 'utf8').toString('latin1');
        const theirs = listed(gitPattern);
        // As the run context matches: the pattern's UTF-8 bytes against the name's bytes.
        const ours = names.filter(refMatcher([gitPattern]));
        assert.equal(ours, theirs, `pattern ${JSON.stringify(pattern)} (${packed ? 'packed' : 'loose'})`);
      }
    }
    assert.ok(names.length > 30, `${names.length} names`);
    assert.ok(listed('refs/heads/release/**').some((n) => n.includes('\xff')), 'a protected name that is not UTF-8 is in the sample');
  } finally {
    cleanup(root);
  }
});

test.run();
