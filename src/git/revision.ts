// Revisions as git users type them (gitrevisions(7)), for `REF` and `--base`.
//
// A revision is a name followed by navigation suffixes:
//   name:   a full ref (refs/heads/main), a short name by git's rev-parse rules (main,
//           origin/main, v1.0, origin for refs/remotes/origin/HEAD), HEAD or @, a full oid, a
//           unique abbreviated oid (4 hex digits or more), or `[branch]@{u}` / `@{upstream}`
//           (the branch's upstream from branch.<name>.remote and .merge);
//   suffix: ~N and ~ (first parents), ^N and ^ (N-th parent, ^0 the commit itself),
//           ^{commit} ^{tree} ^{blob} ^{tag} ^{object} ^{} (peel), chained in any order.
// Refs win over abbreviated oids and a full oid wins over a ref, as in git. The answer is
// what `git rev-parse SPEC` prints (an annotated tag stays the tag object), and `ref` what
// `git rev-parse --symbolic-full-name SPEC` prints: the ref a name ends at through symbolic
// refs (HEAD → refs/heads/main), null for an oid or when a suffix navigates.

import type { ObjectStore } from './store';
import { GitReadError, type ObjectType } from './types';

export interface Revision {
  /** The object the revision names (a tag object for a tag name without a suffix). */
  oid: string;
  /** The full ref name when the revision names a ref, else null. */
  ref: string | null;
}

/** What a revision may say, for every message about one that does not resolve. */
export const ACCEPTED_REVISIONS =
  'receipt-gate accepts ref names (refs/heads/main, main, origin/main, v1.0), HEAD or @, full or unique abbreviated object ids (at least 4 hex digits), ' +
  '[branch]@{u} or @{upstream}, and the suffixes ~N, ^N and ^{commit}';

/** A revision that does not resolve: says which, why, and what is accepted. */
export class RevisionError extends GitReadError {
  constructor(
    readonly spec: string,
    why: string,
  ) {
    super(`'${spec}' does not name an object: ${why}. ${ACCEPTED_REVISIONS}.`);
    this.name = 'RevisionError';
  }
}

type Step = { kind: 'ancestor'; n: number } | { kind: 'parent'; n: number } | { kind: 'peel'; to: ObjectType | 'object' | '' };

/** Which candidates an abbreviated oid may stand for, by what the suffix needs (git's
 * GET_OID_COMMITTISH / GET_OID_TREEISH hints). */
type Hint = 'any' | 'committish' | 'treeish';

/** Resolves `spec` as `git rev-parse` does. Throws RevisionError (a GitReadError) when it does
 * not resolve, naming what is accepted. */
export async function resolveRevision(store: ObjectStore, spec: string): Promise<Revision> {
  const cut = firstSuffix(spec);
  const base = spec.slice(0, cut);
  const steps = parseSteps(spec, spec.slice(cut));
  if (base === '') throw new RevisionError(spec, spec.startsWith('^') ? 'a leading ^ excludes a revision, it names none' : 'no name before the suffix');
  const first = steps[0];
  const hint: Hint = !first ? 'any' : first.kind !== 'peel' ? 'committish' : first.to === 'commit' ? 'committish' : first.to === 'tree' ? 'treeish' : 'any';
  const named = await resolveName(store, spec, base, hint);
  if (steps.length === 0) return named;
  let oid = named.oid;
  for (const step of steps) oid = await applyStep(store, spec, oid, step);
  return { oid, ref: null };
}

/** Index of the first `~` or `^` (where the suffixes start); the whole length when none. */
function firstSuffix(spec: string): number {
  for (let i = 0; i < spec.length; i++) {
    const c = spec[i];
    if (c === '~' || c === '^') return i;
  }
  return spec.length;
}

function parseSteps(spec: string, text: string): Step[] {
  const steps: Step[] = [];
  let at = 0;
  const number = (from: number): { n: number | null; end: number } => {
    let end = from;
    while (end < text.length && text.charCodeAt(end) >= 0x30 && text.charCodeAt(end) <= 0x39) end++;
    if (end === from) return { n: null, end };
    const n = Number(text.slice(from, end));
    if (!Number.isSafeInteger(n)) throw new RevisionError(spec, `${text.slice(from, end)} is too large a number`);
    return { n, end };
  };
  while (at < text.length) {
    const c = text[at];
    if (c === '~') {
      const { n, end } = number(at + 1);
      steps.push({ kind: 'ancestor', n: n ?? 1 });
      at = end;
    } else if (c === '^' && text[at + 1] === '{') {
      const close = text.indexOf('}', at + 2);
      if (close < 0) throw new RevisionError(spec, '^{ is not closed');
      const what = text.slice(at + 2, close);
      if (what !== '' && what !== 'commit' && what !== 'tree' && what !== 'blob' && what !== 'tag' && what !== 'object') {
        throw new RevisionError(spec, `^{${what}} is not supported (only ^{commit}, ^{tree}, ^{blob}, ^{tag}, ^{object} and ^{})`);
      }
      steps.push({ kind: 'peel', to: what });
      at = close + 1;
    } else if (c === '^') {
      const { n, end } = number(at + 1);
      steps.push({ kind: 'parent', n: n ?? 1 });
      at = end;
    } else {
      throw new RevisionError(spec, `unexpected ${JSON.stringify(text.slice(at))} after a suffix`);
    }
  }
  return steps;
}

const UPSTREAM_RE = /^(.*)@\{(u|upstream)\}$/i;

async function resolveName(store: ObjectStore, spec: string, name: string, hint: Hint): Promise<Revision> {
  const upstream = UPSTREAM_RE.exec(name);
  if (upstream) return resolveUpstream(store, spec, upstream[1]!);
  if (name.includes('@{')) throw new RevisionError(spec, `${name.slice(name.indexOf('@{'))} (reflog or other @{...} forms) is not supported`);
  if (name === '@') name = 'HEAD';
  if (/^[0-9a-fA-F]{40}$/.test(name)) {
    const oid = name.toLowerCase();
    if (!store.objects.hasObject(oid)) throw new RevisionError(spec, `the object ${oid} is not in the repository`);
    return { oid, ref: null };
  }
  const full = store.refs.dwim(name);
  if (full !== null) {
    const resolved = store.refs.resolveSymbolic(full);
    if (resolved && resolved.oid !== null) return { oid: resolved.oid, ref: resolved.ref };
  }
  if (/^[0-9a-fA-F]{4,39}$/.test(name)) return { oid: await resolveAbbreviated(store, spec, name.toLowerCase(), hint), ref: null };
  if (name === 'HEAD') throw new RevisionError(spec, 'HEAD names a branch with no commit yet');
  throw new RevisionError(spec, `no ref ${name} exists${/^[0-9a-fA-F]+$/.test(name) ? ' (and an abbreviated object id needs at least 4 hex digits)' : ''}`);
}

/** A unique abbreviated oid; with several candidates, those the suffix can use (git's hints);
 * still several: an error listing each with its type. */
async function resolveAbbreviated(store: ObjectStore, spec: string, prefix: string, hint: Hint): Promise<string> {
  const candidates = await store.objects.findAbbreviated(prefix, 32);
  if (candidates.length === 0) throw new RevisionError(spec, `no object id starts with ${prefix}`);
  if (candidates.length === 1) return candidates[0]!;
  const typed = await Promise.all(
    candidates.map(async (oid) => ({ oid, type: (await store.objects.objectInfo(oid))?.type ?? 'blob', peeled: await peeledType(store, oid) })),
  );
  const usable = typed.filter((c) =>
    hint === 'committish' ? c.peeled === 'commit' : hint === 'treeish' ? c.peeled === 'commit' || c.peeled === 'tree' : true,
  );
  if (usable.length === 1) return usable[0]!.oid;
  throw new RevisionError(spec, `the abbreviated object id ${prefix} is ambiguous: ${typed.map((c) => `${c.oid} (${c.type})`).join(', ')}; give more digits`);
}

async function peeledType(store: ObjectStore, oid: string): Promise<ObjectType | null> {
  try {
    return (await store.commits.peel(oid)).type;
  } catch {
    return null;
  }
}

/** `branch@{u}` (an empty branch or HEAD: the branch HEAD points to), from branch.<name>.remote
 * and branch.<name>.merge mapped through remote.<remote>.fetch, as git does. */
async function resolveUpstream(store: ObjectStore, spec: string, given: string): Promise<Revision> {
  let branch: string;
  if (given === '' || given === 'HEAD' || given === '@') {
    const head = store.refs.headTarget();
    if (!head || !head.startsWith('refs/heads/')) throw new RevisionError(spec, 'HEAD does not point to a branch, so it has no upstream');
    branch = head.slice('refs/heads/'.length);
  } else {
    branch = given.startsWith('refs/heads/') ? given.slice('refs/heads/'.length) : given;
    if (store.refs.resolveSymbolic(`refs/heads/${branch}`) === null) throw new RevisionError(spec, `no branch named ${branch}`);
  }
  const remote = await store.config.value(`branch.${branch}.remote`);
  const merge = await store.config.value(`branch.${branch}.merge`);
  if (remote === null || merge === null) {
    throw new RevisionError(spec, `no upstream is configured for the branch ${branch} (branch.${branch}.remote and branch.${branch}.merge; set one with \`git branch --set-upstream-to\`)`);
  }
  let tracking: string | null = remote === '.' ? merge : null;
  if (tracking === null) {
    for (const refspec of await store.config.values(`remote.${remote}.fetch`)) {
      const mapped = mapRefspec(refspec, merge);
      if (mapped !== null) tracking = mapped;
      if (tracking !== null) break;
    }
  }
  if (tracking === null) throw new RevisionError(spec, `the upstream ${merge} of ${branch} is not fetched into a remote-tracking branch by remote.${remote}.fetch`);
  const resolved = store.refs.resolveSymbolic(tracking);
  if (!resolved || resolved.oid === null) throw new RevisionError(spec, `the upstream of ${branch} is ${tracking}, which does not exist (run \`git fetch ${remote}\`)`);
  return { oid: resolved.oid, ref: resolved.ref };
}

/** Where a fetch refspec (`+refs/heads/*:refs/remotes/origin/*`) stores `ref`, or null. */
export function mapRefspec(refspec: string, ref: string): string | null {
  const spec = refspec.startsWith('+') ? refspec.slice(1) : refspec;
  const colon = spec.indexOf(':');
  if (colon < 0 || spec.startsWith('^')) return null;
  const src = spec.slice(0, colon);
  const dst = spec.slice(colon + 1);
  const star = src.indexOf('*');
  if (star < 0) return src === ref ? dst || null : null;
  const head = src.slice(0, star);
  const tail = src.slice(star + 1);
  if (!ref.startsWith(head) || !ref.endsWith(tail) || ref.length < head.length + tail.length) return null;
  const matched = ref.slice(head.length, ref.length - tail.length);
  return dst.includes('*') ? dst.replace('*', matched) : null;
}

async function applyStep(store: ObjectStore, spec: string, oid: string, step: Step): Promise<string> {
  if (step.kind === 'peel') {
    if (step.to === 'object') return oid;
    const peeled = await store.commits.peel(oid);
    if (step.to === '') return peeled.oid;
    if (step.to === 'tag') {
      const info = await store.objects.objectInfo(oid);
      if (info?.type !== 'tag') throw new RevisionError(spec, `${oid} is a ${info?.type ?? 'missing object'}, not a tag`);
      return oid;
    }
    if (peeled.type === step.to) return peeled.oid;
    if (step.to === 'tree' && peeled.type === 'commit') return (await store.commits.read(peeled.oid)).tree;
    throw new RevisionError(spec, `${oid} is a ${peeled.type}, which has no ${step.to}`);
  }
  const commit = await commitOf(store, spec, oid);
  const shallow = await store.commits.shallow();
  if (step.kind === 'parent') {
    if (step.n === 0) return commit;
    // A shallow clone's boundary commit has no parents for git either.
    const parents = shallow.has(commit) ? [] : (await store.commits.read(commit)).parents;
    const parent = parents[step.n - 1];
    if (parent === undefined) throw new RevisionError(spec, `the commit ${commit} has ${parents.length === 0 ? 'no parent' : `only ${parents.length} parent${parents.length === 1 ? '' : 's'}`}`);
    return parent;
  }
  let current = commit;
  for (let i = 0; i < step.n; i++) {
    const parent = shallow.has(current) ? undefined : (await store.commits.read(current)).parents[0];
    if (parent === undefined) {
      throw new RevisionError(spec, `the history of ${commit} has only ${i} first-parent ancestor${i === 1 ? '' : 's'}${shallow.has(current) ? ' in this shallow clone' : ''}`);
    }
    current = parent;
  }
  return current;
}

async function commitOf(store: ObjectStore, spec: string, oid: string): Promise<string> {
  const peeled = await store.commits.peel(oid);
  if (peeled.type !== 'commit') throw new RevisionError(spec, `${oid} is a ${peeled.type}, not a commit`);
  return peeled.oid;
}
