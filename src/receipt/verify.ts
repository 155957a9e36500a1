// What a merge bot checks before it merges (`receipt-gate verify-receipt`). Each check is a
// named fact; every fact that fails is reported, not only the first.
//
//   signature  the DSSE envelope verifies with the given public key (ed25519 over PAE)
//   statement  the payload is an in-toto Statement v1 of receipt-gate's predicate type, whose
//              subject is the receipt's commit
//   schema     the receipt is valid against schemas/receipt.schema.json
//   commit     git_sha is REF's commit
//   freeze     freeze_file_sha256 equals the base's freeze file digest, and no freeze on the
//              base has expired since (the receipt may be older than today)
//   properties properties passed, on the manifest's recorded seed
//   trials     property_trials is at least the base's minimum (grader.minTrials, default 200)
//   isolation  (with --require-isolation) the commands ran in a sandbox (isolation "bwrap")
//   fixtures   every fixture row matches, one row per fixture record at REF
//   evidence   the evidence diff is empty (evidence_paths_clean)
//   verdict    the receipt's verdict is eligible

import type { KeyObject } from 'node:crypto';
import { isOid } from '../types';
import { isEnvelope, PAYLOAD_TYPE, PREDICATE_TYPE, STATEMENT_TYPE, decodeBase64, verifyEnvelope } from './dsse';
import { DEFAULT_GRADER } from '../evidence/policy';
import type { FixtureRecord } from '../evidence/types';
import { checkEvidenceAtCommit } from '../evidence/tree-source';
import type { Policy } from '../evidence/types';
import type { ObjectStore } from '../git/store';
import { receiptSchemaProblems } from './schema';
import type { Receipt } from './types';

export interface FailedFact {
  fact: string;
  reason: string;
}

export interface OpenedReceipt {
  receipt: Receipt | null;
  signed: boolean;
  keyid: string | null;
  failures: FailedFact[];
}

/** Parses the receipt file: a DSSE envelope (checked with `publicKey`), or — only with
 * `allowUnsigned` and no key — a bare receipt. */
export function openReceipt(text: string, publicKey: KeyObject | null, allowUnsigned: boolean): OpenedReceipt {
  const out: OpenedReceipt = { receipt: null, signed: false, keyid: null, failures: [] };
  const fail = (fact: string, reason: string) => {
    out.failures.push({ fact, reason });
    return out;
  };
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (err) {
    return fail('schema', `the file is not JSON (${(err as Error).message})`);
  }

  let predicate: unknown;
  if (isEnvelope(doc)) {
    let body: Buffer | null;
    if (publicKey) {
      const check = verifyEnvelope(doc, publicKey);
      if (!check.ok) return fail('signature', check.reason);
      out.signed = true;
      out.keyid = check.keyid;
      body = check.body;
    } else {
      if (!allowUnsigned) {
        return fail('signature', 'no --pub KEY was given, so the signature was not checked; pass the signer\'s public key (or --allow-unsigned to check everything else)');
      }
      if (doc.payloadType !== PAYLOAD_TYPE) return fail('statement', `payloadType is '${doc.payloadType}', expected '${PAYLOAD_TYPE}'`);
      body = decodeBase64(doc.payload);
      if (!body) return fail('statement', 'the payload is not base64');
    }
    let statement: unknown;
    try {
      statement = JSON.parse(body.toString('utf8'));
    } catch (err) {
      return fail('statement', `the payload is not JSON (${(err as Error).message})`);
    }
    const problem = statementProblem(statement);
    if (problem) return fail('statement', problem);
    predicate = (statement as { predicate: unknown }).predicate;
    const subjectCommit = (statement as { subject: { digest: { gitCommit: string } }[] }).subject[0].digest.gitCommit;
    const gitSha = (predicate as { git_sha?: unknown } | null)?.git_sha;
    if (subjectCommit !== gitSha) {
      fail('statement', `the statement's subject is commit ${subjectCommit} but the receipt is for ${String(gitSha)}`);
    }
  } else {
    if (publicKey || !allowUnsigned) {
      return fail('signature', 'the receipt is not signed (not a DSSE envelope); a merge needs a receipt signed by the CI\'s key (receipt --sign-key)');
    }
    predicate = doc;
  }

  const problems = receiptSchemaProblems(predicate);
  if (problems.length > 0) {
    for (const p of problems) fail('schema', `${p.pointer}: ${p.message} (schemas/receipt.schema.json)`);
    return out;
  }
  out.receipt = predicate as Receipt;
  return out;
}

function statementProblem(statement: unknown): string | null {
  if (typeof statement !== 'object' || statement === null) return 'the payload is not an in-toto Statement';
  const s = statement as Record<string, unknown>;
  if (s._type !== STATEMENT_TYPE) return `_type is ${JSON.stringify(s._type)}, expected '${STATEMENT_TYPE}'`;
  if (s.predicateType !== PREDICATE_TYPE) return `predicateType is ${JSON.stringify(s.predicateType)}, expected '${PREDICATE_TYPE}'`;
  const subject = s.subject;
  if (!Array.isArray(subject) || subject.length !== 1) return 'the statement must have exactly one subject (the commit)';
  const digest = (subject[0] as { digest?: unknown })?.digest as Record<string, unknown> | undefined;
  if (!digest || typeof digest.gitCommit !== 'string' || !isOid(digest.gitCommit)) {
    return 'the subject has no digest.gitCommit (40 hex)';
  }
  return null;
}

/** What the repository says, for the facts a receipt must agree with. */
export interface RepositoryFacts {
  /** REF's commit. */
  commit: string;
  refName: string;
  /** SHA-256 of the freeze file at the base (null: none). */
  baseFreezeDigest: string | null;
  /** Rows of the base's freeze file that have expired by `today` (the receipt may predate it). */
  baseExpiredFreezes: { id: string; expires: string }[];
  today: string;
  baseName: string;
  /** The manifest's seed at REF, decimal (null: no manifest). */
  manifestSeed: string | null;
  /** Fixture records at REF. */
  records: FixtureRecord[];
  /** The fewest trials the base's policy requires of a receipt. */
  minTrials: number;
}

/** The facts at REF and at the base, as the evidence rules read them (the same reading the
 * grader recorded): the base's freeze file, REF's manifest seed and fixture records. */
export async function repositoryFacts(
  store: ObjectStore,
  policy: Policy,
  at: { commit: string; refName: string; base: string; baseName: string; today: string },
): Promise<RepositoryFacts> {
  const atRef = await checkEvidenceAtCommit(store, policy, at.commit, { base: null, today: at.today });
  const atBase = await checkEvidenceAtCommit(store, policy, at.base, { base: null, today: at.today });
  return {
    commit: at.commit,
    refName: at.refName,
    baseFreezeDigest: atBase.results.freeze.freezeFileSha256,
    baseExpiredFreezes: atBase.results.freeze.expired,
    today: at.today,
    baseName: at.baseName,
    manifestSeed: atRef.results.manifestSeed === null ? null : atRef.results.manifestSeed.toString(),
    records: atRef.results.fixtures,
    minTrials: policy.grader?.minTrials ?? DEFAULT_GRADER.minTrials,
  };
}

export function receiptFailures(receipt: Receipt, repo: RepositoryFacts): FailedFact[] {
  const out: FailedFact[] = [];
  const fail = (fact: string, reason: string) => out.push({ fact, reason });

  if (receipt.git_sha !== repo.commit) {
    fail('commit', `the receipt is for commit ${receipt.git_sha}, but ${repo.refName} is ${repo.commit}`);
  }
  if (receipt.freeze_file_sha256 !== repo.baseFreezeDigest) {
    fail(
      'freeze',
      `the receipt's freeze_file_sha256 is ${receipt.freeze_file_sha256 ?? 'null (no freeze file)'}, the base ${repo.baseName} has ${repo.baseFreezeDigest ?? 'null (no freeze file)'}: the freeze changed since the receipt (stale), or the patch changed it; re-run receipt on the current base`,
    );
  }
  if (repo.baseExpiredFreezes.length > 0) {
    fail(
      'freeze',
      `the base ${repo.baseName} has freezes expired on ${repo.today}: ${repo.baseExpiredFreezes.map((f) => `${f.id} (expired ${f.expires})`).join(', ')}; an owner removes them and the receipt is made again`,
    );
  }
  if (!receipt.properties_ok) {
    fail('properties', `the properties did not pass (exit status ${receipt.properties_exit_code ?? 'none'}${receipt.properties_cmd === null ? ', no property command was run' : ''})`);
  }
  if (repo.manifestSeed !== null && receipt.property_seed !== repo.manifestSeed) {
    fail('properties', `the properties ran on seed ${receipt.property_seed ?? 'none'}, not on the manifest's recorded seed ${repo.manifestSeed}`);
  }
  if (receipt.property_trials < repo.minTrials) {
    fail('trials', `the properties ran ${receipt.property_trials} trials, fewer than the ${repo.minTrials} the policy at the base ${repo.baseName} requires (grader.minTrials); re-run receipt without a lower PROPERTY_TRIALS`);
  }
  for (const row of receipt.fixtures) {
    if (!row.ok || row.actual === null || row.actual !== row.expected) {
      fail('fixtures', `fixture ${row.id ?? row.path} (${row.path}) does not match: expected ${row.expected ?? 'no digest'}, got ${row.actual ?? 'no output'}`);
    }
  }
  const rows = new Map(receipt.fixtures.map((r) => [r.path, r]));
  for (const record of repo.records) {
    const row = rows.get(record.path);
    if (!row) fail('fixtures', `fixture record ${record.path} at ${repo.refName} has no row in the receipt`);
    else if (row.expected !== record.sha256) {
      fail('fixtures', `fixture row ${record.path} expects ${row.expected ?? 'no digest'}, but the record at ${repo.refName} says ${record.sha256 ?? 'no valid digest'}`);
    }
  }
  const recordPaths = new Set(repo.records.map((r) => r.path));
  for (const row of receipt.fixtures) {
    if (!recordPaths.has(row.path)) fail('fixtures', `fixture row ${row.path} names no fixture record at ${repo.refName}`);
  }
  if (!receipt.evidence_paths_clean) {
    fail('evidence', 'the patch touches protected evidence paths (evidence_paths_clean is false); see the receipt\'s PATH_PROTECTED findings');
  }
  if (receipt.verdict !== 'eligible') {
    const closing = receipt.findings.filter((f) => f.severity !== 'info').map((f) => f.code);
    fail('verdict', `the receipt's verdict is ${receipt.verdict}${closing.length ? ` (${[...new Set(closing)].join(', ')})` : ''}, not eligible`);
  }
  return out;
}
