// `receipt-gate verify-ref [REF] [--base REF] [--repo DIR] [--identity NAME] [--json] [--now DATE]`
// The one-shot audit: REF against the base, with the policy read from the base.

import { parseCommandArgs } from '../args';
import { today } from '../clock';
import { evaluate } from '../engine';
import { commitGraphNotices } from '../git/walk';
import { UsageError, type CliIO } from '../io';
import { renderHuman, short, shortRef, toJsonOutput } from '../render';
import { fullRefName, resolveBase, resolveCommitSpec } from '../run/base';
import { openRepository } from '../run/repository';
import { ZERO_OID } from '../types';
import { EXIT, exitCodeOf } from '../verdict';

const USAGE = 'receipt-gate verify-ref [REF] [--base REF] [--repo DIR] [--identity NAME] [--json] [--now YYYY-MM-DD]';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      base: { type: 'string' },
      repo: { type: 'string' },
      identity: { type: 'string' },
      json: { type: 'boolean' },
      now: { type: 'string' },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`one REF at most, got ${positionals.length}\nusage: ${USAGE}`);
  const date = today(io, values.now);
  const identity = values.identity === undefined || values.identity === '' ? null : values.identity;

  const store = await openRepository(values.repo ?? io.cwd, io.env);

  const refName = positionals[0] ?? 'HEAD';
  const head = await resolveCommitSpec(store, refName, 'REF');
  const fullRef = await fullRefName(store, refName);

  const base = await resolveBase(store, values.base === undefined ? { kind: 'default' } : { kind: 'named', spec: values.base });
  if (base.policyCommit === null) {
    return unguarded(io, values.json === true, head, null,
      `no base to read the policy from: pass --base REF (the default is the policy's baseBranch, preferring refs/remotes/origin/<baseBranch>)`);
  }

  const result = await evaluate(
    { store, base, identity, today: date, scope: { kind: 'base', exclude: [] } },
    [{ old: fullRef === base.branchRef ? base.tip ?? ZERO_OID : ZERO_OID, new: head, ref: fullRef }],
  );
  // A commit-graph that fails its checks is not used: say so once (the answer is exact anyway).
  for (const notice of commitGraphNotices(store)) io.stderr(`receipt-gate verify-ref: notice: ${notice}\n`);
  if (result.unguarded) {
    return unguarded(io, values.json === true, head, base.policyCommit,
      `${base.name} (${short(base.policyCommit)}) has no .receipt-gate.json: the repository is unguarded and nothing was checked. Add a policy with 'receipt-gate init'`);
  }
  if (values.json) {
    io.stdout(`${JSON.stringify(toJsonOutput(result, base.policyCommit, head), null, 2)}\n`);
  } else {
    const header = `receipt-gate verify-ref ${shortRef(fullRef)} (${short(head)}) against ${base.name} (${short(base.policyCommit)}) as ${identity ?? 'nobody'} on ${date}`;
    io.stdout(renderHuman(result, header));
  }
  return exitCodeOf(result.verdict);
}

function unguarded(io: CliIO, json: boolean, head: string, base: string | null, message: string): number {
  if (json) {
    io.stdout(`${JSON.stringify({ verdict: 'closed', unguarded: true, error: message, findings: [], identities: null, base, head }, null, 2)}\n`);
  }
  io.stderr(`receipt-gate verify-ref: ${message}\n`);
  return EXIT.usage;
}
