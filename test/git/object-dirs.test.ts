// The object directories: their order, where an object is found, a loose file read as stored.
// On real repositories (git init, git clone --shared, git gc).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ObjectsView, objectDirectories } from '../../src/git/object-dirs';
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

test('the view locates loose objects in the first directory that has them and packed ones in their pack, and reads a loose file as stored', () => {
  const repo = initRepo();
  commit(repo, { 'a.txt': 'hello\n' });
  git(repo, ['gc', '-q']);
  commit(repo, { 'b.txt': 'loose\n' });
  const gitdir = join(repo, '.git');
  assert.ok(readdirSync(join(gitdir, 'objects/pack')).some((f) => f.endsWith('.pack')));
  const packed = git(repo, ['rev-parse', 'HEAD~1:a.txt']).trim();
  const loose = git(repo, ['rev-parse', 'HEAD:b.txt']).trim();
  const file = join(gitdir, 'objects', loose.slice(0, 2), loose.slice(2));
  // A quarantine holding a copy of the loose object comes first.
  const quarantine = join(gitdir, 'objects', 'incoming-1');
  mkdirSync(join(quarantine, loose.slice(0, 2)), { recursive: true });
  writeFileSync(join(quarantine, loose.slice(0, 2), loose.slice(2)), readFileSync(file));
  const view = new ObjectsView(gitdir, objectDirectories(gitdir, { GIT_QUARANTINE_PATH: quarantine }));
  const inQuarantine = view.locate(loose);
  assert.ok(inQuarantine?.where === 'loose' && inQuarantine.dir.quarantine, 'the quarantine is read first');
  assert.is(view.isNewInQuarantine(loose), false, 'the repository held it already');
  const own = new ObjectsView(gitdir, objectDirectories(gitdir, {}));
  const at = own.locate(loose);
  assert.ok(at?.where === 'loose');
  assert.is(at.file, file);
  assert.equal(own.looseBytes(loose, at), readFileSync(file), 'the loose file itself, not re-encoded');
  assert.is(own.locate(packed)?.where, 'pack');
  assert.is(own.locate('f'.repeat(40)), null, 'an absent object is nowhere');
  view.close();
  own.close();
});

test.run();
