// The policy in a commit's tree: read once, validated against its schema.

import { finding, type Finding } from '../findings';
import { DEFAULT_LIMITS, parsePolicy } from '../evidence/policy';
import { TreeSource } from '../evidence/tree-source';
import { POLICY_PATH, type ContextPolicy, type EvidenceSource, type Policy } from '../evidence/types';
import type { ObjectStore } from '../git/store';

/** A policy file larger than this is refused before it is read (the policy's own limit is
 * not known until it has been read): the default limit for evidence files. */
const POLICY_MAX_BYTES = DEFAULT_LIMITS.maxEvidenceBytes;

export interface PolicyRead {
  policy: Policy | null;
  /** POLICY_INVALID / LIMIT_EXCEEDED when the file is there but unusable. */
  findings: Finding[];
  /** The policy blob's oid, null when there is no policy file. */
  oid: string | null;
}

/** Reads and validates the policy in `commit`'s tree. No policy file: `policy` is null and
 * there are no findings (the repository is unguarded). */
export async function readPolicyAt(store: ObjectStore, commit: string | null): Promise<PolicyRead> {
  if (commit === null) return { policy: null, findings: [], oid: null };
  const { tree } = await store.commits.read(commit);
  const oid = (await store.trees.entryAt(tree, POLICY_PATH))?.oid ?? null;
  const read = await readPolicyFrom(new TreeSource(store, tree, `commit ${commit.slice(0, 7)}`), oid, commit);
  if (read.policy?.contexts) {
    const missing = await missingRoots(store, commit, tree, read.policy.contexts);
    if (missing.length > 0) return { policy: null, findings: missing, oid };
  }
  return read;
}

/** POLICY_INVALID for each context whose root is not a folder of `tree` (a root that is not
 * there guards nothing). */
export async function missingRoots(store: ObjectStore, commit: string, tree: string, contexts: readonly ContextPolicy[]): Promise<Finding[]> {
  const missing: Finding[] = [];
  for (const [i, context] of contexts.entries()) {
    const at = await store.trees.entryAt(tree, context.root);
    if (at?.kind === 'tree') continue;
    const found = at === null ? 'nothing is there' : `it is a ${at.kind === 'gitlink' ? 'submodule' : at.kind === 'exec' ? 'file' : at.kind}`;
    missing.push(
      finding('POLICY_INVALID', {
        commit,
        path: POLICY_PATH,
        message: `${POLICY_PATH} is not a valid policy: at /contexts/${i}/root: the root ${context.root} of context "${context.name}" must be a folder of commit ${commit.slice(0, 7)}, but ${found}.`,
        fix: `an owner commits a valid ${POLICY_PATH} (schemas/policy.schema.json) to the base branch`,
      }),
    );
  }
  return missing;
}

/** Reads and validates the policy a source holds (a commit's tree, the staged index); `oid` is
 * its blob's, `commit` the commit findings name (none for the index). */
export async function readPolicyFrom(source: EvidenceSource, oid: string | null, commit?: string): Promise<PolicyRead> {
  const entry = await source.stat(POLICY_PATH);
  if (entry.kind === 'missing') return { policy: null, findings: [], oid: null };
  const at = commit === undefined ? {} : { commit };
  const invalid = (message: string): Finding =>
    finding('POLICY_INVALID', {
      ...at,
      path: POLICY_PATH,
      message,
      fix: `an owner commits a valid ${POLICY_PATH} (schemas/policy.schema.json) to the base branch`,
    });
  if (entry.kind === 'other') {
    return { policy: null, findings: [invalid(`expected a regular file, found a ${entry.what}`)], oid };
  }
  if (entry.size > POLICY_MAX_BYTES) {
    return {
      policy: null,
      oid,
      findings: [
        finding('LIMIT_EXCEEDED', {
          ...at,
          path: POLICY_PATH,
          message: `the policy is ${entry.size} bytes, over the ${POLICY_MAX_BYTES}-byte limit for evidence files`,
          fix: `an owner replaces ${POLICY_PATH} with a policy under ${POLICY_MAX_BYTES} bytes`,
        }),
      ],
    };
  }
  let parsed = oid === null ? undefined : parsedPolicies.get(oid);
  if (parsed === undefined) {
    parsed = parsePolicy(await entry.read(), POLICY_PATH);
    if (oid !== null) {
      if (parsedPolicies.size >= PARSED_POLICIES_KEPT) parsedPolicies.clear();
      parsedPolicies.set(oid, parsed);
    }
  }
  if (parsed.ok) return { policy: parsed.policy, findings: [], oid };
  return { policy: null, findings: parsed.findings.map((f) => ({ ...f, ...at })), oid };
}

/** Parsed policies by blob oid: finding a base looks at several refs that usually hold the same
 * policy blob, and the bytes an oid names never change, so each blob is parsed once. */
const parsedPolicies = new Map<string, ReturnType<typeof parsePolicy>>();
const PARSED_POLICIES_KEPT = 16;
