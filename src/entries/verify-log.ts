// `receipt-gate verify-log --pub KEY [--repo DIR] [--log REF] [--remote NAME] [--ref REF]...
// [--checkpoint FILE] [--format FORMAT]`: proves, offline, that every move of each protected
// ref since the push log began is a signed entry of it, in order, allowed by the gate, and that
// each ref's tip is the last entry's `new` (docs/push-log.md). Exit 0 when it holds, 1 with the
// findings when it does not, 2 when nothing could be checked. Findings an owner acknowledged
// (`receipt-gate log acknowledge`) are info, each with who acknowledged it and why.
//
// --format json is the findings with what was verified, and nothing that does not apply to a
// log (no evidence identities, no base or head of a patch):
//   {"verdict", "findings", "log": {"ref", "tip", "entries", "genesis"}, "refs": [{"ref",
//    "logged", "actual"}], "acknowledgements": [{"seq", "commit", "identity", "account",
//    "time", "reason", "refs"}]}
// (schemas/output/verify-log.schema.json; a member that cannot be known is left out, never null).

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandArgs } from '../args';
import { History } from '../git/history/history';
import { UsageError, type CliIO } from '../io';
import { runLogCheck, readCheckpoint } from '../pushlog/run';
import { KeyError, loadPublicKey } from '../receipt/dsse';
import { findingsOutcome, formatOption, renderOutcome, short } from '../report/index';
import { jsonFinding } from '../report/json';
import { sortFindings } from '../report/order';
import { renderText } from '../report/text';
import { printable } from '../quote';
import type { VerifyLogResult } from '../pushlog/verify';
import type { Outcome } from '../report/outcome';
import { ZERO_OID } from '../types';
import { openRepository } from '../run/repository';
import { exitCodeOf } from '../verdict';
import { VERSION } from '../version';

const USAGE = 'receipt-gate verify-log --pub KEY [--pub OLDKEY]... [--repo DIR] [--log REF] [--remote NAME] [--ref REF]... [--checkpoint FILE] [--every-signature] [--format text|json|sarif|github|junit] [--json]';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      pub: { type: 'string', multiple: true, description: 'a public key of the push log (repeatable: the old key, for entries signed before a key change)' },
      repo: { type: 'string', description: 'the repository to read (default: the current directory)' },
      log: { type: 'string', description: "the log's ref (default refs/receipt-gate/log)" },
      remote: { type: 'string', description: "in a plain clone, read the server's branches as refs/remotes/NAME/ (e.g. origin)" },
      ref: { type: 'string', multiple: true, description: "check only this ref (repeatable; default: the policy's baseBranch and protectedRefs)" },
      checkpoint: { type: 'string', description: 'a file recording the log tip last verified; a log that no longer holds it is LOG_FORKED' },
      'every-signature': { type: 'boolean', description: "verify each entry's own signature, not only the tip's" },
      json: { type: 'boolean', description: 'the same as --format json' },
      format: { type: 'string', description: 'how findings are printed: text (default), json, sarif, github or junit' },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  if (positionals.length > 0) throw new UsageError(`unexpected argument '${positionals[0]}'\nusage: ${USAGE}`);
  const format = formatOption(values);
  const pubs = values.pub as unknown as string[] | undefined;
  if (!pubs || pubs.length === 0) throw new UsageError(`--pub KEY is required: the server's push-log public key (the .pub of 'receipt-gate keygen'; repeat it for keys rotated out)\nusage: ${USAGE}`);
  const publicKeys = pubs.map((p) => readPublicKey(resolve(io.cwd, p), p));
  const checkpointFile = values.checkpoint ? resolve(io.cwd, values.checkpoint) : null;
  let checkpoint = null;
  try {
    checkpoint = checkpointFile ? readCheckpoint(checkpointFile) : null;
  } catch (err) {
    throw new UsageError((err as Error).message);
  }
  const store = await openRepository(values.repo ?? io.cwd, io.env);
  try {
    // A short name is the ref git would take for it (`v1` → refs/tags/v1 when that tag exists,
    // `main` → refs/heads/main), as `git rev-parse` picks; one that names no ref now (a deleted
    // branch) is refs/heads/NAME.
    const only = (values.ref as unknown as string[] | undefined)?.map((r) => store.refs.refArgument(r));
    const result = await runLogCheck(store, new History(store), { publicKeys, logRef: values.log, remote: values.remote ?? null, only, checkpoint, everySignature: values['every-signature'] === true });
    const trusted = !result.findings.some((f) => f.code === 'LOG_SIGNATURE' || f.code === 'LOG_FORKED');
    if (checkpointFile && trusted && result.tip) {
      const tmp = `${checkpointFile}.tmp`;
      writeFileSync(tmp, `${JSON.stringify({ commit: result.tip, seq: result.entries - 1 })}\n`);
      renameSync(tmp, checkpointFile);
    }
    const header = `receipt-gate verify-log: ${result.entries} entries up to ${result.tip ? short(result.tip) : '(none)'}; ${result.refs.length} ref${result.refs.length === 1 ? '' : 's'} checked (${result.refs.map((r) => r.ref).join(', ') || 'none'})`;
    const outcome = findingsOutcome('verify-log', result.findings, { header });
    const logRef = values.log ?? 'refs/receipt-gate/log';
    io.stdout(format === 'json' ? logJson(outcome, result, logRef) : format === 'text' ? logText(outcome, result) : renderOutcome(format, outcome, VERSION));
    return exitCodeOf(outcome.verdict);
  } finally {
    store.close();
  }
}


/** The terminal form: the header, each acknowledgement of the log, the findings, the verdict. */
function logText(outcome: Outcome, result: VerifyLogResult): string {
  const acks = (result.acknowledgements ?? []).map(
    (a) =>
      `acknowledgement #${a.seq} (${short(a.commit)}) by ${printable(a.identity)}${a.account && a.account !== a.identity ? ` (account ${printable(a.account)})` : ''} at ${a.time}: ${printable(a.reason)} — ${a.refs
        .map((r) => `${r.ref} accepted at ${r.accepted === ZERO_OID ? '(absent)' : short(r.accepted)}, ${r.findings.length} finding${r.findings.length === 1 ? '' : 's'}`)
        .join('; ')}`,
  );
  const rest = renderText({ ...outcome, header: undefined });
  return `${[printable(outcome.header ?? ''), ...acks].join('\n')}\n${rest}`;
}

function logJson(outcome: Outcome, result: VerifyLogResult, logRef: string): string {
  const log: Record<string, unknown> = { ref: logRef, entries: result.entries };
  if (result.tip) log.tip = result.tip;
  if (result.genesis) log.genesis = result.genesis;
  const doc = {
    verdict: outcome.verdict,
    findings: sortFindings(outcome.findings).map(jsonFinding),
    log,
    refs: result.refs,
    acknowledgements: result.acknowledgements ?? [],
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function readPublicKey(path: string, label: string) {
  let pem: string;
  try {
    pem = readFileSync(path, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --pub ${label}: ${(err as Error).message}`);
  }
  try {
    return loadPublicKey(pem, `--pub ${label}`);
  } catch (err) {
    if (err instanceof KeyError) throw new UsageError(err.message);
    throw err;
  }
}
