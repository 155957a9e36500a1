// The index parser against git itself: for indexes git writes (versions 2, 3 and 4, long
// paths, executable bits, symlinks, submodules, intent-to-add, conflicts), the stage-0
// entries must be exactly what `git ls-files --stage` lists.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { execFileSync } from 'node:child_process';
import { lstatSync, mkdtempSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { diffFlatAgainstIndex, flattenTree, indexFilePath, parseIndex, readStagedIndex } from '../../src/git/staged-index';
import { ObjectStore } from '../../src/git/store';
import { GitReadError } from '../../src/git/types';
import { git, GIT_ENV } from '../helpers/git';


function freshRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rg-index-'));
  git(dir, ['init', '-q', '-b', 'main']);
  return dir;
}

/** `git ls-files --stage` as parsed rows (stage 0 only), the independent expectation. */
function gitStage0(dir: string): { mode: string; oid: string; path: string }[] {
  const out = execFileSync('git', ['ls-files', '--stage', '-z'], { cwd: dir, env: GIT_ENV });
  return out
    .toString('utf8')
    .split('\0')
    .filter(Boolean)
    .map((line) => {
      const [meta, path] = line.split('\t') as [string, string];
      const [mode, oid, stage] = meta.split(' ') as [string, string, string];
      return { mode, oid, path, stage };
    })
    .filter((r) => r.stage === '0')
    .map(({ mode, oid, path }) => ({ mode, oid, path }));
}

function lstatOrNull(path: string) {
  try {
    return lstatSync(path);
  } catch {
    return null;
  }
}

function write(dir: string, path: string, content: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), content);
}

function parsedRows(dir: string) {
  return parseIndex(readFileSync(join(dir, '.git', 'index'))).entries.map(({ mode, oid, path }) => ({ mode, oid, path }));
}

test('versions 2, 3 and 4 agree with git ls-files on files, exec bits, symlinks, gitlinks and long paths', () => {
  for (const version of ['2', '3', '4']) {
    const dir = freshRepo();
    try {
      write(dir, 'a.txt', 'a\n');
      write(dir, 'fixtures/orders/base.json', '{}\n');
      write(dir, 'fixtures/orders/base2.json', '{"x":1}\n');
      write(dir, 'tools/run.sh', '#!/bin/sh\n');
      execFileSync('chmod', ['+x', join(dir, 'tools/run.sh')]);
      symlinkSync('a.txt', join(dir, 'link'));
      // Longer than the 12-bit name length field; only the index holds it (no file system would).
      const long = `deep/${'x'.repeat(200)}/${'y/'.repeat(1000)}${'z'.repeat(2200)}.txt`;
      write(dir, 'ünïcode/naïve.json', '1\n');
      git(dir, ['add', '-A']);
      git(dir, ['update-index', '--add', '--cacheinfo', `160000,${'1'.repeat(40)},vendor/sub`]);
      const blob = git(dir, ['hash-object', '-w', 'a.txt']).trim();
      git(dir, ['update-index', '--add', '--cacheinfo', `100644,${blob},${long}`]);
      git(dir, ['update-index', '--index-version', version]);
      if (version === '3') git(dir, ['update-index', '--skip-worktree', 'a.txt']); // forces extended flags
      const index = parseIndex(readFileSync(join(dir, '.git', 'index')));
      assert.is(index.version, Number(version));
      assert.equal(parsedRows(dir), gitStage0(dir));
      assert.ok(index.entries.some((e) => e.kind === 'symlink' && e.path === 'link'));
      assert.ok(index.entries.some((e) => e.kind === 'gitlink' && e.path === 'vendor/sub'));
      assert.ok(index.entries.some((e) => e.kind === 'exec' && e.path === 'tools/run.sh'));
      assert.ok(index.entries.some((e) => e.path === long));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
});

test('intent-to-add entries are not content; conflicts are reported', () => {
  const dir = freshRepo();
  try {
    write(dir, 'x.txt', 'base\n');
    git(dir, ['add', 'x.txt']);
    git(dir, ['commit', '-qm', 'base']);
    git(dir, ['checkout', '-qb', 'side']);
    write(dir, 'x.txt', 'side\n');
    git(dir, ['commit', '-qam', 'side']);
    git(dir, ['checkout', '-q', 'main']);
    write(dir, 'x.txt', 'main\n');
    git(dir, ['commit', '-qam', 'main']);
    try {
      git(dir, ['merge', 'side']);
    } catch {
      // the conflict is the point
    }
    write(dir, 'later.txt', 'later\n');
    git(dir, ['add', '-N', 'later.txt']);
    const index = parseIndex(readFileSync(join(dir, '.git', 'index')));
    assert.equal(index.conflicts, ['x.txt']);
    assert.not.ok(index.entries.some((e) => e.path === 'later.txt'));
    assert.not.ok(index.entries.some((e) => e.path === 'x.txt'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('random trees: the parser lists what git lists (fixed seed)', () => {
  const segment = fc.stringMatching(/^[a-zA-Z0-9_.é-]{1,12}$/).filter((s) => s !== '.' && s !== '..' && s.toLowerCase() !== '.git');
  const pathArb = fc.array(segment, { minLength: 1, maxLength: 4 }).map((parts) => parts.join('/'));
  fc.assert(
    fc.property(
      fc.uniqueArray(pathArb, { minLength: 1, maxLength: 25, selector: (p) => p.toLowerCase() }),
      fc.constantFrom('2', '3', '4'),
      (paths, version) => {
        const dir = freshRepo();
        try {
          // A path that is a prefix directory of another cannot also be a file.
          const files = paths.filter((p) => !paths.some((q) => q.toLowerCase().startsWith(`${p.toLowerCase()}/`)));
          files.forEach((p, i) => write(dir, p, `content ${i}\n`));
          git(dir, ['add', '-A']);
          git(dir, ['update-index', '--index-version', version]);
          assert.equal(parsedRows(dir), gitStage0(dir));
        } finally {
          rmSync(dir, { recursive: true, force: true });
        }
      },
    ),
    { seed: 20261129, numRuns: 12 },
  );
});

test('a corrupt or truncated index fails with a sentence naming the file', async () => {
  const dir = freshRepo();
  try {
    write(dir, 'a.txt', 'a\n');
    git(dir, ['add', 'a.txt']);
    const bytes = readFileSync(join(dir, '.git', 'index'));
    const flipped = Uint8Array.from(bytes);
    flipped[30] = flipped[30]! ^ 0xff;
    assert.throws(() => parseIndex(flipped, 'idx'), (e: unknown) => e instanceof GitReadError && /idx.*checksum/.test((e as Error).message));
    assert.throws(() => parseIndex(bytes.subarray(0, 20), 'idx'), (e: unknown) => e instanceof GitReadError && /truncated/.test((e as Error).message));
    const empty = await readStagedIndex(join(dir, 'no-such-index'));
    assert.equal(empty.entries, []);
    assert.is(indexFilePath('/g', { GIT_INDEX_FILE: 'next.lock' }, '/w'), '/w/next.lock');
    assert.is(indexFilePath('/g', {}, '/w'), '/g/index');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** `git diff --cached --name-status --no-renames` against HEAD (or the empty tree). */
function gitCachedChanges(dir: string): string[] {
  const hasHead = (() => {
    try {
      git(dir, ['rev-parse', '--verify', '-q', 'HEAD']);
      return true;
    } catch {
      return false;
    }
  })();
  const against = hasHead ? 'HEAD' : git(dir, ['hash-object', '-t', 'tree', '/dev/null']).trim();
  const out = execFileSync('git', ['diff', '--cached', '--name-status', '--no-renames', '-z', against], { cwd: dir, env: GIT_ENV }).toString('utf8');
  const parts = out.split('\0').filter(Boolean);
  const rows: string[] = [];
  for (let i = 0; i < parts.length; i += 2) rows.push(`${parts[i]} ${parts[i + 1]}`);
  return rows.sort();
}

const LETTER = { add: 'A', delete: 'D', modify: 'M', mode: 'M', type: 'T' } as const;

async function ourCachedChanges(dir: string): Promise<string[]> {
  const store = await ObjectStore.discover(dir, GIT_ENV);
  try {
    const headOid = store.refs.resolve('HEAD');
    const head = headOid === null ? [] : await flattenTree(store, (await store.commits.read(headOid)).tree);
    const index = await readStagedIndex(join(dir, '.git', 'index'));
    return diffFlatAgainstIndex(head, index.entries).map((c) => `${LETTER[c.change]} ${c.path}`).sort();
  } finally {
    store.close();
  }
}

test('HEAD against the index: the same changes git diff --cached reports (random edits, fixed seed)', async () => {
  const op = fc.record({
    path: fc.constantFrom('a.txt', 'b/c.txt', 'b/d/e.json', 'f.sh', 'g', 'g/h.txt', 'fixtures/x.json'),
    what: fc.constantFrom('write', 'write2', 'delete', 'chmod', 'symlink'),
  });
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 8 }), fc.array(op, { maxLength: 8 }), fc.boolean(), async (first, second, commitFirst) => {
      const dir = freshRepo();
      try {
        const apply = (ops: typeof first) => {
          for (const { path, what } of ops) {
            const full = join(dir, path);
            // 'g' is a file in some runs and a folder (g/h.txt) in others.
            if (path === 'g' || (path.startsWith('g/') && lstatOrNull(join(dir, 'g'))?.isDirectory() === false)) {
              rmSync(join(dir, 'g'), { recursive: true, force: true });
            }
            rmSync(full, { recursive: true, force: true });
            if (what === 'delete') continue;
            mkdirSync(dirname(full), { recursive: true });
            if (what === 'symlink') symlinkSync('a.txt', full);
            else writeFileSync(full, what === 'write2' ? 'two\n' : 'one\n');
            if (what === 'chmod') execFileSync('chmod', ['+x', full]);
          }
          git(dir, ['add', '-A']);
        };
        apply(first);
        if (commitFirst) git(dir, ['commit', '-qm', 'first', '--allow-empty']);
        apply(second);
        const ours = await ourCachedChanges(dir);
        const theirs = gitCachedChanges(dir);
        assert.equal(ours, theirs);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    }),
    { seed: 20261129, numRuns: 25 },
  );
});

test.run();
