// Shapes shared by the evidence modules. An EvidenceSource is a read-only view of one tree:
// a commit's tree (git objects), the staged index, or a working directory (`check`).

import type { Deadline } from '../deadline';
import type { Finding, Identities } from '../findings';

export type EvidenceEntry =
  /** `oid`: the blob's object id, when the source reads a git tree (what was parsed from one
   * blob can be kept by it). */
  | { kind: 'file'; path: string; size: number; oid?: string; read(): Promise<Uint8Array> }
  | { kind: 'missing'; path: string }
  | { kind: 'other'; path: string; what: 'directory' | 'symlink' | 'submodule' };

export interface EvidenceSource {
  /** Human description used in messages, e.g. "commit 1a2b3c4" or "the staged index". */
  readonly label: string;
  /** Looks up one path exactly (git paths are case-sensitive). */
  stat(path: string): Promise<EvidenceEntry>;
  /** Every path below `dir` (recursively, files, symlinks and submodules; not directories),
   * sorted by code unit; [] when `dir` is absent or not a directory. */
  list(dir: string): Promise<string[]>;
}

export interface Policy {
  version: 1 | 2;
  baseBranch: string;
  protectedRefs: string[];
  protected: string[];
  exceptions: string[];
  owners: string[];
  identityEnv: string[];
  /** Evidence sections are optional: a section the policy leaves out is not checked; a
   * section it names makes its files required. */
  epoch?: { pin: string };
  manifest?: { path: string; catalog?: string };
  freeze?: { path: string; reasons: string[]; maxDays: number };
  /** `liftAfterPasses`: the consecutive passes `freeze review --run` asks of a frozen test before it
   * says lifting may be considered (DEFAULT_LIFT_AFTER_PASSES when absent). */
  observations?: { dir: string; freezes: string; liftAfterPasses?: number };
  fixtures?: { records: string };
  /** Always present after parsing (defaults: 4000 ms, 1 MiB). */
  limits: { timeoutMs: number; maxEvidenceBytes: number };
  /** What `receipt` requires of its own run; absent: DEFAULT_GRADER (200 trials, no network).
   * A context's policy carries the repository's. */
  grader?: { minTrials: number; network: boolean };
  /** Bounded contexts (version 2 only; absent in a policy without contexts). */
  contexts?: ContextPolicy[];
}

/** One bounded context of a monorepo, resolved from the policy: every path in `policy` is a
 * repository path (the context's root joined to what the policy file wrote). */
export interface ContextPolicy {
  name: string;
  root: string;
  /** Globs of paths outside every root that this context depends on (repository paths). */
  dependsOn: string[];
  /** The context as a policy of its own: its evidence sections, its owners (the repository's
   * when it names none), the repository-wide protected globs and exceptions plus its own. */
  policy: Policy;
}

/** Generator and witness blobs may be larger than JSON evidence, up to this many bytes. */
export const MAX_BLOB_BYTES = 64 * 1024 * 1024;

export const POLICY_PATH = '.receipt-gate.json';

/** Everything a rule over evidence needs. Findings it returns carry `path`, `message`, `fix`;
 * the engine adds `ref` and `commit`. */
export interface EvidenceContext {
  policy: Policy;
  /** The tree under test. */
  atNew: EvidenceSource;
  /** The base tree (for EPOCH_REWRITTEN); null when there is no base. */
  atBase: EvidenceSource | null;
  /** Today as a UTC calendar date, YYYY-MM-DD (injected clock). */
  today: string;
  /** The run's deadline (limits.timeoutMs). Every rule checks it while it reads, parses and
   * hashes; DeadlineExceeded propagates to the caller, which reports LIMIT_EXCEEDED. Tools that
   * run without a limit (authoring, `check`) may leave it out. */
  deadline?: Deadline;
}

/** The context as each rule module gets it: the deadline is always there. */
export interface RuleContext extends EvidenceContext {
  deadline: Deadline;
}

// What the evidence rules record (src/evidence/epoch.ts, fixtures.ts, freeze.ts define how).

export interface EpochPin {
  epoch_id: string;
  generator: string;
  generator_sha256: string;
  inputs: string[];
}

/** One fixture record as the receipt re-runs it. */
export interface FixtureRecord {
  path: string;
  /** The record's id when it is a string. */
  id: string | null;
  /** The recorded digest when it is a real SHA-256 (64 lowercase hex), else null. */
  sha256: string | null;
  /** The record's `input` as canonical JSON (Python's json.dumps with sort_keys and compact
   * separators): the bytes the fixture command reads on stdin. Null when there is none. */
  stdin: string | null;
  /** Why the record cannot be re-run (the first problem this rule found); null when it can. */
  problem: string | null;
}

export interface FreezeRow {
  id: string;
  reason: string;
  expires: string;
  owner?: string;
  added?: string;
}

/** What the freeze file freezes today, as the receipt records it. */
export interface FreezeFileState {
  /** SHA-256 of the freeze file's bytes when they could be read (valid JSON or not); null when
   * there is no freeze file, or it is not a regular file or over the size limit. */
  freezeFileSha256: string | null;
  /** Rows that are valid and not expired. */
  active: FreezeRow[];
  /** Rows with a string id whose `expires` is a real date before today, in file order. */
  expired: { id: string; expires: string }[];
}

/** What the rules read and validated at `new`, for the receipt and its verifier: they record
 * these instead of reading the files again. A rule that failed (INTERNAL_ERROR) or whose section
 * the policy leaves out contributes its empty value. */
export interface EvidenceResults {
  /** The epoch pin, when valid. */
  pin: EpochPin | null;
  /** The manifest's seed, when it is an integer (whatever else is wrong with the manifest). */
  manifestSeed: bigint | null;
  /** The freeze file: its digest, its valid unexpired rows and its expired rows. */
  freeze: FreezeFileState;
  /** Every fixture record, sorted by path, each with what the receipt needs to re-run it. */
  fixtures: FixtureRecord[];
}

export interface EvidenceReport {
  findings: Finding[];
  identities: Identities;
  results: EvidenceResults;
  /** With bounded contexts: each context's identities and results (findings name their context). */
  contexts?: ContextResult[];
}

/** One bounded context's evidence at `new`, and whether the ref update touches it. */
export interface ContextResult {
  name: string;
  root: string;
  touched: boolean;
  identities: Identities;
  evidence: EvidenceResults;
}
