// The repository's config through isomorphic-git's getConfig: values as `git config --get`
// reads them (case-insensitive sections and keys, case-sensitive subsections, quoting, the
// last value wins, multi-valued keys in order), and the SHA-256 / reftable refusals with one
// message.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { configValue, refuseUnsupportedRepository, RepositoryConfig, UnsupportedRepositoryError, unsupportedRepositoryMessage } from '../../src/git/config';
import { ObjectStore } from '../../src/git/store';
import { cleanupTempDirs, git, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

test('values as git config --get reads them', async () => {
  const repo = initRepo();
  const gitdir = join(repo, '.git');
  git(repo, ['config', 'branch.Feature/x.remote', 'origin']);
  git(repo, ['config', 'branch.Feature/x.merge', 'refs/heads/feature/x']);
  git(repo, ['config', 'branch.release.1.0.merge', 'refs/heads/release/1.0']);
  git(repo, ['config', 'Receipt.Note', 'a value with  spaces ; and a comment char']);
  git(repo, ['config', '--add', 'remote.origin.fetch', '+refs/heads/*:refs/remotes/origin/*']);
  git(repo, ['config', '--add', 'remote.origin.fetch', '+refs/tags/*:refs/tags/*']);
  git(repo, ['config', '--add', 'x.y', 'first']);
  git(repo, ['config', '--add', 'x.y', 'last']);
  const config = new RepositoryConfig(gitdir);
  const store = await ObjectStore.discover(repo);
  for (const key of ['branch.Feature/x.remote', 'branch.Feature/x.merge', 'branch.release.1.0.merge', 'receipt.note', 'RECEIPT.NOTE', 'x.y', 'core.bare']) {
    const want = git(repo, ['config', '--get', key]).trim();
    assert.is(await config.value(key), want, key);
    assert.is(await configValue(gitdir, key), want, key);
    assert.is(await store.config.value(key), want, key);
  }
  assert.is(await config.value('branch.feature/x.remote'), null, 'subsections are case-sensitive');
  assert.is(await config.value('no.such'), null);
  assert.equal(await store.config.values('remote.origin.fetch'), git(repo, ['config', '--get-all', 'remote.origin.fetch']).trim().split('\n'));
  store.close();
});

test('a key the file never names is absent without a parse; any case of a named key is read', async () => {
  const repo = initRepo();
  const gitdir = join(repo, '.git');
  git(repo, ['config', 'Receipt-Gate.LogKey', '/k']);
  git(repo, ['config', 'branch.logPreviousKey.remote', 'origin']); // the name as a subsection only
  const config = new RepositoryConfig(gitdir);
  for (const key of ['receipt-gate.logkey', 'RECEIPT-GATE.LOGKEY', 'receipt-gate.logPreviousKey', 'branch.logPreviousKey.remote', 'extensions.objectformat', 'no.such']) {
    const got = await config.values(key);
    const want = spawnSync('git', ['config', '--local', '--get-all', key], { cwd: repo, encoding: 'utf8' }).stdout.trim();
    assert.equal(got, want === '' ? [] : want.split('\n'), key);
  }
  const missing = new RepositoryConfig(join(repo, 'no-such-dir'));
  assert.equal(await missing.values('core.bare'), []);
});

test('SHA-256 and reftable repositories are refused with one message, by every way in', async () => {
  const sha = tempDir();
  git(sha, ['init', '-q', '--object-format=sha256']);
  const reftable = initRepo();
  git(reftable, ['config', 'core.repositoryformatversion', '1']);
  git(reftable, ['config', 'extensions.refStorage', 'reftable']);
  const cases: [string, 'objectFormat' | 'refStorage', string][] = [
    [join(sha, '.git'), 'objectFormat', 'sha256'],
    [join(reftable, '.git'), 'refStorage', 'reftable'],
  ];
  for (const [gitdir, extension, value] of cases) {
    const message = unsupportedRepositoryMessage(gitdir, extension, value);
    assert.match(message, /checked nothing/);
    for (const open of [() => refuseUnsupportedRepository(gitdir), () => ObjectStore.open({ gitdir }), () => ObjectStore.discover(join(gitdir, '..'))]) {
      try {
        await open();
        assert.unreachable(`${gitdir} must be refused`);
      } catch (err) {
        assert.instance(err, UnsupportedRepositoryError);
        assert.is((err as Error).message, message);
      }
    }
  }
  const plain = initRepo();
  git(plain, ['config', 'extensions.objectFormat', 'sha1']);
  await refuseUnsupportedRepository(join(plain, '.git'));
});

test.run();
