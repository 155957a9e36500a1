// verify-log: with the server's public key, prove that every move of each checked ref since
// the log began is an entry of the log, in order, that the gate allowed it, and that the ref's
// tip is the last entry's `new`.
//
//   the log chain, read once, tip to genesis ─► the tip's signature; each entry's shape, seq,
//     prev digest, one parent (LOG_SIGNATURE / LOG_FORKED)
//   replayed oldest first from the genesis refs ─► each update's old is the ref's state so far
//     (LOG_GAP), and its verdict allowed it (LOG_UNGATED)
//   each checked ref's tip ─► the replayed state (LOG_GAP: moved forward, rewound or diverged,
//     told by one ancestry question per ref)
//   a checkpoint (the last verified log tip and seq) ─► the log extends it (LOG_FORKED)
//
// Nothing the log says is used before a signature vouches for it. The tip's signature covers
// its payload, which names the previous payload's SHA-256 (`prev`), and so on down to the
// genesis: one verified signature proves every entry below it, as long as the server never
// signs on top of an entry it did not verify (append.ts checks the tip before every append).
// `everySignature` verifies each entry's own signature too (an entry whose signature alone was
// damaged is then reported). A bad entry stops the replay: what rests on it is not trusted.

import type { KeyObject } from 'node:crypto';
import { Deadline } from '../deadline';
import { finding, type Finding } from '../findings';
import type { ObjectStore } from '../git/store';
import type { History } from '../git/history/history';
import { isAncestor } from '../git/history/merge-base';
import { short } from '../wording';
import { ZERO_OID } from '../types';
import { entryTextOf, readLooseCommit } from './append';
import { checkEntry, verdictAllows, type LoggedUpdate, type LogPredicate } from './entry';

export interface VerifiedEntry {
  commit: string;
  predicate: LogPredicate;
}

export interface LogCheckpoint {
  commit: string;
  seq: number;
}

export interface VerifyLogInput {
  store: ObjectStore;
  /** The store's History, for the ancestry of a ref that moved without an entry. */
  history: History;
  /** The server's public keys: the current one and any it replaced. */
  publicKeys: readonly KeyObject[];
  /** The log ref in this repository (refs/receipt-gate/log, or where a clone fetched it). */
  logRef: string;
  /** The refs whose moves must all be in the log (server names, e.g. refs/heads/main). */
  refs: (names: Iterable<string>) => Promise<string[]>;
  /** Where each server ref is read here (refs/remotes/origin/main in a clone); identity by default. */
  localName?: (ref: string) => string;
  checkpoint?: LogCheckpoint | null;
  /** Verify each entry's signature, not only the tip's (slower: one ed25519 check per entry). */
  everySignature?: boolean;
}

export interface VerifyLogResult {
  findings: Finding[];
  entries: number;
  tip: string | null;
  /** Each checked ref and the state the log leaves it in (ZERO_OID: absent). */
  refs: { ref: string; logged: string; actual: string }[];
}

export async function verifyLog(input: VerifyLogInput): Promise<VerifyLogResult> {
  const { store, logRef } = input;
  const tip = store.refs.resolve(logRef);
  if (tip === null) return { findings: [noLogFinding(logRef)], entries: 0, tip: null, refs: [] };
  // 1. The chain, tip to genesis: one commit read per entry.
  const read = await readChain(input, tip);
  if ('findings' in read) return { findings: read.findings, entries: read.entries, tip, refs: [] };
  const { chain, payloads } = read;
  // 2. Sequence and links: #0 is the genesis, each entry names the one before it.
  const link = linkProblem(chain, payloads, logRef);
  if (link) return { findings: [link], entries: chain.length, tip, refs: [] };
  const findings: Finding[] = [];
  // 3. The checkpoint: the log seen last time is still part of this one.
  const rewound = input.checkpoint ? checkpointProblem(chain, input.checkpoint, logRef, tip) : null;
  if (rewound) findings.push(rewound);
  // 4. Replay: every update starts where the ref stood.
  const genesis = chain[0]!;
  const named = new Set<string>(Object.keys(genesis.predicate.refs ?? {}));
  for (const e of chain) for (const u of e.predicate.updates) named.add(u.ref);
  const checked = new Set(await input.refs(named));
  const state = replay(chain, checked, findings);
  // 5. Each checked ref's tip is where the log leaves it.
  const refs = await checkTips(input, genesis, state, checked, findings);
  return { findings, entries: chain.length, tip, refs };
}

function noLogFinding(logRef: string): Finding {
  return finding('LOG_GAP', {
    ref: logRef,
    message: `there is no push log at ${logRef}: nothing proves how any ref got where it is`,
    fix: `fetch the log (git fetch origin ${logRef}:${logRef}), or have the server administrator install it (install.sh --server --log-key KEY)`,
  });
}

type ChainRead = { chain: VerifiedEntry[]; payloads: string[] } | { findings: Finding[]; entries: number };

/** The log's entries, oldest first, with their payloads' digests; the first entry that cannot
 * be read or checked (or a merge) ends the reading with its finding. */
async function readChain(input: VerifyLogInput, tip: string): Promise<ChainRead> {
  const { store, publicKeys, logRef } = input;
  const chain: VerifiedEntry[] = [];
  const payloads: string[] = [];
  const objects = store.objects.ownDirectory;
  // (Newest first: the entries since the last `git gc` are loose, the older ones packed. After
  // the first that is not loose, the store reads the rest.)
  let loose = true;
  for (let at: string | null = tip; at !== null; ) {
    const commitOid: string = at;
    let bytes: Uint8Array;
    let parents: string[];
    try {
      // The log's own commits are usually loose (the writers write them so): read directly,
      // checked against the oid; packed ones (and anything unusual) through the store.
      const direct: Buffer | null = loose ? readLooseCommit(objects, commitOid) : null;
      loose = direct !== null;
      bytes = direct ?? (await store.commits.bytes(commitOid));
      parents = parentsOf(bytes);
    } catch (err) {
      const f = logFinding('LOG_SIGNATURE', logRef, commitOid, `the log commit ${short(commitOid)} cannot be read (${(err as Error).message})`, 'fetch the whole log (a shallow or partial clone lacks it)');
      return { findings: [f], entries: chain.length };
    }
    const text = entryTextOf(bytes);
    const signature = commitOid === tip || input.everySignature === true;
    const checked = text === null ? ({ ok: false, reason: 'its message holds no entry' } as const) : checkEntry(text, publicKeys, { signature });
    if (!checked.ok) {
      // Entries above a bad one are signed but rest on it: none of them is trusted.
      const f = logFinding('LOG_SIGNATURE', logRef, commitOid, `the log commit ${short(commitOid)} is not a valid signed entry: ${checked.reason}`, 'never trust it: the log was written by something other than this server\'s key (docs/push-log.md)');
      return { findings: [f], entries: 0 };
    }
    if (parents.length > 1) {
      const f = logFinding('LOG_FORKED', logRef, commitOid, `the log commit ${short(commitOid)} (#${checked.predicate.seq}) has ${parents.length} parents: the log is one chain, never a merge`, 'compare with a mirror that fetched the log earlier');
      return { findings: [f], entries: chain.length };
    }
    chain.push({ commit: commitOid, predicate: checked.predicate });
    payloads.push(checked.payloadSha256);
    at = parents[0] ?? null;
  }
  chain.reverse();
  payloads.reverse();
  return { chain, payloads };
}

/** The first entry out of place: not #i at position i, naming another previous payload, a
 * genesis that is not first or a first that is not a genesis. */
function linkProblem(chain: VerifiedEntry[], payloads: string[], logRef: string): Finding | null {
  for (let i = 0; i < chain.length; i++) {
    const { predicate: p, commit } = chain[i]!;
    const expectedPrev = i === 0 ? null : payloads[i - 1]!;
    const problem =
      p.seq !== i ? `is #${p.seq} at position ${i} of the chain`
      : p.prev !== expectedPrev ? `names ${p.prev === null ? 'no previous entry' : `previous entry ${p.prev.slice(0, 12)}`} where the chain has ${expectedPrev === null ? 'none' : expectedPrev.slice(0, 12)}`
      : (i === 0) !== (p.kind === 'genesis') ? (i === 0 ? 'starts the log but is not a genesis entry' : 'is a second genesis entry')
      : null;
    if (problem) {
      return logFinding('LOG_FORKED', logRef, commit, `the log entry ${short(commit)} ${problem}: entries were dropped, reordered or spliced from another log`, 'compare with a mirror that fetched the log earlier; restore the log the server signed');
    }
  }
  return null;
}

function checkpointProblem(chain: VerifiedEntry[], cp: LogCheckpoint, logRef: string, tip: string): Finding | null {
  const there = chain[cp.seq];
  if (there && there.commit === cp.commit) return null;
  return logFinding(
    'LOG_FORKED',
    logRef,
    tip,
    there ? `the log no longer holds entry #${cp.seq} ${short(cp.commit)} verified earlier (it has ${short(there.commit)} there): the log was rewritten` : `the log has ${chain.length} entries but entry #${cp.seq} ${short(cp.commit)} was verified earlier: the log was rewound (a restored backup?)`,
    'find what rewrote refs/receipt-gate/log on the server; a log only grows',
  );
}

interface RefState {
  oid: string;
  seq: number;
  commit: string;
}

/** Replays the entries from the genesis refs: each update of a checked ref must start where
 * the ref stood (LOG_GAP) and be allowed by its verdict (LOG_UNGATED). Returns each ref's state
 * after the last entry. */
function replay(chain: VerifiedEntry[], checked: ReadonlySet<string>, findings: Finding[]): Map<string, RefState> {
  const genesis = chain[0]!;
  const state = new Map<string, RefState>();
  for (const [ref, oid] of Object.entries(genesis.predicate.refs ?? {})) state.set(ref, { oid, seq: 0, commit: genesis.commit });
  for (let i = 1; i < chain.length; i++) {
    const { commit, predicate: p } = chain[i]!;
    for (const u of p.updates) {
      if (checked.has(u.ref)) {
        const before = state.get(u.ref) ?? { oid: ZERO_OID, seq: 0, commit: genesis.commit };
        if (before.oid !== u.old) findings.push(gapBetween(u, before, p, commit));
        if (!verdictAllows(u, p.kind)) findings.push(ungated(u, p, commit));
      }
      state.set(u.ref, { oid: u.new, seq: p.seq, commit });
    }
  }
  return state;
}

function gapBetween(u: LoggedUpdate, before: RefState, p: LogPredicate, commit: string): Finding {
  return finding('LOG_GAP', {
    ref: u.ref,
    commit: u.old,
    message: `${u.ref} moved from ${describe(before.oid)} (entry #${before.seq}) to ${describe(u.old)} with no entry: entry #${p.seq} (${short(commit)}) starts from ${describe(u.old)}`,
    fix: `find who moved ${u.ref} outside the gate between entries #${before.seq} and #${p.seq} (a direct update-ref, a push without the hook, a restored backup)`,
  });
}

function ungated(u: LoggedUpdate, p: LogPredicate, commit: string): Finding {
  return finding('LOG_UNGATED', {
    ref: u.ref,
    commit: u.new === ZERO_OID ? u.old : u.new,
    message:
      p.kind === 'ungated'
        ? `${u.ref} moved from ${describe(u.old)} to ${describe(u.new)} outside the gate (entry #${p.seq}, ${short(commit)}: git applied it with no gate decision, e.g. a direct update-ref or a push while pre-receive was missing)`
        : `${u.ref} moved from ${describe(u.old)} to ${describe(u.new)} with the gate's verdict '${u.verdict}' (entry #${p.seq}, ${short(commit)}), which does not allow it`,
    fix: `an owner reviews ${describe(u.new)} and pushes ${u.ref} back through the gate`,
  });
}

/** Each checked ref's tip against the state the log leaves it in (LOG_GAP, saying how it
 * moved: one ancestry question when it does not match). */
async function checkTips(input: VerifyLogInput, genesis: VerifiedEntry, state: Map<string, RefState>, checked: ReadonlySet<string>, findings: Finding[]): Promise<VerifyLogResult['refs']> {
  const { store } = input;
  const local = input.localName ?? ((r: string) => r);
  const refs: VerifyLogResult['refs'] = [];
  const deadline = Deadline.never();
  for (const ref of [...checked].sort()) {
    const logged = state.get(ref) ?? { oid: ZERO_OID, seq: 0, commit: genesis.commit };
    const actual = store.refs.resolve(local(ref)) ?? ZERO_OID;
    refs.push({ ref, logged: logged.oid, actual });
    if (actual === logged.oid) continue;
    const how = await movement(input.history, logged.oid, actual, deadline);
    findings.push(
      finding('LOG_GAP', {
        ref,
        commit: actual === ZERO_OID ? logged.oid : actual,
        message: `${ref} is at ${describe(actual)}, but the push log's last entry for it (#${logged.seq}, ${short(logged.commit)}) leaves it at ${describe(logged.oid)}: ${how}, with no entry`,
        fix: `find who moved ${ref} outside the gate; restore ${describe(logged.oid)} or have an owner push the change through the gate`,
      }),
    );
  }
  return refs;
}

async function movement(history: History, logged: string, actual: string, deadline: Deadline): Promise<string> {
  if (actual === ZERO_OID) return 'it was deleted';
  if (logged === ZERO_OID) return 'it was created';
  try {
    if (await isAncestor(history, logged, actual, deadline)) return 'it moved forward past the last entry';
    if (await isAncestor(history, actual, logged, deadline)) return 'it was rewound to an older commit (a restored backup?)';
    return 'it was rewritten to a commit that does not descend from the logged one';
  } catch {
    return 'it moved to a commit this repository cannot relate to the logged one';
  }
}

/** The `parent` lines right after the `tree` line that opens a commit (the store checked the
 * object against its oid). */
function parentsOf(commit: Uint8Array): string[] {
  const text = Buffer.from(commit.subarray(0, Math.min(commit.length, 4096))).toString('latin1');
  const parents: string[] = [];
  const re = /\nparent ([0-9a-f]{40})(?=\n)/y;
  re.lastIndex = text.indexOf('\n');
  for (let m = re.exec(text); m; m = re.exec(text)) parents.push(m[1]!);
  return parents;
}

function describe(oid: string): string {
  return oid === ZERO_OID ? '(absent)' : short(oid);
}

function logFinding(code: 'LOG_SIGNATURE' | 'LOG_FORKED', ref: string, commit: string, message: string, fix: string): Finding {
  return finding(code, { ref, commit, message, fix });
}
