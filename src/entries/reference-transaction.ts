// git's reference-transaction hook (git 2.28+), for the push log (docs/push-log.md): the state
// (`prepared`, `committed`, `aborted`) as the argument, `<old> <new> <ref>` lines on stdin.
// Run by the server-hooks/reference-transaction shim, which passes the git process's id. It
// never refuses a transaction: a failure to log says so on stderr and in the audit file, and
// `verify-log` then reports the move as a gap.
//
// `reference-transaction init [--repo DIR]`: start the log of a repository (its genesis entry:
// every ref as it stands), as `install.sh --server --log-key KEY` does.

import { parseCommandArgs } from '../args';
import { UsageError, type CliIO } from '../io';
import { aborted, committed, initLog, prepared, type HookContext } from '../pushlog/hook';
import { gitdirOf } from '../server/receive';
import { resolve } from 'node:path';

const USAGE = 'receipt-gate reference-transaction prepared|committed|aborted (git\'s hook, from server-hooks/reference-transaction) | init [--repo DIR] (start the push log: its genesis entry)';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(args, { repo: { type: 'string', description: 'with init: the bare repository whose push log starts (default: the current one)' } }, USAGE, io);
  if (!parsed) return 0;
  const [state, ...extra] = parsed.positionals;
  if (state === undefined) throw new UsageError(`which state? (prepared, committed, aborted, or init)\nusage: ${USAGE}`);
  if (extra.length > 0) throw new UsageError(`unexpected argument '${extra[0]}'\nusage: ${USAGE}`);
  if (state === 'init') {
    const gitdir = parsed.values.repo ? resolve(io.cwd, parsed.values.repo) : gitdirOf(io.cwd, io.env);
    const r = await initLog(gitdir, io.env);
    if ('error' in r) throw new UsageError(`cannot start the push log of ${gitdir}: ${r.error}`);
    io.stdout(r.created ? `started the push log of ${gitdir} (refs/receipt-gate/log ${r.created.commit})\n` : `the push log of ${gitdir} exists already\n`);
    return 0;
  }
  const pid = Number(io.env.RECEIPT_GATE_TXN_PID);
  const push = Number(io.env.RECEIPT_GATE_PUSH_PID);
  const ctx: HookContext = {
    gitdir: gitdirOf(io.cwd, io.env),
    env: io.env,
    gitPid: Number.isSafeInteger(pid) && pid > 1 ? pid : null,
    pushPid: Number.isSafeInteger(push) && push > 1 ? push : null,
  };
  if (state === 'prepared') {
    await prepared(ctx, await io.readStdin());
  } else if (state === 'committed') {
    const r = await committed(ctx, await io.readStdin());
    if ('error' in r) io.stderr(`receipt-gate: push log: this update was applied but NOT recorded in the push log: ${r.error}\n`);
  } else if (state === 'aborted') {
    aborted(ctx);
  } else {
    throw new UsageError(`unknown state '${state}'\nusage: ${USAGE}`);
  }
  return 0;
}
