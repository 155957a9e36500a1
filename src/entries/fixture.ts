// `receipt-gate fixture record ID --cmd "COMMAND" [--input JSON] [--ref REF] [--out PATH]` —
// writes a fixture record {"id", "input", "sha256"} whose digest is the SHA-256 of the fixture
// command's stdout, run as `receipt` runs it: on a tree written from the git objects of REF
// (default HEAD; never the working tree), with the input's canonical JSON on stdin,
// RECEIPT_GATE_FIXTURE and RECEIPT_GATE_FIXTURE_ID set, and in the grader's bubblewrap sandbox
// when there is one (src/receipt/materialize.ts, run-command.ts, sandbox.ts).

import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseCommandArgs } from '../args';
import { checkPlanned, commitHint, openAuthoring, printRefusal, scopeName, writePlanned, type Authoring } from '../client/authoring';
import { dumpsIndented } from '../client/pretty-json';
import { today } from '../clock';
import { DEFAULT_GRADER } from '../evidence/policy';
import { dumpsCanonical, parsePyJson, PyJsonError, toPlain, type PyValue } from '../evidence/pyjson';
import { validateAgainst } from '../evidence/schema';
import { globBase } from '../glob';
import { sha256Hex } from '../hash';
import { UsageError, type CliIO } from '../io';
import { matcher } from '../matchers';
import { materializeCommit, MaterializeError } from '../receipt/materialize';
import { runCommand } from '../receipt/run-command';
import { bwrapArgv, bwrapProblem, findBwrap, pathList } from '../receipt/sandbox';
import { resolveCommitSpec } from '../run/base';
import { EXIT } from '../verdict';
import { short } from '../wording';

const USAGE =
  'receipt-gate fixture record ID --cmd COMMAND [--input JSON] [--ref REF] [--out PATH] [--timeout SECONDS] [--context NAME] [--now YYYY-MM-DD]';

const OPTIONS = {
  cmd: { type: 'string', description: 'the fixture command, run as receipt runs its fixture command (sh -c, input JSON on stdin, output on stdout)' },
  input: { type: 'string', description: "the record's input as JSON (default: the input of the record already at --out)" },
  ref: { type: 'string', description: 'the commit whose tree the command runs on, written from git objects (default HEAD)' },
  out: { type: 'string', description: 'the record file (default: ID.json in the folder of the policy\'s fixtures.records glob)' },
  timeout: { type: 'string', description: 'seconds the command may run before it is killed (default 60, as in receipt)' },
  context: { type: 'string', description: 'the bounded context whose fixtures section the record belongs to (the command runs in its root)' },
  now: { type: 'string', description: "today's date for checking the record with the gate's rules (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
} as const;

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(args, OPTIONS, USAGE, io);
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals[0] !== 'record' || positionals.length !== 2) throw new UsageError(`the subcommand is 'record ID'\nusage: ${USAGE}`);
  const id = positionals[1]!;
  if (!/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(id)) throw new UsageError(`ID must be letters, digits, '.', '_' or '-' (it names the record file), got '${id}'`);
  if (values.cmd === undefined || values.cmd.trim() === '') throw new UsageError(`--cmd COMMAND is required (the fixture command receipt runs)\nusage: ${USAGE}`);
  const timeout = values.timeout === undefined ? 60 : Number(values.timeout);
  if (!/^[0-9]+(\.[0-9]+)?$/.test(values.timeout ?? '60') || timeout <= 0) throw new UsageError(`--timeout must be a positive number of seconds, got '${values.timeout}'`);
  const date = today(io, values.now);

  const a = await openAuthoring(io, 'fixture record', {
    context: values.context,
    paths: values.out === undefined ? [] : [values.out],
    needs: (p) => p.fixtures !== undefined,
    what: '"fixtures" section',
  });
  try {
    return await record(a, io, { id, cmd: values.cmd, input: values.input, ref: values.ref ?? 'HEAD', out: a.resolve(values.out), timeoutMs: timeout * 1000, date });
  } finally {
    a.close();
  }
}

async function record(
  a: Authoring,
  io: CliIO,
  o: { id: string; cmd: string; input: string | undefined; ref: string; out: string | undefined; timeoutMs: number; date: string },
): Promise<number> {
  const section = a.policy.fixtures;
  if (!section) {
    throw new UsageError(`${scopeName(a)} has no "fixtures" section; an owner runs 'receipt-gate policy enable fixtures${a.context === null ? '' : ` --context ${a.context.name}`}' first`);
  }
  const out = o.out ?? `${globBase(section.records) === '' ? '' : `${globBase(section.records)}/`}${o.id}.json`;
  if (!matcher([section.records])(out) || out === a.policy.epoch?.pin) {
    throw new UsageError(`${out} is not a fixture record of ${scopeName(a)} (fixtures.records is ${section.records}${a.policy.epoch ? `, and the pin ${a.policy.epoch.pin} is not a record` : ''}); the grader would never re-run it: choose --out inside ${section.records}`);
  }
  const input = await inputOf(a, o.input, out);
  const commit = await resolveCommitSpec(a.store, o.ref, '--ref');

  // The command's output, as the grader would digest it.
  const workDir = mkdtempSync(join(tmpdir(), 'receipt-gate-fixture-'));
  let stdout: Buffer;
  let isolation: string;
  try {
    const treeDir = join(workDir, 'tree');
    mkdirSync(treeDir);
    try {
      await materializeCommit(a.store, commit, treeDir);
    } catch (err) {
      // The grader would refuse this tree too (PATH_UNSAFE): nothing to record on.
      if (err instanceof MaterializeError) throw new UsageError(`the tree of ${o.ref} (${short(commit)}) cannot be written safely, as the grader would refuse it: ${err.message}`);
      throw err;
    }
    const runDir = a.context === null ? treeDir : join(treeDir, ...a.context.root.split('/'));
    const sandbox = sandboxFor(a, io.env, treeDir, runDir, workDir);
    isolation = sandbox === undefined ? 'none' : 'bwrap';
    const env: NodeJS.ProcessEnv = { ...withoutSigning(io.env), RECEIPT_GATE_FIXTURE: out, RECEIPT_GATE_FIXTURE_ID: o.id };
    if (a.context !== null) Object.assign(env, { RECEIPT_GATE_CONTEXT: a.context.name, RECEIPT_GATE_CONTEXT_ROOT: a.context.root });
    const ran = await runCommand({
      command: o.cmd,
      cwd: runDir,
      env,
      stdin: dumpsCanonical(input),
      timeoutMs: o.timeoutMs,
      captureStdout: true,
      onOutput: (chunk) => io.stderr(chunk.toString('utf8')),
      ...(sandbox ? { sandbox } : {}),
    });
    if (ran.exitCode !== 0) {
      const why = ran.timedOut
        ? `did not finish within ${o.timeoutMs / 1000} s`
        : ran.stdoutTooLarge
          ? 'wrote more output than the grader accepts'
          : ran.spawnError
            ? `could not start (${ran.spawnError})`
            : `exited with status ${ran.exitCode ?? ran.signal}`;
      io.stderr(`receipt-gate fixture record: nothing written; the fixture command '${o.cmd}' ${why} on ${o.ref} (${short(commit)}); a record needs the output of a run that succeeds\n`);
      return EXIT.closed;
    }
    stdout = ran.stdout;
  } finally {
    rmSync(workDir, { recursive: true, force: true });
  }

  const digest = sha256Hex(stdout);
  const value: PyValue = {
    t: 'dict',
    v: new Map<string, PyValue>([
      ['id', { t: 'str', v: o.id }],
      ['input', input],
      ['sha256', { t: 'str', v: digest }],
    ]),
  };
  const problems = validateAgainst('fixture-record.schema.json', toPlain(value));
  if (problems.length > 0) throw new UsageError(`the record would not be valid: ${problems.map((p) => `at ${p.pointer || '/'}: ${p.message}`).join('; ')}`);
  const bytes = Buffer.from(`${dumpsIndented(value)}\n`);
  const existing = await a.tree.stat(out);
  if (existing.kind === 'file' && Buffer.from(await existing.read()).equals(bytes)) {
    io.stdout(`${out} already records sha256 ${digest} for this input: nothing changed\n`);
    return EXIT.eligible;
  }
  const { refused } = await checkPlanned(a, a.tree, [{ path: out, bytes }], o.date);
  if (refused.length > 0) {
    printRefusal(io, 'fixture record', refused);
    return EXIT.closed;
  }
  writePlanned(a, [{ path: out, bytes }]);
  io.stdout(`wrote ${out}: id ${o.id}, sha256 ${digest} (${stdout.length} bytes of output of '${o.cmd}' on ${o.ref}, ${short(commit)}, isolation ${isolation})\n`);
  io.stdout(commitHint(a.policy, [out]));
  return EXIT.eligible;
}

/** The input: --input parsed as Python's json.loads reads it, else the input of the record
 * already at `out`. */
async function inputOf(a: Authoring, given: string | undefined, out: string): Promise<PyValue> {
  if (given !== undefined) {
    try {
      return parsePyJson(Buffer.from(given, 'utf8'));
    } catch (err) {
      if (err instanceof PyJsonError) throw new UsageError(`--input is not valid JSON (line ${err.line}, column ${err.column}: ${err.reason})`);
      throw err;
    }
  }
  const entry = await a.tree.stat(out);
  if (entry.kind !== 'file') throw new UsageError(`--input JSON is required: ${out} does not exist yet to take the input from`);
  let value: PyValue;
  try {
    value = parsePyJson(await entry.read());
  } catch {
    throw new UsageError(`${out} is not valid JSON; give the input with --input JSON`);
  }
  const input = value.t === 'dict' ? value.v.get('input') : undefined;
  if (input === undefined) throw new UsageError(`${out} has no "input" member; give it with --input JSON`);
  return input;
}

/** The grader's sandbox (src/receipt/sandbox.ts) when bwrap works here, hiding the repository
 * and the home folder; undefined when there is none (the command then runs as receipt runs it
 * without isolation). */
function sandboxFor(a: Authoring, env: NodeJS.ProcessEnv, treeDir: string, runDir: string, workDir: string): { program: string; args: string[] } | undefined {
  const bwrap = findBwrap(env);
  if (bwrap === null) return undefined;
  const probe = join(workDir, 'probe');
  mkdirSync(probe);
  if (bwrapProblem(bwrap, probe) !== null) return undefined;
  const hidden = [a.worktree.top, a.store.gitdir, a.store.commondir, ...(env.HOME ? [env.HOME] : [])];
  const network = a.policy.grader?.network ?? DEFAULT_GRADER.network;
  return {
    program: bwrap,
    args: bwrapArgv({ kind: 'bwrap', bwrap, network, hidden, readOnly: [...pathList(env.NODE_PATH), ...pathList(env.RECEIPT_GATE_SANDBOX_READONLY)] }, treeDir, runDir),
  };
}

/** The caller's environment without receipt-gate's signing-key variables (the command runs
 * the project's code), as the grader gives it. */
function withoutSigning(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) if (!k.startsWith('RECEIPT_GATE_SIGN')) out[k] = v;
  return out;
}
