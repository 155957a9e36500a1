// The reference-transaction side of the push log (git 2.28+ runs the hook for every ref
// transaction, with `<old> <new> <ref>` lines on stdin and the state as its argument):
//
//   prepared   git holds the refs' locks: for lines that name no old value (all zeros: a
//              `git update-ref` without one, or a creation), record what each ref holds now
//   committed  the updates are on disk: append one entry for those the gate decided in this
//              receive-pack's pre-receive (`push`), and one for any it did not (`ungated`).
//              The shim runs this only when its fast path could not append an entry
//              pre-receive signed in advance (prepare.ts, server-hooks/reference-transaction)
//   aborted    nothing was applied: forget the transaction
//
// Updates of refs/receipt-gate/** are never logged (the log's own ref is written around git's
// transactions, so the hook does not see it; an administrator's update of it is not a push).

import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { RepositoryConfig } from '../git/config';
import { ObjectStore, type RawRef } from '../git/store';
import { loadPrivateKey, loadPublicKey } from '../receipt/dsse';
import { isOid, ZERO_OID, type RefUpdate } from '../types';
import { VERSION } from '../version';
import { appendEntries, type AppendResult } from './append';
import { RESERVED_PREFIX, type LoggedUpdate, type LogPredicate } from './entry';
import { audit, logEnabled, takePending, takeTxn, writeTxn } from './server-state';

export function parseTransaction(stdin: string): RefUpdate[] {
  const out: RefUpdate[] = [];
  for (const line of stdin.split('\n')) {
    const m = /^([0-9a-f]{40}) ([0-9a-f]{40}) (\S.*)$/.exec(line.replace(/\r$/, ''));
    if (m && !m[3]!.startsWith(RESERVED_PREFIX)) out.push({ old: m[1]!, new: m[2]!, ref: m[3]! });
  }
  return out;
}

export interface HookContext {
  gitdir: string;
  env: NodeJS.ProcessEnv;
  /** The git process running the transaction (the shim's parent): receive-pack for a push. */
  gitPid: number | null;
  /** The receive-pack whose push this is, when another git process applies it (the proc-receive
   * hook's `git update-ref`): where its pending decisions are. Default: gitPid. */
  pushPid?: number | null;
  now?: () => Date;
}

/** The server's signing key: RECEIPT_GATE_LOG_KEY, else `git config receipt-gate.logKey` (a
 * path outside the repository, docs/push-log.md). */
export async function logKey(
  gitdir: string,
  env: NodeJS.ProcessEnv,
  store?: ObjectStore,
): Promise<{ key: KeyObject; path: string; previous: KeyObject[] } | { error: string }> {
  let path = env.RECEIPT_GATE_LOG_KEY || null;
  let previousPaths: string[] = [];
  // (The config alone, not a whole store, when none is open: pre-receive asks too.)
  const config = store?.config ?? new RepositoryConfig(gitdir);
  const own = await config.values('receipt-gate.logKey');
  path ??= own.length ? own[own.length - 1]! : null;
  // Key rotation: the public keys of the keys this one replaced (the tip may be theirs).
  previousPaths = await config.values('receipt-gate.logPreviousKey');
  const previous: KeyObject[] = [];
  for (const p of previousPaths) {
    const full = resolve(gitdir, p);
    try {
      previous.push(loadPublicKey(readFileSync(full, 'utf8'), full));
    } catch (err) {
      return { error: `receipt-gate.logPreviousKey ${full}: ${(err as Error).message}` };
    }
  }
  if (!path) return { error: 'no signing key is configured (git config receipt-gate.logKey /etc/receipt-gate/log.key, or RECEIPT_GATE_LOG_KEY)' };
  const full = resolve(gitdir, path);
  let pem: string;
  try {
    pem = readFileSync(full, 'utf8');
  } catch (err) {
    return { error: `the signing key ${full} cannot be read (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})` };
  }
  try {
    return { key: loadPrivateKey(pem, full), path: full, previous };
  } catch (err) {
    return { error: (err as Error).message };
  }
}

export async function prepared(ctx: HookContext, stdin: string): Promise<void> {
  if (ctx.gitPid === null || !logEnabled(ctx.gitdir)) return;
  const unknown = parseTransaction(stdin).filter((u) => u.old === ZERO_OID);
  if (unknown.length === 0) return;
  const store = await ObjectStore.open({ gitdir: ctx.gitdir, env: {} });
  try {
    const olds: Record<string, string> = {};
    for (const u of unknown) {
      const raw = storedRef(store, u.ref);
      if (raw && 'oid' in raw) olds[u.ref] = raw.oid;
    }
    writeTxn(ctx.gitdir, ctx.gitPid, olds);
  } finally {
    store.close();
  }
}

export function aborted(ctx: HookContext): void {
  takeTxn(ctx.gitdir, ctx.gitPid);
}

export type CommittedOutcome = { logged: AppendResult | null } | { error: string };

export async function committed(ctx: HookContext, stdin: string): Promise<CommittedOutcome> {
  const { gitdir } = ctx;
  if (!logEnabled(gitdir)) return { logged: null };
  const olds = takeTxn(gitdir, ctx.gitPid);
  const lines = parseTransaction(stdin)
    .map((u) => (u.old === ZERO_OID && olds[u.ref] && isOid(olds[u.ref]!) ? { ...u, old: olds[u.ref]! } : u))
    .filter((u) => u.old !== u.new);
  if (lines.length === 0) return { logged: null };
  const store = await ObjectStore.open({ gitdir, env: {} });
  try {
    return await commit(ctx, store, lines);
  } finally {
    store.close();
  }
}

async function commit(ctx: HookContext, store: ObjectStore, lines: RefUpdate[]): Promise<CommittedOutcome> {
  const { gitdir } = ctx;
  // An update through a symbolic ref (HEAD -> main) is reported for both names; the symbolic
  // one only records the reflog, the ref it names is what moved.
  // A push to a symbolic ref the server holds (refs/heads/alias -> refs/heads/main) was judged
  // by the gate under the pushed name as an update of the ref it names: that ref's move is
  // logged under that decision.
  const applied: RefUpdate[] = [];
  const symbolic: { ref: string; target: string; old: string; new: string }[] = [];
  for (const u of lines) {
    if (!u.ref.startsWith('refs/')) continue;
    const raw = storedRef(store, u.ref);
    if (raw && 'symbolic' in raw) {
      symbolic.push({ ref: u.ref, target: raw.symbolic, old: u.old, new: u.new });
      continue;
    }
    // A deletion after which the ref still holds its old value moved nothing: `git pack-refs`
    // removing a loose ref that packed-refs holds with the same value (docs/push-log.md,
    // "Maintenance is not a move").
    if (u.new === ZERO_OID && raw && 'oid' in raw && raw.oid === u.old) continue;
    applied.push(u);
  }
  if (applied.length === 0) return { logged: null };
  const time = (ctx.now ?? (() => new Date()))().toISOString();
  // The name each move was pushed under: its own, or that of the symbolic ref naming it that
  // moved with it in this transaction, followed up a chain (alias -> alias2 -> main).
  const pushedAs = applied.map((u) => {
    let name = u.ref;
    for (let hops = 0; hops < symbolic.length; hops++) {
      const above = symbolic.find((x) => x.target === name && x.old === u.old && x.new === u.new);
      if (above === undefined) break;
      name = above.ref;
    }
    return name;
  });
  const pending = takePending(
    gitdir,
    ctx.pushPid ?? ctx.gitPid,
    applied.map((u, k) => ({ ...u, ref: pushedAs[k]! })),
  );
  const decided: LoggedUpdate[] = [];
  const ungated: LoggedUpdate[] = [];
  for (const [k, u] of applied.entries()) {
    const d = pending?.decided.get(pushedAs[k]!) ?? (pushedAs[k] !== u.ref ? pending?.decided.get(u.ref) : undefined);
    if (d) decided.push({ ...d, ref: u.ref, old: u.old, new: u.new });
    else ungated.push({ ref: u.ref, old: u.old, new: u.new, verdict: null, findings: [], protected: false });
  }
  const base = { schema: 'receipt-gate-push-log/v1' as const, time, tool_version: VERSION };
  const entries: Omit<LogPredicate, 'seq' | 'prev'>[] = [];
  if (decided.length) {
    entries.push({
      ...base,
      kind: 'push',
      identity: pending!.push.identity,
      policy_blob: pending!.push.policy_blob,
      updates: decided,
      push_certificate: pending!.push.push_certificate,
    });
  }
  if (ungated.length) entries.push({ ...base, kind: 'ungated', identity: null, policy_blob: null, updates: ungated, push_certificate: null });

  const fail = (error: string): CommittedOutcome => {
    try {
      audit(gitdir, { event: 'unlogged', time, error, entries });
    } catch {
      /* the message below still says it */
    }
    return { error };
  };
  try {
    const key = await logKey(gitdir, ctx.env, store);
    if ('error' in key) return fail(key.error);
    const logged = await appendEntries(
      gitdir,
      key.key,
      async (head) => (head !== null ? entries : [await genesisOf(store, applied, time), ...entries]),
      [createPublicKey(key.key), ...key.previous],
      ctx.gitPid,
    );
    return { logged };
  } catch (err) {
    return fail((err as Error).message);
  }
}

/** The log's first entry: every ref as it stood before the updates being logged. */
async function genesisOf(store: ObjectStore, before: RefUpdate[], time: string): Promise<Omit<LogPredicate, 'seq' | 'prev'>> {
  const refs = new Map([...store.refs.list()].filter(([name]) => name.startsWith('refs/') && !name.startsWith(RESERVED_PREFIX)));
  for (const u of before) {
    if (u.old === ZERO_OID) refs.delete(u.ref);
    else refs.set(u.ref, u.old);
  }
  return genesisPredicate(Object.fromEntries([...refs].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))), time);
}

export function genesisPredicate(refs: Record<string, string>, time: string): Omit<LogPredicate, 'seq' | 'prev'> {
  return {
    schema: 'receipt-gate-push-log/v1',
    kind: 'genesis',
    time,
    tool_version: VERSION,
    identity: null,
    policy_blob: null,
    updates: [],
    refs,
    push_certificate: null,
  };
}

/** `reference-transaction init`: start the log (the genesis entry) if it does not exist. */
export async function initLog(gitdir: string, env: NodeJS.ProcessEnv): Promise<{ created: AppendResult | null } | { error: string }> {
  const store = await ObjectStore.open({ gitdir, env: {} });
  try {
    const key = await logKey(gitdir, env, store);
    if ('error' in key) return key;
    const created = await appendEntries(
      gitdir,
      key.key,
      async (head) => (head === null ? [await genesisOf(store, [], new Date().toISOString())] : []),
      [createPublicKey(key.key), ...key.previous],
    );
    return { created };
  } finally {
    store.close();
  }
}

/** A ref as stored, null when it is absent or cannot be read (the push log then records the
 * update as git reports it). */
function storedRef(store: ObjectStore, ref: string): RawRef | null {
  try {
    return store.refs.readRaw(ref);
  } catch {
    return null;
  }
}
