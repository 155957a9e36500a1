// GIT_NAMESPACE as git's receive-pack applies it, on real pushes (`--receive-pack='env
// GIT_NAMESPACE=… git-receive-pack'`): pre-receive gets the un-namespaced ref names on stdin
// (refs/heads/main), the refs land under refs/namespaces/<ns>/, and the object store opened
// with the hook's environment reads HEAD and every ref inside the namespace, under the names
// the client sees — the same refs `git ls-remote` lists through upload-pack in that namespace.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { ObjectStore } from '../../src/git/store';
import { namespacePrefix } from '../../src/git/refs';
import { GitReadError } from '../../src/git/types';
import { commit } from './helpers';
import { cleanupTempDirs, git, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

const TSX = resolve(__dirname, '../../node_modules/.bin/tsx');
const PROBE = resolve(__dirname, 'fixtures/namespace-probe.ts');

interface Probe {
  error?: string;
  gitNamespace: string | null;
  storeNamespace: string;
  lines: string[];
  head: { ref: string; oid: string | null } | null;
  before: Record<string, { ref: string; oid: string | null } | null>;
  refs: { name: string; oid: string | null; symbolic: string | null }[];
  pushedCommitTree: Record<string, string>;
}

function setup() {
  const bare = initRepo({ bare: true });
  const log = join(tempDir(), 'probe.jsonl');
  const hook = join(bare, 'hooks', 'pre-receive');
  writeFileSync(hook, `#!/bin/sh\nexec "${TSX}" "${PROBE}" "${log}"\n`);
  chmodSync(hook, 0o755);
  const work = initRepo();
  const push = (namespace: string, ...args: string[]): Probe => {
    const before = existsSync(log) ? readFileSync(log, 'utf8').split('\n').filter(Boolean).length : 0;
    git(work, ['push', '-q', `--receive-pack=env GIT_NAMESPACE=${namespace} git-receive-pack`, `file://${bare}`, ...args]);
    const lines = readFileSync(log, 'utf8').split('\n').filter(Boolean);
    assert.is(lines.length, before + 1, 'the hook ran once');
    const rec = JSON.parse(lines[lines.length - 1]!) as Probe;
    assert.is(rec.error, undefined, rec.error);
    return rec;
  };
  return { bare, work, push };
}

function lsRemote(bare: string, namespace: string): Map<string, string> {
  const out = new Map<string, string>();
  const text = git(tempDir(), ['ls-remote', `--upload-pack=env GIT_NAMESPACE=${namespace} git-upload-pack`, `file://${bare}`]);
  for (const line of text.trim().split('\n').filter(Boolean)) {
    const [oid, name] = line.split('\t') as [string, string];
    out.set(name, oid);
  }
  return out;
}

test('pre-receive under GIT_NAMESPACE: stdin names are un-namespaced, the store reads inside the namespace', async () => {
  const { bare, work, push } = setup();
  const c1 = commit(work, { 'a.txt': '1\n' });
  // Outside any namespace: a main branch the namespace must not see.
  git(work, ['push', '-q', `file://${bare}`, 'main']);
  const c2 = commit(work, { 'a.txt': '2\n' });
  const first = push('proj', 'main');
  assert.is(first.gitNamespace, 'proj');
  assert.is(first.storeNamespace, 'refs/namespaces/proj/');
  assert.equal(first.lines, [`${'0'.repeat(40)} ${c2} refs/heads/main`], 'git passes the name the client pushed');
  assert.is(first.before['refs/heads/main'], null, 'refs/heads/main outside the namespace is not the namespace\'s');
  assert.equal(first.refs, []);
  assert.is(first.head, null, 'the namespace has no HEAD yet');
  assert.is(git(bare, ['rev-parse', 'refs/namespaces/proj/refs/heads/main']).trim(), c2);
  assert.is(git(bare, ['rev-parse', 'refs/heads/main']).trim(), c1);

  git(bare, ['symbolic-ref', 'refs/namespaces/proj/HEAD', 'refs/namespaces/proj/refs/heads/main']);
  git(work, ['tag', 'v1', c1]);
  const c3 = commit(work, { 'a.txt': '3\n' });
  const second = push('proj', 'main', 'v1');
  assert.equal(second.lines.sort(), [`${c2} ${c3} refs/heads/main`, `${'0'.repeat(40)} ${c1} refs/tags/v1`].sort());
  assert.equal(second.head, { ref: 'refs/heads/main', oid: c2 });
  assert.equal(second.before['refs/heads/main'], { ref: 'refs/heads/main', oid: c2 });
  assert.equal(second.refs, [{ name: 'refs/heads/main', oid: c2, symbolic: null }]);
  assert.is(second.pushedCommitTree['refs/heads/main'], git(work, ['rev-parse', `${c3}^{tree}`]).trim());

  // After the push, the store (opened as the hook would be) lists what upload-pack shows.
  const store = await ObjectStore.open({ gitdir: bare, env: { GIT_NAMESPACE: 'proj' } });
  const shown = lsRemote(bare, 'proj');
  const mine = new Map(store.refs.entries().map((e) => [e.name, e.oid]));
  const head = store.refs.resolveSymbolic('HEAD');
  if (head?.oid) mine.set('HEAD', head.oid);
  assert.equal([...mine].sort(), [...shown].sort());
  assert.is(store.refs.namespacedRef('refs/heads/main'), 'refs/namespaces/proj/refs/heads/main');
  store.close();
});

test('a nested namespace a/b is refs/namespaces/a/refs/namespaces/b/', async () => {
  const { bare, work, push } = setup();
  const c1 = commit(work, { 'a.txt': '1\n' });
  const rec = push('a/b', 'main');
  assert.is(rec.storeNamespace, 'refs/namespaces/a/refs/namespaces/b/');
  assert.equal(rec.lines, [`${'0'.repeat(40)} ${c1} refs/heads/main`]);
  assert.is(git(bare, ['rev-parse', 'refs/namespaces/a/refs/namespaces/b/refs/heads/main']).trim(), c1);
  const store = await ObjectStore.open({ gitdir: bare, env: { GIT_NAMESPACE: 'a/b' } });
  assert.equal(store.refs.resolveSymbolic('refs/heads/main'), { ref: 'refs/heads/main', oid: c1 });
  assert.equal([...store.refs.list()], [...lsRemote(bare, 'a/b')]);
  store.close();
  // Without the namespace the ref is a ref like any other, under its full name.
  const plain = await ObjectStore.open({ gitdir: bare, env: {} });
  assert.is(plain.refs.resolve('refs/namespaces/a/refs/namespaces/b/refs/heads/main'), c1);
  assert.is(plain.refs.resolve('refs/heads/main'), null);
  plain.close();
});

test('namespace prefixes as git builds them; an invalid component is refused', () => {
  assert.is(namespacePrefix(undefined), '');
  assert.is(namespacePrefix(''), '');
  assert.is(namespacePrefix('proj'), 'refs/namespaces/proj/');
  assert.is(namespacePrefix('/a//b/'), 'refs/namespaces/a/refs/namespaces/b/');
  for (const bad of ['..', 'a..b', 'x.lock', 'a b', 'a~1']) assert.throws(() => namespacePrefix(bad), (e: unknown) => e instanceof GitReadError, bad);
});

test.run();
