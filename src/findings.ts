// Findings are plain data: what rule, where, what is wrong, and how to fix it. They are
// rendered in one place (src/render.ts) for the terminal, for --json and for receipts.

export const FINDING_CODES = [
  'PATH_PROTECTED',
  'PATH_UNSAFE',
  'OBJECT_INVALID',
  'POLICY_INVALID',
  'REF_PROTECTED',
  'REF_RESERVED',
  'EPOCH_MISSING',
  'EPOCH_INVALID',
  'EPOCH_MISMATCH',
  'EPOCH_REWRITTEN',
  'MANIFEST_INVALID',
  'MANIFEST_DIGEST',
  'MANIFEST_SAMPLE',
  'FREEZE_INVALID',
  'FREEZE_REASON',
  'FREEZE_WINDOW',
  'FREEZE_EXPIRED',
  'FREEZE_ACTIVE',
  'FREEZE_HELD',
  'OBSERVATION_FAILED',
  'OBSERVATION_INVALID',
  'PROPERTIES_FAILED',
  'OBSERVATION_EPOCH',
  'WITNESS_MISSING',
  'WITNESS_MISMATCH',
  'FREEZE_UNWITNESSED',
  'FLAKE_UNFROZEN',
  'OBSERVATION_ARCHIVED',
  'FIXTURE_INVALID',
  'FIXTURE_PLACEHOLDER',
  'FIXTURE_DIGEST',
  'TRIALS_TOO_FEW',
  'LIMIT_EXCEEDED',
  'REF_NO_COMMIT',
  'LOG_GAP',
  'LOG_FORKED',
  'LOG_SIGNATURE',
  'LOG_UNGATED',
  'INTERNAL_ERROR',
] as const;

export type FindingCode = (typeof FINDING_CODES)[number];

/** `closed` findings close the verdict, `hold` ones hold it, `info` ones are only reported. */
export type Severity = 'closed' | 'hold' | 'info';

export interface Finding {
  code: FindingCode;
  severity: Severity;
  /** The ref update this finding belongs to (full ref name), when there is one. */
  ref?: string;
  /** The commit (full oid) the finding was made on: the commit that touched a path, or `new`. */
  commit?: string;
  /** Repository path of the file concerned, when there is one. */
  path?: string;
  /** What is wrong, as one sentence for a person. */
  message: string;
  /** What to do instead, and who may do it. */
  fix: string;
  /** The bounded context the finding belongs to (a policy with contexts; docs/contexts.md). */
  context?: string;
}

/** Identities of the evidence at `new`, recorded in --json output and in receipts. */
export interface Identities {
  epoch_id: string | null;
  generator_sha256: string | null;
  manifest_sha256: string | null;
  freeze_file_sha256: string | null;
  /** observation id -> SHA-256 of its witness bytes, for every observation with a witness. */
  witnesses: Record<string, string>;
}

export function emptyIdentities(): Identities {
  return {
    epoch_id: null,
    generator_sha256: null,
    manifest_sha256: null,
    freeze_file_sha256: null,
    witnesses: {},
  };
}

export function finding(
  code: FindingCode,
  fields: Omit<Finding, 'code' | 'severity'> & { severity?: Severity },
): Finding {
  const { severity = 'closed', ...rest } = fields;
  return { code, severity, ...rest };
}
