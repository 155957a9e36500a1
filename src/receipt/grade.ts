// The grader run behind `receipt-gate receipt`: the engine's verdict for the commit against
// the base, plus what only running code can tell — the property command on the recorded seed,
// each fixture record re-run and digested by receipt-gate (the patch never computes a digest),
// and the JUnit results. Everything runs in a fresh directory written from git objects.

import { mkdtempSync, readFileSync, rmSync, mkdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join } from 'node:path';
import { evaluate } from '../engine';
import { DEFAULT_GRADER } from '../evidence/policy';
import type { FixtureRecord } from '../evidence/types';
import type { ContextPolicy, EvidenceResults, Policy } from '../evidence/types';
import { finding, type Finding, type Identities } from '../findings';
import type { History } from '../git/history/history';
import { BlobTooLargeError, type ObjectStore } from '../git/store';
import type { GateResult } from '../results';
import { internalError } from '../rules/errors';
import type { Base } from '../run/base';
import { sha256Hex } from '../hash';
import { ZERO_OID } from '../types';
import { verdictOf } from '../verdict';
import { parseJUnit, summarize, JUnitError, type TestCase } from './junit';
import { materializeCommit, MaterializeError } from './materialize';
import { runCommand } from './run-command';
import { bwrapArgv, type Isolation } from './sandbox';
import { RECEIPT_SCHEMA, RECEIPT_SCHEMA_CONTEXT, type FixtureRow, type Receipt } from './types';

/** The trials each property runs when PROPERTY_TRIALS is not set; also the fewest a receipt may
 * record when the base's policy names no `grader.minTrials`. */
export const DEFAULT_TRIALS = DEFAULT_GRADER.minTrials;
/** JUnit files larger than this are refused (fail closed). */
export const MAX_JUNIT_BYTES = 64 * 1024 * 1024;

export interface GradeOptions {
  store: ObjectStore;
  /** The store's History (src/git/history/history.ts), shared by the runs on this store. */
  history: History;
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
  /** Told what the grader is doing now (a progress line on a terminal). */
  onStep?: (text: string) => void;
  /** Keep the written tree (for debugging); its path is returned. */
  keepTree?: boolean;
  /** How the commands run (src/receipt/sandbox.ts); absent: without a sandbox. The network is
   * the base policy's to allow (grader.network), whatever `isolation.network` says. */
  isolation?: Isolation;
  /** Grade one bounded context (docs/contexts.md): its findings, its evidence, and the commands
   * run in its root. Absent: the whole repository, as a policy without contexts. */
  context?: ContextPolicy;
}

export interface GradeResult {
  receipt: Receipt;
  gate: GateResult;
  treeDir: string | null;
}

const PROTECTION_CODES = new Set(['PATH_PROTECTED', 'PATH_UNSAFE']);

/** Where findings of the grader are made: the ref and the commit graded. */
type At = { ref: string; commit: string };

export async function grade(given: GradeOptions): Promise<GradeResult> {
  const at: At = { ref: given.refName, commit: given.commit };
  const context = given.context;
  // A context's commands learn which context they grade, and run in its root.
  const opts: GradeOptions = context
    ? { ...given, env: { ...given.env, RECEIPT_GATE_CONTEXT: context.name, RECEIPT_GATE_CONTEXT_ROOT: context.root } }
    : given;

  const step = opts.onStep ?? (() => undefined);
  // 1. The gate, and what the evidence rules read at the commit.
  step(`judging ${opts.commit.slice(0, 7)} against the policy`);
  const judged = await judge(opts);
  const findings: Finding[] = [...judged.findings];
  const { evidence } = judged;
  const frozen = [...new Set(evidence.freeze.active.map((row) => row.id))].sort();
  const manifestSeed = evidence.manifestSeed === null ? null : evidence.manifestSeed.toString();
  const envSeed = opts.env.PROPERTY_SEED;
  const propertySeed = envSeed !== undefined && envSeed !== '' ? envSeed : manifestSeed;
  const trials = parseTrials(opts.env.PROPERTY_TRIALS);

  if (propertySeed !== null && manifestSeed !== null && propertySeed !== manifestSeed) {
    findings.push(seedMismatch(propertySeed, manifestSeed, context?.policy ?? opts.policy, at));
  }
  // The trial count is evidence: the base's policy names the fewest trials a receipt may record.
  const graderPolicy = context?.policy ?? opts.policy;
  const minTrials = graderPolicy.grader?.minTrials ?? DEFAULT_GRADER.minTrials;
  const tooFew = trials < minTrials ? trialsTooFew(trials, minTrials, at) : null;
  if (tooFew !== null) findings.push(tooFew);
  // Ordering: when the patch touches the evidence (or leaves an invalid policy, or the paths
  // could not be checked), or asks for fewer trials than the base's minimum, nothing the patch
  // brings runs — not the property command, not the fixture command — and the receipt says why.
  const notRun = judged.refusal ?? (tooFew === null ? null : `${trials} trials, below the base's minimum of ${minTrials}`);

  // 2. A fresh tree from git objects.
  const workDir = mkdtempSync(join(tmpdir(), 'receipt-gate-'));
  const treeDir = join(workDir, 'tree');
  mkdirSync(treeDir);
  try {
    let written: Finding | null = null;
    if (notRun === null) {
      step('writing the tree from git objects');
      written = await writeTree(opts, treeDir, at);
      if (written !== null) findings.push(written);
    }
    const runDir = context ? join(treeDir, ...context.root.split('/')) : treeDir;
    // The commands' sandbox: the written tree is their only writable place.
    const iso = opts.isolation;
    const sandbox =
      iso?.kind === 'bwrap' && written === null && notRun === null
        ? { program: iso.bwrap, args: bwrapArgv({ ...iso, network: graderPolicy.grader?.network ?? DEFAULT_GRADER.network }, treeDir, runDir) }
        : undefined;

    // 3. Properties, on the recorded seed.
    let properties: { exitCode: number | null; findings: Finding[] } = { exitCode: null, findings: [] };
    if (notRun === null) {
      if (opts.propertiesCmd !== null) step(`running the properties on seed ${propertySeed ?? '(none)'}`);
      properties = await runProperties(opts, written === null ? runDir : null, { propertySeed, trials, frozen, sandbox }, at);
      findings.push(...properties.findings);
    }

    // 4. Fixtures: receipt-gate digests the fixture command's stdout itself.
    const fixtures: FixtureRow[] = [];
    for (const [i, record] of evidence.fixtures.entries()) {
      if (notRun !== null) {
        fixtures.push({ path: record.path, id: record.id, expected: record.sha256, actual: null, ok: false });
        continue;
      }
      step(`fixture ${i + 1} of ${evidence.fixtures.length}: ${record.path}`);
      const row = await runFixture(record, opts, written === null ? runDir : null, sandbox);
      fixtures.push(row.row);
      if (row.finding) findings.push({ ...row.finding, ...at, path: record.path });
    }

    // 5. JUnit results, read after the property command wrote them.
    const junit = notRun === null ? readJUnitResults(opts.junit, runDir, frozen, at) : { frozenPassed: [], failedTests: [], findings: [] };
    findings.push(...junit.findings);

    const all = dedupeFindings(findings).map((f) => (context && f.context === undefined ? { ...f, context: context.name } : f));
    const receipt: Receipt = {
      schema: context ? RECEIPT_SCHEMA_CONTEXT : RECEIPT_SCHEMA,
      ...(context ? { context: { name: context.name, root: context.root } } : {}),
      git_sha: opts.commit,
      ref: opts.refName,
      base_sha: opts.base.tip!,
      generated_at: opts.generatedAt,
      tool_version: opts.toolVersion,
      node_version: process.version,
      property_seed: propertySeed,
      manifest_seed: manifestSeed,
      property_trials: trials,
      min_trials: minTrials,
      properties_cmd: opts.propertiesCmd,
      properties_exit_code: properties.exitCode,
      properties_ok: notRun === null && opts.propertiesCmd !== null && properties.exitCode === 0,
      properties_run: notRun === null && opts.propertiesCmd !== null,
      isolation: opts.isolation?.kind ?? 'none',
      not_run_reason: notRun,
      fixtures,
      freeze_file_sha256: evidence.freeze.freezeFileSha256,
      expired_freezes: evidence.freeze.expired,
      frozen_tests: frozen,
      frozen_tests_passed: junit.frozenPassed,
      failed_tests: junit.failedTests,
      junit_files: opts.junit,
      evidence_paths_clean: judged.evidencePathsClean,
      epoch_id: judged.identities?.epoch_id ?? null,
      generator_sha256: judged.identities?.generator_sha256 ?? null,
      manifest_sha256: judged.identities?.manifest_sha256 ?? null,
      witnesses: judged.identities?.witnesses ?? {},
      verdict: verdictOf(all),
      findings: all,
    };
    return { receipt, gate: judged.gate, treeDir: opts.keepTree ? treeDir : null };
  } finally {
    if (!opts.keepTree) rmSync(workDir, { recursive: true, force: true });
  }
}

/** PROPERTY_TRIALS asked for fewer trials than the base's policy requires. */
function trialsTooFew(trials: number, minTrials: number, at: At): Finding {
  return finding('TRIALS_TOO_FEW', {
    ...at,
    message: `the grader was asked for ${trials} trials per property (PROPERTY_TRIALS), fewer than the ${minTrials} the policy at the base requires (grader.minTrials, default ${DEFAULT_GRADER.minTrials}); nothing was run`,
    fix: `unset PROPERTY_TRIALS or set it to ${minTrials} or more; only an owner may lower grader.minTrials in .receipt-gate.json`,
  });
}

/** PROPERTY_SEED from the environment overrode the manifest's recorded seed. */
function seedMismatch(propertySeed: string, manifestSeed: string, policy: Policy, at: At): Finding {
  return finding('OBSERVATION_FAILED', {
    ...at,
    path: policy.manifest?.path,
    message: `the properties ran on PROPERTY_SEED=${propertySeed} from the environment, not on the manifest's recorded seed ${manifestSeed}`,
    fix: 'unset PROPERTY_SEED so the grader runs on the recorded seed',
  });
}

const NO_EVIDENCE: EvidenceResults = {
  pin: null,
  manifestSeed: null,
  freeze: { freezeFileSha256: null, active: [], expired: [] },
  fixtures: [],
};

/** Protected paths and evidence, judged as nobody (who owns nothing), so any change to an
 * evidence path between the base and the commit shows up as a finding; and what the evidence
 * rules parsed at the commit, which the receipt records. */
async function judge(opts: GradeOptions): Promise<{
  gate: GateResult;
  evidencePathsClean: boolean;
  identities: Identities | undefined;
  evidence: EvidenceResults;
  findings: Finding[];
  /** Why nothing may run (see refusalOf), or null. */
  refusal: string | null;
}> {
  const { store, history, commit, base } = opts;
  const gate = await evaluate(
    { store, history, base, identity: null, today: opts.today, scope: { kind: 'base', exclude: [] }, contextsInFull: true },
    [{ old: ZERO_OID, new: commit, ref: opts.refName }],
  );
  // A context's receipt carries its own findings and the repository-wide ones (the ref, the
  // policy, paths outside every root), never another context's.
  const name = opts.context?.name;
  const findings = name === undefined ? gate.findings : gate.findings.filter((f) => f.context === undefined || f.context === name);
  // Clean only when the paths were actually checked: an engine that failed or ran out of time
  // (INTERNAL_ERROR, a LIMIT_EXCEEDED without a path) proves nothing about them.
  const unchecked = (f: Finding) => f.code === 'INTERNAL_ERROR' || (f.code === 'LIMIT_EXCEEDED' && f.path === undefined);
  const evidencePathsClean = !findings.some((f) => PROTECTION_CODES.has(f.code) || unchecked(f));
  const judged = name === undefined ? gate.refs[0] : gate.refs[0]?.contexts?.find((c) => c.name === name);

  // What the evidence rules parsed in the engine's own run; none when the run could not check
  // the tree (its INTERNAL_ERROR or LIMIT_EXCEEDED is already in `gate`).
  return { gate, evidencePathsClean, identities: judged?.identities, evidence: judged?.evidence ?? NO_EVIDENCE, findings, refusal: refusalOf(findings, unchecked) };
}

/** Why the grader runs none of the patch's commands, as the receipt and the summary say it;
 * null when the engine found the evidence paths untouched and the policy valid. */
function refusalOf(findings: Finding[], unchecked: (f: Finding) => boolean): string | null {
  const paths = (code: string) => [...new Set(findings.filter((f) => f.code === code).map((f) => f.path ?? '(no path)'))];
  const touched = paths('PATH_PROTECTED');
  if (touched.length > 0) return `evidence touched: ${touched.join(', ')}`;
  const unsafe = paths('PATH_UNSAFE');
  if (unsafe.length > 0) return `unsafe tree entries: ${unsafe.join(', ')}`;
  const invalid = paths('POLICY_INVALID');
  if (invalid.length > 0) return `the policy the commit leaves is invalid: ${invalid.join(', ')}`;
  if (findings.some(unchecked)) return 'the evidence paths could not be checked (see the INTERNAL_ERROR or LIMIT_EXCEEDED finding)';
  return null;
}

/** Writes the commit's tree into `treeDir`; a finding when it cannot be written safely. */
async function writeTree(opts: GradeOptions, treeDir: string, at: At): Promise<Finding | null> {
  try {
    await materializeCommit(opts.store, opts.commit, treeDir);
    return null;
  } catch (err) {
    if (err instanceof MaterializeError) {
      return finding('PATH_UNSAFE', {
        ...at,
        path: err.path,
        message: `the grader cannot write the commit's tree safely: ${err.message}`,
        fix: 'remove the entry (an unsafe path, or a symlink out of the tree) from the patch',
      });
    }
    if (err instanceof BlobTooLargeError) {
      return finding('LIMIT_EXCEEDED', {
        ...at,
        message: `the grader does not write files over ${err.limit} bytes: ${err.message}`,
        fix: 'keep files this large out of the repository (e.g. Git LFS), or grade them outside receipt-gate',
      });
    }
    return internalError(err, at);
  }
}

/** Runs the property command in `treeDir` (null: the tree could not be written, nothing runs). */
async function runProperties(
  opts: GradeOptions,
  treeDir: string | null,
  run: { propertySeed: string | null; trials: number; frozen: string[]; sandbox: { program: string; args: string[] } | undefined },
  at: At,
): Promise<{ exitCode: number | null; findings: Finding[] }> {
  if (opts.propertiesCmd === null) {
    return {
      exitCode: null,
      findings: [
        finding('OBSERVATION_FAILED', {
          ...at,
          message: 'no property command was run, so nothing shows the properties hold',
          fix: 'run receipt with --properties-cmd CMD (the command that runs the property tests)',
        }),
      ],
    };
  }
  if (treeDir === null) return { exitCode: null, findings: [] };
  const env: NodeJS.ProcessEnv = {
    ...opts.env,
    PROPERTY_TRIALS: String(run.trials),
    RECEIPT_GATE_FROZEN: JSON.stringify(run.frozen),
    RECEIPT_GATE_COMMIT: opts.commit,
  };
  if (run.propertySeed !== null) env.PROPERTY_SEED = run.propertySeed;
  else delete env.PROPERTY_SEED;
  const result = await runCommand({
    command: opts.propertiesCmd,
    cwd: treeDir,
    env,
    timeoutMs: opts.propertiesTimeoutMs,
    captureStdout: false,
    onOutput: opts.onOutput,
    ...(run.sandbox ? { sandbox: run.sandbox } : {}),
  });
  if (result.exitCode === 0) return { exitCode: 0, findings: [] };
  const why = result.timedOut
    ? `did not finish within ${opts.propertiesTimeoutMs} ms and was killed`
    : result.spawnError
      ? `could not start (${result.spawnError})`
      : result.exitCode === null
        ? `was killed by ${result.signal ?? 'a signal'}`
        : `exited with status ${result.exitCode}`;
  return {
    exitCode: result.exitCode,
    findings: [
      finding('PROPERTIES_FAILED', {
        ...at,
        message: `the property command '${opts.propertiesCmd}' ${why} on seed ${run.propertySeed ?? '(none)'} with ${run.trials} trials`,
        fix: 'fix the code so the properties hold on the recorded seed (re-run it locally with PROPERTY_SEED and PROPERTY_TRIALS set as above); the properties and the seed are evidence and stay as they are',
      }),
    ],
  };
}

/** The JUnit files (relative paths are inside the grader's tree): frozen tests that passed, and
 * a finding for each unreadable file and each failed test that is not frozen. */
function readJUnitResults(
  files: string[],
  treeDir: string,
  frozen: string[],
  at: At,
): { frozenPassed: string[]; failedTests: string[]; findings: Finding[] } {
  if (files.length === 0) return { frozenPassed: [], failedTests: [], findings: [] };
  const findings: Finding[] = [];
  const cases: TestCase[] = [];
  for (const file of files) {
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
  const summary = summarize(cases, frozen);
  for (const id of summary.unfrozenFailed) {
    findings.push(
      finding('OBSERVATION_FAILED', {
        ...at,
        message: `test '${id}' failed and is not frozen`,
        fix: 'fix the code so the test passes; only an owner may freeze a test, with a reason and an expiry',
      }),
    );
  }
  return { frozenPassed: summary.frozenPassed, failedTests: summary.unfrozenFailed, findings };
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
  sandbox: { program: string; args: string[] } | undefined,
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
    ...(sandbox ? { sandbox } : {}),
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
