// The hook reads refs through the object store (no git binary in a GitHub Enterprise environment): checked
// against `git rev-parse` on loose refs, packed refs, symbolic refs and an unborn HEAD. And
// the stdin parser against lines git would write.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { join } from 'node:path';
import { cleanup, commitAll, write } from './helpers';
import { ObjectStore } from '../../src/git/store';
import { parseRefUpdates } from '../../src/server/protocol';
import { gitValue, tempDir } from '../helpers/git';

test('resolveRef agrees with git rev-parse on loose, packed and symbolic refs', async () => {
  const root = tempDir('refs');
  try {
    const work = join(root, 'work');
    gitValue(root, ['init', '-q', '-b', 'main', work]);
    for (let i = 0; i < 4; i++) {
      write(work, `f${i}`, `${i}\n`);
      commitAll(work, `c${i}`);
      gitValue(work, ['branch', `topic/${i}`]);
      gitValue(work, ['tag', `v${i}`]);
      gitValue(work, ['tag', '-a', '-m', `annotated ${i}`, `a${i}`]);
    }
    const bare = join(root, 'bare.git');
    gitValue(root, ['clone', '-q', '--bare', work, bare]);
    gitValue(bare, ['pack-refs', '--all']);
    // A loose ref that shadows its packed line, and one more loose branch.
    gitValue(bare, ['update-ref', 'refs/heads/topic/1', gitValue(bare, ['rev-parse', 'topic/0'])]);
    gitValue(bare, ['update-ref', 'refs/heads/loose', gitValue(bare, ['rev-parse', 'main'])]);
    gitValue(bare, ['symbolic-ref', 'refs/heads/alias', 'refs/heads/topic/2']);
    const store = await ObjectStore.open({ gitdir: bare, env: {} });
    const refs = gitValue(bare, ['for-each-ref', '--format=%(refname)']).split('\n');
    assert.is(refs.length, 15, refs.join(' '));
    for (const ref of refs) {
      assert.is(store.refs.resolve(ref), gitValue(bare, ['rev-parse', '--verify', ref]), ref);
    }
    assert.is(store.refs.resolve('refs/heads/alias'), gitValue(bare, ['rev-parse', 'topic/2']));
    assert.is(store.refs.resolve('HEAD'), gitValue(bare, ['rev-parse', 'HEAD']));
    assert.is(store.refs.headTarget(), 'refs/heads/main');
    assert.is(store.refs.resolve('refs/heads/nope'), null);
    gitValue(bare, ['symbolic-ref', 'HEAD', 'refs/heads/unborn']);
    const reopened = await ObjectStore.open({ gitdir: bare, env: {} });
    assert.is(reopened.refs.resolve('HEAD'), null, 'an unborn HEAD has no tip');
    assert.is(reopened.refs.resolve('refs/heads/../../config'), null, 'a ref name climbing out of refs/ names nothing');
  } finally {
    cleanup(root);
  }
});

test('property: every line git writes parses back; anything else is refused with its line number', () => {
  const oid = fc.stringMatching(/^[0-9a-f]{40}$/);
  const ref = fc.stringMatching(/^refs\/(heads|tags)\/[A-Za-z0-9._/-]{1,30}$/);
  fc.assert(
    fc.property(fc.array(fc.tuple(oid, oid, ref), { minLength: 1, maxLength: 8 }), fc.nat(), (updates, pick) => {
      const text = updates.map(([o, n, r]) => `${o} ${n} ${r}\n`).join('');
      const parsed = parseRefUpdates(text);
      if (!parsed.ok) return false;
      if (JSON.stringify(parsed.updates) !== JSON.stringify(updates.map(([o, n, r]) => ({ old: o, new: n, ref: r })))) return false;
      const lines = text.split('\n');
      const broken = pick % updates.length;
      lines[broken] = lines[broken]!.slice(1);
      const bad = parseRefUpdates(lines.join('\n'));
      return !bad.ok && bad.line === broken + 1;
    }),
    { seed: 20261129, numRuns: 200 },
  );
});

test.run();
