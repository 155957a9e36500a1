// Which refs a log verification checks, and the run shared by `verify-log` and
// `verify-ref --log`: the policy's baseBranch and protectedRefs (read at the default base),
// every ref the log names that they match, and every ref the repository holds that they match
// (a protected ref that appeared with no entry is a gap too); with no policy, every branch and
// tag the log names. `only` narrows the run to the refs given.

import { readFileSync } from 'node:fs';
import type { KeyObject } from 'node:crypto';
import type { History } from '../git/history/history';
import type { ObjectStore } from '../git/store';
import { UsageError } from '../io';
import { loadPublicKey } from '../receipt/dsse';
import { gateResult, refResult, type GateResult } from '../results';
import { refMatcher } from '../matchers';
import { resolveBase } from '../run/base';
import { LOG_REF, RESERVED_PREFIX } from './entry';
import { verifyLog, type LogCheckpoint, type VerifyLogResult } from './verify';

export interface LogRunOptions {
  publicKeys: readonly KeyObject[];
  logRef?: string;
  /** A clone: server branches are read as refs/remotes/<remote>/<name>. */
  remote?: string | null;
  /** Check exactly these server ref names. */
  only?: string[];
  checkpoint?: LogCheckpoint | null;
  everySignature?: boolean;
}

export async function runLogCheck(store: ObjectStore, history: History, opts: LogRunOptions): Promise<VerifyLogResult> {
  const remote = opts.remote ?? null;
  const toLocal = (ref: string) => (remote && ref.startsWith('refs/heads/') ? `refs/remotes/${remote}/${ref.slice('refs/heads/'.length)}` : ref);
  const toServer = (ref: string) => (remote && ref.startsWith(`refs/remotes/${remote}/`) ? `refs/heads/${ref.slice(`refs/remotes/${remote}/`.length)}` : ref);
  let isProtected: ((ref: string) => boolean) | null = null;
  try {
    const base = await resolveBase(store, { kind: 'default' });
    if (base.policy) {
      const baseRef = `refs/heads/${base.policy.baseBranch}`;
      const globs = refMatcher(base.policy.protectedRefs);
      // A namespace's refs (refs/namespaces/<ns>/refs/heads/main, as git applies a push under
      // GIT_NAMESPACE) are checked as the names inside it.
      isProtected = (ref) => {
        const inner = withoutNamespace(ref);
        return inner === baseRef || globs(inner);
      };
    }
  } catch {
    isProtected = null;
  }
  const refs = async (named: Iterable<string>): Promise<string[]> => {
    if (opts.only && opts.only.length) return [...new Set(opts.only)];
    const out = new Set<string>();
    if (isProtected) {
      for (const r of named) if (isProtected(r)) out.add(r);
      for (const local of store.refs.list().keys()) {
        const server = toServer(local);
        if (!server.startsWith(RESERVED_PREFIX) && !(remote && server === local && local.startsWith('refs/remotes/')) && isProtected(server)) out.add(server);
      }
    } else {
      for (const r of named) if (r.startsWith('refs/heads/') || r.startsWith('refs/tags/')) out.add(r);
    }
    return [...out];
  };
  return verifyLog({ store, history, publicKeys: opts.publicKeys, logRef: opts.logRef ?? LOG_REF, refs, localName: toLocal, checkpoint: opts.checkpoint ?? null, everySignature: opts.everySignature });
}

/** The name inside the namespaces a ref is under: refs/namespaces/a/refs/namespaces/b/refs/heads/x
 * → refs/heads/x (a ref outside any namespace is itself). */
export function withoutNamespace(ref: string): string {
  let inner = ref;
  for (let m = /^refs\/namespaces\/[^/]+\/(refs\/.*)$/.exec(inner); m; m = /^refs\/namespaces\/[^/]+\/(refs\/.*)$/.exec(inner)) inner = m[1]!;
  return inner;
}

/** A checkpoint file: {"commit", "seq"} of the last log tip verified; null when absent. */
export function readCheckpoint(file: string): LogCheckpoint | null {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return null;
  }
  const v = JSON.parse(text) as LogCheckpoint;
  if (typeof v?.commit !== 'string' || !Number.isSafeInteger(v.seq)) throw new Error(`${file} is not a push-log checkpoint ({"commit", "seq"})`);
  return v;
}

/** verify-ref --log: the ref's verdict with the push log's findings on it added. A ref read
 * as refs/remotes/R/NAME is the server's refs/heads/NAME, read from remote R. */
export async function withPushLog(result: GateResult, store: ObjectStore, history: History, ref: string, pubPath: string): Promise<GateResult> {
  let pem: string;
  try {
    pem = readFileSync(pubPath, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --log ${pubPath}: ${(err as Error).message}`);
  }
  let publicKey: KeyObject;
  try {
    publicKey = loadPublicKey(pem, `--log ${pubPath}`);
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const remote = /^refs\/remotes\/([^/]+)\/(.+)$/.exec(ref);
  const serverRef = remote ? `refs/heads/${remote[2]}` : ref;
  const checked = await runLogCheck(store, history, { publicKeys: [publicKey], remote: remote ? remote[1] : null, only: [serverRef] });
  if (checked.findings.length === 0) return result;
  const refs = result.refs.map((r, i) => (i === 0 ? refResult(r.update, [...r.findings, ...checked.findings], { isProtectedRef: r.isProtectedRef, newCommits: r.newCommits, identities: r.identities, evidence: r.evidence, contexts: r.contexts }) : r));
  return gateResult(refs, { unguarded: result.unguarded, policy: result.policy, identity: result.identity, baseName: result.baseName });
}
