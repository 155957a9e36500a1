// Ordering (docs/receipts.md § Ordering): when a patch touches the evidence paths, or leaves an
// invalid policy behind, `receipt` runs none of its commands — neither the property command nor
// the fixture command — records that on the receipt, and closes. The commands here leave a
// marker file outside the tree and print a line; neither may appear. The grader runs without
// a sandbox here (RECEIPT_GATE_BWRAP names no program), so a marker outside the tree would be
// written if the command ran at all.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, exampleRepo } from '../receipt/helpers';
import { commitAll, git, tempDir } from '../helpers/git';

const NOW = ['--now', '2026-11-29'];
const markers = tempDir('markers');
const outDir = tempDir('ordering-out');
const NO_SANDBOX = { RECEIPT_GATE_BWRAP: join(markers, 'no-such-bwrap') };

function commands(name: string): string[] {
  const props = join(markers, `${name}.properties`);
  const fixture = join(markers, `${name}.fixture`);
  return [
    '--properties-cmd',
    `echo PROPERTY-COMMAND-RAN >&2; touch '${props}'; node properties/allocate.properties.js`,
    '--fixture-cmd',
    `echo FIXTURE-COMMAND-RAN >&2; touch '${fixture}'; node src/allocate-cli.js`,
  ];
}

const { repo } = exampleRepo();

/** A branch off main with one commit made by `edit` in the working tree. */
function branch(name: string, edit: () => void): void {
  git(repo, ['checkout', '-q', '-b', name, 'main']);
  edit();
  commitAll(repo, name);
  git(repo, ['checkout', '-q', 'main']);
}

branch('honest', () => {
  const path = join(repo, 'src/allocate.js');
  writeFileSync(path, readFileSync(path, 'utf8').replace('// Split an amount', '// Allocation of money. Split an amount'));
});
branch('edits-freeze', () => {
  writeFileSync(join(repo, 'freeze.json'), JSON.stringify({ version: 1, frozen: [{ id: 'allocate::sum', reason: 'timing', expires: '2026-12-05', added: '2026-11-28', owner: 'mallory' }] }, null, 2) + '\n');
});
branch('edits-properties', () => {
  mkdirSync(join(repo, 'properties'), { recursive: true });
  writeFileSync(join(repo, 'properties/allocate.properties.js'), "console.log('all properties hold');\n");
});
branch('invalid-policy', () => {
  writeFileSync(join(repo, '.receipt-gate.json'), '{ "version": 1, "protected": [');
});

async function receipt(ref: string) {
  rmSync(join(markers, `${ref}.properties`), { force: true });
  rmSync(join(markers, `${ref}.fixture`), { force: true });
  const out = join(outDir, `${ref}.json`);
  const r = await cli(repo, ['receipt', '--ref', ref, '--base', 'main', ...commands(ref), '--out', out, ...NOW], NO_SANDBOX);
  return { ...r, receipt: JSON.parse(readFileSync(out, 'utf8')) as Record<string, any> };
}

test('control: on an honest patch both commands run (the markers work)', async () => {
  const r = await receipt('honest');
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.ok(existsSync(join(markers, 'honest.properties')), 'the property command ran');
  assert.ok(existsSync(join(markers, 'honest.fixture')), 'the fixture command ran');
  assert.match(r.stderr, /PROPERTY-COMMAND-RAN/);
  assert.is(r.receipt.properties_run, true);
  assert.is(r.receipt.not_run_reason, null);
  assert.match(r.stdout, /^ {2}properties: passed/m);
});

for (const [ref, path] of [
  ['edits-freeze', 'freeze.json'],
  ['edits-properties', 'properties/allocate.properties.js'],
] as const) {
  test(`a patch that edits ${path}: no command runs, the receipt says so, closed`, async () => {
    const r = await receipt(ref);
    assert.is(r.code, 1, r.stdout + r.stderr);
    assert.not.ok(existsSync(join(markers, `${ref}.properties`)), 'the property command must not run');
    assert.not.ok(existsSync(join(markers, `${ref}.fixture`)), 'the fixture command must not run');
    assert.not.match(r.stderr, /COMMAND-RAN/);
    assert.is(r.receipt.properties_run, false);
    assert.is(r.receipt.properties_ok, false);
    assert.is(r.receipt.properties_exit_code, null);
    assert.is(r.receipt.not_run_reason, `evidence touched: ${path}`);
    assert.is(r.receipt.evidence_paths_clean, false);
    assert.is(r.receipt.verdict, 'closed');
    assert.ok(r.receipt.fixtures.length > 0);
    for (const row of r.receipt.fixtures) {
      assert.is(row.actual, null);
      assert.is(row.ok, false);
    }
    assert.match(r.stdout, new RegExp(`^ {2}properties: not run \\(evidence touched: ${path.replace(/\./g, '\\.')}\\)$`, 'm'));
    assert.not.match(r.stdout, /properties: (passed|FAILED)/);
    assert.ok(r.receipt.findings.some((f: { code: string; path?: string }) => f.code === 'PATH_PROTECTED' && f.path === path));
  });
}

test('a patch that leaves an invalid policy: no command runs, closed', async () => {
  const r = await receipt('invalid-policy');
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.not.ok(existsSync(join(markers, 'invalid-policy.properties')));
  assert.not.ok(existsSync(join(markers, 'invalid-policy.fixture')));
  assert.is(r.receipt.properties_run, false);
  assert.match(r.receipt.not_run_reason, /\.receipt-gate\.json/);
  assert.match(r.stdout, /^ {2}properties: not run \(/m);
  assert.ok(r.receipt.findings.some((f: { code: string }) => f.code === 'POLICY_INVALID' || f.code === 'PATH_PROTECTED'));
});

test.run();
