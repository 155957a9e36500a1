// The pre-commit hook says when a policy glob protects nothing, where the committer sees it
// (lint-staged shows no output of a task that passes, so `check`'s warnings stay hidden there):
// a typo in a staged policy, and a rename that leaves a protected glob matching no path.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalRepo } from './local';

const policy = (protectedGlobs: string[]) =>
  `${JSON.stringify({ version: 1, baseBranch: 'main', protected: protectedGlobs, exceptions: [], owners: ['alice@example.com'] }, null, 2)}\n`;

test('a staged policy with a glob that matches no staged path: a warning from the pre-commit hook, the commit goes on', async () => {
  const repo = new LocalRepo('glob-typo');
  try {
    repo.write('fixtures/a.json', '{}\n');
    repo.write('.receipt-gate.json', policy(['fixtures/**', 'fixturez/**']));
    repo.git('add', '-A');
    const r = await repo.cli(['pre-commit']);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stderr, /receipt-gate pre-commit: warning: the protected glob "fixturez\/\*\*" of the staged \.receipt-gate\.json matches no staged path: it protects nothing yet; check it for a typo/);
    assert.not.match(r.stderr, /"fixtures\/\*\*" of the staged/);
  } finally {
    repo.remove();
  }
});

test('an owner renames the evidence folder: the hook says the glob now matches nothing; an unrelated commit says nothing', async () => {
  const repo = new LocalRepo('glob-rename');
  try {
    repo.write('data/orders.json', '{}\n');
    repo.write('src/app.js', 'x\n');
    repo.write('.receipt-gate.json', policy(['data/**']));
    repo.git('add', '-A');
    repo.git('commit', '-qm', 'guard');

    repo.write('src/app.js', 'y\n');
    repo.git('add', '-A');
    const quiet = await repo.cli(['pre-commit']);
    assert.is(quiet.code, 0, quiet.stderr);
    assert.not.match(quiet.stderr, /warning/);

    repo.git('mv', 'data', 'datasets');
    const r = await repo.cli(['pre-commit']);
    assert.is(r.code, 0, r.stderr + r.stdout);
    assert.match(r.stderr, /warning: after this commit the protected glob "data\/\*\*" matches no path \(it matched data\/orders\.json, which this commit removes or renames\): an owner updates \.receipt-gate\.json to the new names/);
  } finally {
    repo.remove();
  }
});

test.run();
