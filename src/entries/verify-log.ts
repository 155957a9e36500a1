// `receipt-gate verify-log --pub KEY [--repo DIR] [--log REF] [--remote NAME] [--ref REF]...
// [--checkpoint FILE] [--format FORMAT]`: proves, offline, that every move of each protected
// ref since the push log began is a signed entry of it, in order, allowed by the gate, and that
// each ref's tip is the last entry's `new` (docs/push-log.md). Exit 0 when it holds, 1 with the
// findings when it does not, 2 when nothing could be checked.

import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parseCommandArgs } from '../args';
import { History } from '../git/history/history';
import { UsageError, type CliIO } from '../io';
import { runLogCheck, readCheckpoint } from '../pushlog/run';
import { KeyError, loadPublicKey } from '../receipt/dsse';
import { findingsOutcome, formatOption, renderOutcome, short } from '../report/index';
import { openRepository } from '../run/repository';
import { exitCodeOf } from '../verdict';
import { VERSION } from '../version';

const USAGE = 'receipt-gate verify-log --pub KEY [--pub OLDKEY]... [--repo DIR] [--log REF] [--remote NAME] [--ref REF]... [--checkpoint FILE] [--every-signature] [--format text|json|sarif|github|junit] [--json]';

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      pub: { type: 'string', multiple: true },
      repo: { type: 'string' },
      log: { type: 'string' },
      remote: { type: 'string' },
      ref: { type: 'string', multiple: true },
      checkpoint: { type: 'string' },
      'every-signature': { type: 'boolean' },
      json: { type: 'boolean' },
      format: { type: 'string' },
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
    const only = (values.ref as unknown as string[] | undefined)?.map((r) => (r.startsWith('refs/') ? r : `refs/heads/${r}`));
    const result = await runLogCheck(store, new History(store), { publicKeys, logRef: values.log, remote: values.remote ?? null, only, checkpoint, everySignature: values['every-signature'] === true });
    const trusted = !result.findings.some((f) => f.code === 'LOG_SIGNATURE' || f.code === 'LOG_FORKED');
    if (checkpointFile && trusted && result.tip) {
      const tmp = `${checkpointFile}.tmp`;
      writeFileSync(tmp, `${JSON.stringify({ commit: result.tip, seq: result.entries - 1 })}\n`);
      renameSync(tmp, checkpointFile);
    }
    const header = `receipt-gate verify-log: ${result.entries} entries up to ${result.tip ? short(result.tip) : '(none)'}; ${result.refs.length} ref${result.refs.length === 1 ? '' : 's'} checked (${result.refs.map((r) => r.ref).join(', ') || 'none'})`;
    io.stdout(renderOutcome(format, findingsOutcome('verify-log', result.findings, { header }), VERSION));
    return exitCodeOf(findingsOutcome('verify-log', result.findings).verdict);
  } finally {
    store.close();
  }
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
