// The few evidence facts the grader and the verifier read straight from a commit's tree: the
// freeze file (its digest, frozen ids, expired rows), the manifest's seed, and the fixture
// records. The rules over these files live in src/evidence/; this module only reads what the
// receipt records, and never trusts a working tree.

import { createHash } from 'node:crypto';
import type { ObjectStore } from '../git/store';
import type { Policy } from '../evidence/types';
import { parsePyJson, dumpsCanonical, type PyValue } from '../evidence/pyjson';
import { matcher } from '../paths';

export function sha256Hex(bytes: Uint8Array | string): string {
  return createHash('sha256').update(bytes).digest('hex');
}

const HEX64 = /^[0-9a-f]{64}$/;

/** Bytes of a regular file at `path` in `tree`, null when absent; throws when it is not a
 * regular file or is over `maxBytes`. */
export async function readFileAt(store: ObjectStore, tree: string, path: string, maxBytes: number): Promise<Uint8Array | null> {
  const entry = await store.entryAt(tree, path);
  if (!entry) return null;
  if (entry.kind !== 'file' && entry.kind !== 'exec') {
    throw new Error(`${path} is a ${entry.kind}, expected a regular file`);
  }
  return store.readBlob(entry.oid, maxBytes);
}

export interface FreezeState {
  digest: string | null;
  /** Ids of rows that are well-formed and not expired (SPEC: expires >= today). */
  frozen: string[];
  expired: { id: string; expires: string }[];
}

/** What the freeze file at `tree` freezes today. A malformed file freezes nothing (the
 * evidence rules report it as FREEZE_INVALID and close the verdict). */
export async function freezeStateAt(store: ObjectStore, tree: string, policy: Policy, today: string): Promise<FreezeState> {
  const state: FreezeState = { digest: null, frozen: [], expired: [] };
  if (!policy.freeze) return state;
  let bytes: Uint8Array | null;
  try {
    bytes = await readFileAt(store, tree, policy.freeze.path, policy.limits.maxEvidenceBytes);
  } catch {
    return state;
  }
  if (bytes === null) return state;
  state.digest = sha256Hex(bytes);
  let doc: PyValue;
  try {
    doc = parsePyJson(bytes);
  } catch {
    return state;
  }
  const rows = member(doc, 'frozen');
  if (!rows || rows.t !== 'list') return state;
  for (const row of rows.v) {
    const id = member(row, 'id');
    const expires = member(row, 'expires');
    if (id?.t !== 'str' || expires?.t !== 'str' || !/^\d{4}-\d{2}-\d{2}$/.test(expires.v)) continue;
    if (expires.v < today) state.expired.push({ id: id.v, expires: expires.v });
    else state.frozen.push(id.v);
  }
  state.frozen = [...new Set(state.frozen)].sort();
  return state;
}

/** The manifest's seed at `tree`, as decimal text (exact for any size), or null. */
export async function manifestSeedAt(store: ObjectStore, tree: string, policy: Policy): Promise<string | null> {
  if (!policy.manifest) return null;
  try {
    const bytes = await readFileAt(store, tree, policy.manifest.path, policy.limits.maxEvidenceBytes);
    if (bytes === null) return null;
    const seed = member(parsePyJson(bytes), 'seed');
    return seed?.t === 'int' ? seed.v.toString() : null;
  } catch {
    return null;
  }
}

export interface FixtureRecord {
  path: string;
  id: string | null;
  /** The recorded digest when it is a real one (64 lowercase hex), else null. */
  sha256: string | null;
  /** The record's `input`, as canonical JSON (Python's json.dumps with sort_keys and compact
   * separators): the bytes the fixture command reads on stdin. Null when the record is not
   * readable. */
  stdin: string | null;
  problem: string | null;
}

/** Every fixture record the policy names at `tree` (the pin excluded), sorted by path. */
export async function fixtureRecordsAt(store: ObjectStore, tree: string, policy: Policy): Promise<FixtureRecord[]> {
  if (!policy.fixtures) return [];
  const isRecord = matcher([policy.fixtures.records]);
  const isPin = policy.epoch ? matcher([policy.epoch.pin]) : () => false;
  const files = await store.listFiles(tree, '');
  const out: FixtureRecord[] = [];
  for (const { path, entry } of files) {
    if (!isRecord(path) || isPin(path)) continue;
    const record: FixtureRecord = { path, id: null, sha256: null, stdin: null, problem: null };
    out.push(record);
    if (entry.kind !== 'file' && entry.kind !== 'exec') {
      record.problem = `expected a regular file, found a ${entry.kind}`;
      continue;
    }
    try {
      const doc = parsePyJson(await store.readBlob(entry.oid, policy.limits.maxEvidenceBytes));
      const id = member(doc, 'id');
      const sha = member(doc, 'sha256');
      const input = member(doc, 'input');
      record.id = id?.t === 'str' ? id.v : null;
      record.sha256 = sha?.t === 'str' && HEX64.test(sha.v) ? sha.v : null;
      if (input === undefined) record.problem = 'the record has no "input"';
      else record.stdin = dumpsCanonical(input);
      if (record.sha256 === null && record.problem === null) {
        record.problem = 'the record\'s "sha256" is not a real digest (64 lowercase hex)';
      }
    } catch (err) {
      record.problem = `not a readable fixture record: ${(err as Error).message}`;
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}

function member(value: PyValue, key: string): PyValue | undefined {
  return value.t === 'dict' ? value.v.get(key) : undefined;
}
