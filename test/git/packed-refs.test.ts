// Looking one ref up in packed-refs searches the text instead of building maps of every ref;
// it must answer exactly as the maps do (the last line naming a ref wins, peel and comment
// lines never match, a malformed line anywhere is an error) and as git itself does.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { RefReader } from '../../src/git/refs';
import { GitReadError } from '../../src/git/types';
import { commit } from './helpers';
import { cleanupTempDirs, git, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

const NAMES = ['refs/heads/a', 'refs/heads/x/refs/heads/a', 'refs/tags/v1', 'refs/heads/main', 'refs/heads/caf\u00e9', 'refs/heads/a b'];
const OIDS = ['1', '2', '3', 'a', 'f'].map((c) => c.repeat(40));

test('packed-refs lookups equal the full parse on random files', () => {
  const dir = tempDir();
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          fc.record({ kind: fc.constant('ref' as const), name: fc.constantFrom(...NAMES), oid: fc.constantFrom(...OIDS) }),
          fc.record({ kind: fc.constant('peel' as const), name: fc.constant(''), oid: fc.constantFrom(...OIDS) }),
          fc.record({ kind: fc.constant('comment' as const), name: fc.constantFrom(...NAMES), oid: fc.constantFrom(...OIDS) }),
        ),
        { maxLength: 12 },
      ),
      fc.boolean(),
      (lines, trailingNewline) => {
        const text = lines.map((l) => (l.kind === 'ref' ? `${l.oid} ${l.name}` : l.kind === 'peel' ? `^${l.oid}` : `# ${l.oid} ${l.name}`)).join('\n');
        writeFileSync(join(dir, 'packed-refs'), text + (trailingNewline && text !== '' ? '\n' : ''));
        const expected = new Map<string, string>();
        for (const l of lines) if (l.kind === 'ref') expected.set(l.name, l.oid);
        const reader = new RefReader(dir, dir);
        for (const name of NAMES) {
          const raw = reader.readRaw(name);
          const want = expected.get(name);
          if (name.includes(' ')) assert.is(raw, null, 'an invalid name is never looked up');
          else assert.equal(raw, want ? { oid: want } : null, name);
        }
      },
    ),
    { seed: 20261129, numRuns: 300 },
  );
});

test('a malformed line anywhere fails a lookup of any ref', () => {
  const dir = tempDir();
  writeFileSync(join(dir, 'packed-refs'), `${'1'.repeat(40)} refs/heads/main\nnot a ref line\n`);
  assert.throws(() => new RefReader(dir, dir).readRaw('refs/heads/main'), (e: unknown) => e instanceof GitReadError && /malformed line/.test((e as Error).message));
  writeFileSync(join(dir, 'packed-refs'), `${'1'.repeat(40)} refs/heads/main\r\n`);
  assert.throws(() => new RefReader(dir, dir).readRaw('refs/heads/main'), (e: unknown) => e instanceof GitReadError);
});

test('packed refs resolve as git rev-parse resolves them', () => {
  const repo = initRepo();
  commit(repo, { 'a.txt': 'a\n' });
  for (const name of ['b', 'c/d', 'e']) git(repo, ['branch', name]);
  git(repo, ['tag', '-a', '-m', 't', 'v1']);
  commit(repo, { 'a.txt': 'b\n' });
  git(repo, ['branch', 'f']);
  git(repo, ['pack-refs', '--all']);
  const reader = new RefReader(join(repo, '.git'), join(repo, '.git'));
  for (const ref of ['refs/heads/b', 'refs/heads/c/d', 'refs/heads/e', 'refs/heads/f', 'refs/tags/v1', 'refs/heads/main']) {
    assert.is(reader.resolveFull(ref), git(repo, ['rev-parse', ref]).trim(), ref);
  }
  assert.is(reader.resolveFull('refs/heads/nope'), null);
  // A name git cannot have as a file (longer than the system allows) is no absent ref: reading it
  // fails, and says so, rather than reading as "not there" (a new ref).
  const long = `refs/heads/${'a'.repeat(10_000)}`;
  assert.throws(() => reader.readRaw(long), (e: unknown) => e instanceof GitReadError && /Cannot read the ref .*ENAMETOOLONG/.test((e as Error).message));
  // A ref below a file (refs/heads/b is a file, refs/heads/b/x cannot exist) is absent.
  assert.is(reader.readRaw('refs/heads/main/x'), null);
});

test('read through the loose listing (a push of many refs): the same answers as git, also for a name too long for a file and for refs in a folder reached by a symbolic link', () => {
  const repo = initRepo();
  const old = commit(repo, { 'a.txt': 'a\n' });
  const next = commit(repo, { 'a.txt': 'b\n' });
  git(repo, ['branch', 'kept/x', old]);
  git(repo, ['pack-refs', '--all']);
  // A loose ref newer than its packed line, in a folder that is a symbolic link (git follows it).
  const gitdir = join(repo, '.git');
  mkdirSync(join(gitdir, 'elsewhere'));
  writeFileSync(join(gitdir, 'elsewhere', 'x'), `${next}\n`);
  rmSync(join(gitdir, 'refs', 'heads', 'kept'), { recursive: true, force: true });
  symlinkSync(join(gitdir, 'elsewhere'), join(gitdir, 'refs', 'heads', 'kept'));
  assert.is(git(repo, ['rev-parse', 'refs/heads/kept/x']).trim(), next, 'git reads the loose ref through the link');
  const reader = new RefReader(gitdir, gitdir);
  reader.distinctOids([]);
  const done = reader.useLooseListing();
  try {
    assert.is(reader.resolveFull('refs/heads/kept/x'), next);
    const long = `refs/heads/${'a'.repeat(10_000)}`;
    assert.throws(() => reader.readRaw(long), (e: unknown) => e instanceof GitReadError && /Cannot read the ref .*ENAMETOOLONG/.test((e as Error).message));
  } finally {
    done();
  }
});

test.run();
