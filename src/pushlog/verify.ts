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
//   an owner's acknowledgement entry (`receipt-gate log acknowledge`) ─► the findings it names
//     on a ref since the last anchor are shown as info (who, when, why); the ref's value it
//     accepts is the new anchor; anything it does not name, and every later move, is judged
//     as usual
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
import { checkEntry, verdictAllows, type AcknowledgedFinding, type AcknowledgedRef, type LoggedUpdate, type LogPredicate } from './entry';

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
  /** The log's first entry (null when the chain could not be read). */
  genesis?: string | null;
  /** The closing LOG_GAP / LOG_UNGATED findings on refs, as an acknowledgement names them. */
  open?: (AcknowledgedFinding & { ref: string })[];
  /** The acknowledgement entries of the log, oldest first. */
  acknowledgements?: ShownAcknowledgement[];
}

/** An acknowledgement entry as verify-log shows it. */
export interface ShownAcknowledgement {
  seq: number;
  commit: string;
  identity: string;
  account: string | null;
  time: string;
  reason: string;
  refs: AcknowledgedRef[];
}

/** A closing finding on a ref that an acknowledgement may still cover, with its name. */
interface OpenFinding {
  finding: Finding;
  key: AcknowledgedFinding;
}

export async function verifyLog(input: VerifyLogInput): Promise<VerifyLogResult> {
  const { store, logRef } = input;
  let tip: string | null;
  try {
    tip = store.refs.resolve(logRef);
  } catch (err) {
    // The log ref's file holds no oid (a write cut short: a full disk, a crash): nothing below
    // it can be trusted until it names an entry the key signed again.
    const f = finding('LOG_SIGNATURE', {
      ref: logRef,
      message: `the push log's ref ${logRef} cannot be read: ${(err as Error).message.replace(/;? ?repair it with `git update-ref`\.?$/, '')}`,
      fix: `on the server, point ${logRef} at the newest entry the key signed again (a mirror's copy of the log, or the newest of its commits that verifies), then acknowledge what moved meanwhile (docs/push-log.md, Recovery)`,
    });
    return { findings: [f], entries: 0, tip: null, refs: [] };
  }
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
  for (const e of chain) {
    for (const u of e.predicate.updates) named.add(u.ref);
    for (const a of e.predicate.acknowledgement?.refs ?? []) named.add(a.ref);
  }
  const checked = new Set(await input.refs(named));
  const acknowledgements: ShownAcknowledgement[] = [];
  const { state, open } = replay(chain, checked, findings, acknowledgements);
  // 5. Each checked ref's tip is where the log leaves it.
  const refs = await checkTips(input, genesis, state, checked, open);
  const still = [...open.entries()].flatMap(([ref, list]) => list.map((o) => ({ ref, ...o.key })));
  for (const list of open.values()) for (const o of list) findings.push(o.finding);
  return { findings, entries: chain.length, tip, refs, genesis: genesis.commit, open: still, acknowledgements };
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
 * the ref stood (LOG_GAP) and be allowed by its verdict (LOG_UNGATED). An acknowledgement turns
 * the open findings it names on a ref into info (`findings`) and re-anchors the ref. Returns
 * each ref's state after the last entry and the findings still open, per ref. */
function replay(
  chain: VerifiedEntry[],
  checked: ReadonlySet<string>,
  findings: Finding[],
  acknowledgements: ShownAcknowledgement[],
): { state: Map<string, RefState>; open: Map<string, OpenFinding[]> } {
  const genesis = chain[0]!;
  const state = new Map<string, RefState>();
  const open = new Map<string, OpenFinding[]>();
  const add = (ref: string, o: OpenFinding) => {
    const list = open.get(ref);
    if (list) list.push(o);
    else open.set(ref, [o]);
  };
  for (const [ref, oid] of Object.entries(genesis.predicate.refs ?? {})) state.set(ref, { oid, seq: 0, commit: genesis.commit });
  for (let i = 1; i < chain.length; i++) {
    const { commit, predicate: p } = chain[i]!;
    if (p.kind === 'acknowledge' && p.acknowledgement) {
      const shown: ShownAcknowledgement = { seq: p.seq, commit, identity: p.identity ?? '', account: p.acknowledgement.account, time: p.time, reason: p.acknowledgement.reason, refs: p.acknowledgement.refs };
      acknowledgements.push(shown);
      for (const a of p.acknowledgement.refs) {
        if (checked.has(a.ref)) {
          const before = state.get(a.ref) ?? { oid: ZERO_OID, seq: 0, commit: genesis.commit };
          const keep = (open.get(a.ref) ?? []).filter((o) => {
            if (!names(a, o.key)) return true;
            findings.push(acknowledged(o.finding, shown));
            return false;
          });
          open.set(a.ref, keep);
          for (const f of anchorFindings(a, before, shown)) {
            if (f.severity === 'info') findings.push(f);
            else add(a.ref, { finding: f, key: { code: f.code, entry: p.seq, commit: f.commit ?? null } });
          }
        }
        state.set(a.ref, { oid: a.accepted, seq: p.seq, commit });
      }
      continue;
    }
    for (const u of p.updates) {
      if (checked.has(u.ref)) {
        const before = state.get(u.ref) ?? { oid: ZERO_OID, seq: 0, commit: genesis.commit };
        if (before.oid !== u.old) {
          const f = gapBetween(u, before, p, commit);
          add(u.ref, { finding: f, key: { code: f.code, entry: p.seq, commit: f.commit ?? null } });
        }
        if (!verdictAllows(u, p.kind)) {
          const f = ungated(u, p, commit);
          add(u.ref, { finding: f, key: { code: f.code, entry: p.seq, commit: f.commit ?? null } });
        }
      }
      state.set(u.ref, { oid: u.new, seq: p.seq, commit });
    }
  }
  return { state, open };
}

/** Whether an acknowledged ref names this finding: code, entry and commit, exactly. */
function names(a: AcknowledgedRef, key: AcknowledgedFinding): boolean {
  return a.findings.some((f) => f.code === key.code && f.entry === key.entry && f.commit === key.commit);
}

/** The acknowledged move of the ref itself: from where the log left it to the value accepted.
 * Info when the acknowledgement starts where the log left the ref and names the move; closed
 * otherwise (an acknowledgement made against another log, or re-anchoring without saying so). */
function anchorFindings(a: AcknowledgedRef, before: RefState, ack: ShownAcknowledgement): Finding[] {
  const out: Finding[] = [];
  const where = `acknowledgement #${ack.seq} (${short(ack.commit)})`;
  if (before.oid !== a.logged) {
    out.push(
      finding('LOG_GAP', {
        ref: a.ref,
        commit: a.logged === ZERO_OID ? before.oid : a.logged,
        message: `${where} accepts ${a.ref} from ${describe(a.logged)}, but the log's last entry for it (#${before.seq}, ${short(before.commit)}) leaves it at ${describe(before.oid)}: the acknowledgement does not follow the log`,
        fix: `run 'receipt-gate log acknowledge' again on the server for ${a.ref}: it names the log as it stands`,
      }),
    );
  }
  if (a.logged === a.accepted) return out;
  const commit = a.accepted === ZERO_OID ? a.logged : a.accepted;
  const move = finding('LOG_GAP', {
    ref: a.ref,
    commit,
    message: `${a.ref} moved from ${describe(a.logged)} to ${describe(a.accepted)} with no entry`,
    fix: `find who moved ${a.ref} outside the gate; restore ${describe(a.logged)} or have an owner acknowledge the move`,
  });
  if (a.findings.some((f) => f.code === 'LOG_GAP' && f.entry === null && f.commit === commit)) out.push(acknowledged(move, ack));
  else out.push({ ...move, message: `${where} moves the log's anchor of ${a.ref} from ${describe(a.logged)} to ${describe(a.accepted)} without naming that move among the findings it accepts` });
  return out;
}

/** A finding an owner acknowledged: shown as info, with who, when and why. */
function acknowledged(f: Finding, ack: ShownAcknowledgement): Finding {
  return {
    ...f,
    severity: 'info',
    message: `${f.message}; acknowledged by ${ack.identity} in entry #${ack.seq} (${short(ack.commit)}, ${ack.time}): ${ack.reason}`,
    fix: 'nothing: an owner accepted this move with a signed acknowledgement (docs/push-log.md, Recovery)',
  };
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
async function checkTips(input: VerifyLogInput, genesis: VerifiedEntry, state: Map<string, RefState>, checked: ReadonlySet<string>, open: Map<string, OpenFinding[]>): Promise<VerifyLogResult['refs']> {
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
    const f = finding('LOG_GAP', {
      ref,
      commit: actual === ZERO_OID ? logged.oid : actual,
      message: `${ref} is at ${describe(actual)}, but the push log's last entry for it (#${logged.seq}, ${short(logged.commit)}) leaves it at ${describe(logged.oid)}: ${how}, with no entry`,
      fix: `find who moved ${ref} outside the gate; restore ${describe(logged.oid)}, or have an owner review it and acknowledge it (receipt-gate log acknowledge, docs/push-log.md: Recovery)`,
    });
    const list = open.get(ref) ?? [];
    list.push({ finding: f, key: { code: 'LOG_GAP', entry: null, commit: f.commit ?? null } });
    open.set(ref, list);
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
