// The grader run behind `receipt-gate receipt`: the engine's verdict for the commit against
// the base, plus what only running code can tell — the property command on the recorded seed,
// each fixture record re-run and digested by receipt-gate (the patch never computes a digest),
// and the JUnit results. Everything runs in a fresh directory written from git objects.

import { mkdtempSync, readFileSync, rmSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { evaluate } from '../engine';
import type { GateResult } from '../results';
import { internalError } from '../rules/errors';
import type { Base } from '../run/base';
import { ZERO_OID } from '../types';
import { finding, type Finding } from '../findings';
import { BlobTooLargeError, type ObjectStore } from '../git/store';
import type { Policy } from '../evidence/types';
import { verdictOf } from '../verdict';
import { fixtureRecordsAt, freezeStateAt, manifestSeedAt, sha256Hex, type FixtureRecord } from './evidence-at';
import { parseJUnit, summarize, JUnitError } from './junit';
import { materializeCommit, MaterializeError } from './materialize';
import { runCommand } from './run-command';
import { RECEIPT_SCHEMA, type FixtureRow, type Receipt } from './types';

export const DEFAULT_TRIALS = 200;
/** JUnit files larger than this are refused (fail closed). */
export const MAX_JUNIT_BYTES = 64 * 1024 * 1024;

export interface GradeOptions {
  store: ObjectStore;
  policy: Policy;
  /** The ref as the caller named it, its full name, and its commit. */
  refName: string;
  commit: string;
  /** The base commit and, when the base is the base branch, its full ref name. */
  base: Base;
  today: string;
  generatedAt: string;
  toolVersion: string;
  env: NodeJS.ProcessEnv;
  propertiesCmd: string | null;
  fixtureCmd: string | null;
  junit: string[];
  /** Deadline of the property command and of each fixture command, in ms. */
  propertiesTimeoutMs: number;
  fixtureTimeoutMs: number;
  /** Receives the commands' output (their stderr, and the property command's stdout). */
  onOutput?: (chunk: Buffer) => void;
  /** Keep the written tree (for debugging); its path is returned. */
  keepTree?: boolean;
}

export interface GradeResult {
  receipt: Receipt;
  gate: GateResult;
  treeDir: string | null;
}

const PROTECTION_CODES = new Set(['PATH_PROTECTED', 'PATH_UNSAFE']);

export async function grade(opts: GradeOptions): Promise<GradeResult> {
  const { store, policy, commit, base } = opts;
  const at = { ref: opts.refName, commit };

  // 1. The gate: protected paths and evidence, judged as nobody (who owns nothing), so any
  //    change to an evidence path between the base and the commit shows up as a finding.
  const gate = await evaluate(
    { store, base, identity: null, today: opts.today, scope: { kind: 'base', exclude: [] } },
    [{ old: ZERO_OID, new: commit, ref: opts.refName }],
  );
  const findings: Finding[] = [...gate.findings];
  // Clean only when the paths were actually checked: an engine that failed or ran out of time
  // (INTERNAL_ERROR, a LIMIT_EXCEEDED without a path) proves nothing about them.
  const unchecked = (f: Finding) => f.code === 'INTERNAL_ERROR' || (f.code === 'LIMIT_EXCEEDED' && f.path === undefined);
  const evidencePathsClean = !gate.findings.some((f) => PROTECTION_CODES.has(f.code) || unchecked(f));
  const identities = gate.refs[0]?.identities;

  // 2. What the receipt records from the tree itself.
  const { tree } = await store.readCommit(commit);
  const freeze = await freezeStateAt(store, tree, policy, opts.today);
  const manifestSeed = await manifestSeedAt(store, tree, policy);
  const records = await fixtureRecordsAt(store, tree, policy);
  const envSeed = opts.env.PROPERTY_SEED;
  const propertySeed = envSeed !== undefined && envSeed !== '' ? envSeed : manifestSeed;
  const trials = parseTrials(opts.env.PROPERTY_TRIALS);

  // 3. A fresh tree from git objects.
  const workDir = mkdtempSync(join(tmpdir(), 'receipt-gate-'));
  const treeDir = join(workDir, 'tree');
  mkdirSync(treeDir);
  let written = false;
  try {
    await materializeCommit(store, commit, treeDir);
    written = true;
  } catch (err) {
    findings.push(
      err instanceof MaterializeError
        ? finding('PATH_UNSAFE', {
            ...at,
            path: err.path,
            message: `the grader cannot write the commit's tree safely: ${err.message}`,
            fix: 'remove the entry (an unsafe path, or a symlink out of the tree) from the patch',
          })
        : err instanceof BlobTooLargeError
          ? finding('LIMIT_EXCEEDED', {
              ...at,
              message: `the grader does not write files over ${err.limit} bytes: ${err.message}`,
              fix: 'keep files this large out of the repository (e.g. Git LFS), or grade them outside receipt-gate',
            })
          : internalError(err, at),
    );
  }

  try {
    // 4. Properties, on the recorded seed.
    let propertiesExit: number | null = null;
    if (opts.propertiesCmd === null) {
      findings.push(
        finding('OBSERVATION_FAILED', {
          ...at,
          message: 'no property command was run, so nothing shows the properties hold',
          fix: 'run receipt with --properties-cmd CMD (the command that runs the property tests)',
        }),
      );
    } else if (written) {
      const env: NodeJS.ProcessEnv = {
        ...opts.env,
        PROPERTY_TRIALS: String(trials),
        RECEIPT_GATE_FROZEN: JSON.stringify(freeze.frozen),
        RECEIPT_GATE_COMMIT: commit,
      };
      if (propertySeed !== null) env.PROPERTY_SEED = propertySeed;
      else delete env.PROPERTY_SEED;
      const run = await runCommand({
        command: opts.propertiesCmd,
        cwd: treeDir,
        env,
        timeoutMs: opts.propertiesTimeoutMs,
        captureStdout: false,
        onOutput: opts.onOutput,
      });
      propertiesExit = run.exitCode;
      if (run.exitCode !== 0) {
        const why = run.timedOut
          ? `did not finish within ${opts.propertiesTimeoutMs} ms and was killed`
          : run.spawnError
            ? `could not start (${run.spawnError})`
            : run.exitCode === null
              ? `was killed by ${run.signal ?? 'a signal'}`
              : `exited with status ${run.exitCode}`;
        findings.push(
          finding('OBSERVATION_FAILED', {
            ...at,
            message: `the property command '${opts.propertiesCmd}' ${why} on seed ${propertySeed ?? '(none)'} with ${trials} trials`,
            fix: 'fix the code so the properties hold on the recorded seed (re-run it locally with PROPERTY_SEED and PROPERTY_TRIALS set as above); the properties and the seed are evidence and stay as they are',
          }),
        );
      }
    }
    if (propertySeed !== null && manifestSeed !== null && propertySeed !== manifestSeed) {
      findings.push(
        finding('OBSERVATION_FAILED', {
          ...at,
          path: policy.manifest?.path,
          message: `the properties ran on PROPERTY_SEED=${propertySeed} from the environment, not on the manifest's recorded seed ${manifestSeed}`,
          fix: 'unset PROPERTY_SEED so the grader runs on the recorded seed',
        }),
      );
    }

    // 5. Fixtures: receipt-gate digests the fixture command's stdout itself.
    const fixtures: FixtureRow[] = [];
    for (const record of records) {
      const row = await runFixture(record, opts, written ? treeDir : null);
      fixtures.push(row.row);
      if (row.finding) findings.push({ ...row.finding, ...at, path: record.path });
    }

    // 6. JUnit results, read after the property command wrote them.
    let frozenPassed: string[] = [];
    let failedTests: string[] = [];
    if (opts.junit.length > 0) {
      const cases = [];
      for (const file of opts.junit) {
        const full = isAbsolute(file) ? file : join(treeDir, file);
        try {
          const size = statSync(full).size;
          if (size > MAX_JUNIT_BYTES) throw new JUnitError(`${file} is ${size} bytes, over the ${MAX_JUNIT_BYTES}-byte limit`);
          cases.push(...parseJUnit(readFileSync(full, 'utf8'), file));
        } catch (err) {
          const message = err instanceof JUnitError ? err.message : `${file}: ${(err as Error).message}`;
          findings.push(
            finding('OBSERVATION_FAILED', {
              ...at,
              path: file,
              message: `the JUnit results could not be read: ${message}`,
              fix: 'make the test command write JUnit XML to this path (relative paths are inside the grader\'s tree), or drop --junit',
            }),
          );
        }
      }
      const summary = summarize(cases, freeze.frozen);
      frozenPassed = summary.frozenPassed;
      failedTests = summary.unfrozenFailed;
      for (const id of failedTests) {
        findings.push(
          finding('OBSERVATION_FAILED', {
            ...at,
            message: `test '${id}' failed and is not frozen`,
            fix: 'fix the code so the test passes; only an owner may freeze a test, with a reason and an expiry',
          }),
        );
      }
    }

    const all = dedupeFindings(findings);
    const receipt: Receipt = {
      schema: RECEIPT_SCHEMA,
      git_sha: commit,
      ref: opts.refName,
      base_sha: base.tip!,
      generated_at: opts.generatedAt,
      tool_version: opts.toolVersion,
      node_version: process.version,
      property_seed: propertySeed,
      manifest_seed: manifestSeed,
      property_trials: trials,
      properties_cmd: opts.propertiesCmd,
      properties_exit_code: propertiesExit,
      properties_ok: opts.propertiesCmd !== null && propertiesExit === 0,
      fixtures,
      freeze_file_sha256: freeze.digest,
      expired_freezes: freeze.expired,
      frozen_tests: freeze.frozen,
      frozen_tests_passed: frozenPassed,
      failed_tests: failedTests,
      junit_files: opts.junit,
      evidence_paths_clean: evidencePathsClean,
      epoch_id: identities?.epoch_id ?? null,
      generator_sha256: identities?.generator_sha256 ?? null,
      manifest_sha256: identities?.manifest_sha256 ?? null,
      witnesses: identities?.witnesses ?? {},
      verdict: verdictOf(all),
      findings: all,
    };
    return { receipt, gate, treeDir: opts.keepTree ? treeDir : null };
  } finally {
    if (!opts.keepTree) rmSync(workDir, { recursive: true, force: true });
  }
}

function parseTrials(text: string | undefined): number {
  if (text === undefined || text === '') return DEFAULT_TRIALS;
  if (!/^[1-9][0-9]{0,8}$/.test(text)) {
    throw new TrialsError(`PROPERTY_TRIALS must be a positive integer, got '${text}'`);
  }
  return Number(text);
}

export class TrialsError extends Error {}

async function runFixture(
  record: FixtureRecord,
  opts: GradeOptions,
  treeDir: string | null,
): Promise<{ row: FixtureRow; finding: Finding | null }> {
  const row: FixtureRow = { path: record.path, id: record.id, expected: record.sha256, actual: null, ok: false };
  const fail = (message: string, fix: string) => ({
    row,
    finding: finding('FIXTURE_DIGEST', { message, fix }),
  });
  if (record.problem !== null || record.stdin === null) {
    // The evidence rules report the record itself (FIXTURE_PLACEHOLDER); the row just fails.
    return fail(`the fixture record cannot be re-run: ${record.problem ?? 'no input'}`, 'an owner records the fixture with its real input and digest');
  }
  if (opts.fixtureCmd === null) {
    return fail('no fixture command was run, so nothing shows this fixture still matches', 'run receipt with --fixture-cmd CMD (reads the input JSON on stdin, writes the output on stdout)');
  }
  if (treeDir === null) return fail('the fixture was not run: the commit\'s tree could not be written', 'see the PATH_UNSAFE finding');
  const run = await runCommand({
    command: opts.fixtureCmd,
    cwd: treeDir,
    env: { ...opts.env, RECEIPT_GATE_FIXTURE: record.path, RECEIPT_GATE_FIXTURE_ID: record.id ?? '' },
    stdin: record.stdin,
    timeoutMs: opts.fixtureTimeoutMs,
    captureStdout: true,
    onOutput: opts.onOutput,
  });
  if (run.exitCode !== 0) {
    const why = run.timedOut
      ? `did not finish within ${opts.fixtureTimeoutMs} ms`
      : run.stdoutTooLarge
        ? 'wrote more output than the grader accepts'
        : run.spawnError
          ? `could not start (${run.spawnError})`
          : `exited with status ${run.exitCode ?? run.signal}`;
    return fail(`the fixture command '${opts.fixtureCmd}' ${why} on record ${record.id ?? record.path}`, 'fix the code so the fixture command runs on this input');
  }
  row.actual = sha256Hex(run.stdout);
  row.ok = row.actual === record.sha256;
  if (row.ok) return { row, finding: null };
  return fail(
    `fixture ${record.id ?? record.path}: the output's SHA-256 is ${row.actual}, the record expects ${record.sha256}`,
    'the patch changed this fixture\'s output: restore the behaviour; only an owner may re-record a fixture',
  );
}

function dedupeFindings(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = JSON.stringify([f.code, f.ref, f.commit, f.path, f.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
