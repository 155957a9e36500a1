// What `receipt-gate init` writes into a project: the starter policy, the starter evidence,
// the husky hooks and the lint-staged entry. Kept as data so init can merge them into what a
// project already has, and so a test can hold them against hooks/ and the policy schema.

import { DEFAULT_IDENTITY_ENV, DEFAULT_FREEZE, DEFAULT_LIMITS, evidencePaths } from '../evidence/policy';
import { POLICY_PATH, type Policy } from '../evidence/types';

/** Versions init adds to devDependencies when the project has none: husky 9 (hooks as plain
 * files under .husky/) and lint-staged 15 (the last major that runs on Node 20.x, >= 18.12). */
export const HUSKY_VERSION = '9.1.7';
export const LINT_STAGED_VERSION = '15.5.2';

/** The policy init writes. Only the freeze section is switched on: its starter file (no rows)
 * is valid as written. The epoch, manifest and observations sections name files that must
 * exist once named; `epoch pin`, `manifest sample` and `observe` say how to add them. */
export function starterPolicy(opts: {
  baseBranch: string;
  owners: string[];
  hookConfig?: string[];
  /** The protected globs and exceptions proposed from the project's layout and the guard
   * globs (src/client/layout.ts). Runner, workflow and hook files are among them because
   * whoever can edit them can switch the gate or the tests off. */
  protected: string[];
  exceptions: string[];
}): Record<string, unknown> {
  const globs = opts.protected;
  return {
    version: 1,
    baseBranch: opts.baseBranch,
    protectedRefs: [`refs/heads/${opts.baseBranch}`, 'refs/heads/release/**'],
    // The hook manager's own configuration is protected like .husky/: it decides what the
    // client hooks run.
    protected: [...globs, ...(opts.hookConfig ?? []).filter((p) => !globs.includes(p))],
    exceptions: opts.exceptions,
    owners: opts.owners,
    identityEnv: DEFAULT_IDENTITY_ENV,
    freeze: { path: DEFAULT_FREEZE.path, reasons: DEFAULT_FREEZE.reasons, maxDays: DEFAULT_FREEZE.maxDays },
    limits: { timeoutMs: DEFAULT_LIMITS.timeoutMs, maxEvidenceBytes: DEFAULT_LIMITS.maxEvidenceBytes },
  };
}

export const STARTER_FREEZE = { version: 1, frozen: [] as unknown[] };

/** JSON as the authoring commands write it: two-space indent, final newline. */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** The command lines of the shipped hooks (hooks/pre-commit, hooks/pre-push). */
export const PRE_COMMIT_COMMAND = 'receipt-gate pre-commit';
export const PRE_PUSH_COMMAND = 'receipt-gate pre-push "$@"';
export const LINT_STAGED_COMMAND = 'lint-staged';

/** The husky 9 hook files init writes when the project has none. husky 9 runs them with
 * `sh -e` and node_modules/.bin on PATH; the gate first (it is fast and answers before the
 * project's slower steps), then lint-staged for the per-file messages of `receipt-gate check`. */
export const HUSKY_PRE_COMMIT = `${PRE_COMMIT_COMMAND}\n${LINT_STAGED_COMMAND}\n`;
export const HUSKY_PRE_PUSH = `${PRE_PUSH_COMMAND}\n`;

/** The first lines of a husky 5-8 hook file: husky.sh reads HUSKY=0 and sets up the run;
 * it does not put node_modules/.bin on PATH, so these hooks call the programs by path. */
export const HUSKY_LEGACY_HEADER = '#!/bin/sh\n. "$(dirname "$0")/_/husky.sh"\n\n';

export const CHECK_COMMAND = 'receipt-gate check';

/** The lint-staged glob for the evidence files: the policy's, and the conventional evidence
 * folders, so a section switched on later is covered without editing package.json (`check`
 * passes over files the policy does not name). A glob with a '/' is matched against the path
 * from the project root (micromatch, dot files included). */
export function lintStagedGlob(policy: Policy): string {
  const conventional = ['fixtures/**', 'checks/**', 'observations/**', 'freezes/**'];
  const unique = [...new Set([POLICY_PATH, ...evidencePaths(policy), ...conventional])];
  return `{${unique.join(',')}}`;
}
