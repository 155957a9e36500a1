// `receipt-gate receipt --ref REF [--base REF] [--properties-cmd CMD] [--fixture-cmd CMD]
//   [--junit FILE]... [--out FILE] [--sign-key KEY|-] [--note] [--repo DIR] [--now DATE] [--timeout S] [--fixture-timeout S]
//   [--require-isolation]`
// The CI side of docs/contract.md §4: grade REF's tree (written fresh from git objects), write the
// receipt (signed: an in-toto Statement in a DSSE envelope), exit with the verdict's code.

import type { KeyObject } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { nearestName, parseCommandArgs } from '../args';
import { today } from '../clock';
import type { ContextPolicy, Policy } from '../evidence/types';
import { addNote } from '../git/notes';
import { identityLines } from '../report/identities';
import { History } from '../git/history/history';
import type { ObjectStore } from '../git/store';
import { UsageError, type CliIO } from '../io';
import { sortFindings } from '../report/order';
import { findingLine, verdictLine } from '../report/text';
import { short, shortRef } from '../wording';
import { EXIT, exitCodeOf } from '../verdict';
import { KeyError, loadPrivateKey, PAYLOAD_TYPE, signEnvelope, statementFor } from '../receipt/dsse';
import { grade, TrialsError } from '../receipt/grade';
import { receiptNotesRef, touchedContextNames } from '../receipt/contexts';
import { bwrapProblem, findBwrap, pathList, type Isolation } from '../receipt/sandbox';
import { receiptSchemaProblems } from '../receipt/schema';
import type { Receipt } from '../receipt/types';
import { fullRefName, resolveBase, resolveCommitSpec, type Base } from '../run/base';
import { openRepository } from '../run/repository';
import { progress } from '../report/progress';
import { VERSION } from '../version';

const USAGE =
  'receipt-gate receipt [--ref REF] [--base REF] [--properties-cmd CMD] [--fixture-cmd CMD] [--junit FILE]... ' +
  '[--out receipt.json] [--sign-key KEY|-] [--note] [--repo DIR] [--now YYYY-MM-DD] [--timeout SECONDS] [--fixture-timeout SECONDS] ' +
  '[--require-isolation] [--context NAME]... (with bounded contexts: one receipt per context, --out defaults to receipt-{context}.json)';

const TOOL_VERSION = VERSION;

const OPTIONS = {
  ref: { type: 'string', description: 'the commit to grade (default HEAD)' },
  base: { type: 'string', description: "the branch whose policy judges (default: the policy's baseBranch, preferring refs/remotes/origin/<baseBranch>)" },
  'properties-cmd': { type: 'string', description: 'the command that runs the property tests in the tree written from git objects (sh -c, PROPERTY_SEED and PROPERTY_TRIALS set)' },
  'fixture-cmd': { type: 'string', description: "the command each fixture record's input is piped to; the SHA-256 of its stdout must match the record" },
  junit: { type: 'string', multiple: true, description: "a JUnit XML report to read failed and frozen tests from (repeatable; a relative path is in the grader's tree)" },
  out: { type: 'string', description: 'the receipt file (default receipt.json; with bounded contexts receipt-{context}.json)' },
  'sign-key': { type: 'string', description: "sign the receipt with this ed25519 private key ('-': read the PEM from stdin)" },
  note: { type: 'boolean', description: 'also store the receipt as a git note on the commit (refs/notes/receipt-gate)' },
  repo: { type: 'string', description: 'the repository to read (default: the current directory)' },
  now: { type: 'string', description: "today's date for the receipt and the expiry checks (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
  timeout: { type: 'string', description: 'seconds the property command may run before it is killed (default 1800)' },
  'fixture-timeout': { type: 'string', description: 'seconds each fixture command may run before it is killed (default 60)' },
  context: { type: 'string', multiple: true, description: 'grade this bounded context (repeatable; default: every context REF touches)' },
  'require-isolation': { type: 'boolean', description: 'refuse to run the commands without the bubblewrap sandbox' },
} as const;

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(args, OPTIONS, USAGE, io);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'\nusage: ${USAGE}`);
  const date = today(io, values.now);
  const pinnedClock = values.now !== undefined || !!io.env.RECEIPT_GATE_NOW;
  const generatedAt = pinnedClock ? `${date}T00:00:00Z` : new Date().toISOString();
  const propertiesTimeoutMs = seconds(values.timeout, '--timeout', 1800) * 1000;
  const fixtureTimeoutMs = seconds(values['fixture-timeout'], '--fixture-timeout', 60) * 1000;
  const junit = (values.junit as unknown as string[] | undefined) ?? [];
  const contextsAsked = (values.context as unknown as string[] | undefined) ?? [];

  // The sandbox first: without one, --require-isolation stops before anything is read or run.
  const sandbox = findSandbox(io.env);
  if (sandbox.kind === 'none') {
    if (values['require-isolation']) {
      throw new UsageError(`--require-isolation: the grader's commands cannot run isolated here (${sandbox.why}); nothing was graded. Install bubblewrap (Debian and Ubuntu: apt-get install bubblewrap) and run again`);
    }
    io.stderr(`receipt-gate receipt: warning: the property and fixture commands run WITHOUT isolation (${sandbox.why}): they can read the signing key's file, the repository and your home; the receipt records isolation "none". Install bubblewrap (apt-get install bubblewrap), and pass --require-isolation to refuse to run without it\n`);
  }

  // Load the key before any work, so a bad key is a usage error and not a wasted run.
  const signKey = values['sign-key'] === undefined ? null : await loadSignKey(values['sign-key'], io);

  const target = await openTarget(values.repo ?? io.cwd, values.ref ?? 'HEAD', values.base, io);
  if (typeof target === 'number') return target;
  const { store, history, refName, commit, base, policy } = target;
  // Out of the commands' reach: the key's file, the repository, the user's home (and, per
  // receipt, the file it is written to).
  const hidden = [values.repo ?? io.cwd, store.gitdir, store.commondir, ...(io.env.HOME ? [io.env.HOME] : [])];
  if (values['sign-key'] !== undefined && values['sign-key'] !== '-') hidden.push(resolve(io.cwd, values['sign-key']));
  const isolation: Isolation = sandbox.kind === 'bwrap' ? { ...sandbox, hidden: hidden.map((p) => resolve(io.cwd, p)) } : sandbox;

  // With bounded contexts, one receipt per context: those asked for, else those REF touches.
  const contexts = await contextsToGrade(policy, contextsAsked, { store, history, base, commit, refName, today: date });
  if (contexts.length === 0) {
    io.stdout(`receipt-gate receipt ${shortRef(refName)} (${short(commit)}) touches no bounded context of the policy at ${base.name}: no receipt to write\n`);
    return EXIT.eligible;
  }
  const template = values.out ?? (contexts[0] === null ? 'receipt.json' : 'receipt-{context}.json');
  if (contexts.length > 1 && !template.includes('{context}')) {
    throw new UsageError(`--out ${template} names one file, but ${contexts.length} contexts are graded (${contexts.map((c) => c!.name).join(', ')}): put {context} in it, e.g. --out receipt-{context}.json`);
  }

  let exit: number = EXIT.eligible;
  for (const context of contexts) {
    const outName = context === null ? template : template.split('{context}').join(context.name);
    const code = await gradeOne({ store, history, refName, commit, base, policy, context, outName, date, generatedAt, junit, signKey, io, isolation, note: values.note === true, propertiesCmd: values['properties-cmd'] ?? null, fixtureCmd: values['fixture-cmd'] ?? null, propertiesTimeoutMs, fixtureTimeoutMs });
    exit = worseExit(exit, code);
  }
  return exit;
}

/** The most severe of two exit codes: closed (1) over hold (3) over eligible (0). */
function worseExit(a: number, b: number): number {
  const rank = (c: number) => (c === EXIT.closed ? 2 : c === EXIT.hold ? 1 : 0);
  return rank(b) > rank(a) ? b : a;
}

/** `[null]` for a policy without contexts (one receipt for the repository); else the contexts
 * named with --context, or those REF touches against the base (docs/contexts.md). */
async function contextsToGrade(
  policy: Policy,
  asked: string[],
  at: { store: ObjectStore; history: History; base: Base; commit: string; refName: string; today: string },
): Promise<(ContextPolicy | null)[]> {
  const declared = policy.contexts;
  if (!declared) {
    if (asked.length > 0) throw new UsageError(`--context ${asked[0]}: the policy at the base declares no bounded contexts`);
    return [null];
  }
  if (asked.length > 0) {
    return asked.map((name) => {
      const found = declared.find((c) => c.name === name);
      if (!found) {
        const guess = nearestName(name, declared.map((c) => c.name));
        throw new UsageError(`--context ${name}: the policy at the base declares no such context${guess === null ? '' : `; did you mean ${guess}?`} (it declares ${declared.map((c) => c.name).join(', ')})`);
      }
      return found;
    });
  }
  const touched = await touchedContextNames(at);
  return declared.filter((c) => touched.has(c.name));
}

interface GradeOneOptions {
  store: ObjectStore;
  history: History;
  refName: string;
  commit: string;
  base: Base;
  policy: Policy;
  context: ContextPolicy | null;
  outName: string;
  date: string;
  generatedAt: string;
  junit: string[];
  signKey: KeyObject | null;
  io: CliIO;
  isolation: Isolation;
  note: boolean;
  propertiesCmd: string | null;
  fixtureCmd: string | null;
  propertiesTimeoutMs: number;
  fixtureTimeoutMs: number;
}

/** Grades one receipt (the repository's, or one context's), writes it and, with --note, stores it. */
async function gradeOne(o: GradeOneOptions): Promise<number> {
  const { store, history, refName, commit, base, policy, context, io } = o;
  const outPath = resolve(io.cwd, o.outName);
  // The grader run.
  let result;
  // A progress line on a terminal only (quiet in CI, in pipes and with TERM=dumb).
  const shown = progress({ write: (text) => io.stderr(text), env: io.env });
  try {
    result = await grade({
      store,
      history,
      policy,
      refName,
      commit,
      base,
      today: o.date,
      generatedAt: o.generatedAt,
      toolVersion: TOOL_VERSION,
      env: graderEnv(io.env),
      propertiesCmd: o.propertiesCmd,
      fixtureCmd: o.fixtureCmd,
      junit: o.junit,
      propertiesTimeoutMs: o.propertiesTimeoutMs,
      fixtureTimeoutMs: o.fixtureTimeoutMs,
      isolation: o.isolation.kind === 'bwrap' ? { ...o.isolation, hidden: [...o.isolation.hidden, outPath] } : o.isolation,
      onOutput: (chunk) => {
        shown.done();
        io.stderr(chunk.toString('utf8'));
      },
      onStep: (text) => shown.step(`receipt-gate receipt${context ? ` [${context.name}]` : ''}: ${text}`),
      ...(context ? { context } : {}),
    });
  } catch (err) {
    if (err instanceof TrialsError) throw new UsageError(err.message);
    throw err;
  } finally {
    shown.done();
  }
  const { receipt } = result;

  // The receipt must be valid against its own schema; a receipt-gate bug fails closed here.
  const problems = receiptSchemaProblems(receipt);
  if (problems.length > 0) {
    throw new Error(`the receipt does not validate against schemas/receipt.schema.json: ${problems.map((p) => `${p.pointer} ${p.message}`).join('; ')}`);
  }
  const { text, keyid } = receiptText(receipt, refName, commit, o.signKey);
  writeFileSync(outPath, text);

  const lines = summaryLines(receipt, { refName, commit, base: { name: base.name, tip: base.tip! }, date: o.date });
  lines.push(`receipt written to ${o.outName}${keyid ? ` (signed, keyid ${keyid.slice(0, 16)})` : ' (unsigned)'}`);
  if (o.note) {
    const ref = receiptNotesRef(context?.name ?? null);
    const noted = await storeNote(store, text, commit, io.env, ref);
    if (!noted.ok) {
      // The receipt is written and the verdict stands; only the note is missing: a warning, and
      // the verdict's exit code (a CI step that needs the note fails at verify-receipt --notes).
      io.stdout(`${lines.join('\n')}\n`);
      io.stderr(`receipt-gate receipt: warning: the receipt is in ${o.outName}, but it could not be stored as a git note: ${noted.error}\n`);
      return exitCodeOf(receipt.verdict);
    }
    lines.push(`receipt stored as a git note on ${short(commit)} (refs/notes/${ref})`);
  }
  io.stdout(`${lines.join('\n')}\n`);
  return exitCodeOf(receipt.verdict);
}

/** The commit, its full ref name, the base and the policy at the base; an exit code when the
 * policy there is invalid (nothing is graded). */
async function openTarget(
  repo: string,
  refGiven: string,
  baseGiven: string | undefined,
  io: CliIO,
): Promise<{ store: ObjectStore; history: History; refName: string; commit: string; base: Base; policy: Policy } | number> {
  const store = await openRepository(repo, io.env);
  const commit = await resolveCommitSpec(store, refGiven, '--ref');
  const refName = await fullRefName(store, refGiven);
  const base = await resolveBase(store, baseGiven === undefined ? { kind: 'default' } : { kind: 'named', spec: baseGiven });
  if (base.policyCommit === null || base.tip === null) throw new UsageError('no base to read the policy from: pass --base REF (the default is the policy\'s baseBranch, preferring refs/remotes/origin/<baseBranch>)');
  const { policy, findings } = base;
  if (policy) return { store, history: new History(store), refName, commit, base, policy };
  if (findings.length > 0) {
    for (const f of findings) io.stderr(`  ${findingLine(f)}\n`);
    io.stderr(`receipt-gate receipt: the policy at ${base.name} (${short(base.tip)}) is invalid; nothing was graded\n`);
    return EXIT.closed;
  }
  throw new UsageError(`${base.name} (${short(base.tip)}) has no .receipt-gate.json: the repository is unguarded and nothing was graded. Add a policy with 'receipt-gate init'`);
}

/** `--sign-key -` reads the key from standard input, so it is neither on disk nor in the
 * environment that the grader's commands (the patch's code) inherit. */
async function loadSignKey(given: string, io: CliIO): Promise<KeyObject> {
  const fromStdin = given === '-';
  try {
    const pem = fromStdin ? await io.readStdin() : readFileSync(resolve(io.cwd, given), 'utf8');
    return loadPrivateKey(pem, fromStdin ? 'the key on standard input' : given);
  } catch (err) {
    throw new UsageError(err instanceof KeyError ? err.message : `cannot read --sign-key ${given}: ${(err as Error).message}`);
  }
}

/** The receipt file's text: the bare receipt, or (with a key) an in-toto Statement in a DSSE
 * envelope. */
function receiptText(receipt: Receipt, refName: string, commit: string, signKey: KeyObject | null): { text: string; keyid: string | null } {
  if (!signKey) return { text: `${JSON.stringify(receipt, null, 2)}\n`, keyid: null };
  const statement = statementFor(refName, commit, receipt);
  const envelope = signEnvelope(PAYLOAD_TYPE, Buffer.from(JSON.stringify(statement), 'utf8'), signKey);
  return { text: `${JSON.stringify(envelope, null, 2)}\n`, keyid: envelope.signatures[0].keyid };
}

function summaryLines(
  receipt: Receipt,
  at: { refName: string; commit: string; base: { name: string | null; tip: string }; date: string },
): string[] {
  const scope = receipt.context ? ` [context ${receipt.context.name}, ${receipt.context.root}]` : '';
  const lines = [`receipt-gate receipt ${shortRef(at.refName)} (${short(at.commit)})${scope} against ${at.base.name} (${short(at.base.tip)}) on ${at.date}`];
  const notRun = receipt.not_run_reason ?? null;
  lines.push(
    notRun !== null
      ? `  properties: not run (${notRun})`
      : `  properties: ${receipt.properties_ok ? 'passed' : 'FAILED'} (seed ${receipt.property_seed ?? 'none'}, ${receipt.property_trials} trials)`,
    notRun !== null ? `  fixtures: not run (${receipt.fixtures.length} record(s))` : `  fixtures: ${receipt.fixtures.filter((r) => r.ok).length}/${receipt.fixtures.length} match`,
    `  evidence paths: ${receipt.evidence_paths_clean ? 'untouched' : 'TOUCHED'}`,
    `  isolation: ${receipt.isolation === 'bwrap' ? 'bwrap (no signing key, repository, home or, unless the policy allows it, network)' : 'none'}`,
  );
  if (receipt.frozen_tests_passed.length > 0) lines.push(`  frozen tests that passed (still frozen): ${receipt.frozen_tests_passed.join(', ')}`);
  // The three identities, so a reviewer compares logs without re-running anything.
  lines.push(
    ...identityLines({ epoch_id: receipt.epoch_id, generator_sha256: receipt.generator_sha256, manifest_sha256: receipt.manifest_sha256, freeze_file_sha256: receipt.freeze_file_sha256, witnesses: receipt.witnesses }).map((l) => `  ${l}`),
  );
  for (const f of sortFindings(receipt.findings)) lines.push(`  ${findingLine(f)}`);
  lines.push(verdictLine(receipt.verdict, receipt.findings));
  return lines;
}

/** The one write receipt-gate makes to a repository (isomorphic-git's addNote): the engine only reads. */
async function storeNote(store: ObjectStore, text: string, commit: string, env: NodeJS.ProcessEnv, ref: string): Promise<{ ok: true } | { ok: false; error: string }> {
  try {
    await addNote(store, { ref, oid: commit, note: text, force: true, env });
    return { ok: true };
  } catch (err) {
    return { ok: false, error: (err as Error).message };
  }
}

function seconds(text: string | undefined, name: string, fallback: number): number {
  if (text === undefined) return fallback;
  if (!/^[0-9]+(\.[0-9]+)?$/.test(text) || Number(text) <= 0) throw new UsageError(`${name} must be a positive number of seconds, got '${text}'`);
  return Number(text);
}

/** A working bubblewrap (src/receipt/sandbox.ts), tried once with the flags the commands get;
 * or why there is none. NODE_PATH and RECEIPT_GATE_SANDBOX_READONLY name folders the commands
 * may read besides the system's. */
function findSandbox(env: NodeJS.ProcessEnv): Isolation {
  const bwrap = findBwrap(env);
  if (bwrap === null) {
    return { kind: 'none', why: env.RECEIPT_GATE_BWRAP ? `RECEIPT_GATE_BWRAP=${env.RECEIPT_GATE_BWRAP} is not an executable file` : 'no bwrap on PATH' };
  }
  const probe = mkdtempSync(join(tmpdir(), 'receipt-gate-probe-'));
  try {
    const problem = bwrapProblem(bwrap, probe);
    if (problem !== null) return { kind: 'none', why: problem };
  } finally {
    rmSync(probe, { recursive: true, force: true });
  }
  return { kind: 'bwrap', bwrap, network: false, hidden: [], readOnly: [...pathList(env.NODE_PATH), ...pathList(env.RECEIPT_GATE_SANDBOX_READONLY)] };
}

/** The environment the grader's commands get: the caller's, without receipt-gate's signing
 * key variables (the commands run the patch's code). */
function graderEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('RECEIPT_GATE_SIGN')) out[k] = v;
  return out;
}
