// Fixture records (fixtures/*.json other than the pin): {"id", "input", "sha256"}. A digest that
// is not a real SHA-256 (64 lowercase hex) is a placeholder (FIXTURE_PLACEHOLDER), and a
// placeholder is an error: it would let any produced bytes "match". A file that is not a record
// at all (not JSON, not a regular file, schema problems) is FIXTURE_INVALID. Comparing the digest with produced bytes is the
// receipt's job (FIXTURE_DIGEST), not this rule's: it gets every record from here, with its
// input as the bytes the fixture command reads.

import { finding, type Finding } from '../findings';
import { dumpsCanonical, toPlain } from './pyjson';
import { anOwner, member, readJsonEvidence, schemaFindings, SHA256_RE, type FileRole } from './read';
import { byCodeUnit } from './sources';
import { globBase } from '../glob';
import { matcher } from '../matchers';
import { show } from './schema';
import type { EvidenceSource, FixtureRecord, RuleContext } from './types';


export interface FixturesCheck {
  findings: Finding[];
  /** Every record the policy names, sorted by path; `problem` is null for the valid ones. */
  records: FixtureRecord[];
}

/** Paths matching the records glob, dot files included, on folded keys as every policy glob
 * (docs/contract.md §6 Aliases), under the folder the glob starts with; the epoch pin is not a record. */
async function fixtureRecordPaths(source: EvidenceSource, glob: string, pin: string | undefined): Promise<string[]> {
  const isMatch = matcher([glob]);
  const base = globBase(glob);
  const candidates = await source.list(base);
  return candidates.filter((p) => p !== pin && isMatch(p));
}

export async function checkFixtures(ctx: RuleContext): Promise<FixturesCheck> {
  const { policy } = ctx;
  if (!policy.fixtures) return { findings: [], records: [] };
  const findings: Finding[] = [];
  const records: FixtureRecord[] = [];
  for (const path of await fixtureRecordPaths(ctx.atNew, policy.fixtures.records, policy.epoch?.pin)) {
    ctx.deadline.check();
    const checked = await checkRecord(ctx, path);
    findings.push(...checked.findings);
    if (checked.record) records.push(checked.record);
  }
  return { findings, records: records.sort((a, b) => byCodeUnit(a.path, b.path)) };
}

async function checkRecord(ctx: RuleContext, path: string): Promise<{ findings: Finding[]; record: FixtureRecord | null }> {
  const role: FileRole = {
    code: 'FIXTURE_INVALID',
    what: 'fixture record',
    notA: 'not a fixture record',
    fix: `${anOwner(ctx.policy)} rewrites ${path} as {"id", "input", "sha256"} with the real SHA-256 of the fixture's bytes (schemas/fixture-record.schema.json)`,
  };
  const read = await readJsonEvidence(ctx.atNew, path, role, ctx.policy.limits.maxEvidenceBytes, ctx.deadline);
  if (read.kind === 'missing') return { findings: [], record: null }; // listed, then gone
  if (read.kind === 'failed') {
    return { findings: read.findings, record: { path, id: null, sha256: null, stdin: null, problem: problemOf(read.findings) } };
  }
  const plain = toPlain(read.value, ctx.deadline);
  const findings = schemaFindings(role, path, 'fixture-record.schema.json', plain, ctx.deadline);
  const id = member(read.value, 'id');
  const sha256 = member(read.value, 'sha256');
  const input = member(read.value, 'input');
  if (sha256?.t === 'str' && !SHA256_RE.test(sha256.v)) {
    findings.push(
      finding('FIXTURE_PLACEHOLDER', {
        path,
        message: `${path} records sha256 ${show(sha256.v)}, a placeholder, not a SHA-256 (64 lowercase hex digits).`,
        fix: `${anOwner(ctx.policy)} records the real SHA-256 of the bytes the fixture produces (regenerating the fixtures on the pinned epoch)`,
      }),
    );
  }
  return {
    findings,
    record: {
      path,
      id: id?.t === 'str' ? id.v : null,
      sha256: sha256?.t === 'str' && SHA256_RE.test(sha256.v) ? sha256.v : null,
      stdin: input === undefined ? null : dumpsCanonical(input),
      problem: findings.length > 0 ? problemOf(findings) : null,
    },
  };
}

/** The first finding's message, as a clause ("fixtures/a.json is not a fixture record: …"). */
function problemOf(findings: Finding[]): string {
  return findings[0]!.message.replace(/\.$/, '');
}

