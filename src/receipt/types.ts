// The receipt (docs/contract.md §4, docs/receipts.md): everything the grader saw, in one JSON document that a merge
// bot can check without re-running anything. schemas/receipt.schema.json is its format; a
// test checks that a receipt typed as `Receipt` validates against it.

import type { Finding } from '../findings';
import type { Verdict } from '../verdict';

export const RECEIPT_SCHEMA = 'agent-patch-receipt/v1';
/** A receipt for one bounded context of a monorepo (docs/contexts.md): v1 plus `context`. */
export const RECEIPT_SCHEMA_CONTEXT = 'agent-patch-receipt/v2';

/** The bounded context a v2 receipt covers. */
export interface ReceiptContext {
  name: string;
  root: string;
}

/** One fixture record, re-run by the grader: `expected` from the record at the commit,
 * `actual` the SHA-256 of the fixture command's stdout (null when the command did not
 * complete). */
export interface FixtureRow {
  path: string;
  id: string | null;
  expected: string | null;
  actual: string | null;
  ok: boolean;
}

export interface ExpiredFreeze {
  id: string;
  expires: string;
}

export interface Receipt {
  schema: typeof RECEIPT_SCHEMA | typeof RECEIPT_SCHEMA_CONTEXT;
  /** v2 only: the bounded context graded. */
  context?: ReceiptContext;
  /** The commit graded (full oid) and the ref it was named by. */
  git_sha: string;
  ref: string;
  /** The base the evidence diff and the freeze digest were taken against. */
  base_sha: string;
  generated_at: string;
  tool_version: string;
  node_version: string;
  /** The seed the property command ran with, as decimal text (seeds may exceed 2^53). */
  property_seed: string | null;
  /** The seed the manifest at the commit records (null: no manifest). */
  manifest_seed: string | null;
  property_trials: number;
  /** The fewest trials the base's policy requires (grader.minTrials, default 200); a receipt
   * with fewer is closed. Absent on receipts made before 2026-12-04. */
  min_trials?: number;
  properties_cmd: string | null;
  properties_exit_code: number | null;
  properties_ok: boolean;
  /** Whether the property command ran. Receipt-gate runs none of the patch's commands when the
   * patch touches the evidence, leaves an invalid policy, or asks for fewer trials than the
   * base's minimum; `not_run_reason` says which. Absent on receipts made before 2026-12-04. */
  properties_run?: boolean;
  /** How the property and fixture commands ran: in a bubblewrap sandbox, or without isolation.
   * Absent on receipts made before 2026-12-04 (read as "none"). */
  isolation?: 'bwrap' | 'none';
  not_run_reason?: string | null;
  fixtures: FixtureRow[];
  freeze_file_sha256: string | null;
  expired_freezes: ExpiredFreeze[];
  /** Ids the freeze file at the commit freezes (valid and unexpired rows). */
  frozen_tests: string[];
  /** Frozen tests that passed anyway: reported for owners, never used to unfreeze. */
  frozen_tests_passed: string[];
  /** Tests outside the freeze that failed in the JUnit results (each closes the verdict). */
  failed_tests: string[];
  junit_files: string[];
  evidence_paths_clean: boolean;
  epoch_id: string | null;
  generator_sha256: string | null;
  manifest_sha256: string | null;
  witnesses: Record<string, string>;
  verdict: Verdict;
  findings: Finding[];
}
