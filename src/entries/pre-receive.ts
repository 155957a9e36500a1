// git's pre-receive hook: `<old> <new> <ref>` lines on stdin, the answer is the exit status
// (0 accepts every ref, anything else rejects the push), stderr is shown as `remote:` lines.
// A thin adapter: the logic is in src/server/.

import { today } from '../clock';
import { UsageError, type CliIO } from '../io';
import { EXIT, SHIM_EXIT } from '../verdict';
import { refusedByLog } from '../server/decide';
import { gitdirOf, receivePush } from '../server/receive';
import { requestRerun } from '../server/rerun';
import { remoteAnswer, remoteText } from '../report/remote';
import { recordDecision } from '../pushlog/record';
import { warmAppendPath } from '../pushlog/warm';
import { warmUp as judgeWarmupPushes } from '../server/warmup';

const HELP = `usage: receipt-gate pre-receive [--now YYYY-MM-DD]

git's pre-receive hook, installed on a server by install.sh in its server mode (docs/server.md).
Reads '<old> <new> <ref>' lines on stdin, judges the push as a whole and exits 0 (accept)
or 1 (reject); run by the hook shim (RECEIPT_GATE_SHIM=1), 80 (accept) or 81 (reject).
The pusher is the first set variable of the policy's identityEnv.

options:
  --now YYYY-MM-DD   today's date for expiry checks (default: RECEIPT_GATE_NOW, else the clock, UTC)
  -h, --help   show this help
`;

export async function run(args: string[], io: CliIO): Promise<number> {
  // limits.timeoutMs counts from the hook's start (docs/contract.md §6 Time): node's start and
  // the reading of stdin are inside the budget. (At most a second back: process.uptime() of a
  // process that has run longer than that before reaching here says nothing about the push.)
  const startedAt = Date.now() - Math.min(process.uptime() * 1000, 1000);
  if (args.includes('--help') || args.includes('-h')) {
    io.stdout(HELP);
    return 0;
  }
  const nowAt = args.indexOf('--now');
  const now = nowAt >= 0 ? args[nowAt + 1] : undefined;
  if (nowAt >= 0 && now === undefined) throw new UsageError('--now needs a date, YYYY-MM-DD');
  // Ref names are bytes: the input is read undecoded.
  const stdin = io.readStdinBytes ? await io.readStdinBytes() : await io.readStdin();
  const gitdir = gitdirOf(io.cwd, io.env);
  const judged = await receivePush({ gitdir, env: io.env, today: () => today(io, now), startedAt }, stdin);
  // The policy's budget needs a longer hard timeout than the shim's: the shim checks the push
  // again under it (src/server/rerun.ts); nothing is recorded or written for this run.
  const rerunFile = io.env.RECEIPT_GATE_SHIM === '1' ? io.env.RECEIPT_GATE_RERUN_FILE : undefined;
  if (judged.rerunHardTimeoutS !== undefined && rerunFile && requestRerun(rerunFile, judged.rerunHardTimeoutS, stdin)) {
    setTimeout(() => process.exit(SHIM_EXIT.rerun), 100).unref();
    return SHIM_EXIT.rerun;
  }
  // The push log (docs/push-log.md): accepted decisions wait for reference-transaction; one it
  // cannot record rejects the push (src/server/decide.ts).
  const unrecorded = await recordDecision(gitdir, io.env, judged);
  const outcome = unrecorded === null ? judged : refusedByLog(judged, unrecorded);
  io.stderr(remoteText(remoteAnswer(outcome), io.env));
  if (io.env.RECEIPT_GATE_SHIM === '1') {
    // Run from the hook shim: the answer (machine line included) is written; the exit status
    // tells the shim which it was (SHIM_EXIT). A timed-out check may leave work running:
    // answer git now.
    if (!outcome.accepted) setTimeout(() => process.exit(SHIM_EXIT.rejected), 100).unref();
    return outcome.accepted ? SHIM_EXIT.accepted : SHIM_EXIT.rejected;
  }
  return outcome.accepted ? EXIT.eligible : EXIT.closed;
}

/** Run while the startup snapshot is built (src/cli.ts): two pushes judged by `run`
 * (src/server/warmup.ts) and the push log's append path (src/pushlog/warm.ts), compiled into
 * the snapshot. Neither fails the build. */
export async function warmUp(): Promise<void> {
  await judgeWarmupPushes(run).catch(() => undefined);
  await warmAppendPath();
}
