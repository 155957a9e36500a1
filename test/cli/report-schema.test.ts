// schemas/output/report.schema.json is what `--format json` prints: every verdict and every
// setup failure (no verdict) the built CLI prints in real repositories validates against it, and
// a setup failure shaped like a verdict (`"verdict": "closed"` with an `error`) does not.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Ajv2020 from 'ajv/dist/2020';
import { guardedRepo, runCli } from '../helpers/repo';
import { commitAll, git, initRepo, tempDir, writeFiles } from '../helpers/git';

const ROOT = join(__dirname, '..', '..');
const schema = JSON.parse(readFileSync(join(ROOT, 'schemas', 'output', 'report.schema.json'), 'utf8'));
const validate = new Ajv2020({ allErrors: true, strict: true }).compile(schema);

function valid(stdout: string, what: string): Record<string, unknown> {
  const doc = JSON.parse(stdout) as Record<string, unknown>;
  assert.ok(validate(doc), `${what}: ${JSON.stringify(validate.errors, null, 2)}\n${stdout}`);
  return doc;
}

test('verdicts: verify-ref eligible, closed and with bounded contexts; check', () => {
  const repo = guardedRepo();
  const mono = tempDir('rg-schema-mono-');
  try {
    const env = { RECEIPT_GATE_NOW: '2026-11-29' };
    assert.is(valid(runCli(['verify-ref', 'main', '--base', 'main', '--json'], { cwd: repo, env }).stdout, 'eligible').verdict, 'eligible');
    git(repo, ['checkout', '-q', '-b', 'agent']);
    writeFiles(repo, { 'fixtures/orders/base.json': '{"orders": [1]}\n' });
    commitAll(repo, 'edit');
    const closed = valid(runCli(['verify-ref', 'agent', '--base', 'main', '--json'], { cwd: repo, env }).stdout, 'closed');
    assert.is(closed.verdict, 'closed');
    writeFiles(repo, { 'freeze.json': '{"version": 1, "frozen": [{"id": "x"}]}\n' });
    assert.is(valid(runCli(['check', 'freeze.json', '--json'], { cwd: repo, env }).stdout, 'check closed').verdict, 'closed');

    cpSync(join(ROOT, 'examples', 'monorepo'), mono, { recursive: true });
    initRepo({ dir: mono });
    commitAll(mono, 'monorepo');
    const contexts = valid(runCli(['verify-ref', 'main', '--base', 'main', '--json'], { cwd: mono, env: { RECEIPT_GATE_NOW: '2026-12-05' } }).stdout, 'contexts');
    assert.ok(Array.isArray(contexts.contexts));
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(mono, { recursive: true, force: true });
  }
});

test('setup failures: verdict null and an error, for verify-ref, check and explain', () => {
  const bare = initRepo();
  const repo = guardedRepo();
  try {
    writeFiles(bare, { 'a.txt': 'a\n' });
    commitAll(bare, 'no policy');
    const runs: [string, string[], string][] = [
      ['unguarded', ['verify-ref', '--json'], bare],
      ['unknown ref', ['verify-ref', 'nope', '--json'], repo],
      ['check, no policy', ['check', 'a.txt', '--json'], bare],
      ['check, missing file', ['check', 'freez.json', '--json'], repo],
      ['explain, no policy', ['explain', 'x', '--json'], bare],
    ];
    for (const [what, args, cwd] of runs) {
      const r = runCli(args, { cwd });
      assert.is(r.status, 2, what);
      const doc = valid(r.stdout, what);
      assert.is(doc.verdict, null, what);
    }
    // The schema is no rubber stamp: a failure that reads as a verdict is refused.
    assert.not.ok(validate({ verdict: 'closed', error: 'no policy', findings: [], identities: null, base: null, head: null }));
    assert.not.ok(validate({ verdict: null, findings: [], identities: null, base: null, head: null }), 'no verdict needs an error');
  } finally {
    rmSync(bare, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
});

test.run();
