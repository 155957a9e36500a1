// `receipt-gate verify-receipt FILE [--ref REF] [--base REF] [--pub KEY] [--allow-unsigned] [--repo DIR] [--require-isolation]`
// What a merge bot runs before it merges: the signature, the commit, the freeze digest against
// the base, and the four merge facts. Exit 0 only when every fact holds; otherwise one line per
// failed fact and exit 1.

import type { KeyObject } from 'node:crypto';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseCommandArgs } from '../args';
import { today } from '../clock';
import { UsageError, type CliIO } from '../io';
import { printable } from '../quote';
import { short } from '../report/index';
import { EXIT } from '../verdict';
import { KeyError, loadPublicKey } from '../receipt/dsse';
import { resolveBase, resolveCommitSpec } from '../run/base';
import { openRepository } from '../run/repository';
import { openReceipt, receiptFailures, repositoryFacts, type FailedFact } from '../receipt/verify';
import { readNote, receiptFileName, receiptNotesRef, touchedContextNames } from '../receipt/contexts';
import type { ReceiptContext } from '../receipt/types';
import type { ContextPolicy, Policy } from '../evidence/types';
import { History } from '../git/history/history';
import type { ObjectStore } from '../git/store';

const USAGE =
  'receipt-gate verify-receipt FILE [--ref REF] [--base REF] [--pub KEY] [--allow-unsigned] [--repo DIR] [--now YYYY-MM-DD] [--require-isolation]\n' +
  '       receipt-gate verify-receipt --all [--dir DIR | --notes] [--ref REF] [--base REF] [--pub KEY] [--allow-unsigned] [--repo DIR] [--now YYYY-MM-DD] [--require-isolation]';
/** Receipts are small; a larger file is refused before it is read. */
const MAX_RECEIPT_BYTES = 16 * 1024 * 1024;

export async function run(args: string[], io: CliIO): Promise<number> {
  const parsed = parseCommandArgs(
    args,
    {
      ref: { type: 'string', description: 'the commit the receipt must be for (default HEAD)' },
      base: { type: 'string', description: "the branch whose policy judges (default: the policy's baseBranch, preferring refs/remotes/origin/<baseBranch>)" },
      pub: { type: 'string', description: "the public key the receipt's signature must verify with" },
      'allow-unsigned': { type: 'boolean', description: 'accept a receipt without a signature (every other fact is still checked)' },
      repo: { type: 'string', description: 'the repository to read (default: the current directory)' },
      now: { type: 'string', description: "today's date for the freeze expiry check (default: RECEIPT_GATE_NOW, else the clock, UTC)" },
      all: { type: 'boolean', description: 'check one receipt per bounded context REF touches, from --dir or --notes' },
      dir: { type: 'string', description: 'with --all: the folder holding receipt-<context>.json (default: the current directory)' },
      notes: { type: 'boolean', description: 'with --all: read the receipts from git notes (refs/notes/receipt-gate-<context>)' },
      'require-isolation': { type: 'boolean', description: 'refuse a receipt whose commands did not run in the bubblewrap sandbox' },
    },
    USAGE,
    io,
  );
  if (!parsed) return 0;
  const { values, positionals } = parsed;
  const all = values.all === true;
  if (all && positionals.length !== 0) throw new UsageError(`--all finds the receipts itself (in --dir DIR or, with --notes, in git notes): no FILE\nusage: ${USAGE}`);
  if (!all && positionals.length !== 1) throw new UsageError(`expected one receipt FILE, got ${positionals.length}\nusage: ${USAGE}`);
  if (!all && (values.dir !== undefined || values.notes)) throw new UsageError(`--dir and --notes go with --all\nusage: ${USAGE}`);
  if (values.dir !== undefined && values.notes) throw new UsageError(`--all reads receipts from --dir DIR or from --notes, not both\nusage: ${USAGE}`);
  const date = today(io, values.now);
  const publicKey = values.pub === undefined ? null : readPublicKey(values.pub, io);

  const store = await openRepository(values.repo ?? io.cwd, io.env);
  const refGiven = values.ref ?? 'HEAD';
  const commit = await resolveCommitSpec(store, refGiven, '--ref');
  const base = await resolveBase(store, values.base === undefined ? { kind: 'default' } : { kind: 'named', spec: values.base });
  if (base.policyCommit === null || base.tip === null) throw new UsageError('no base to compare the freeze file with: pass --base REF');
  const { policy } = base;
  if (!policy) throw new UsageError(`${base.name} (${short(base.tip!)}) has no valid .receipt-gate.json; nothing can be verified against it`);
  const at: VerifyAt = { store, policy, commit, refGiven, baseTip: base.tip!, baseName: base.name ?? base.tip!, baseDisplay: base.name ?? 'the base', date, publicKey, allowUnsigned: values['allow-unsigned'] === true, requireIsolation: values['require-isolation'] === true };

  if (!all) {
    const file = positionals[0]!;
    const verdict = await verifyOne(at, readReceiptFile(resolve(io.cwd, file), file));
    if (verdict.failures.length > 0) {
      for (const f of verdict.failures) io.stdout(`FAILED ${f.fact}: ${printable(f.reason)}\n`);
      io.stderr(`receipt-gate verify-receipt: ${printable(file)} is refused for ${printable(refGiven)} (${short(commit)}): ${verdict.failures.length} fact(s) failed; do not merge\n`);
      return EXIT.closed;
    }
    io.stdout(`${verdict.line}\n`);
    return 0;
  }

  // --all: the merge bot's rule. Every context the commit touches needs an eligible receipt for
  // this commit (a policy without contexts: the one repository receipt).
  const names: (string | null)[] = policy.contexts
    ? [...(await touchedContextNames({ store, history: new History(store), base, commit, refName: refGiven, today: date }))]
    : [null];
  const order = new Map((policy.contexts ?? []).map((c, i) => [c.name, i]));
  names.sort((x, y) => (order.get(x ?? '') ?? 0) - (order.get(y ?? '') ?? 0));
  if (names.length === 0) {
    io.stdout(`${printable(refGiven)} (${short(commit)}) touches no bounded context: no receipt is needed\n`);
    return 0;
  }
  let failed = 0;
  for (const name of names) {
    const label = name === null ? 'the repository' : `context ${name}`;
    const where = values.notes
      ? `the git note refs/notes/${receiptNotesRef(name)} on ${short(commit)}`
      : join(values.dir ?? '.', name === null ? 'receipt.json' : receiptFileName(name));
    const text = values.notes ? await readNote(store, receiptNotesRef(name), commit) : readReceiptFileOrNull(resolve(io.cwd, where), where);
    if (text === null) {
      failed++;
      io.stdout(`FAILED [${name ?? 'repository'}] receipt: ${label} is touched by ${printable(refGiven)} (${short(commit)}) but has no receipt (${printable(where)}); run receipt-gate receipt${name === null ? '' : ` --context ${name}`} for this commit\n`);
      continue;
    }
    const verdict = await verifyOne(at, text, name);
    if (verdict.failures.length > 0) {
      failed++;
      for (const f of verdict.failures) io.stdout(`FAILED [${name ?? 'repository'}] ${f.fact}: ${printable(f.reason)}\n`);
      continue;
    }
    io.stdout(`ok [${name ?? 'repository'}] ${verdict.line}\n`);
  }
  if (failed > 0) {
    io.stderr(`receipt-gate verify-receipt --all: ${failed} of ${names.length} touched context(s) lack an eligible receipt for ${printable(refGiven)} (${short(commit)}); do not merge\n`);
    return EXIT.closed;
  }
  io.stdout(`every touched context (${names.map((n) => n ?? 'repository').join(', ')}) has an eligible receipt for ${printable(refGiven)} (${short(commit)}): merge allowed\n`);
  return 0;
}

interface VerifyAt {
  store: ObjectStore;
  policy: Policy;
  commit: string;
  refGiven: string;
  baseTip: string;
  baseName: string;
  /** The base as the success line names it. */
  baseDisplay: string;
  date: string;
  publicKey: KeyObject | null;
  allowUnsigned: boolean;
  /** --require-isolation: refuse a receipt whose commands ran without a sandbox. */
  requireIsolation: boolean;
}

/** Every fact of one receipt; `expected` is the context --all looks for (undefined: whichever
 * context the receipt names). */
async function verifyOne(at: VerifyAt, text: string, expected?: string | null): Promise<{ failures: FailedFact[]; line: string }> {
  const opened = openReceipt(text, at.publicKey, at.allowUnsigned);
  const failures: FailedFact[] = [...opened.failures];
  let scope = '';
  if (opened.receipt) {
    const named = opened.receipt.context;
    const found = contextFact(at.policy, named, expected);
    if (found.failure) failures.push(found.failure);
    else {
      const policy = found.context?.policy ?? at.policy;
      if (found.context) scope = `context ${found.context.name} (${found.context.root})`;
      const facts = await repositoryFacts(at.store, policy, { commit: at.commit, refName: at.refGiven, base: at.baseTip, baseName: at.baseName, today: at.date });
      failures.push(...receiptFailures(opened.receipt, facts));
      if (at.requireIsolation && opened.receipt.isolation !== 'bwrap') {
        failures.push({ fact: 'isolation', reason: `the property and fixture commands ran without isolation (isolation ${opened.receipt.isolation ?? 'not recorded'}), and --require-isolation asks for a sandbox; make the receipt again where bubblewrap runs (apt-get install bubblewrap; receipt --require-isolation)` });
      }
    }
  }
  const how = opened.signed ? `signature verified (keyid ${opened.keyid?.slice(0, 16) ?? '?'})` : 'UNSIGNED (--allow-unsigned: the signature was not checked)';
  const covers = scope === '' ? `${printable(at.refGiven)} (${short(at.commit)})` : `${scope} at ${printable(at.refGiven)} (commit ${at.commit})`;
  const line = `receipt verified for ${covers} against ${printable(at.baseDisplay)} (${short(at.baseTip)}): ${how}; properties passed on seed ${opened.receipt?.property_seed ?? 'none recorded'}, ${opened.receipt?.fixtures.length ?? 0} fixture(s) match, evidence untouched, freeze digest equals the base's, verdict eligible, isolation ${opened.receipt?.isolation ?? 'none'}`;
  return { failures, line };
}

/** The `context` fact: the receipt covers a context the policy at the base declares, with the
 * same root (and the one --all looks for); a receipt without a context only where the policy
 * declares none. */
function contextFact(policy: Policy, named: ReceiptContext | undefined, expected: string | null | undefined): { context?: ContextPolicy; failure?: FailedFact } {
  const declared = policy.contexts;
  if (!named) {
    if (declared) return { failure: { fact: 'context', reason: `the receipt covers no bounded context, but the policy at the base declares contexts (${declared.map((c) => c.name).join(', ')}): each needs its own receipt (receipt --context NAME)` } };
    return {};
  }
  const context = declared?.find((c) => c.name === named.name);
  if (!context) return { failure: { fact: 'context', reason: `the receipt covers context ${named.name}, which the policy at the base does not declare` } };
  if (context.root !== named.root) return { failure: { fact: 'context', reason: `the receipt covers context ${named.name} at ${named.root}, but the policy at the base puts its root at ${context.root}` } };
  if (expected !== undefined && expected !== named.name) return { failure: { fact: 'context', reason: `the receipt covers context ${named.name}, not ${expected ?? 'the repository'}` } };
  return { context };
}

function readReceiptFile(path: string, file: string): string {
  try {
    const size = statSync(path).size;
    if (size > MAX_RECEIPT_BYTES) throw new UsageError(`${file} is ${size} bytes; a receipt is at most ${MAX_RECEIPT_BYTES}`);
    return readFileSync(path, 'utf8');
  } catch (err) {
    if (err instanceof UsageError) throw err;
    throw new UsageError(`cannot read the receipt ${file}: ${readFailure(err)}; pass the file 'receipt-gate receipt --out FILE' wrote`);
  }
}

/** --all: a missing receipt is a failed fact, not a usage error. */
function readReceiptFileOrNull(path: string, file: string): string | null {
  if (!existsSync(path)) return null;
  return readReceiptFile(path, file);
}

function readPublicKey(given: string, io: CliIO): KeyObject {
  let pem: string;
  try {
    pem = readFileSync(resolve(io.cwd, given), 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read --pub ${given}: ${readFailure(err)}; pass the public key 'receipt-gate keygen' wrote (PREFIX.pub)`);
  }
  // The private key must never reach the merge bot: refuse it rather than use its public half.
  if (/-----BEGIN [A-Z ]*PRIVATE KEY-----/.test(pem)) {
    throw new UsageError(
      `--pub ${given} is a private key; pass the public key (the .pub file 'receipt-gate keygen' wrote) and keep the private key as the signing CI's secret`,
    );
  }
  try {
    return loadPublicKey(pem, given);
  } catch (err) {
    throw new UsageError(err instanceof KeyError ? err.message : `cannot read --pub ${given}: ${(err as Error).message}`);
  }
}

/** Why a file could not be read, as a phrase (no errno dump). */
function readFailure(err: unknown): string {
  const code = (err as NodeJS.ErrnoException).code;
  if (code === 'ENOENT') return 'no such file';
  if (code === 'EACCES') return 'permission denied';
  if (code === 'EISDIR') return 'a directory, not a file';
  return err instanceof Error ? err.message : String(err);
}
