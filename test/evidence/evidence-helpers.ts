// Shared helpers for the evidence rule tests: a policy from JSON text, a context over an
// in-memory tree, and python3 as an independent implementation for differential checks.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as assert from 'uvu/assert';
import type { Finding, FindingCode } from '../../src/findings';
import { parsePolicy } from '../../src/evidence/policy';
import { MemorySource, type MemoryEntry } from './memory-source';
import { Deadline } from '../../src/deadline';
import type { Policy, RuleContext } from '../../src/evidence/types';

export const SEED = 20261129;

export function sha256(bytes: string | Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

export function policyFrom(doc: Record<string, unknown>): Policy {
  const parsed = parsePolicy(new TextEncoder().encode(JSON.stringify(doc)));
  if (!parsed.ok) throw new Error(`test policy is invalid: ${parsed.findings.map((f) => f.message).join('; ')}`);
  return parsed.policy;
}

/** README.md's example policy. */
export function specPolicy(overrides: Record<string, unknown> = {}): Policy {
  return policyFrom({
    version: 1,
    owners: ['alice', 'release-bot'],
    epoch: { pin: 'fixtures/EPOCH' },
    manifest: { path: 'checks/manifest.json' },
    freeze: { path: 'freeze.json', reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 },
    observations: { dir: 'observations', freezes: 'freezes' },
    fixtures: { records: 'fixtures/*.json' },
    ...overrides,
  });
}

export function context(
  policy: Policy,
  files: Record<string, MemoryEntry>,
  opts: { base?: Record<string, MemoryEntry>; today?: string; deadline?: Deadline } = {},
): RuleContext {
  return {
    policy,
    atNew: new MemorySource(files, 'commit 1234567'),
    atBase: opts.base ? new MemorySource(opts.base, 'base 89abcde') : null,
    today: opts.today ?? '2026-09-18',
    deadline: opts.deadline ?? Deadline.never(),
  };
}

export function codes(findings: readonly Finding[]): FindingCode[] {
  return findings.map((f) => f.code);
}

/** Every finding carries a file, a one-sentence message and a fix. */
export function assertWellFormed(findings: readonly Finding[]): void {
  for (const f of findings) {
    assert.ok(f.path && f.path.length > 0, `${f.code} names a file`);
    assert.ok(f.message.length > 0 && f.message.endsWith('.'), `${f.code} message is a sentence: ${f.message}`);
    assert.ok(f.fix.length > 0, `${f.code} has a fix`);
    const expected = f.code === 'FREEZE_ACTIVE' || f.code === 'OBSERVATION_ARCHIVED' ? 'info' : f.code === 'FREEZE_HELD' ? 'hold' : 'closed';
    assert.is(f.severity, expected, `${f.code} severity`);
  }
}

/** Runs a python3 program with `input` on stdin and returns its stdout (throws on failure). */
export function python(program: string, input: string): string {
  const run = spawnSync('python3', ['-c', program], { input, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (run.status !== 0) throw new Error(`python3 failed: ${run.stderr}`);
  return run.stdout;
}

export function json(value: unknown): string {
  return JSON.stringify(value);
}
