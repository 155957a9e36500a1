// The policy (.receipt-gate.json): parsed as Python's json.loads would, validated against
// schemas/policy.schema.json, then completed with defaults. An evidence section the policy
// leaves out stays out (nothing is checked for it); inside a section, a missing member takes
// the value of README.md's example policy.

import { finding, type Finding } from '../findings';
import { compileGlob, GlobError } from '../glob';
import { foldKey } from '../paths';
import { parsePyJson, PyJsonError, toPlain } from './pyjson';
import { validateAgainst, type SchemaProblem } from './schema';
import { POLICY_PATH, type ContextPolicy, type Policy } from './types';

export const DEFAULT_IDENTITY_ENV = ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER'];
export const DEFAULT_LIMITS = { timeoutMs: 4000, maxEvidenceBytes: 1_048_576 } as const;
export const DEFAULT_FREEZE = { path: 'freeze.json', reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 };
export const DEFAULT_EPOCH = { pin: 'fixtures/EPOCH' };
export const DEFAULT_MANIFEST = { path: 'checks/manifest.json' };
export const DEFAULT_OBSERVATIONS = { dir: 'observations', freezes: 'freezes' };
/** The consecutive passes of a frozen test `freeze review --run` asks for before it mentions lifting. */
export const DEFAULT_LIFT_AFTER_PASSES = 5;
export const DEFAULT_FIXTURES = { records: 'fixtures/*.json' };
/** What `receipt` requires of its own run (docs/receipts.md): the grader's default trial count
 * as the fewest trials a receipt may record, and no network for the patch's commands. */
export const DEFAULT_GRADER = { minTrials: 200, network: false } as const;

export type PolicyParse = { ok: true; policy: Policy } | { ok: false; findings: Finding[] };

/** Parses and validates policy bytes (the policy file's own size is checked by whoever reads it,
 * against DEFAULT_LIMITS.maxEvidenceBytes, before reading). */
export function parsePolicy(bytes: Uint8Array, path: string = POLICY_PATH): PolicyParse {
  const fix = `an owner fixes ${path} so it matches schemas/policy.schema.json (see docs/evidence.md)`;
  const invalid = (message: string): Finding => finding('POLICY_INVALID', { path, message, fix });

  if (bytes.length > DEFAULT_LIMITS.maxEvidenceBytes) {
    return {
      ok: false,
      findings: [
        finding('LIMIT_EXCEEDED', {
          path,
          message: `${path} is ${bytes.length} bytes, over the ${DEFAULT_LIMITS.maxEvidenceBytes}-byte limit for a policy.`,
          fix: `an owner replaces ${path} with a policy under ${DEFAULT_LIMITS.maxEvidenceBytes} bytes`,
        }),
      ],
    };
  }
  let plain: unknown;
  try {
    plain = toPlain(parsePyJson(bytes));
  } catch (err) {
    if (!(err instanceof PyJsonError)) throw err;
    const reason = err.message.replace(/: line \d+ column \d+ \(char \d+\)$/, '');
    return {
      ok: false,
      findings: [invalid(`${path} is not a valid policy: JSON syntax error at line ${err.line}, column ${err.column}: ${reason}.`)],
    };
  }
  // Schema problems and unusable globs are listed together, one finding per pointer.
  const problems = policySchemaProblems(plain);
  const messages = problems.map(
    (p) => `${path} is not a valid policy: at ${p.pointer === '' ? '/ (the whole document)' : p.pointer}: ${p.message}.`,
  );
  const reported = new Set(problems.map((p) => p.pointer));
  for (const p of unusableGlobs(plain)) {
    if (reported.has(p.pointer)) continue;
    messages.push(`${path} is not a valid policy: at ${p.pointer}: ${JSON.stringify(p.glob)} is not a usable ${p.noun}: ${p.reason}.`);
  }
  if (messages.length > 0) return { ok: false, findings: messages.map(invalid) };
  const file = plain as PolicyFile;
  const policy = withDefaults(file);
  const clashes: string[] = [];
  if (policy.observations && folderOverlap(policy.observations.dir, policy.observations.freezes)) {
    clashes.push(
      `${path} is not a valid policy: at /observations: "dir" (${policy.observations.dir}) and "freezes" (${policy.observations.freezes}) must be separate folders.`,
    );
  }
  if (file.contexts) clashes.push(...contextClashes(file.contexts, policy.contexts ?? []).map((c) => `${path} is not a valid policy: ${c}.`));
  if (clashes.length > 0) return { ok: false, findings: clashes.map(invalid) };
  return { ok: true, policy };
}

/**
 * The policy's schema problems, as validateAgainst gives them for the whole document. A
 * monorepo's contexts often repeat one another but for their name and root; the schema judges
 * each context on its own (nothing in it compares contexts, or a context's name and root with
 * its other members), so a context whose other members are an earlier context's, value for value,
 * is as valid as that one once its name and root are. The document is first validated with each
 * such repeat cut down to its name and root; when anything is wrong there, the whole document is
 * validated again as written, so every problem is reported as before.
 */
export function policySchemaProblems(plain: unknown): SchemaProblem[] {
  const folded = repeatsFolded(plain);
  if (folded !== null && validateAgainst('policy.schema.json', folded).length === 0) return [];
  return validateAgainst('policy.schema.json', plain);
}

/** The document with every context that repeats an earlier one (see policySchemaProblems) cut down to
 * its name and root; null when no context repeats another. Two contexts repeat each other when
 * their other members serialize alike and hold no number JSON cannot tell apart (NaN, the
 * infinities and -0 are written as null or 0) and no big integer. */
function repeatsFolded(plain: unknown): unknown {
  if (plain === null || typeof plain !== 'object' || Array.isArray(plain)) return null;
  const list = (plain as Record<string, unknown>).contexts;
  if (!Array.isArray(list) || list.length < 2) return null;
  const seen = new Set<string>();
  let repeats = 0;
  const folded = list.map((item: unknown) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const key = membersKey(item as Record<string, unknown>);
    if (key === null || !seen.has(key)) {
      if (key !== null) seen.add(key);
      return item;
    }
    repeats++;
    const cut: Record<string, unknown> = {};
    for (const member of ['name', 'root']) if (Object.prototype.hasOwnProperty.call(item, member)) cut[member] = (item as Record<string, unknown>)[member];
    return cut;
  });
  // A spread defines own members (a "__proto__" member stays one).
  return repeats === 0 ? null : { ...plain, contexts: folded };
}

/** A context's members but its name and root, serialized; null when a number in them is one
 * JSON cannot write exactly. */
function membersKey(context: Record<string, unknown>): string | null {
  let exact = true;
  const key = JSON.stringify(context, function (this: unknown, member: string, value: unknown) {
    if (this === context && (member === 'name' || member === 'root')) return undefined;
    if (typeof value === 'bigint' || (typeof value === 'number' && (!Number.isFinite(value) || Object.is(value, -0)))) {
      exact = false;
      return null;
    }
    return value;
  });
  return exact ? key : null;
}

/** The policy file as written (all members optional but version), after schema validation. */
interface PolicyFile {
  version: 1 | 2;
  baseBranch?: string;
  protectedRefs?: string[];
  protected?: string[];
  exceptions?: string[];
  owners?: string[];
  identityEnv?: string[];
  epoch?: { pin?: string };
  manifest?: { path?: string; catalog?: string };
  freeze?: { path?: string; reasons?: string[]; maxDays?: number };
  observations?: { dir?: string; freezes?: string; liftAfterPasses?: number };
  fixtures?: { records?: string };
  limits?: { timeoutMs?: number; maxEvidenceBytes?: number };
  grader?: { minTrials?: number; network?: boolean };
  contexts?: ContextFile[];
}

/** A bounded context as written: its paths are relative to its root. */
interface ContextFile {
  name: string;
  root: string;
  protected?: string[];
  exceptions?: string[];
  owners?: string[];
  dependsOn?: string[];
  epoch?: PolicyFile['epoch'];
  manifest?: PolicyFile['manifest'];
  freeze?: PolicyFile['freeze'];
  observations?: PolicyFile['observations'];
  fixtures?: PolicyFile['fixtures'];
}

function withDefaults(file: PolicyFile): Policy {
  const policy = sectionsWithDefaults(file);
  if (file.contexts) policy.contexts = file.contexts.map((c) => contextWithDefaults(c, file, policy));
  return policy;
}

/**
 * A context as a policy of its own, every path joined to its root: its own evidence sections
 * (freeze reasons and maxDays default to the repository-wide freeze section's), its owners (the
 * repository's when it names none), and the repository-wide protected globs — with the
 * repository-wide evidence paths — and exceptions before its own.
 */
function contextWithDefaults(context: ContextFile, file: PolicyFile, repo: Policy): ContextPolicy {
  const root = context.root;
  const inRoot = (p: string) => `${root}/${p}`;
  const globInRoot = (g: string) => `${escapeGlob(root)}/${g}`;
  const freeze = context.freeze
    ? { ...context.freeze, reasons: context.freeze.reasons ?? file.freeze?.reasons, maxDays: context.freeze.maxDays ?? file.freeze?.maxDays }
    : undefined;
  const sections = sectionsWithDefaults({
    version: 1,
    ...(context.epoch ? { epoch: { pin: inRoot(context.epoch.pin ?? DEFAULT_EPOCH.pin) } } : {}),
    ...(context.manifest
      ? {
          manifest: {
            path: inRoot(context.manifest.path ?? DEFAULT_MANIFEST.path),
            ...(context.manifest.catalog !== undefined ? { catalog: inRoot(context.manifest.catalog) } : {}),
          },
        }
      : {}),
    ...(freeze ? { freeze: { ...freeze, path: inRoot(freeze.path ?? DEFAULT_FREEZE.path) } } : {}),
    ...(context.observations
      ? {
          observations: {
            dir: inRoot(context.observations.dir ?? DEFAULT_OBSERVATIONS.dir),
            freezes: inRoot(context.observations.freezes ?? DEFAULT_OBSERVATIONS.freezes),
            ...(context.observations.liftAfterPasses !== undefined ? { liftAfterPasses: context.observations.liftAfterPasses } : {}),
          },
        }
      : {}),
    ...(context.fixtures ? { fixtures: { records: globInRoot(context.fixtures.records ?? DEFAULT_FIXTURES.records) } } : {}),
  });
  const policy: Policy = {
    ...sections,
    version: repo.version,
    baseBranch: repo.baseBranch,
    protectedRefs: [...repo.protectedRefs],
    identityEnv: [...repo.identityEnv],
    limits: { ...repo.limits },
    ...(repo.grader ? { grader: { ...repo.grader } } : {}),
    protected: [...repo.protected, ...evidencePaths(repo), ...(context.protected ?? []).map(globInRoot)],
    exceptions: [...repo.exceptions, ...(context.exceptions ?? []).map(globInRoot)],
    owners: [...(context.owners ?? repo.owners)],
  };
  return { name: context.name, root, dependsOn: [...(context.dependsOn ?? [])], policy };
}

/** Context problems the schema cannot express, each as "at POINTER: what is wrong". */
function contextClashes(files: ContextFile[], contexts: ContextPolicy[]): string[] {
  const out: string[] = [];
  const names = new Map<string, number>();
  // Roots folded once (folding is the costly part of a comparison).
  const keys = files.map((c) => foldKey(c.root));
  const policyKey = foldKey(POLICY_PATH);
  const overlap = (x: string, y: string) => x === y || x.startsWith(y + '/') || y.startsWith(x + '/');
  files.forEach((c, i) => {
    const first = names.get(c.name);
    if (first !== undefined) out.push(`at /contexts/${i}/name: the context name "${c.name}" is also the name of /contexts/${first}; each context needs its own name`);
    else names.set(c.name, i);
    for (let j = 0; j < i; j++) {
      if (overlap(keys[i]!, keys[j]!)) {
        out.push(`at /contexts/${i}/root: the root ${c.root} overlaps the root ${files[j]!.root} of context "${files[j]!.name}" (/contexts/${j}/root); roots may not hold one another`);
      }
    }
    if (overlap(keys[i]!, policyKey)) out.push(`at /contexts/${i}/root: the root ${c.root} holds the policy file ${POLICY_PATH}, which belongs to the whole repository`);
    const observations = contexts[i]?.policy.observations;
    if (observations && folderOverlap(observations.dir, observations.freezes)) {
      out.push(`at /contexts/${i}/observations: "dir" (${observations.dir}) and "freezes" (${observations.freezes}) must be separate folders`);
    }
  });
  return out;
}

function sectionsWithDefaults(file: PolicyFile): Policy {
  const baseBranch = file.baseBranch ?? 'main';
  const policy: Policy = {
    version: file.version,
    baseBranch,
    protectedRefs: [...(file.protectedRefs ?? [`refs/heads/${baseBranch}`])],
    protected: [...(file.protected ?? [])],
    exceptions: [...(file.exceptions ?? [])],
    owners: [...(file.owners ?? [])],
    identityEnv: [...(file.identityEnv ?? DEFAULT_IDENTITY_ENV)],
    limits: {
      timeoutMs: file.limits?.timeoutMs ?? DEFAULT_LIMITS.timeoutMs,
      maxEvidenceBytes: file.limits?.maxEvidenceBytes ?? DEFAULT_LIMITS.maxEvidenceBytes,
    },
  };
  if (file.epoch) policy.epoch = { pin: file.epoch.pin ?? DEFAULT_EPOCH.pin };
  if (file.manifest) {
    // The catalog is optional: without one the sampler is not checked.
    policy.manifest = { path: file.manifest.path ?? DEFAULT_MANIFEST.path };
    if (file.manifest.catalog !== undefined) policy.manifest.catalog = file.manifest.catalog;
  }
  if (file.freeze) {
    policy.freeze = {
      path: file.freeze.path ?? DEFAULT_FREEZE.path,
      reasons: [...(file.freeze.reasons ?? DEFAULT_FREEZE.reasons)],
      maxDays: file.freeze.maxDays ?? DEFAULT_FREEZE.maxDays,
    };
  }
  if (file.observations) {
    policy.observations = {
      dir: file.observations.dir ?? DEFAULT_OBSERVATIONS.dir,
      freezes: file.observations.freezes ?? DEFAULT_OBSERVATIONS.freezes,
      ...(file.observations.liftAfterPasses !== undefined ? { liftAfterPasses: file.observations.liftAfterPasses } : {}),
    };
  }
  if (file.fixtures) policy.fixtures = { records: file.fixtures.records ?? DEFAULT_FIXTURES.records };
  if (file.grader) {
    policy.grader = { minTrials: file.grader.minTrials ?? DEFAULT_GRADER.minTrials, network: file.grader.network ?? DEFAULT_GRADER.network };
  }
  return policy;
}

/**
 * Every glob of the policy that the gate refuses (see src/glob.ts): malformed (unbalanced
 * braces, brackets or parentheses), unable to match any git path (a leading or trailing `/`, an
 * empty segment), or of a form picomatch backtracks on catastrophically (nested extglobs,
 * stars inside extglobs, `+(a|aa)`). Path globs are folded as paths are; ref globs are not.
 */
function unusableGlobs(plain: unknown): { pointer: string; glob: string; noun: 'glob' | 'path'; reason: string }[] {
  const out: { pointer: string; glob: string; noun: 'glob' | 'path'; reason: string }[] = [];
  // Read defensively: this also runs on a document that failed its schema.
  const doc = (plain !== null && typeof plain === 'object' ? plain : {}) as Record<string, unknown>;
  const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
  // Each distinct glob is compiled once (contexts of a monorepo repeat the same relative globs).
  const verdicts = new Map<string, string | null>();
  const check = (pointer: string, glob: unknown, fold: boolean) => {
    if (typeof glob !== 'string' || glob === '') return;
    const key = `${fold ? 'f' : 'x'}\0${glob}`;
    let reason = verdicts.get(key);
    if (reason === undefined) {
      reason = null;
      try {
        compileGlob(glob, { fold });
      } catch (err) {
        if (!(err instanceof GlobError)) throw err;
        reason = err.message;
      }
      verdicts.set(key, reason);
    }
    if (reason !== null) out.push({ pointer, glob, noun: 'glob', reason });
  };
  list(doc.protectedRefs).forEach((g, i) => check(`/protectedRefs/${i}`, g, false));
  list(doc.protected).forEach((g, i) => check(`/protected/${i}`, g, true));
  list(doc.exceptions).forEach((g, i) => check(`/exceptions/${i}`, g, true));
  list(doc.contexts).forEach((c, i) => {
    const context = (c !== null && typeof c === 'object' ? c : {}) as Record<string, unknown>;
    list(context.protected).forEach((g, k) => check(`/contexts/${i}/protected/${k}`, g, true));
    list(context.exceptions).forEach((g, k) => check(`/contexts/${i}/exceptions/${k}`, g, true));
    list(context.dependsOn).forEach((g, k) => check(`/contexts/${i}/dependsOn/${k}`, g, true));
    const records = (context.fixtures as Record<string, unknown> | undefined)?.records;
    check(`/contexts/${i}/fixtures/records`, records, true);
  });
  const member = (section: string, key: string): unknown => {
    const value = doc[section];
    return value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined;
  };
  check('/fixtures/records', member('fixtures', 'records'), true);
  // Evidence paths are matched as literal globs (evidencePaths): one too deep to compile is
  // refused here rather than failing the run later.
  for (const [section, key] of [['epoch', 'pin'], ['manifest', 'path'], ['manifest', 'catalog'], ['freeze', 'path'], ['observations', 'dir'], ['observations', 'freezes']] as const) {
    const value = member(section, key);
    if (typeof value === 'string' && value !== '') {
      const before = out.length;
      check(`/${section}/${key}`, `${escapeGlob(value)}/**`, true);
      for (const problem of out.slice(before)) Object.assign(problem, { glob: value, noun: 'path' });
    }
  }
  return out;
}

function folderOverlap(a: string, b: string): boolean {
  const x = foldKey(a);
  const y = foldKey(b);
  return x === y || x.startsWith(y + '/') || y.startsWith(x + '/');
}

/**
 * Globs of every evidence file the policy names: the pin, the manifest and its catalog, the
 * freeze file, everything under the observations and keyed-freeze folders, the fixture records.
 * The engine protects these besides `policy.protected`. Literal paths are glob-escaped.
 */
export function evidencePaths(policy: Policy): string[] {
  const globs: string[] = [];
  if (policy.epoch) globs.push(escapeGlob(policy.epoch.pin));
  if (policy.manifest) {
    globs.push(escapeGlob(policy.manifest.path));
    if (policy.manifest.catalog !== undefined) globs.push(escapeGlob(policy.manifest.catalog));
  }
  if (policy.freeze) globs.push(escapeGlob(policy.freeze.path));
  if (policy.observations) {
    globs.push(`${escapeGlob(policy.observations.dir)}/**`, `${escapeGlob(policy.observations.freezes)}/**`);
  }
  if (policy.fixtures) globs.push(policy.fixtures.records);
  return globs;
}

/** Escapes picomatch's special characters so a literal path matches only itself. */
export function escapeGlob(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@|^$]/g, (c) => `\\${c}`);
}
