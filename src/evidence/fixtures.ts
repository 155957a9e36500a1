// Fixture records (fixtures/*.json other than the pin): {"id", "input", "sha256"}. A digest that
// is not a real SHA-256 (64 lowercase hex) is a placeholder, and a placeholder is an error: it
// would let any produced bytes "match". Comparing the digest with produced bytes is the
// receipt's job (FIXTURE_DIGEST), not this rule's.

import picomatch from 'picomatch';
import { finding, type Finding } from '../findings';
import { toPlain } from './pyjson';
import { readJsonEvidence, schemaFindings, SHA256_RE, type FileRole } from './read';
import { show } from './schema';
import type { EvidenceContext, EvidenceSource } from './types';

export interface FixtureRecord {
  path: string;
  id: string;
  sha256: string;
}

export interface FixturesCheck {
  findings: Finding[];
  /** Records whose digest is a real SHA-256. */
  records: FixtureRecord[];
}

/** Paths matching the records glob (picomatch, dot files included, case-insensitive on NFC
 * forms, as every policy glob), other than the epoch pin. */
export async function fixtureRecordPaths(source: EvidenceSource, glob: string, pin: string | undefined): Promise<string[]> {
  const isMatch = picomatch(glob.normalize('NFC'), { dot: true, nocase: true });
  const base = picomatch.scan(glob).base;
  const candidates = await source.list(base);
  return candidates.filter((p) => p !== pin && isMatch(p.normalize('NFC')));
}

export async function checkFixtures(ctx: EvidenceContext): Promise<FixturesCheck> {
  const { policy } = ctx;
  if (!policy.fixtures) return { findings: [], records: [] };
  const findings: Finding[] = [];
  const records: FixtureRecord[] = [];
  for (const path of await fixtureRecordPaths(ctx.atNew, policy.fixtures.records, policy.epoch?.pin)) {
    const role: FileRole = {
      code: 'FIXTURE_PLACEHOLDER',
      what: 'fixture record',
      notA: 'not a fixture record',
      fix: `write ${path} as {"id", "input", "sha256"} with the real SHA-256 of the fixture's bytes (schemas/fixture-record.schema.json)`,
    };
    const read = await readJsonEvidence(ctx.atNew, path, role, policy.limits.maxEvidenceBytes);
    if (read.kind === 'missing') continue;
    if (read.kind === 'failed') {
      findings.push(...read.findings);
      continue;
    }
    const plain = toPlain(read.value);
    const problems = schemaFindings(role, path, 'fixture-record.schema.json', plain);
    findings.push(...problems);
    const record = plain as { id?: unknown; sha256?: unknown };
    if (typeof record.sha256 === 'string' && !SHA256_RE.test(record.sha256)) {
      findings.push(
        finding('FIXTURE_PLACEHOLDER', {
          path,
          message: `${path} records sha256 ${show(record.sha256)}, a placeholder, not a SHA-256 (64 lowercase hex digits).`,
          fix: `record the real SHA-256 of the bytes the fixture produces (an owner regenerates the fixtures on the pinned epoch)`,
        }),
      );
    } else if (problems.length === 0) {
      records.push({ path, id: record.id as string, sha256: record.sha256 as string });
    }
  }
  return { findings, records };
}
