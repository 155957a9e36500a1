// `receipt-gate verify-ref [REF] [--base REF] [--repo DIR] [--identity NAME] [--format FORMAT] [--now DATE]`
// The one-shot audit: REF against the base, with the policy read from the base.

import { parseCommandArgs } from '../args';
import { today } from '../clock';
import { evaluate } from '../engine';
import { History } from '../git/history/history';
import { UsageError, type CliIO } from '../io';
import { formatOption, outcomeOf, renderOutcome, SetupError, short, shortRef } from '../report/index';
import { fullRefName, resolveBase, resolveCommitSpec } from '../run/base';
import { openRepository } from '../run/repository';
import { ZERO_OID } from '../types';
import { exitCodeOf } from '../verdict';
import { withPushLog } from '../pushlog/run';
import { resolve } from 'node:path';
import { VERSION } from '../version';

const USAGE = 'receipt-gate verify-ref [REF] [--base REF] [--repo DIR] [--identity NAME] [--log PUBKEY] [--format text|json|sarif|github|junit] [--json] [--now YYYY-MM-DD]';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      base: { type: 'string', description: "the branch whose policy judges (default: the policy's baseBranch, preferring refs/remotes/origin/<baseBranch>)" },
      repo: { type: 'string', description: 'the repository to read (default: the current directory)' },
      identity: { type: 'string', description: 'who the audit runs for; owners are matched on it exactly (default: nobody)' },
      json: { type: 'boolean', description: 'the same as --format json' },
      format: { type: 'string', description: 'how findings are printed: text (default), json, sarif, github or junit' },
      now: { type: 'string', description: "today's date for expiry checks (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
      log: { type: 'string', description: "also check the server's signed push log for REF with this public key (docs/push-log.md)" },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 1) throw new UsageError(`one REF at most, got ${positionals.length}\nusage: ${USAGE}`);
  const format = formatOption(values);
  const date = today(io, values.now);
  const identity = values.identity === undefined || values.identity === '' ? null : values.identity;

  const store = await openRepository(values.repo ?? io.cwd, io.env);
  const history = new History(store);

  const refName = positionals[0] ?? 'HEAD';
  const head = await resolveCommitSpec(store, refName, 'REF');
  const fullRef = await fullRefName(store, refName);

  const base = await resolveBase(store, values.base === undefined ? { kind: 'default' } : { kind: 'named', spec: values.base });
  if (base.policyCommit === null) {
    throw new SetupError(
      `no base to read the policy from: pass --base REF (the default is the policy's baseBranch, preferring refs/remotes/origin/<baseBranch>)`,
      { unguarded: true, base: null, head },
    );
  }

  // A ref to an annotated tag is judged through its tags (each read and fsck-checked as git
  // does; the engine peels them to `head`).
  const named = fullRef.startsWith('refs/') ? store.refs.resolve(fullRef) : null;
  const tip = named !== null && named !== head && (await store.objects.objectInfo(named))?.type === 'tag' ? named : head;
  // Every bounded context is read in full, untouched ones too: a CI reads each context's
  // identities (epoch id, manifest digest, witnesses) from this answer, and an audit has no
  // push latency to save (the server keeps the untouched-context shortcut, docs/contexts.md).
  const judged = await evaluate(
    { store, history, base, identity, today: date, scope: { kind: 'base', exclude: [] }, contextsInFull: true },
    [{ old: fullRef === base.branchRef ? base.tip ?? ZERO_OID : ZERO_OID, new: tip, ref: fullRef }],
  );
  // --log PUBKEY: the push log must account for every move of the ref too (docs/push-log.md).
  const result = values.log === undefined ? judged : await withPushLog(judged, store, history, fullRef, resolve(io.cwd, values.log));
  // A commit-graph that fails its checks is not used: say so once (the answer is exact anyway).
  for (const notice of history.commitGraphNotices()) io.stderr(`receipt-gate verify-ref: notice: ${notice}\n`);
  if (result.unguarded) {
    throw new SetupError(
      `${base.name} (${short(base.policyCommit)}) has no .receipt-gate.json: the repository is unguarded and nothing was checked. Add a policy with 'receipt-gate init'`,
      { unguarded: true, base: base.policyCommit, head },
    );
  }
  const header = `receipt-gate verify-ref ${shortRef(fullRef)} (${short(head)}) against ${base.name} (${short(base.policyCommit)}) as ${identity ?? 'nobody'} on ${date}`;
  io.stdout(renderOutcome(format, outcomeOf('verify-ref', result, { base: base.policyCommit, head, header }), VERSION));
  return exitCodeOf(result.verdict);
}
