// `receipt-gate log acknowledge --repo REPO.git --ref REF --reason TEXT [--key KEY]
// [--identity NAME] [--now DATE]`: run on the server by an administrator who can read the log
// key, on an owner's decision. It verifies the log for the refs named, exactly as verify-log
// does, and appends one signed `acknowledge` entry (docs/push-log.md, Recovery) that names, per
// ref, where the log left it, the value it holds now (the new anchor) and each closing finding
// it accepts (code, entry, commit), with who, when and why. verify-log then shows those
// findings as info and judges everything after the entry as usual.
//
// Who may: whoever can sign with the log key (the server's administrator: the key is the
// enforcement), naming an owner of the policy in force (`--identity`, one of the policy's
// `owners`; the server account that ran the command is recorded beside it).

import { createPublicKey, type KeyObject } from 'node:crypto';
import { userInfo } from 'node:os';
import { resolve } from 'node:path';
import { parseCommandArgs } from '../args';
import { today } from '../clock';
import { ObjectStore } from '../git/store';
import { History } from '../git/history/history';
import { UsageError, type CliIO } from '../io';
import { appendEntries, LogWriteError } from '../pushlog/append';
import { LOG_REF, LOG_SCHEMA, RESERVED_PREFIX, type AcknowledgedRef, type LogPredicate } from '../pushlog/entry';
import { logKey } from '../pushlog/hook';
import { runLogCheck } from '../pushlog/run';
import { logEnabled } from '../pushlog/server-state';
import { resolveBase } from '../run/base';
import { openRepository } from '../run/repository';
import { short } from '../wording';
import { ZERO_OID } from '../types';
import { VERSION } from '../version';

const USAGE =
  'receipt-gate log acknowledge --repo REPO.git --ref REF [--ref REF]... --reason TEXT [--key KEY] [--identity NAME] [--now DATE]   (on the server: sign an owner\'s acceptance of the moves verify-log closes on REF)';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      repo: { type: 'string', description: "the server's bare repository whose push log gets the entry" },
      ref: { type: 'string', multiple: true, description: 'a ref whose moves the log cannot account for are accepted (repeatable)' },
      reason: { type: 'string', description: 'why the owner accepts them, recorded in the signed entry' },
      key: { type: 'string', description: "the push log's private key (default: the one the server is configured with)" },
      identity: { type: 'string', description: "the owner who decided, one of the policy's owners (default: the account running the command)" },
      now: { type: 'string', description: "the entry's date (default: RECEIPT_GATE_NOW, else the clock)" },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals[0] !== 'acknowledge' || positionals.length !== 1) {
    throw new UsageError(`name the subcommand: acknowledge${positionals.length ? ` (got '${positionals.join(' ')}')` : ''}\nusage: ${USAGE}`);
  }
  const named = (values.ref as unknown as string[] | undefined) ?? [];
  let refs = [...new Set(named.map((r) => (r.startsWith('refs/') ? r : `refs/heads/${r}`)))];
  if (refs.length === 0) throw new UsageError(`--ref REF is required: the ref whose moves the owner accepts (e.g. --ref main)\nusage: ${USAGE}`);
  for (const r of refs) if (r.startsWith(RESERVED_PREFIX)) throw new UsageError(`--ref ${r}: refs under ${RESERVED_PREFIX} are never logged, so there is nothing to acknowledge`);
  const reason = (values.reason ?? '').trim();
  if (reason === '') throw new UsageError(`--reason TEXT is required: why the owner accepts the moves (the incident, who reviewed the commits)\nusage: ${USAGE}`);
  const time = timeOf(io, values.now);
  const account = accountName(io.env);
  const identity = (values.identity ?? account ?? '').trim();
  if (identity === '') throw new UsageError(`--identity NAME is required: the owner who decided (one of the policy's owners)\nusage: ${USAGE}`);

  const store = await openRepository(values.repo ?? io.cwd, io.env);
  const gitdir = store.gitdir;
  // A short name is the ref git rev-parse takes for it (a tag's name, its tag), as verify-log
  // reads it; one that names no ref now (a deleted branch) is refs/heads/NAME.
  refs = [...new Set(named.map((r) => store.refs.refArgument(r)))];
  for (const r of refs) {
    if (!r.startsWith(RESERVED_PREFIX)) continue;
    store.close();
    throw new UsageError(`--ref ${r}: refs under ${RESERVED_PREFIX} are never logged, so there is nothing to acknowledge`);
  }
  if (!logEnabled(gitdir)) {
    store.close();
    // A clone or a mirror has the log but is not where it is written: an entry appended there
    // would fork it from the server's.
    throw new UsageError(`${gitdir} is not a repository the push log is written in (no receipt-gate/ folder from install.sh --server --log-key); run this on the server, in the repository itself`);
  }
  let verified;
  let key: KeyObject;
  let trusted: KeyObject[];
  try {
    ({ key, trusted } = await signingKey(gitdir, values.key ? resolve(io.cwd, values.key) : null, io.env, store));
    // Only an owner's decision: the identity named must be one of the policy's owners.
    const base = await resolveBase(store, { kind: 'default' }).catch(() => null);
    const owners = base?.policy?.owners ?? null;
    if (owners && !owners.includes(identity)) {
      throw new UsageError(`--identity ${identity} is not an owner of the policy at ${base!.name ?? 'the default branch'} (owners: ${owners.join(', ')}); only an owner may accept moves the log cannot account for`);
    }
    verified = await runLogCheck(store, new History(store), { publicKeys: trusted, only: refs });
  } finally {
    store.close();
  }
  const broken = verified.findings.find((f) => f.code === 'LOG_SIGNATURE' || f.code === 'LOG_FORKED');
  if (broken) {
    throw new UsageError(
      `the log itself is not trusted (${broken.code}: ${broken.message}); an acknowledgement accepts moves of refs, never a damaged log: move ${LOG_REF} back to the newest entry the key signed, then acknowledge (docs/push-log.md, Recovery)`,
    );
  }
  if (verified.tip === null) throw new UsageError(`${gitdir} has no push log (${LOG_REF}): install it with ./install.sh --server --log-key KEY; there is nothing to acknowledge`);
  const open = verified.open ?? [];
  const accepted: AcknowledgedRef[] = [];
  for (const ref of refs) {
    const at = verified.refs.find((r) => r.ref === ref);
    const findings = open.filter((o) => o.ref === ref).map(({ code, entry, commit }) => ({ code, entry, commit }));
    if (findings.length === 0) throw new UsageError(`verify-log finds nothing to acknowledge on ${ref}: every move of it is a signed entry the gate allowed`);
    accepted.push({ ref, logged: at?.logged ?? ZERO_OID, accepted: at?.actual ?? ZERO_OID, findings });
  }

  const predicate: Omit<LogPredicate, 'seq' | 'prev'> = {
    schema: LOG_SCHEMA,
    kind: 'acknowledge',
    time,
    tool_version: VERSION,
    identity,
    policy_blob: null,
    updates: [],
    push_certificate: null,
    acknowledgement: { reason, account, refs: accepted },
  };
  let appended;
  try {
    appended = await appendEntries(
      gitdir,
      key,
      async (head) => {
        // Under the log's lock (every logged transaction holds it from `prepared` to the
        // append): the log and the refs must still be what was verified.
        if (head?.commit !== verified.tip) throw new LogWriteError(`the push log moved while it was being verified (now ${head ? short(head.commit) : 'absent'}); run the command again`);
        const now = await ObjectStore.open({ gitdir, env: {} });
        try {
          for (const a of accepted) {
            const value = now.refs.resolve(a.ref) ?? ZERO_OID;
            if (value !== a.accepted) throw new LogWriteError(`${a.ref} moved while the log was being verified (now ${value === ZERO_OID ? 'absent' : short(value)}); run the command again`);
          }
        } finally {
          now.close();
        }
        return [predicate];
      },
      trusted,
    );
  } catch (err) {
    if (err instanceof LogWriteError) throw new UsageError(`nothing was appended: ${err.message}`);
    throw err;
  }
  const lines = [`receipt-gate log acknowledge: entry #${appended!.seq} (${short(appended!.commit)}) by ${identity}${account && account !== identity ? ` (account ${account})` : ''}: ${reason}`];
  for (const a of accepted) {
    lines.push(`  ${a.ref}: the log left it at ${a.logged === ZERO_OID ? '(absent)' : short(a.logged)}; accepted at ${a.accepted === ZERO_OID ? '(absent)' : short(a.accepted)}`);
    for (const f of a.findings) lines.push(`    ${f.code} ${f.entry === null ? 'at the tip' : `entry #${f.entry}`}${f.commit ? ` ${short(f.commit)}` : ''}`);
  }
  lines.push(`verify-log shows these as acknowledged from now on; any later move of ${refs.join(', ')} is judged as usual.`);
  io.stdout(`${lines.join('\n')}\n`);
  return 0;
}

/** --key KEY, else the repository's own log key (receipt-gate.logKey or RECEIPT_GATE_LOG_KEY);
 * the tip may be signed by it or by a key it replaced (receipt-gate.logPreviousKey). */
async function signingKey(gitdir: string, path: string | null, env: NodeJS.ProcessEnv, store: ObjectStore): Promise<{ key: KeyObject; trusted: KeyObject[] }> {
  const configured = await logKey(gitdir, path ? { ...env, RECEIPT_GATE_LOG_KEY: path } : env, store);
  if ('error' in configured) {
    throw new UsageError(`cannot sign with the log key: ${configured.error}; pass the server's log key with --key KEY (run this on the server, as the account that may read it)`);
  }
  return { key: configured.key, trusted: [createPublicKey(configured.key), ...configured.previous] };
}

/** The entry's time: --now (or RECEIPT_GATE_NOW) as a full ISO timestamp or a UTC date
 * (midnight), else the clock. */
function timeOf(io: CliIO, now: string | undefined): string {
  const given = now ?? (io.env.RECEIPT_GATE_NOW || undefined);
  if (given === undefined) return new Date().toISOString();
  const date = today(io, now);
  const t = /T/.test(given) ? Date.parse(given) : Date.parse(`${date}T00:00:00Z`);
  return new Date(t).toISOString();
}

function accountName(env: NodeJS.ProcessEnv): string | null {
  try {
    return userInfo().username || null;
  } catch {
    return env.USER || env.LOGNAME || null;
  }
}

