// A lifted keyed freeze through verify-ref (the installed bundle) on real repositories: the
// owner's lift (keyed freeze removed, observation archived, witness kept) turns a held main
// eligible again, with the archived flake listed as info; the same bytes from a non-owner, or an
// `archived` mark forged onto an unfrozen flake, are refused as protected-path changes; a
// changed witness of an archived observation still closes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { codes, EPOCH_ID, guardedRepo, runCli, sha256 } from '../helpers/repo';
import { commitAll, git, removeFiles, writeFiles } from '../helpers/git';

const NOW = '2026-11-29';
const WITNESS = 'run 1: timeout\nrun 2: pass\n';
const LIFTED = { lifted_by: 'alice', lifted_on: NOW, freeze: 'freezes/o1.json', expires_on: '2026-12-05', reason: 'socket timeout on CI' };

function verify(repo: string, ref: string, identity: string) {
  return runCli(['verify-ref', ref, '--base', 'main', '--now', NOW, '--identity', identity, '--json'], { cwd: repo });
}

function record(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({ id: 'o1', epoch_id: EPOCH_ID, status: 'flake', rerun_passed: true, witness_sha256: sha256(WITNESS), ...extra });
}

/** main holds a witnessed flake and the keyed freeze citing it (hold). */
function heldMain(): string {
  const repo = guardedRepo({
    'observations/o1.json': record(),
    'observations/o1.bin': WITNESS,
    'freezes/o1.json': JSON.stringify({ observation_id: 'o1', epoch_id: EPOCH_ID, expires_on: '2026-12-05', reason: 'socket timeout on CI' }),
  });
  return repo;
}

/** A branch off main that lifts the freeze as `freeze lift` does. */
function liftBranch(repo: string, name: string): void {
  git(repo, ['checkout', '-q', '-b', name, 'main']);
  removeFiles(repo, ['freezes/o1.json']);
  writeFiles(repo, { 'observations/o1.json': record({ archived: LIFTED }) });
  commitAll(repo, 'lift the freeze of o1');
  git(repo, ['checkout', '-q', 'main']);
}

test('the owner lifts a held flake: eligible again, the archived observation listed as info with its witness hashed', () => {
  const repo = heldMain();
  assert.is(verify(repo, 'main', 'alice').status, 3, 'main is held before the lift');
  liftBranch(repo, 'lift');
  const run = verify(repo, 'lift', 'alice');
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.equal(codes(run), ['OBSERVATION_ARCHIVED']);
  assert.is(run.json.findings[0].severity, 'info');
  assert.is(run.json.identities.witnesses.o1, sha256(WITNESS));
});

test('a non-owner cannot lift: the same change is PATH_PROTECTED (closed)', () => {
  const repo = heldMain();
  liftBranch(repo, 'agent-lift');
  const run = verify(repo, 'agent-lift', 'agent');
  assert.is(run.status, 1);
  assert.ok(codes(run).includes('PATH_PROTECTED'), JSON.stringify(run.json));
});

test('an archived mark forged onto an unfrozen flake by a non-owner is PATH_PROTECTED', () => {
  const repo = guardedRepo({ 'observations/o1.json': record(), 'observations/o1.bin': WITNESS });
  git(repo, ['checkout', '-q', '-b', 'forge']);
  writeFiles(repo, { 'observations/o1.json': record({ archived: LIFTED }) });
  commitAll(repo, 'silence the flake');
  const run = verify(repo, 'forge', 'agent');
  assert.is(run.status, 1);
  assert.ok(codes(run).includes('PATH_PROTECTED'), JSON.stringify(run.json));
});

test('a changed witness of an archived observation still closes (WITNESS_MISMATCH), whoever pushes', () => {
  const repo = heldMain();
  liftBranch(repo, 'lift');
  git(repo, ['checkout', '-q', '-b', 'rewrite', 'lift']);
  writeFiles(repo, { 'observations/o1.bin': 'rewritten\n' });
  commitAll(repo, 'rewrite the witness');
  const run = verify(repo, 'rewrite', 'alice');
  assert.is(run.status, 1);
  assert.ok(codes(run).includes('WITNESS_MISMATCH'), JSON.stringify(run.json));
});

test.run();
