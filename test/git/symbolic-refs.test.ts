// Symbolic refs read as git reads them: readRef / resolveSymbolic / listRefEntries against
// `git symbolic-ref`, `git rev-parse --symbolic-full-name` and `git for-each-ref` on a real
// repository with aliases (loose, to packed refs, chained, dangling, to a tag), and a
// packed-refs file of 100,000 refs.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ObjectStore } from '../../src/git/store';
import { commit } from './helpers';
import { cleanupTempDirs, git, initRepo } from '../helpers/git';

test.after(cleanupTempDirs);

function build(): { repo: string; c1: string; c2: string } {
  const repo = initRepo({ bare: true });
  const work = initRepo();
  const c1 = commit(work, { 'a.txt': '1\n' });
  const c2 = commit(work, { 'a.txt': '2\n' });
  git(work, ['push', '-q', repo, `${c2}:refs/heads/main`, `${c1}:refs/heads/old`, `${c1}:refs/tags/v1`]);
  git(repo, ['pack-refs', '--all']);
  git(repo, ['update-ref', 'refs/heads/loose', c1]);
  git(repo, ['symbolic-ref', 'refs/heads/master', 'refs/heads/main']); // alias to a packed ref
  git(repo, ['symbolic-ref', 'refs/heads/alias2', 'refs/heads/master']); // chained
  git(repo, ['symbolic-ref', 'refs/heads/gone', 'refs/heads/nothing']); // dangling
  git(repo, ['symbolic-ref', 'refs/tags/latest', 'refs/tags/v1']);
  return { repo, c1, c2 };
}

test('symbolic refs resolve and list as git does', async () => {
  const { repo, c1, c2 } = build();
  const store = await ObjectStore.open({ gitdir: repo, env: {} });
  assert.equal(store.refs.readRaw('refs/heads/master'), { symbolic: 'refs/heads/main' });
  assert.equal(store.refs.readRaw('refs/heads/main'), { oid: c2 });
  assert.is(store.refs.readRaw('refs/heads/none'), null);
  for (const name of ['refs/heads/master', 'refs/heads/alias2', 'refs/tags/latest', 'HEAD', 'refs/heads/loose', 'refs/heads/old']) {
    const want = git(repo, ['rev-parse', '--symbolic-full-name', name]).trim();
    const oid = git(repo, ['rev-parse', name]).trim();
    assert.equal(store.refs.resolveSymbolic(name), { ref: want, oid }, name);
  }
  assert.equal(store.refs.resolveSymbolic('refs/heads/gone'), { ref: 'refs/heads/nothing', oid: null });
  assert.is(store.refs.resolveSymbolic('refs/heads/none'), null);

  const entries = store.refs.entries();
  // for-each-ref lists every ref that resolves, with %(symref) for symbolic ones.
  const listed = git(repo, ['for-each-ref', '--format=%(refname) %(objectname) %(symref)'])
    .trim()
    .split('\n')
    .map((l) => {
      const [name, oid, symref] = l.split(' ');
      return { name: name!, oid: oid!, symbolic: symref ? symref : null };
    });
  assert.equal(entries.filter((e) => e.oid !== null), listed);
  assert.equal(entries.find((e) => e.name === 'refs/heads/gone'), { name: 'refs/heads/gone', oid: null, symbolic: 'refs/heads/nothing' });
  assert.equal([...store.refs.list()], listed.map((e) => [e.name, e.oid]));
  assert.ok(!entries.some((e) => e.oid === c1 && e.name === 'refs/heads/gone'));
  store.close();
});

test('a packed-refs file of 100,000 refs lists and resolves as git does', async () => {
  const repo = initRepo({ bare: true });
  const work = initRepo();
  const c = commit(work, { 'a.txt': '1\n' });
  git(work, ['push', '-q', repo, `${c}:refs/heads/main`]);
  const lines = ['# pack-refs with: peeled fully-peeled sorted '];
  for (let i = 0; i < 100_000; i++) lines.push(`${c} refs/heads/b/${String(i).padStart(6, '0')}`);
  writeFileSync(join(repo, 'packed-refs'), `${lines.join('\n')}\n`);
  const store = await ObjectStore.open({ gitdir: repo, env: {} });
  const refs = store.refs.list();
  assert.is(refs.size, 100_001);
  assert.is(Number(git(repo, ['for-each-ref', '--count=200000', '--format=x']).split('\n').filter(Boolean).length), 100_001);
  assert.equal(store.refs.resolveSymbolic('refs/heads/b/054321'), { ref: 'refs/heads/b/054321', oid: c });
  assert.is(store.refs.resolve('b/099999'), c);
  store.close();
});

test.run();
