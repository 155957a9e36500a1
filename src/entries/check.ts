// `receipt-gate check FILE... [--format FORMAT] [--now YYYY-MM-DD]` — validates evidence files in the working
// tree with the gate's own rules, for lint-staged (which passes absolute paths, with unstaged
// changes stashed, so the working tree holds what is staged).
//
// Every evidence file of the working tree is checked together (a freeze cites an observation,
// a pin names a generator), and the findings on the files named are reported: schema errors
// with the file, the JSON pointer and what was expected, digest and expiry errors. The policy
// is the working tree's own (a staged policy is checked against its schema first).
//
// Named itself, the policy's globs are checked too: a malformed one is POLICY_INVALID (the
// policy's own validation); one that matches no path at the base is a warning (a typo
// protects nothing), unless it is a guard glob (protected before its files exist). Named, the
// epoch pin is checked with the generator it names (missing, or bytes that differ from the
// pinned digest, close).

import { readdirSync, realpathSync } from 'node:fs';
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { parseCommandArgs } from '../args';
import { CODEOWNERS_PATHS, codeownersWarnings } from '../client/codeowners';
import { contextHolding, contextNamed, type Scope } from '../client/context-scope';
import { GUARD_GLOBS, isGuardGlob } from '../client/layout';
import { resolveBase } from '../run/base';
import { locateWorktree, runGit } from '../client/git-cli';
import { IndexSource } from '../client/index-source';
import { OverlaySource } from '../client/overlay-source';
import { Deadline } from '../deadline';
import { readPin } from '../evidence/epoch';
import { indexFilePath, readStagedIndex } from '../git/staged-index';
import type { EvidenceSource } from '../evidence/types';
import { today } from '../clock';
import { internalError } from '../rules/errors';
import { checkEvidence } from '../evidence/index';
import { parsePolicy } from '../evidence/policy';
import { DirectorySource } from '../evidence/sources';
import type { ContextPolicy, Policy } from '../evidence/types';
import { TreeSource } from '../evidence/tree-source';
import { POLICY_PATH } from '../evidence/types';
import type { Finding } from '../findings';
import { diffTrees } from '../git/diff';
import { ObjectStore } from '../git/store';
import { UsageError, type CliIO } from '../io';
import { matcher } from '../matchers';
import { printable, quotePath } from '../quote';
import { findingsOutcome, formatOption, renderOutcome, type Format } from '../report/index';
import { EXIT } from '../verdict';
import { VERSION } from '../version';

const USAGE = 'receipt-gate check FILE... [--context NAME] [--format text|json|sarif|github|junit] [--json] [--now YYYY-MM-DD]';

export async function run(args: string[], io: CliIO): Promise<number> {
  const cli = parseCommandArgs(
    args,
    {
      now: { type: 'string', description: "today's date for expiry checks (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
      format: { type: 'string', description: 'how findings are printed: text (default), json, sarif, github or junit' },
      json: { type: 'boolean', description: 'the same as --format json' },
      context: { type: 'string', description: 'check under this bounded context\'s policy only (every FILE in its root)' },
    },
    USAGE,
    io,
  );
  if (!cli) return 0;
  const { values, positionals } = cli;
  const format = formatOption(values);
  if (positionals.length === 0) throw new UsageError(`name at least one FILE\nusage: ${USAGE}`);
  const date = today(io, values.now);
  const worktree = locateWorktree(io.cwd, io.env);
  const given = positionals.map((p) => repoPath(worktree.top, io.cwd, p));

  const tree = new DirectorySource(worktree.top, 'the working tree');
  const policyEntry = await tree.stat(POLICY_PATH);
  if (policyEntry.kind === 'missing') {
    throw new UsageError(`no ${POLICY_PATH} at ${worktree.top}: nothing to check against (run 'receipt-gate init' first)`);
  }
  const missing = await missingFiles(tree, given);
  // A name that is not valid UTF-8 reaches check with U+FFFD in place of its bytes (the
  // command line is read as UTF-8): the file is there, but no policy can name it as evidence.
  const notUtf8 = missing.map((f) => ({ f, raw: notUtf8Name(worktree.top, f) })).filter((m): m is { f: string; raw: Buffer } => m.raw !== null);
  refuseMissing(worktree.top, missing.filter((f) => !notUtf8.some((m) => m.f === f)));
  for (const { raw } of notUtf8) {
    io.stderr(`receipt-gate check: notice: ${quotePath(raw)}: its name is not valid UTF-8, so no policy can name it as evidence; nothing to validate in it\n`);
  }
  const files = given.filter((f) => !notUtf8.some((m) => m.f === f));

  const parsed =
    policyEntry.kind === 'file'
      ? parsePolicy(await policyEntry.read())
      : {
          ok: false as const,
          findings: [
            {
              code: 'POLICY_INVALID' as const,
              severity: 'closed' as const,
              path: POLICY_PATH,
              message: `${POLICY_PATH} is a ${policyEntry.what}, not a file`,
              fix: `an owner replaces it with a policy file (schemas/policy.schema.json)`,
            },
          ],
        };
  const judged = parsed.ok
    ? await judgeFiles({ top: worktree.top, env: io.env, tree, policy: parsed.policy, files, scopes: checkScopes(parsed.policy, files, values.context), date })
    : { findings: parsed.findings, notices: [], warnings: [] };
  // The review lock on the forge: a CODEOWNERS block that no longer says what the policy protects.
  if (parsed.ok && files.some((f) => f === POLICY_PATH || CODEOWNERS_PATHS.includes(f))) judged.warnings.push(...codeownersWarnings(worktree.top, parsed.policy));
  for (const n of judged.notices) io.stderr(`receipt-gate check: notice: ${n}\n`);
  for (const w of judged.warnings) io.stderr(`receipt-gate check: warning: ${w}\n`);
  return report(io, format, judged.findings, files.length, date);
}

async function missingFiles(tree: DirectorySource, files: readonly string[]): Promise<string[]> {
  const missing: string[] = [];
  for (const file of files) if ((await tree.stat(file)).kind === 'missing') missing.push(file);
  return missing;
}

/** A usage error naming each file that does not exist (as git quotes it), with the nearest
 * name beside it. */
function refuseMissing(top: string, missing: readonly string[]): void {
  if (missing.length === 0) return;
  throw new UsageError(
    missing
      .map((f) => {
        const near = nearestName(top, f);
        return `${quotePath(f)}: no such file in the working tree${near === null ? '' : ` (did you mean ${quotePath(near)}?)`}`;
      })
      .join('\n') + `\ncheck validates files that exist: name them as they are spelled (lint-staged passes the staged ones)`,
  );
}

interface JudgeInput {
  top: string;
  env: NodeJS.ProcessEnv;
  tree: DirectorySource;
  policy: Policy;
  files: readonly string[];
  scopes: Scope[];
  date: string;
}

/** The findings on the named files under each scope's policy, against the base (the
 * remote-tracking base branch, or HEAD: the base side of the epoch rule); when the policy
 * itself is named, its globs that match nothing at the base. Any error fails closed. */
async function judgeFiles(input: JudgeInput): Promise<{ findings: Finding[]; notices: string[]; warnings: string[] }> {
  const { policy, files, date } = input;
  const findings: Finding[] = [];
  const notices: string[] = [];
  const warnings: string[] = [];
  let store: ObjectStore | null = null;
  try {
    store = await ObjectStore.discover(input.top, input.env);
    const base = await resolveBase(store, { kind: 'client', remote: 'origin', fallbacks: ['HEAD'] });
    const baseTree = base.tip === null ? null : (await store.commits.read(base.tip)).tree;
    if (baseTree === null) {
      // Before the first commit: nothing to compare with yet; say which policy was read.
      notices.push(
        `no base yet (no commit, no origin/${printable(policy.baseBranch)}): checked against the policy proposed in the working tree (${POLICY_PATH}); the base-side rules (the epoch pin's history, globs that match nothing at the base) apply from the first commit on`,
      );
    }
    const named = new Set(files);
    for (const scope of input.scopes) {
      const report = await checkEvidence({
        policy: scope.policy,
        atNew: await generatorAsStored(store, input, scope.policy),
        atBase: baseTree === null ? null : new TreeSource(store, baseTree, base.name ?? 'the base'),
        today: date,
      });
      const judged = withPinned(named, scope.policy, report.results.pin?.generator ?? null);
      const ours = report.findings.filter((f) => f.path !== undefined && judged.has(f.path) && (scope.context === null || contextHolding(policy, f.path) === scope.context));
      findings.push(...ours.map((f) => (scope.context === null ? f : { ...f, context: scope.context.name })));
    }
    if (named.has(POLICY_PATH) && baseTree !== null) {
      const paths = (await diffTrees(store, null, baseTree)).map((c) => c.path);
      warnings.push(...unmatchedGlobs(policy, paths, base.name ?? 'the base'));
    }
  } catch (err) {
    findings.push(internalError(err, {}));
  } finally {
    store?.close();
  }
  return { findings, notices, warnings };
}

/**
 * The working tree, with the generator its epoch pin names read as git stores it: the pin
 * holds the SHA-256 of the blob, and a checkout may differ from it byte for byte (eol
 * conversion, clean filters), as `epoch pin` knows. When the generator is in the index and
 * `git diff` finds the checkout unchanged against it, the staged blob is what git stores for
 * the checkout's bytes; otherwise the checkout's bytes are judged as they are.
 */
async function generatorAsStored(store: ObjectStore, input: JudgeInput, policy: Policy): Promise<EvidenceSource> {
  if (policy.epoch === undefined) return input.tree;
  const { pin } = await readPin(input.tree, policy.epoch.pin, policy, Deadline.never());
  if (pin === null) return input.tree;
  let staged: EvidenceSource;
  try {
    const index = await readStagedIndex(indexFilePath(store.gitdir, input.env, input.top));
    staged = new IndexSource(store, index.entries);
  } catch {
    return input.tree; // no index (a fresh repository): the checkout's bytes
  }
  const entry = await staged.stat(pin.generator);
  if (entry.kind !== 'file') return input.tree;
  if (runGit(['diff', '--quiet', '--', pin.generator], input.top, input.env).status !== 0) return input.tree;
  return new OverlaySource(input.tree, input.tree.label).set(pin.generator, await entry.read());
}

/** The paths whose findings are reported: the named files and, when the epoch pin is named,
 * the generator it names (a pin is valid only while its generator exists with the pinned
 * bytes: EPOCH_MISSING, EPOCH_MISMATCH, as the server says). */
function withPinned(named: ReadonlySet<string>, policy: Policy, generator: string | null): ReadonlySet<string> {
  if (generator === null || policy.epoch === undefined || !named.has(policy.epoch.pin)) return named;
  return new Set([...named, generator]);
}

function report(io: CliIO, format: Format, findings: Finding[], fileCount: number, date: string): number {
  const outcome = findingsOutcome('check', findings, {
    header: `receipt-gate check (${fileCount} file${fileCount === 1 ? '' : 's'}, ${date}):`,
  });
  if (format !== 'text') {
    io.stdout(renderOutcome(format, outcome, VERSION));
  } else if (findings.length > 0) {
    // lint-staged shows a failing task's output; a clean check prints nothing.
    const text = renderOutcome('text', outcome, VERSION);
    if (outcome.verdict === 'closed') io.stderr(text);
    else io.stdout(text);
  }
  return outcome.verdict === 'closed' ? EXIT.closed : EXIT.eligible;
}

/**
 * The policies the named files are checked under: the repository's, and (bounded contexts) each
 * context whose root holds a named file, each reading only its own evidence; with --context
 * NAME that context alone, and every file must lie in its root.
 */
function checkScopes(policy: Policy, files: readonly string[], name: string | undefined): Scope[] {
  if (name !== undefined) {
    const context = contextNamed(policy, name, 'check');
    const outside = files.find((f) => contextHolding(policy, f) !== context);
    if (outside !== undefined) {
      throw new UsageError(`${quotePath(outside)} is not under the root ${quotePath(context.root)} of context ${context.name}; check it without --context, or name files of that context`);
    }
    return [{ policy: context.policy, context }];
  }
  const holders = new Set(files.map((f) => contextHolding(policy, f)).filter((c): c is ContextPolicy => c !== null));
  return [{ policy, context: null }, ...(policy.contexts ?? []).filter((c) => holders.has(c)).map((c) => ({ policy: c.policy, context: c }))];
}

/** The policy's globs, each with the list it stands in; with bounded contexts, each context's
 * own globs too (as repository globs, the root joined), named with their context and root. */
function policyGlobs(policy: Policy): { list: 'protected' | 'exceptions'; glob: string; context: string | null; root: string }[] {
  const own = (p: Policy, context: string | null, prefix: string) => [
    ...p.protected.filter((g) => g.startsWith(prefix)).map((glob) => ({ list: 'protected' as const, glob, context, root: prefix })),
    ...p.exceptions.filter((g) => g.startsWith(prefix)).map((glob) => ({ list: 'exceptions' as const, glob, context, root: prefix })),
  ];
  // A context's own globs are the ones under its root (its policy also holds the repository's).
  return [own(policy, null, ''), ...(policy.contexts ?? []).map((c) => own(c.policy, c.name, `${c.root}/`))].flat();
}

/** Globs that match none of `paths` (the base's files), each said with its name and list: a
 * typo protects nothing. A guard glob (src/client/layout.ts: the evidence layout, the gate's
 * runner, CI, hook and test configuration, also under a context's root) is protected before
 * anything matches it, on purpose, and never reported; a glob one or two edits from a guard
 * glob is said with it (`"propertes/**" … check it for a typo (did you mean "properties/**"?)`). */
function unmatchedGlobs(policy: Policy, paths: readonly string[], baseName: string): string[] {
  const out: string[] = [];
  for (const { list, glob, context, root } of policyGlobs(policy)) {
    const local = glob.slice(root.length);
    if (isGuardGlob(local)) continue;
    if (paths.some((p) => globMatches(glob, p))) continue;
    const guard = nearestGuard(local);
    const meant = guard === null ? '' : ` (did you mean ${printable(JSON.stringify(`${root}${guard}`))}?)`;
    out.push(
      `the ${list} glob ${printable(JSON.stringify(glob))}${context === null ? '' : ` of context ${context}`} matches no path at ${printable(baseName)} (of ${paths.length} path${paths.length === 1 ? '' : 's'}); check it for a typo${meant}`,
    );
  }
  return out;
}

/** The guard glob one or two edits from `glob`, or null. */
function nearestGuard(glob: string): string | null {
  let best: { glob: string; d: number } | null = null;
  for (const { glob: guard } of GUARD_GLOBS) {
    const d = editDistance(glob, guard);
    if (d > 0 && d <= 2 && (best === null || d < best.d)) best = { glob: guard, d };
  }
  return best?.glob ?? null;
}

/** Whether the policy would apply `glob` to `path` (the matching the engine uses, folding
 * included); the one place check asks it. */
function globMatches(glob: string, path: string): boolean {
  return matcher([glob])(path);
}

/** The repository path of a FILE argument (absolute, or relative to the current directory). */
function repoPath(top: string, cwd: string, file: string): string {
  const given = isAbsolute(file) ? file : resolve(cwd, file);
  // git reports the top level with symlinks resolved; resolve the file's folder the same way.
  let absolute = given;
  try {
    absolute = join(realpathSync(dirname(given)), basename(given));
  } catch {
    // a folder that does not exist: the path is taken as given
  }
  const rel = relative(top, absolute);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) {
    throw new UsageError(`${quotePath(file)} is outside the working tree ${quotePath(top)}`);
  }
  return rel.split(sep).join('/');
}

/** The entries of the folder holding `path` (a repository path), as the bytes of their
 * names, with that folder; null when it cannot be read. */
function siblings(top: string, path: string): { dir: string; name: string; entries: Buffer[] } | null {
  const slash = path.lastIndexOf('/');
  const dir = slash < 0 ? '' : path.slice(0, slash);
  try {
    return { dir, name: path.slice(slash + 1), entries: readdirSync(join(top, dir), { encoding: 'buffer' }) };
  } catch {
    return null;
  }
}

const joinRaw = (dir: string, name: Buffer): Buffer => (dir === '' ? name : Buffer.concat([Buffer.from(`${dir}/`), name]));

/** The file a name holding U+FFFD stands for: an entry beside it whose name is not valid UTF-8
 * and reads as that name with each stray byte replaced, as the command line decodes it. */
function notUtf8Name(top: string, path: string): Buffer | null {
  if (!path.includes('\ufffd')) return null;
  const beside = siblings(top, path);
  const entry = beside?.entries.find((e) => !isUtf8(e) && e.toString('utf8') === beside.name);
  return entry === undefined || beside === null ? null : joinRaw(beside.dir, entry);
}

function isUtf8(bytes: Buffer): boolean {
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
}

/** The file beside `path` whose name is closest to its name (at most two edits), as the bytes
 * of its name, or null. Never the name itself as the command line mangled it. */
function nearestName(top: string, path: string): Buffer | null {
  const beside = siblings(top, path);
  if (beside === null) return null;
  const name = beside.name.toLowerCase();
  let best: { name: Buffer; d: number } | null = null;
  for (const n of [...beside.entries].sort((a, b) => Buffer.compare(a, b))) {
    const decoded = n.toString('utf8');
    if (decoded === beside.name) continue;
    const d = editDistance(name, decoded.toLowerCase());
    if (d <= 2 && (best === null || d < best.d)) best = { name: n, d };
  }
  return best === null ? null : joinRaw(beside.dir, best.name);
}

/** Levenshtein distance (insertions, deletions, substitutions). */
function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const cur = [i];
    for (let j = 1; j <= b.length; j++) cur[j] = Math.min(prev[j]! + 1, cur[j - 1]! + 1, prev[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    prev = cur;
  }
  return prev[b.length]!;
}
