// The three identities in every text log (epoch id, manifest digest, each witness digest):
// identityLines itself, then verify-ref's text and --json on real repositories, with and without
// bounded contexts (examples/monorepo). Expected values come from the evidence files and from
// python's hashlib, never from the output under test.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli';
import { bufferedIO } from '../../src/io';
import { emptyIdentities } from '../../src/findings';
import { identityLines } from '../../src/report/identities';
import { cleanEnv } from '../client/local';
import { commitAll, git, initRepo, writeFiles } from '../helpers/git';
import { EPOCH_ID, pythonManifestDigest, validEvidence } from '../helpers/repo';

const ROOT = join(__dirname, '..', '..');
const NOW = '2026-12-05';

function pySha256(path: string): string {
  return execFileSync('python3', ['-c', 'import hashlib,sys; print(hashlib.sha256(open(sys.argv[1],"rb").read()).hexdigest())', path], { encoding: 'utf8' }).trim();
}

async function cli(cwd: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const buffered = bufferedIO({ env: cleanEnv({ RECEIPT_GATE_NOW: NOW }), cwd, stdin: '' });
  const code = await main(args, buffered.io);
  return { code, stdout: buffered.stdout(), stderr: buffered.stderr() };
}

test('identityLines: epoch, manifest digest and each witness digest in full, witnesses sorted, tree text made printable', () => {
  const lines = identityLines({ epoch_id: 'ep\u001b[31m1\nforged', generator_sha256: 'a'.repeat(64), manifest_sha256: 'b'.repeat(64), freeze_file_sha256: null, witnesses: { z: 'c'.repeat(64), a: 'd'.repeat(64) } }, 'billing');
  assert.is(lines.length, 3);
  assert.ok(lines[0]!.startsWith('identities [billing]: epoch '), lines[0]);
  assert.ok(lines[0]!.endsWith(`, manifest sha256 ${'b'.repeat(64)}, 2 witnesses`), lines[0]);
  assert.not.ok(lines.some((l) => l.includes('\n') || l.includes('\u001b')), 'nothing from the tree starts a line or moves the cursor');
  assert.equal(lines.slice(1), [`  witness a sha256 ${'d'.repeat(64)}`, `  witness z sha256 ${'c'.repeat(64)}`]);
  assert.equal(identityLines(emptyIdentities()), [], 'nothing read, nothing printed');
  assert.equal(identityLines(null), []);
  assert.equal(identityLines({ ...emptyIdentities(), epoch_id: 'e' }), ['identities: epoch e, manifest sha256 (none), 0 witnesses']);
});

test('verify-ref text prints the three identities of the repository (witness digests included)', async () => {
  const repo = initRepo();
  try {
    const witness = 'run 1: fail\nrun 2: pass\n';
    writeFiles(repo, {
      ...validEvidence(),
      'observations/obs-1.bin': witness,
      'observations/obs-1.json': JSON.stringify({ id: 'obs-1', epoch_id: EPOCH_ID, status: 'pass', rerun_passed: false, witness_sha256: 'x' }),
    });
    // The record's digest from python, so the record is valid.
    writeFiles(repo, { 'observations/obs-1.json': JSON.stringify({ id: 'obs-1', epoch_id: EPOCH_ID, status: 'pass', rerun_passed: false, witness_sha256: pySha256(join(repo, 'observations/obs-1.bin')) }) });
    commitAll(repo, 'guarded');
    git(repo, ['checkout', '-q', '-b', 'patch']);
    writeFiles(repo, { 'src/alloc.py': 'x = 2\n' });
    commitAll(repo, 'patch');
    const manifest = pythonManifestDigest(20260925, [{ name: 'sum_preserved', bound: 'parts sum to total' }, { name: 'non_negative', bound: '>= 0' }]);
    const r = await cli(repo, ['verify-ref', 'patch', '--base', 'main', '--now', NOW]);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, `\nidentities: epoch ${EPOCH_ID}, manifest sha256 ${manifest}, 1 witness\n  witness obs-1 sha256 ${pySha256(join(repo, 'observations/obs-1.bin'))}\nverdict: eligible`);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('with bounded contexts: each context its identities, in the text log and in --json (contexts[].identities)', async () => {
  const repo = initRepo();
  try {
    cpSync(join(ROOT, 'examples', 'monorepo'), repo, { recursive: true });
    commitAll(repo, 'the monorepo example');
    git(repo, ['checkout', '-q', '-b', 'both']);
    writeFiles(repo, { 'services/billing/src/note.js': '// a\n', 'services/inventory/src/note.js': '// b\n' });
    commitAll(repo, 'touch both');
    const pin = (c: string) => (JSON.parse(readFileSync(join(repo, `services/${c}/fixtures/EPOCH`), 'utf8')) as { epoch_id: string }).epoch_id;
    const manifest = (c: string) => (JSON.parse(readFileSync(join(repo, `services/${c}/checks/manifest.json`), 'utf8')) as { manifest_sha256: string }).manifest_sha256;
    const witness = pySha256(join(repo, 'services/inventory/observations/slow_restock.bin'));

    const text = await cli(repo, ['verify-ref', 'both', '--base', 'main', '--now', NOW]);
    assert.match(text.stdout, `\nidentities [billing]: epoch ${pin('billing')}, manifest sha256 ${manifest('billing')}, 0 witnesses\n`);
    assert.match(text.stdout, `\nidentities [inventory]: epoch ${pin('inventory')}, manifest sha256 ${manifest('inventory')}, 1 witness\n  witness slow_restock sha256 ${witness}\n`);

    const json = await cli(repo, ['verify-ref', 'both', '--base', 'main', '--now', NOW, '--json']);
    const doc = JSON.parse(json.stdout) as { contexts: { name: string; identities: { epoch_id: string | null; manifest_sha256: string | null; witnesses: Record<string, string> } }[] };
    const byName = Object.fromEntries(doc.contexts.map((c) => [c.name, c.identities]));
    assert.equal([byName.billing!.epoch_id, byName.billing!.manifest_sha256, byName.billing!.witnesses], [pin('billing'), manifest('billing'), {}]);
    assert.equal([byName.inventory!.epoch_id, byName.inventory!.manifest_sha256, byName.inventory!.witnesses], [pin('inventory'), manifest('inventory'), { slow_restock: witness }]);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test.run();
