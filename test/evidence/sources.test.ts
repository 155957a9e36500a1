// DirectorySource on a real directory (symlinks never followed), compared with what git itself
// stores for the same directory; MemorySource semantics the rule tests rely on.
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkEvidence } from '../../src/evidence/index';
import { DirectorySource } from '../../src/evidence/sources';
import { MemorySource } from './memory-source';
import { codes, json, sha256, specPolicy } from './evidence-helpers';

const root = mkdtempSync(join(tmpdir(), 'rg-sources-'));
const outside = mkdtempSync(join(tmpdir(), 'rg-outside-'));
const git = (...args: string[]) => execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' });

function write(path: string, content: string) {
  mkdirSync(join(root, ...path.split('/').slice(0, -1)), { recursive: true });
  writeFileSync(join(root, ...path.split('/')), content);
}

test.before(() => {
  writeFileSync(join(outside, 'secret.json'), '{"version": 1, "frozen": []}');
  mkdirSync(join(outside, 'dir'));
  writeFileSync(join(outside, 'dir', 'x.json'), '{}');
  write('freeze.json', '{"version": 1, "frozen": []}');
  write('observations/a.json', '{}');
  write('observations/a.bin', 'w');
  write('observations/deep/b.json', '{}');
  write('fixtures/EPOCH', '{}');
  write('.hidden/x', 'x');
  write('Zeta', 'z');
  write('alpha', 'a');
  symlinkSync(join(outside, 'secret.json'), join(root, 'linked.json'));
  symlinkSync(join(outside, 'dir'), join(root, 'linkdir'));
  mkdirSync(join(root, 'empty'));
  git('init', '-q');
  git('add', '-A');
});

test.after(() => {
  rmSync(root, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

test('DirectorySource.list("") is what git stores for the directory, in code-unit order', async () => {
  const source = new DirectorySource(root);
  const stored = git('ls-files', '-z').split('\0').filter(Boolean);
  assert.equal(await source.list(''), [...stored].sort());
  assert.ok(stored.includes('linked.json') && stored.includes('linkdir'), 'git stores symlinks as entries');
});

test('DirectorySource.list(dir): recursive below dir, [] for a missing dir, a file or a symlinked dir', async () => {
  const source = new DirectorySource(root);
  assert.equal(await source.list('observations'), ['observations/a.bin', 'observations/a.json', 'observations/deep/b.json']);
  assert.equal(await source.list('observations/'), await source.list('observations'));
  assert.equal(await source.list('nope'), []);
  assert.equal(await source.list('freeze.json'), []);
  assert.equal(await source.list('linkdir'), []);
  assert.equal(await source.list('empty'), []);
  assert.equal(await source.list('../'), []);
});

test('DirectorySource.stat: files, folders, symlinks (never followed), missing paths', async () => {
  const source = new DirectorySource(root);
  const file = await source.stat('freeze.json');
  assert.is(file.kind, 'file');
  if (file.kind === 'file') {
    assert.is(file.size, Buffer.byteLength('{"version": 1, "frozen": []}'));
    assert.is(new TextDecoder().decode(await file.read()), '{"version": 1, "frozen": []}');
  }
  assert.equal(await source.stat('linked.json'), { kind: 'other', path: 'linked.json', what: 'symlink' });
  assert.equal(await source.stat('observations'), { kind: 'other', path: 'observations', what: 'directory' });
  assert.equal(await source.stat('linkdir/x.json'), { kind: 'missing', path: 'linkdir/x.json' }, 'not through a symlink');
  assert.equal(await source.stat('missing.json'), { kind: 'missing', path: 'missing.json' });
  assert.equal(await source.stat('freeze.json/x'), { kind: 'missing', path: 'freeze.json/x' });
  assert.equal(await source.stat('../etc/passwd'), { kind: 'missing', path: '../etc/passwd' });
  assert.equal(await source.stat('.git/config'), { kind: 'missing', path: '.git/config' });
});

test('DirectorySource: a nested repository is a submodule', async () => {
  const nested = join(root, 'vendor', 'lib');
  mkdirSync(nested, { recursive: true });
  execFileSync('git', ['init', '-q', nested]);
  writeFileSync(join(nested, 'f'), 'x');
  const source = new DirectorySource(root);
  assert.equal(await source.stat('vendor/lib'), { kind: 'other', path: 'vendor/lib', what: 'submodule' });
  assert.equal(await source.list('vendor'), ['vendor/lib']);
  rmSync(join(root, 'vendor'), { recursive: true, force: true });
});

test('checkEvidence over a working directory: a symlinked freeze file is FREEZE_INVALID', async () => {
  const policy = specPolicy({ freeze: { path: 'linked.json' } });
  delete policy.epoch;
  delete policy.observations;
  delete policy.fixtures;
  delete policy.manifest;
  const report = await checkEvidence({ policy, atNew: new DirectorySource(root), atBase: null, today: '2026-09-18' });
  assert.equal(codes(report.findings), ['FREEZE_INVALID']);
  assert.match(report.findings[0]!.message, 'expected a regular file, found a symlink');
  assert.is(report.identities.freeze_file_sha256, null);
});

test('MemorySource: implied folders, kinds, sorted listing, size-only entries are never read', async () => {
  const source = new MemorySource({
    'b/x': 'x',
    'a/y': new Uint8Array([1, 2]),
    'a/link': { symlink: 't' },
    'a/sub': { submodule: 'e'.repeat(40) },
    'big.json': { size: 10 },
  });
  assert.equal(await source.list(''), ['a/link', 'a/sub', 'a/y', 'b/x', 'big.json']);
  assert.equal(await source.list('a'), ['a/link', 'a/sub', 'a/y']);
  assert.equal(await source.list('b/x'), []);
  assert.equal(await source.stat('a'), { kind: 'other', path: 'a', what: 'directory' });
  assert.equal(await source.stat('a/link'), { kind: 'other', path: 'a/link', what: 'symlink' });
  assert.equal(await source.stat('a/sub'), { kind: 'other', path: 'a/sub', what: 'submodule' });
  const big = await source.stat('big.json');
  assert.is(big.kind, 'file');
  if (big.kind === 'file') {
    assert.is(big.size, 10);
    try {
      await big.read();
      assert.unreachable('a size-only entry must not be readable');
    } catch (err) {
      assert.match(String(err), 'should have been refused');
    }
  }
  const y = await source.stat('a/y');
  if (y.kind === 'file') assert.equal([...(await y.read())], [1, 2]);
  assert.equal(source.reads, ['a/y']);
  assert.throws(() => new MemorySource({ '../x': 'x' }));
  assert.throws(() => new MemorySource({ a: 'x', 'a/b': 'y' }));
});

test('MemorySource and DirectorySource give the same evidence report for the same tree', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'rg-same-'));
  const witness = 'witness';
  const files: Record<string, string> = {
    'fixtures/EPOCH': json({ epoch_id: 'e1', generator: 'gen.py', generator_sha256: sha256('gen') }),
    'gen.py': 'gen',
    'freeze.json': json({ version: 1, frozen: [{ id: 't', reason: 'timing', expires: '2026-09-01' }] }),
    'observations/o.json': json({ id: 'o', epoch_id: 'e1', status: 'flake', rerun_passed: true, witness_sha256: sha256(witness) }),
    'observations/o.bin': witness,
    'freezes/o.json': json({ observation_id: 'o', epoch_id: 'e1', expires_on: '2026-09-20', reason: 'slow disk' }),
    'fixtures/r.json': json({ id: 'r', input: 1, sha256: 'TODO' }),
  };
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(join(dir, ...path.split('/').slice(0, -1)), { recursive: true });
    writeFileSync(join(dir, ...path.split('/')), content);
  }
  const policy = specPolicy();
  delete policy.manifest;
  const fromDisk = await checkEvidence({ policy, atNew: new DirectorySource(dir), atBase: null, today: '2026-09-18' });
  const fromMemory = await checkEvidence({ policy, atNew: new MemorySource(files), atBase: null, today: '2026-09-18' });
  assert.equal(fromDisk, fromMemory);
  assert.equal(codes(fromDisk.findings), ['FREEZE_EXPIRED', 'FREEZE_HELD', 'FIXTURE_PLACEHOLDER']);
  rmSync(dir, { recursive: true, force: true });
});

test.run();
