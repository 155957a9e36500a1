// The gate's own runner: how a project obtains receipt-gate. A patch that changes it chooses the
// verifier that judges it (a `file:./tools/fake` devDependency whose bin prints `eligible`), so
// such a change is closed for non-owners, as a change to a protected path is
// (src/rules/protected-paths.ts). Content-aware: only the receipt-gate entries of these files
// count, so an unrelated dependency bump in the same files stays free.
//
//   package.json (any depth)        dependencies, devDependencies, optionalDependencies,
//                                   peerDependencies, bundleDependencies, overrides,
//                                   resolutions, pnpm.overrides; a package named receipt-gate
//                                   or with a bin named receipt-gate
//   package-lock.json,              packages["…node_modules/receipt-gate"], every package named
//   npm-shrinkwrap.json             receipt-gate or with such a bin, every package's dependency
//                                   on it; v1 dependencies["receipt-gate"] at any depth
//   pnpm-lock.yaml, yarn.lock       every block that mentions receipt-gate, with the keys above it
//   .pre-commit-config.yaml         every `repos:` item that mentions receipt-gate (its repo, rev,
//                                   hook ids and entries)
//
// A side that cannot be read (not a regular file, too large, not JSON, YAML anchors) is
// unknown: the change counts when the other side has a receipt-gate entry or either mentions
// receipt-gate (fail closed).

import type { Deadline } from '../deadline';
import type { ObjectStore } from '../git/store';
import type { PathChange } from '../git/types';
import { foldKey } from '../paths';

const GATE = 'receipt-gate';
/** The largest file read; a lock file over it is unknown (fail closed). */
const MAX_BYTES = 64 * 1024 * 1024;

type RunnerFile = 'package.json' | 'npm-lock' | 'yaml-lock' | 'pre-commit';

const RUNNER_FILES: Record<string, RunnerFile> = {
  'package.json': 'package.json',
  'package-lock.json': 'npm-lock',
  'npm-shrinkwrap.json': 'npm-lock',
  'pnpm-lock.yaml': 'yaml-lock',
  'yarn.lock': 'yaml-lock',
  '.pre-commit-config.yaml': 'pre-commit',
};

/** The runner file a path names (by its last segment, on the folded key every path rule uses:
 * a checkout on macOS or Windows writes `Package.json`, `package.json.` or a name with an
 * ignorable code point onto package.json), or null. */
export function runnerFileOf(path: string): RunnerFile | null {
  // Folding never crosses a '/' (src/paths.ts, foldKey): the last segment of the folded path is
  // the folded last segment, so only that segment is folded (this is asked for every change of
  // every commit, and the answer for a name is remembered: a push names the same files again
  // and again).
  const last = path.slice(path.lastIndexOf('/') + 1);
  let file = runnerFiles.get(last);
  if (file === undefined) {
    const name = foldKey(last);
    // Own keys only: `constructor` or `__proto__` is a file name, not a property to look up.
    file = Object.hasOwn(RUNNER_FILES, name) ? RUNNER_FILES[name]! : null;
    if (runnerFiles.size < RUNNER_NAMES_KEPT) runnerFiles.set(last, file);
  }
  return file;
}

/** File names whose answer runnerFileOf remembers (the answer depends on the name alone). */
const RUNNER_NAMES_KEPT = 16_384;
const runnerFiles = new Map<string, RunnerFile | null>();

/** The receipt-gate entries of one side, by a key that says where each is; `unknown` when the
 * side could not be read (`mentions`: its bytes name receipt-gate). */
type Entries = { kind: 'entries'; entries: Map<string, string> } | { kind: 'unknown'; mentions: boolean };

/** A change to one receipt-gate entry of the file. */
export interface RunnerChange {
  /** Where the entry is, e.g. `devDependencies["receipt-gate"]`, or why the file counts. */
  entry: string;
}

/**
 * What the change does to how the project obtains receipt-gate: null when the path is no
 * runner file or its receipt-gate entries are the same on both sides. Blobs are read through
 * the store (a commit's tree or the staged index: `git add` writes the blob).
 */
export async function gateRunnerChange(store: ObjectStore, change: PathChange, deadline?: Deadline): Promise<RunnerChange | null> {
  const file = runnerFileOf(change.path);
  if (file === null) return null;
  if (change.before?.oid === change.after?.oid && change.before?.kind === change.after?.kind) return null;
  const before = await entriesOf(store, file, change.before);
  deadline?.check();
  const after = await entriesOf(store, file, change.after);
  deadline?.check();
  return compare(before, after);
}

function compare(before: Entries, after: Entries): RunnerChange | null {
  if (before.kind === 'unknown' || after.kind === 'unknown') {
    const known = before.kind === 'entries' ? before : after.kind === 'entries' ? after : null;
    const mentions = (before.kind === 'unknown' && before.mentions) || (after.kind === 'unknown' && after.mentions);
    if (mentions || (known !== null && known.entries.size > 0)) {
      return { entry: 'the file cannot be read as its format on one side (not a regular file, too large, unparseable or with YAML anchors), and a side names receipt-gate' };
    }
    return null;
  }
  for (const [key, value] of before.entries) {
    if (!after.entries.has(key)) return { entry: `${key} (removed)` };
    if (after.entries.get(key) !== value) return { entry: key };
  }
  for (const key of after.entries.keys()) {
    if (!before.entries.has(key)) return { entry: `${key} (added)` };
  }
  return null;
}

/** One side's receipt-gate entries (an absent side has none). */
async function entriesOf(store: ObjectStore, file: RunnerFile, side: PathChange['before']): Promise<Entries> {
  if (side === undefined) return { kind: 'entries', entries: new Map() };
  if (side.kind !== 'file' && side.kind !== 'exec') return { kind: 'unknown', mentions: true };
  let text: string;
  try {
    text = Buffer.from(await store.objects.readBlob(side.oid, MAX_BYTES)).toString('utf8');
  } catch {
    return { kind: 'unknown', mentions: true };
  }
  const unknown: Entries = { kind: 'unknown', mentions: text.includes(GATE) };
  switch (file) {
    case 'package.json':
    case 'npm-lock': {
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        return unknown;
      }
      if (!isObject(json)) return unknown;
      return { kind: 'entries', entries: file === 'package.json' ? manifestEntries(json) : npmLockEntries(json) };
    }
    case 'yaml-lock':
      if (hasYamlAlias(text)) return unknown;
      return { kind: 'entries', entries: yamlBlockEntries(text) };
    case 'pre-commit': {
      if (hasYamlAlias(text)) return unknown;
      const entries = preCommitEntries(text);
      return entries === null ? unknown : { kind: 'entries', entries };
    }
  }
}

const DEPENDENCY_FIELDS = ['dependencies', 'devDependencies', 'optionalDependencies', 'peerDependencies'] as const;

/** package.json: the receipt-gate entries of its dependency maps, overrides and resolutions,
 * and the package itself when it is named receipt-gate or has a bin of that name. */
function manifestEntries(pkg: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  dependencyEntries(pkg, '', out);
  for (const field of ['bundleDependencies', 'bundledDependencies']) {
    const list = pkg[field];
    if (Array.isArray(list) && list.includes(GATE)) out.set(field, 'receipt-gate');
  }
  mentioning(pkg.overrides, 'overrides', out);
  mentioning(pkg.resolutions, 'resolutions', out);
  if (isObject(pkg.pnpm)) mentioning(pkg.pnpm.overrides, 'pnpm.overrides', out);
  binEntries(pkg, '', out);
  return out;
}

/** package-lock.json and npm-shrinkwrap.json (lockfileVersion 1 to 3). */
function npmLockEntries(lock: Record<string, unknown>): Map<string, string> {
  const out = new Map<string, string>();
  if (isObject(lock.packages)) {
    for (const [key, value] of Object.entries(lock.packages)) {
      const at = `packages[${JSON.stringify(key)}]`;
      const installedName = key.slice(key.lastIndexOf('node_modules/') + (key.includes('node_modules/') ? 'node_modules/'.length : key.length));
      if (installedName === GATE) {
        out.set(at, canonical(value));
        continue;
      }
      if (!isObject(value)) continue;
      dependencyEntries(value, `${at}.`, out);
      binEntries(value, `${at}.`, out);
    }
  }
  const v1 = (deps: unknown, at: string): void => {
    if (!isObject(deps)) return;
    for (const [name, value] of Object.entries(deps)) {
      const here = `${at}[${JSON.stringify(name)}]`;
      if (name === GATE) out.set(here, canonical(value));
      else if (isObject(value)) {
        if (isObject(value.requires) && GATE in value.requires) out.set(`${here}.requires`, canonical(value.requires[GATE]));
        v1(value.dependencies, `${here}.dependencies`);
      }
    }
  };
  v1(lock.dependencies, 'dependencies');
  return out;
}

function dependencyEntries(pkg: Record<string, unknown>, at: string, out: Map<string, string>): void {
  for (const field of DEPENDENCY_FIELDS) {
    const deps = pkg[field];
    if (isObject(deps) && Object.prototype.hasOwnProperty.call(deps, GATE)) out.set(`${at}${field}["receipt-gate"]`, canonical(deps[GATE]));
  }
}

/** A package named receipt-gate (its bin is then receipt-gate), or with a bin of that name. */
function binEntries(pkg: Record<string, unknown>, at: string, out: Map<string, string>): void {
  if (pkg.name === GATE) out.set(`${at}name`, canonical({ name: pkg.name, bin: pkg.bin }));
  if (isObject(pkg.bin) && Object.prototype.hasOwnProperty.call(pkg.bin, GATE)) out.set(`${at}bin["receipt-gate"]`, canonical(pkg.bin[GATE]));
}

/** Every key path of an overrides-like object that names receipt-gate (`receipt-gate@1`,
 * `foo>receipt-gate`, `**\/receipt-gate`), with what it holds. */
function mentioning(value: unknown, at: string, out: Map<string, string>): void {
  if (!isObject(value)) return;
  for (const [key, inner] of Object.entries(value)) {
    const here = `${at}[${JSON.stringify(key)}]`;
    if (key.includes(GATE)) out.set(here, canonical(inner));
    else mentioning(inner, here, out);
  }
}

/**
 * pnpm-lock.yaml and yarn.lock (v1 and berry), read as indented blocks: every line that
 * mentions receipt-gate, with everything indented below it, keyed by the keys above it. A
 * dependency that does not mention receipt-gate has no such line.
 */
function yamlBlockEntries(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n/);
  const stack: { indent: number; key: string }[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const trimmed = line.trim();
    if (trimmed === '' || trimmed.startsWith('#')) continue;
    const indent = line.length - line.trimStart().length;
    while (stack.length > 0 && stack[stack.length - 1]!.indent >= indent) stack.pop();
    if (!trimmed.includes(GATE)) {
      stack.push({ indent, key: trimmed });
      continue;
    }
    const block = [trimmed];
    while (i + 1 < lines.length) {
      const next = lines[i + 1]!;
      const nextTrimmed = next.trim();
      if (nextTrimmed !== '' && next.length - next.trimStart().length <= indent) break;
      i++;
      if (nextTrimmed !== '' && !nextTrimmed.startsWith('#')) block.push(next.trimEnd());
    }
    const key = [...stack.map((s) => s.key), trimmed].join(' > ');
    out.set(out.has(key) ? `${key} #${i}` : key, block.join('\n'));
  }
  return out;
}

/**
 * .pre-commit-config.yaml: every item of the block list `repos:` that mentions receipt-gate
 * (its repo, rev, hook ids and entries), keyed by its place among such items. Null when
 * receipt-gate is mentioned outside such an item (a flow list, another key): unknown.
 */
function preCommitEntries(text: string): Map<string, string> | null {
  const out = new Map<string, string>();
  const lines = text.split(/\r?\n/).filter((l) => l.trim() !== '' && !l.trim().startsWith('#'));
  let i = lines.findIndex((l) => /^repos\s*:\s*(#.*)?$/.test(l));
  const outside = (from: number, to: number) => lines.slice(from, to).some((l) => l.includes(GATE));
  if (i < 0) return outside(0, lines.length) ? null : out;
  if (outside(0, i)) return null;
  i++;
  const itemIndent = i < lines.length && /^\s*- /.test(lines[i]!) ? lines[i]!.length - lines[i]!.trimStart().length : -1;
  let item: string[] = [];
  let n = 0;
  const flush = () => {
    if (item.some((l) => l.includes(GATE))) out.set(`repos item ${n++}`, item.join('\n'));
    item = [];
  };
  for (; i < lines.length && itemIndent >= 0; i++) {
    const line = lines[i]!;
    const indent = line.length - line.trimStart().length;
    if (indent < itemIndent || (indent === itemIndent && !line.trimStart().startsWith('- '))) break;
    if (indent === itemIndent) flush();
    item.push(line.trimEnd());
  }
  flush();
  return outside(i, lines.length) ? null : out;
}

/** A YAML alias (`*name`) or merge key: a value that may live away from the block it is used in. */
function hasYamlAlias(text: string): boolean {
  return /(^|[\s[{,])\*[A-Za-z0-9_.-]/m.test(text) || /(^|\s)<<\s*:/m.test(text);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** JSON with sorted keys: the same entry written in another key order is the same. */
function canonical(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    isObject(v) ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, v[k]])) : v,
  ) ?? 'undefined';
}
