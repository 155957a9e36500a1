// The fs view handed to isomorphic-git: the order of object directories, the hidden packs, the
// refused writes. On real repositories (git init, git clone --shared, git gc).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ObjectsView, objectDirectories } from '../../src/git/fs-view';
import { commit } from './helpers';
import { cleanupTempDirs, git, initRepo } from '../helpers/git';

test.after(cleanupTempDirs);

test('object directories: quarantine, environment alternates, own objects, info/alternates (recursive, relative)', () => {
  const a = initRepo();
  const b = initRepo();
  const c = initRepo();
  const repo = initRepo();
  const objects = (r: string) => join(r, '.git', 'objects');
  // repo -> (relative) b -> (absolute) c, and c -> repo (a loop git tolerates by skipping)
  writeFileSync(join(objects(repo), 'info/alternates'), `# comment\n${relative(objects(repo), objects(b))}\n`);
  writeFileSync(join(objects(b), 'info/alternates'), `${objects(c)}\n`);
  writeFileSync(join(objects(c), 'info/alternates'), `${objects(repo)}\n`);
  const quarantine = join(objects(repo), 'incoming-1');
  mkdirSync(quarantine);
  const dirs = objectDirectories(join(repo, '.git'), {
    GIT_QUARANTINE_PATH: quarantine,
    GIT_OBJECT_DIRECTORY: relative(process.cwd(), quarantine),
    GIT_ALTERNATE_OBJECT_DIRECTORIES: `${objects(a)}::/does/not/exist`,
  });
  assert.equal(dirs, [
    { path: quarantine, quarantine: true },
    { path: objects(a), quarantine: false },
    { path: objects(repo), quarantine: false },
    { path: objects(b), quarantine: false },
    { path: objects(c), quarantine: false },
  ]);
  // GIT_OBJECT_DIRECTORY naming the repository's own objects is no quarantine.
  assert.equal(objectDirectories(join(repo, '.git'), { GIT_OBJECT_DIRECTORY: objects(repo), GIT_QUARANTINE_PATH: '' }).map((d) => d.quarantine), [false, false, false]);
});

test('the view serves loose files byte for byte from the first directory that has them, hides packs, refuses writes', async () => {
  const repo = initRepo();
  commit(repo, { 'a.txt': 'hello\n' });
  git(repo, ['gc', '-q']);
  commit(repo, { 'b.txt': 'loose\n' });
  const gitdir = join(repo, '.git');
  assert.ok(readdirSync(join(gitdir, 'objects/pack')).some((f) => f.endsWith('.pack')));
  const view = new ObjectsView(gitdir, objectDirectories(gitdir, {}));
  const fs = view.fs().promises as unknown as Record<string, (...args: unknown[]) => Promise<unknown>>;
  assert.equal(await fs.readdir!(join(gitdir, 'objects/pack')), []);
  const packed = git(repo, ['rev-parse', 'HEAD~1:a.txt']).trim();
  const loose = git(repo, ['rev-parse', 'HEAD:b.txt']).trim();
  const file = join(gitdir, 'objects', loose.slice(0, 2), loose.slice(2));
  assert.equal(await fs.readFile!(file), readFileSync(file), 'the loose file itself, not re-encoded');
  assert.is(view.locate(packed)?.where, 'pack');
  for (const path of [join(gitdir, 'objects', packed.slice(0, 2), packed.slice(2)), join(gitdir, 'objects', 'ff', 'f'.repeat(38))]) {
    try {
      await fs.readFile!(path);
      assert.unreachable('a packed or absent object is no loose file');
    } catch (err) {
      assert.is((err as NodeJS.ErrnoException).code, 'ENOENT');
    }
  }
  for (const method of ['writeFile', 'mkdir', 'unlink', 'rmdir', 'symlink', 'rm']) {
    try {
      await fs[method]!(join(gitdir, 'objects', 'x'), 'data');
      assert.unreachable(`${method} must be refused`);
    } catch (err) {
      assert.is((err as NodeJS.ErrnoException).code, 'EROFS', method);
    }
  }
  view.close();
});

test.run();
