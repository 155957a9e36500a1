// Reading evidence files out of an EvidenceSource, the same way for every rule: the size is
// checked before a byte is read, a symlink, directory or submodule where a file should be is the
// file's own *_INVALID finding, and JSON is parsed as Python's json.loads parses it.

import type { Deadline } from '../deadline';
import { finding, type Finding, type FindingCode } from '../findings';
import { parsePyJson, PyJsonError, type PyValue } from './pyjson';
import { validateAgainst, type SchemaFile } from './schema';
import { MAX_BLOB_BYTES, type EvidenceSource, type Policy } from './types';

export const SHA256_RE = /^[0-9a-f]{64}$/;

/** "an owner (alice, release-bot)", for fixes that only an owner may apply. */
export function anOwner(policy: Policy): string {
  if (policy.owners.length === 0) return 'an owner (the policy lists none yet: add one to "owners" first)';
  return `an owner (${policy.owners.join(', ')})`;
}

/** How a rule reports problems with one kind of file. */
export interface FileRole {
  /** Finding code for a file that is not a valid instance of its format. */
  code: FindingCode;
  /** What the file is, for messages: "epoch pin", "observation record". */
  what: string;
  /** How an invalid one is described: "not a valid epoch pin", "not a fixture record". */
  notA: string;
  /** Fix for an invalid file. */
  fix: string;
}

export type JsonRead =
  | { kind: 'ok'; value: PyValue; bytes: Uint8Array }
  | { kind: 'missing' }
  /** `bytes` is there when the file was read but is not JSON. */
  | { kind: 'failed'; findings: Finding[]; bytes?: Uint8Array };

/** Reads and parses one JSON evidence file, refusing it over `maxBytes` before reading it. */
export async function readJsonEvidence(
  source: EvidenceSource,
  path: string,
  role: FileRole,
  maxBytes: number,
  deadline: Deadline,
): Promise<JsonRead> {
  const bytes = await readFileBytes(source, path, role, maxBytes, deadline);
  if (bytes.kind !== 'ok') return bytes;
  try {
    return { kind: 'ok', value: parseEvidenceJson(bytes.bytes, deadline), bytes: bytes.bytes };
  } catch (err) {
    if (!(err instanceof PyJsonError)) throw err;
    const reason = err.message.replace(/: line \d+ column \d+ \(char \d+\)$/, '');
    return {
      kind: 'failed',
      findings: [
        invalid(role, path, `JSON syntax error at line ${err.line}, column ${err.column}: ${reason}`),
      ],
      bytes: bytes.bytes,
    };
  }
}

/** The one place evidence JSON is parsed, as Python's json.loads parses it, within the run's
 * deadline. */
export function parseEvidenceJson(bytes: Uint8Array, deadline: Deadline): PyValue {
  return parsePyJson(bytes, { deadline });
}

export type BytesRead =
  | { kind: 'ok'; bytes: Uint8Array }
  | { kind: 'missing' }
  | { kind: 'failed'; findings: Finding[] };

/** Reads one regular file's bytes, refusing it over `maxBytes` before reading it. */
/** Reads larger than this are weighed against the time left (below, everything is cheap). */
const LARGE_READ_BYTES = 4 * 1024 * 1024;
/** A conservative speed for reading a packed or loose blob on a busy machine: 50 MB/s. */
const SLOWEST_READ_BYTES_PER_MS = 50_000;

export async function readFileBytes(
  source: EvidenceSource,
  path: string,
  role: FileRole,
  maxBytes: number,
  deadline: Deadline,
): Promise<BytesRead> {
  deadline.check();
  const entry = await source.stat(path);
  if (entry.kind === 'missing') return { kind: 'missing' };
  if (entry.kind === 'other') {
    return { kind: 'failed', findings: [invalid(role, path, `expected a regular file, found a ${entry.what}`)] };
  }
  if (entry.size > maxBytes) {
    return {
      kind: 'failed',
      findings: [
        finding('LIMIT_EXCEEDED', {
          path,
          message: `${path} (${role.what}) is ${entry.size} bytes, over the limit of ${maxBytes} bytes, so it was not read.`,
          fix:
            maxBytes >= MAX_BLOB_BYTES
              ? `keep ${path} under ${maxBytes} bytes (64 MiB, the cap for generator and witness blobs)`
              : `make ${path} smaller than ${maxBytes} bytes, or an owner raises limits.maxEvidenceBytes in the policy`,
        }),
      ],
    };
  }
  deadline.check();
  // One read of a large blob (inflate and SHA-1, up to 64 MiB) runs to its end without a
  // clock check: when it could not finish before the deadline, stop now, so the verdict is
  // not one whole read late.
  if (entry.size > LARGE_READ_BYTES && deadline.remaining() < (entry.size / SLOWEST_READ_BYTES_PER_MS)) throw deadline.exceeded();
  const bytes = await entry.read();
  if (bytes.length > maxBytes) {
    // The entry's size was wrong; do not trust what was read.
    return {
      kind: 'failed',
      findings: [
        finding('LIMIT_EXCEEDED', {
          path,
          message: `${path} (${role.what}) read as ${bytes.length} bytes, over the limit of ${maxBytes} bytes.`,
          fix: `make ${path} smaller than ${maxBytes} bytes`,
        }),
      ],
    };
  }
  return { kind: 'ok', bytes };
}

/** A member of a parsed JSON object (the last one of a duplicated key, as Python keeps it). */
export function member(v: PyValue, key: string): PyValue | undefined {
  return v.t === 'dict' ? v.v.get(key) : undefined;
}

/** One finding per schema problem, each naming the file, the JSON pointer and what was expected. */
export function schemaFindings(role: FileRole, path: string, schema: SchemaFile, plain: unknown, deadline: Deadline): Finding[] {
  return schemaCheck(role, path, schema, plain, deadline).findings;
}

/** schemaFindings, plus the JSON pointer of each problem (parallel arrays). */
export function schemaCheck(
  role: FileRole,
  path: string,
  schema: SchemaFile,
  plain: unknown,
  deadline: Deadline,
): { findings: Finding[]; pointers: string[] } {
  deadline.check();
  const problems = validateAgainst(schema, plain);
  deadline.check();
  return {
    findings: problems.map((p) =>
      invalid(role, path, `at ${p.pointer === '' ? '/ (the whole document)' : p.pointer}: ${p.message}`),
    ),
    pointers: problems.map((p) => p.pointer),
  };
}

/** The file's invalid-format finding: "<path> is not a valid <what>: <detail>." */
export function invalid(role: FileRole, path: string, detail: string): Finding {
  return finding(role.code, { path, message: `${path} is ${role.notA}: ${detail}.`, fix: role.fix });
}
