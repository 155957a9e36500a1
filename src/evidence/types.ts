// Shapes shared by the evidence modules. An EvidenceSource is a read-only view of one tree:
// a commit's tree (git objects), the staged index, or a working directory (`check`).

import type { Finding, Identities } from '../findings';

export type EvidenceEntry =
  | { kind: 'file'; path: string; size: number; read(): Promise<Uint8Array> }
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
  version: 1;
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
  observations?: { dir: string; freezes: string };
  fixtures?: { records: string };
  /** Always present after parsing (defaults: 4000 ms, 1 MiB). */
  limits: { timeoutMs: number; maxEvidenceBytes: number };
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
}

export interface EvidenceReport {
  findings: Finding[];
  identities: Identities;
}
