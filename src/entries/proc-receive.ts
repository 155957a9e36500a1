// git's proc-receive hook (git 2.29+), for the push log's many-ref pushes (docs/push-log.md,
// "Many refs in one push"): receive-pack hands it the creations of a push
// (`receive.procReceiveRefs a:refs/`, set by `install.sh --server --log-key`) over pkt-lines on
// stdin and stdout, after pre-receive accepted the push and its objects were moved into the
// repository. It creates them in one ref transaction when src/pushlog/batch.ts says so, and
// otherwise answers `option fall-through` for each, so that receive-pack applies them exactly
// as it would without this hook. Run by the server-hooks/proc-receive shim.
//
// Whatever goes wrong before the answer is written (a protocol it does not know, an error of
// its own) is answered with fall-through for every ref it was given: receive-pack's own path.

import { parseCommandArgs } from '../args';
import { fallThroughReport, FLUSH, PktReader, pkt, writeAll } from '../git/pkt-line';
import { createRefsAtomically } from '../git/update-refs';
import { UsageError, type CliIO } from '../io';
import { batchOf, type RefCommand } from '../pushlog/batch';
import { receivePackPid } from '../pushlog/server-state';
import { gitdirOf } from '../server/receive';

const USAGE = 'receipt-gate proc-receive (git\'s proc-receive hook, from server-hooks/proc-receive; speaks pkt-lines with receive-pack)';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(args, {}, USAGE, io);
  if (!parsed) return 0;
  if (parsed.positionals.length > 0) throw new UsageError(`unexpected argument '${parsed.positionals[0]}'\nusage: ${USAGE}`);
  const reader = new PktReader(0);
  const out = (bytes: Buffer) => writeAll(1, bytes);

  // Version negotiation: receive-pack's `version=1[\0capabilities]`, then ours.
  const hello = reader.readUntilFlush();
  const first = hello[0]?.toString('latin1') ?? '';
  const nul = first.indexOf('\0');
  const version = (nul >= 0 ? first.slice(0, nul) : first).replace(/\n$/, '');
  const caps = nul >= 0 ? first.slice(nul + 1).replace(/\n$/, '').split(' ') : [];
  out(Buffer.concat([pkt('version=1\n'), FLUSH]));
  if (version !== 'version=1') {
    io.stderr(`receipt-gate: proc-receive: receive-pack spoke '${version.slice(0, 40)}', not version=1; the push fails (git's proc-receive protocol changed: upgrade receipt-gate, or unset receive.procReceiveRefs)\n`);
    return 1;
  }

  const commands: RefCommand[] = reader.readUntilFlush().map((p) => {
    const [old, neu, ref] = p.toString('latin1').replace(/\n$/, '').split(' ', 3);
    return { old: old ?? '', new: neu ?? '', ref: ref ?? '' };
  });
  const fallThrough = () => Buffer.concat([...fallThroughReport(commands.map((c) => c.ref)), FLUSH]);

  let answer: Buffer;
  try {
    const gitdir = gitdirOf(io.cwd, io.env);
    const batch = batchOf({ gitdir, env: io.env, updates: commands, atomic: caps.includes('atomic'), predict: false });
    if (batch === null) {
      answer = fallThrough();
    } else {
      const batched = new Set(batch.map((c) => c.ref));
      // The refs left out of the batch go back to receive-pack, which applies each after it.
      const others = fallThroughReport(commands.filter((c) => !batched.has(c.ref)).map((c) => c.ref));
      const pushPid = receivePackPid(process.ppid, io.env.RECEIPT_GATE_HOOK_PARENT);
      const env: NodeJS.ProcessEnv = { ...io.env, RECEIPT_GATE_PUSH_PID: pushPid === null ? '' : String(pushPid) };
      delete env.RECEIPT_GATE_HOOK_PARENT;
      const made = createRefsAtomically(gitdir, env, batch, 'push');
      if (made.stderr) io.stderr(made.stderr.endsWith('\n') ? made.stderr : `${made.stderr}\n`);
      if (made.ok) {
        answer = Buffer.concat([...batch.map((c) => pkt(Buffer.from(`ok ${c.ref}`, 'latin1'))), ...others, FLUSH]);
      } else {
        const why = `the ${batch.length} new refs of this push are created together, and git refused: ${made.error.replace(/[\r\n]+/g, ' ')}; nothing was created, push again`;
        answer = Buffer.concat([...batch.map((c) => pkt(Buffer.concat([Buffer.from(`ng ${c.ref} `, 'latin1'), Buffer.from(why.slice(0, 900), 'utf8')]))), ...others, FLUSH]);
      }
    }
  } catch (err) {
    io.stderr(`receipt-gate: proc-receive: ${(err as Error).message}; receive-pack applies each new ref itself\n`);
    answer = fallThrough();
  }
  out(answer);
  return 0;
}
