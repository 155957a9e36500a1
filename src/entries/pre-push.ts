// `receipt-gate pre-push [REMOTE [URL]] [--identity NAME] [--now YYYY-MM-DD]` — the client's
// pre-push hook. git passes the remote's name and URL as arguments and one line per ref on
// standard input:
//
//   <local ref> SP <local oid> SP <remote ref> SP <remote oid> LF
//
// Hook managers that do not pass these on are read through src/client/push-input.ts (the
// pre-commit framework's PRE_COMMIT_* variables, husky 4's HUSKY_GIT_STDIN, else HEAD's branch,
// said so on stderr); with nothing to go on the run is a usage error, never a silent pass.
//
// Each line is a ref update of the remote (old = remote oid, new = local oid, ref = remote
// ref), judged by the engine exactly as the server will judge it: the policy and base from
// refs/remotes/<remote>/<baseBranch>, new commits those not already on the remote (not
// reachable from any of its remote-tracking refs). Identity is `git config user.email`
// (advisory: on the server, the pusher's login decides).

import { decodeRefName } from '../git/refname';
import { parseCommandArgs } from '../args';
import { clientIdentity, locateWorktree } from '../client/git-cli';
import { printResult, rejectedVerdict } from '../client/report';
import { skippedByBypass } from '../client/skip';
import { today } from '../clock';
import { evaluate } from '../engine';
import { resolveBase } from '../run/base';
import { ZERO_OID, type RefUpdate } from '../types';
import { History } from '../git/history/history';
import { ObjectStore } from '../git/store';
import { UsageError, type CliIO } from '../io';
import { readPushInput } from '../client/push-input';
import { short, shortRef } from '../wording';
import { EXIT } from '../verdict';

const USAGE =
  'receipt-gate pre-push [REMOTE [URL]] [--identity NAME] [--now YYYY-MM-DD]   (git pre-push lines on stdin, else the pre-commit framework\'s PRE_COMMIT_* variables, else HEAD\'s branch; bypass: RECEIPT_GATE_SKIP=1 or HUSKY=0)';

/** Kept here for callers of the entry; the input is read in src/client/push-input.ts. */
export { parsePushLines, type PushLine } from '../client/push-input';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      identity: { type: 'string', description: 'who the hook acts as (default: git config user.email); advisory, the server decides' },
      now: { type: 'string', description: "today's date for expiry checks (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (skippedByBypass('pre-push', io)) return EXIT.eligible;
  if (positionals.length > 2) {
    throw new UsageError(`expected at most REMOTE and URL, as git passes them; got ${positionals.length} arguments\nusage: ${USAGE}`);
  }
  const date = today(io, values.now);
  const worktree = locateWorktree(io.cwd, io.env);
  // Ref names are bytes (as the store reads them): the input is taken undecoded.
  const stdin = io.readStdinBytes ? decodeRefName(await io.readStdinBytes()) : await io.readStdin();
  const input = readPushInput({ positionals, stdin, env: io.env, top: worktree.top });
  const { remote, lines } = input;
  if (lines.length === 0) return EXIT.eligible; // nothing to push
  if (input.notice !== null) io.stderr(`receipt-gate ${input.notice}\n`);

  const store = await ObjectStore.discover(worktree.top, io.env);
  try {
    const identity = clientIdentity(worktree.top, io.env, values.identity);
    const updates: RefUpdate[] = lines.map((l) => ({ old: l.remoteOid, new: l.localOid, ref: l.remoteRef }));

    // The remote's history is not new: its remote-tracking refs, and the remote tips git just
    // read from it (when this clone has them).
    const refs = store.refs.list();
    const trackingPrefix = `refs/remotes/${remote}/`;
    const exclude = new Set<string>();
    for (const [name, oid] of refs) {
      if (name.startsWith(trackingPrefix) && name !== `${trackingPrefix}HEAD`) exclude.add(oid);
    }
    for (const l of lines) {
      if (l.remoteOid !== ZERO_OID && store.objects.hasObject(l.remoteOid)) exclude.add(l.remoteOid);
    }
    const excluded: string[] = [];
    for (const oid of exclude) {
      try {
        excluded.push(await store.commits.peelToCommit(oid));
      } catch {
        // a remote-tracking ref to a tree or blob excludes no history
      }
    }

    const base = await resolveBase(store, { kind: 'push', remote, remoteTips: lines.map((l) => ({ ref: l.remoteRef, oid: l.remoteOid })) });

    const result = await evaluate(
      { store, history: new History(store), base, identity, today: date, scope: { kind: 'base', exclude: excluded } },
      updates,
    );
    if (result.unguarded && result.findings.length === 0) {
      io.stderr(`receipt-gate pre-push: ${remote} has no .receipt-gate.json on its base branch: the repository is unguarded and nothing was checked\n`);
      return EXIT.eligible;
    }
    const rejected = rejectedVerdict(result);
    if (result.findings.length > 0 || rejected) {
      const pushed = updates.map((u) => `${shortRef(u.ref)} (${u.new === ZERO_OID ? 'deleted' : short(u.new)})`).join(', ');
      const header = `receipt-gate pre-push to ${remote}: ${pushed} against ${base.name ?? 'no base'}${base.policyCommit ? ` (${short(base.policyCommit)})` : ''} as ${identity ?? 'nobody'} on ${date}`;
      printResult(io, result, header);
    }
    if (rejected === 'closed') return EXIT.closed;
    if (rejected === 'hold') return EXIT.hold;
    return EXIT.eligible;
  } finally {
    store.close();
  }
}
