// `receipt-gate freeze review`: the scheduled job's report of every freeze, by days left, with
// the window's exit codes (0 nothing expires in it, 3 something does, 1 one has expired), text
// and JSON, and never an edit.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalRepo } from '../client/local';

function repoWith(rows: { id: string; expires: string }[], extra: Record<string, unknown> = {}): LocalRepo {
  const repo = new LocalRepo('freeze-review');
  repo.write('.receipt-gate.json', `${JSON.stringify({ version: 1, baseBranch: 'main', protected: ['freeze.json'], exceptions: [], owners: ['alice@example.com'], freeze: { path: 'freeze.json', reasons: ['timing'], maxDays: 14 }, ...extra })}\n`);
  repo.write('freeze.json', `${JSON.stringify({ version: 1, frozen: rows.map((r) => ({ ...r, reason: 'timing', owner: 'alice', added: '2026-11-20' })) })}\n`);
  repo.git('add', '-A');
  repo.git('commit', '-qm', 'freezes');
  return repo;
}

test('freeze review: exit 0 with nothing in the window, 3 with a freeze expiring in it, 1 with one expired; JSON lists them', async () => {
  const repo = repoWith([{ id: 't::far', expires: '2026-12-12' }]);
  try {
    const before = repo.read('freeze.json');
    const quiet = await repo.cli(['freeze', 'review', '--expiring', '7d', '--now', '2026-11-29']);
    assert.is(quiet.code, 0, quiet.stderr);
    assert.match(quiet.stdout, /1 freeze, 0 expired, 0 expiring within 7 days\n {2}2026-12-12 {2}13 days left/);
    const wide = await repo.cli(['freeze', 'review', '--expiring', '14', '--now', '2026-11-29', '--format', 'json']);
    assert.is(wide.code, 3);
    assert.equal(JSON.parse(wide.stdout).expiring, ['t::far']);
    const late = await repo.cli(['freeze', 'review', '--now', '2026-12-13', '--json']);
    assert.is(late.code, 1);
    const doc = JSON.parse(late.stdout);
    assert.equal([doc.expired, doc.window_days, doc.freezes[0].status, doc.freezes[0].days_left], [['t::far'], 7, 'expired', -1]);
    assert.is(repo.read('freeze.json'), before, 'review never edits');
    const bad = await repo.cli(['freeze', 'review', '--expiring', 'soon']);
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /--expiring takes a number of days such as 7d, got 'soon'/);
    const misplaced = await repo.cli(['freeze', 'list', '--expiring', '7d']);
    assert.is(misplaced.code, 2);
    assert.match(misplaced.stderr, /belong to 'freeze review'/);
  } finally {
    repo.remove();
  }
});

test('freeze review --run: each frozen test by its id, which still fail and which pass', async () => {
  const repo = repoWith([{ id: 'tests/a.py::ok', expires: '2026-12-01' }, { id: 'tests/b.py::flaky', expires: '2026-12-03' }]);
  try {
    repo.write('t.sh', 'case "$1" in *::ok) exit 0 ;; *) exit 4 ;; esac\n');
    const r = await repo.cli(['freeze', 'review', '--run', 'sh t.sh', '--out', 'report.json', '--now', '2026-11-29']);
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stdout, /tests\/a\.py::ok .*; passed 5 consecutive runs \(the policy's liftAfterPasses\): an owner may decide to lift the freeze\n/);
    assert.match(r.stdout, /tests\/b\.py::flaky .*; still fails \(exit 4 on run 1 of 5, after 0 passes\)\n/);
    assert.match(r.stdout, /\nlifting a freeze is a human decision: this review never edits or removes one/);
    const doc = repo.json('report.json') as { still_failing: string[]; now_passing: string[]; lift_after_passes: number; freezes: { run: { command: string; runs: number; passes: number } }[] };
    assert.equal([doc.still_failing, doc.now_passing, doc.lift_after_passes], [['tests/b.py::flaky'], ['tests/a.py::ok'], 5]);
    assert.is(doc.freezes[0]!.run.command, 'sh t.sh tests/a.py::ok');
    assert.equal([doc.freezes[0]!.run.runs, doc.freezes[0]!.run.passes], [5, 5]);
    assert.equal([doc.freezes[1]!.run.runs, doc.freezes[1]!.run.passes], [1, 0]);
  } finally {
    repo.remove();
  }
});

test('freeze review --run: a 1-in-3 flake that passes twice is still failing; lifting is never suggested on fewer passes than liftAfterPasses', async () => {
  // Fails on every third run (a counter in a file): runs 1 and 2 pass, run 3 fails.
  const flaky = 'n=$(cat count 2>/dev/null || echo 0); n=$((n+1)); echo $n > count; [ $((n % 3)) -ne 0 ]\n';
  const repo = repoWith([{ id: 'tests/c.py::sometimes', expires: '2026-12-01' }]);
  try {
    repo.write('t.sh', flaky);
    const r = await repo.cli(['freeze', 'review', '--run', 'sh t.sh', '--json', '--now', '2026-11-29']);
    const doc = JSON.parse(r.stdout) as { now_passing: string[]; still_failing: string[]; freezes: { run: { runs: number; passes: number; required: number; result: string } }[] };
    assert.equal(doc.freezes[0]!.run, { command: 'sh t.sh tests/c.py::sometimes', exit_code: 1, result: 'fail', runs: 3, passes: 2, required: 5 } as unknown as typeof doc.freezes[0]['run']);
    assert.equal([doc.now_passing, doc.still_failing], [[], ['tests/c.py::sometimes']]);
    assert.is(repo.read('count').trim(), '3', 'the runs stop at the first failure');
  } finally {
    repo.remove();
  }
  // With the policy's observations.liftAfterPasses at 2, the same two passes are enough to mention lifting, as a human's decision.
  const two = repoWith([{ id: 'tests/c.py::sometimes', expires: '2026-12-01' }], { epoch: { pin: 'fixtures/EPOCH' }, observations: { dir: 'observations', freezes: 'freezes', liftAfterPasses: 2 } });
  try {
    two.write('t.sh', flaky);
    const r = await two.cli(['freeze', 'review', '--run', 'sh t.sh', '--now', '2026-11-29']);
    assert.is(r.code, 3, r.stderr);
    assert.match(r.stdout, /tests\/c\.py::sometimes .*; passed 2 consecutive runs \(the policy's liftAfterPasses\): an owner may decide to lift the freeze\n/);
    assert.match(r.stdout, /lifting a freeze is a human decision/);
    assert.is(two.read('count').trim(), '2');
  } finally {
    two.remove();
  }
});

test.run();
