// The evidence rules over real git trees (built with the git CLI), read through the object store:
// digests are over blob bytes as stored (eol rules do not matter), and a symlink, a submodule or
// an oversized blob where evidence should be is caught from the tree entry.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { checkEvidence } from '../../src/evidence/index';
import { TreeSource } from '../../src/evidence/tree-source';
import { ObjectStore } from '../../src/git/store';
import { codes, json, specPolicy } from './evidence-helpers';
import { commitAll, git, initRepo, writeFiles } from '../helpers/git';

const EPOCH = 'e-2026-09';
const repos: string[] = [];

function blobSha256(repo: string, rev: string): string {
  const bytes = execFileSync('git', ['-C', repo, 'cat-file', 'blob', rev]);
  return createHash('sha256').update(bytes).digest('hex');
}

async function evidenceAt(repo: string, policy = specPolicy()) {
  const store = await ObjectStore.open({ gitdir: join(repo, '.git') });
  const tree = git(repo, ['rev-parse', 'HEAD^{tree}']).trim();
  const report = await checkEvidence({ policy, atNew: new TreeSource(store, tree, 'commit HEAD'), atBase: null, today: '2026-09-18' });
  return report;
}

function baseRepo(): string {
  const repo = initRepo();
  repos.push(repo);
  writeFiles(repo, {
    '.gitattributes': '*.py text eol=crlf\n',
    'fixtures/gen.py': 'line one\nline two\n',
    'observations/o.bin': 'witness bytes',
  });
  commitAll(repo, 'generator and witness');
  const genSha = blobSha256(repo, 'HEAD:fixtures/gen.py');
  writeFiles(repo, {
    'fixtures/EPOCH': json({ epoch_id: EPOCH, generator: 'fixtures/gen.py', generator_sha256: genSha }),
    'observations/o.json': json({ id: 'o', epoch_id: EPOCH, status: 'pass', rerun_passed: false, witness_sha256: blobSha256(repo, 'HEAD:observations/o.bin') }),
  });
  commitAll(repo, 'pin and observation');
  return repo;
}

const policy = (() => {
  const p = specPolicy();
  delete p.manifest;
  return p;
})();

test.after(() => {
  for (const r of repos) rmSync(r, { recursive: true, force: true });
});

test('digests over blob bytes: a CRLF checkout does not change the verdict', async () => {
  const repo = baseRepo();
  // Re-checkout so the working copy carries CRLF; the blob keeps LF.
  rmSync(join(repo, 'fixtures', 'gen.py'));
  git(repo, ['checkout', '--', 'fixtures/gen.py']);
  assert.match(readFileSync(join(repo, 'fixtures', 'gen.py'), 'utf8'), '\r\n', 'the checkout has CRLF');
  const report = await evidenceAt(repo, policy);
  assert.equal(report.findings, []);
  assert.is(report.identities.generator_sha256, blobSha256(repo, 'HEAD:fixtures/gen.py'));
  assert.equal(report.identities.witnesses, { o: blobSha256(repo, 'HEAD:observations/o.bin') });
});

test('a committed generator change is EPOCH_MISMATCH', async () => {
  const repo = baseRepo();
  writeFiles(repo, { 'fixtures/gen.py': 'line one\nline 2\n' });
  commitAll(repo, 'tweak the generator');
  assert.equal(codes((await evidenceAt(repo, policy)).findings), ['EPOCH_MISMATCH']);
});

test('a witness replaced by a symlink, or by a submodule, is WITNESS_MISSING', async () => {
  const repo = baseRepo();
  rmSync(join(repo, 'observations', 'o.bin'));
  symlinkSync('../fixtures/gen.py', join(repo, 'observations', 'o.bin'));
  commitAll(repo, 'symlinked witness');
  let report = await evidenceAt(repo, policy);
  assert.equal(codes(report.findings), ['WITNESS_MISSING']);
  assert.match(report.findings[0]!.message, 'found a symlink');

  git(repo, ['rm', '-q', '--cached', 'observations/o.bin']);
  const commit = git(repo, ['rev-parse', 'HEAD']).trim();
  git(repo, ['update-index', '--add', '--cacheinfo', `160000,${commit},observations/o.bin`]);
  git(repo, ['commit', '-q', '-m', 'submodule witness']);
  report = await evidenceAt(repo, policy);
  assert.equal(codes(report.findings), ['WITNESS_MISSING']);
  assert.match(report.findings[0]!.message, 'found a submodule');
});

test('an evidence blob over maxEvidenceBytes is refused from its size', async () => {
  const repo = baseRepo();
  writeFiles(repo, { 'freeze.json': json({ version: 1, frozen: [] }) + ' '.repeat(5000) });
  commitAll(repo, 'padded freeze file');
  const small = specPolicy({ limits: { maxEvidenceBytes: 4096 } });
  delete small.manifest;
  const report = await evidenceAt(repo, small);
  assert.equal(codes(report.findings), ['LIMIT_EXCEEDED']);
  assert.is(report.findings[0]!.path, 'freeze.json');
  assert.is(report.identities.freeze_file_sha256, null);
});

test.run();
