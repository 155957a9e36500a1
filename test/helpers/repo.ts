// A guarded repository's evidence and the built CLI, for tests (repositories and git itself:
// ./git.ts). Digests in the evidence are computed independently (node:crypto for blob bytes, python3 for the
// canonical manifest JSON), never by the code under test.

import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { resolve } from 'node:path';
import { commitAll, GIT_ENV, initRepo, writeFiles } from './git';

export const CLI = resolve(__dirname, '../../dist/cli.js');

export function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/** SHA-256 of Python's canonical dumps of {"seed", "properties"}: the manifest digest, by python3. */
export function pythonManifestDigest(seed: number | bigint, properties: unknown[]): string {
  const script =
    'import json,sys,hashlib\n' +
    'd=json.loads(sys.stdin.read())\n' +
    'print(hashlib.sha256(json.dumps({"seed":d["seed"],"properties":d["properties"]},sort_keys=True,separators=(",",":")).encode()).hexdigest())\n';
  const input = `{"seed": ${seed.toString()}, "properties": ${JSON.stringify(properties)}}`;
  return execFileSync('python3', ['-c', script], { input }).toString().trim();
}

export const POLICY = {
  version: 1,
  baseBranch: 'main',
  protectedRefs: ['refs/heads/main', 'refs/heads/release/**'],
  protected: [
    'properties/**', 'fixtures/**', 'freeze.json', 'freezes/**', 'observations/**', 'checks/**',
    'tools/patch_receipt.py', '.github/workflows/**', '.husky/**', '.gitattributes', '**/.gitattributes', '.gitmodules',
  ],
  exceptions: ['fixtures/**/*.md'],
  owners: ['alice', 'release-bot'],
  identityEnv: ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'],
  epoch: { pin: 'fixtures/EPOCH' },
  manifest: { path: 'checks/manifest.json', catalog: 'checks/properties.json' },
  freeze: { path: 'freeze.json', reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 },
  observations: { dir: 'observations', freezes: 'freezes' },
  fixtures: { records: 'fixtures/*.json' },
  limits: { timeoutMs: 20000, maxEvidenceBytes: 1048576 },
};

export const GENERATOR = 'import json\nprint(json.dumps({"orders": [1, 2, 3]}))\n';
export const EPOCH_ID = 'orders-2026-09-25-a';

/** A complete, consistent set of evidence files for README.md's example policy. */
export function validEvidence(overrides: Partial<typeof POLICY> = {}): Record<string, string> {
  const properties = [{ name: 'sum_preserved', bound: 'parts sum to total' }, { name: 'non_negative', bound: '>= 0' }];
  const fixtureOutput = '{"weights": [1, 2, 3]}\n';
  return {
    '.receipt-gate.json': `${JSON.stringify({ ...POLICY, ...overrides }, null, 2)}\n`,
    'fixtures/generate_orders.py': GENERATOR,
    'fixtures/orders/base.json': '{"orders": []}\n',
    'fixtures/EPOCH': `${JSON.stringify({
      epoch_id: EPOCH_ID,
      generator: 'fixtures/generate_orders.py',
      generator_sha256: sha256(GENERATOR),
      inputs: ['fixtures/orders/base.json'],
    })}\n`,
    'fixtures/weights_v3.json': `${JSON.stringify({ id: 'weights_v3', input: { n: 3 }, sha256: sha256(fixtureOutput) })}\n`,
    'fixtures/README.md': 'Fixtures for the allocation tests.\n',
    'checks/manifest.json': `${JSON.stringify({
      seed: 20260925,
      properties,
      manifest_sha256: pythonManifestDigest(20260925, properties),
    })}\n`,
    'freeze.json': `${JSON.stringify({ version: 1, frozen: [] })}\n`,
    'src/alloc.py': 'def allocate(total, weights):\n    return [total]\n',
  };
}

/** A guarded repository: main holds the policy and valid evidence, committed by an owner. */
export function guardedRepo(extra: Record<string, string> = {}): string {
  const repo = initRepo();
  writeFiles(repo, { ...validEvidence(), ...extra });
  commitAll(repo, 'guard the repository');
  return repo;
}

export interface CliRun {
  status: number;
  stdout: string;
  stderr: string;
  json?: any;
}

export function runCli(args: string[], opts: { cwd: string; env?: Record<string, string>; input?: string }): CliRun {
  const r = spawnSync(process.execPath, [CLI, ...args], {
    cwd: opts.cwd,
    input: opts.input ?? '',
    env: { ...process.env, ...GIT_ENV, ...(opts.env ?? {}) },
    encoding: 'utf8',
  });
  const run: CliRun = { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
  if (args.includes('--json')) {
    try {
      run.json = JSON.parse(r.stdout);
    } catch {
      run.json = undefined;
    }
  }
  return run;
}

export function codes(run: CliRun): string[] {
  return (run.json?.findings ?? []).map((f: { code: string }) => f.code).sort();
}
