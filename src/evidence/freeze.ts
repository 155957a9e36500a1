// The freeze file (freeze.json): tests whose failures are tolerated until a date, for a reason
// from the policy's closed set. An absent file freezes nothing. Valid, unexpired rows are listed
// (FREEZE_ACTIVE, info) and do not change the verdict; an expired row closes it, whoever pushes.

import { finding, type Finding } from '../findings';
import { sha256Hex } from '../hash';
import { plural } from '../wording';
import { dateOf, dayNumber, todayNumber } from './dates';
import { toPlain } from './pyjson';
import { anOwner, readJsonEvidence, schemaCheck, type FileRole } from './read';
import type { FreezeFileState, FreezeRow, Policy, RuleContext } from './types';

export interface FreezeFileCheck extends FreezeFileState {
  findings: Finding[];
}

/** Everything a row is judged against. */
interface RowRules {
  path: string;
  reasons: string[];
  maxDays: number;
  owner: string;
  today: number;
  todayText: string;
}

export async function checkFreezeFile(ctx: RuleContext): Promise<FreezeFileCheck> {
  const { policy } = ctx;
  const none: FreezeFileCheck = { findings: [], freezeFileSha256: null, active: [], expired: [] };
  if (!policy.freeze) return none;
  const { path } = policy.freeze;
  const role = freezeRole(policy, path);

  const read = await readJsonEvidence(ctx.atNew, path, role, policy.limits.maxEvidenceBytes, ctx.deadline);
  if (read.kind === 'missing') return none; // nothing frozen
  if (read.kind === 'failed') {
    const freezeFileSha256 = read.bytes ? sha256Hex(read.bytes, ctx.deadline) : null;
    return { ...none, findings: read.findings, freezeFileSha256 };
  }

  const freezeFileSha256 = sha256Hex(read.bytes, ctx.deadline);
  const plain = toPlain(read.value, ctx.deadline);
  const { findings, pointers: badPointers } = schemaCheck(role, path, 'freeze.schema.json', plain, ctx.deadline);
  const out: FreezeFileCheck = { findings, freezeFileSha256, active: [], expired: [] };
  const frozen = isObject(plain) ? plain.frozen : undefined;
  if (!Array.isArray(frozen)) return out;

  const rules: RowRules = {
    path,
    reasons: policy.freeze.reasons,
    maxDays: policy.freeze.maxDays,
    owner: anOwner(policy),
    today: todayNumber(ctx.today),
    todayText: ctx.today,
  };
  const firstIndexOfId = new Map<string, number>();
  frozen.forEach((row: unknown, i: number) => {
    ctx.deadline.tick();
    if (!isObject(row)) return;
    const at = `/frozen/${i}`;
    const schemaClean = !badPointers.some((p) => p === at || p.startsWith(at + '/'));
    checkRow(row, i, schemaClean, firstIndexOfId, rules, out);
  });
  return out;
}

/**
 * The FREEZE_EXPIRED findings of the freeze file alone, exactly as checkFreezeFile gives them
 * (same rows, same order, same words): what the calendar changes in a freeze file whose bytes
 * were judged in full before (an untouched context, src/rules/contexts.ts). The file is read and
 * parsed, as there; it is not hashed or validated, and no other row rule is applied, since none
 * of that changes which rows have expired. `seen` keeps what one blob's bytes say about expiry
 * (by blob oid and size limit), so contexts whose freeze files are one blob parse it once.
 */
export async function expiredFreezeFindings(ctx: RuleContext, seen?: Map<string, readonly ExpiryRow[]>): Promise<Finding[]> {
  const { policy } = ctx;
  if (!policy.freeze) return [];
  const { path } = policy.freeze;
  const rows = await expiryRows(ctx, path, seen);
  const today = todayNumber(ctx.today);
  const owner = anOwner(policy);
  const out: Finding[] = [];
  for (const row of rows) {
    ctx.deadline.tick();
    if (row.expires >= today) continue;
    out.push(expiredFinding(rowLabel(path, row.index, row.id), row.expires, path, owner, ctx.today));
  }
  return out;
}

/** A row of a freeze file whose `expires` is a date: its index, its id (when a string) and its
 * last day. */
export interface ExpiryRow {
  index: number;
  id: string | undefined;
  expires: number;
}

/** The rows of the freeze file at `path` that have a last day, in order; none when the file is
 * missing, unreadable, over the size limit or not JSON, or has no `frozen` array. */
async function expiryRows(ctx: RuleContext, path: string, seen: Map<string, readonly ExpiryRow[]> | undefined): Promise<readonly ExpiryRow[]> {
  const { policy } = ctx;
  const maxBytes = policy.limits.maxEvidenceBytes;
  let key: string | null = null;
  if (seen) {
    const entry = await ctx.atNew.stat(path);
    if (entry.kind === 'file' && entry.oid !== undefined) {
      key = `${entry.oid}\0${maxBytes}`;
      const known = seen.get(key);
      if (known !== undefined) return known;
    }
  }
  const rows: ExpiryRow[] = [];
  const read = await readJsonEvidence(ctx.atNew, path, freezeRole(policy, path), maxBytes, ctx.deadline);
  if (read.kind === 'ok') {
    const plain = toPlain(read.value, ctx.deadline);
    const frozen = isObject(plain) ? plain.frozen : undefined;
    if (Array.isArray(frozen)) {
      frozen.forEach((row: unknown, i: number) => {
        ctx.deadline.tick();
        if (!isObject(row)) return;
        const expires = typeof row.expires === 'string' ? dayNumber(row.expires) : null;
        if (expires === null) return;
        rows.push({ index: i, id: typeof row.id === 'string' ? row.id : undefined, expires });
      });
    }
  }
  if (key !== null) seen!.set(key, rows);
  return rows;
}

/** How messages name row i of the freeze file. */
function rowLabel(path: string, i: number, id: string | undefined): string {
  return `${path} /frozen/${i}${id !== undefined ? ` (${JSON.stringify(id)})` : ''}`;
}

function expiredFinding(label: string, expires: number, path: string, owner: string, todayText: string): Finding {
  return finding('FREEZE_EXPIRED', {
    path,
    message: `${label} expired: its last day was ${dateOf(expires)} and today is ${todayText}.`,
    fix: `${owner} removes the expired entry with \`receipt-gate freeze prune\`, once the test is fixed or re-frozen with a fresh reason`,
  });
}

function freezeRole(policy: Policy, path: string): FileRole {
  return {
    code: 'FREEZE_INVALID',
    what: 'freeze file',
    notA: 'not a valid freeze file',
    fix: `${anOwner(policy)} fixes ${path} to match schemas/freeze.schema.json (\`receipt-gate freeze add\` writes valid rows)`,
  };
}

/** Judges one row (`/frozen/i`): its id once, its reason, its window, its expiry; a row with no
 * problem is active. Adds to `out`. */
function checkRow(
  row: Record<string, unknown>,
  i: number,
  schemaClean: boolean,
  firstIndexOfId: Map<string, number>,
  rules: RowRules,
  out: FreezeFileCheck,
): void {
  const id = typeof row.id === 'string' ? row.id : undefined;
  const label = rowLabel(rules.path, i, id);
  const problems: Finding[] = [];

  if (id !== undefined && id !== '') {
    const first = firstIndexOfId.get(id);
    if (first !== undefined) {
      problems.push(
        finding('FREEZE_INVALID', {
          path: rules.path,
          message: `${label} freezes the same id as /frozen/${first}; each id may appear once.`,
          fix: `${rules.owner} merges the two rows of ${JSON.stringify(id)} in ${rules.path} into one`,
        }),
      );
    } else {
      firstIndexOfId.set(id, i);
    }
  }

  if (typeof row.reason === 'string' && !rules.reasons.includes(row.reason)) {
    problems.push(
      finding('FREEZE_REASON', {
        path: rules.path,
        message: `${label} gives reason ${JSON.stringify(row.reason)}, which is not one of the policy's freeze reasons (${rules.reasons.join(', ')}).`,
        fix: `${rules.owner} uses one of ${rules.reasons.join(', ')} in ${rules.path}, or adds the reason to freeze.reasons in the policy`,
      }),
    );
  }

  const expires = typeof row.expires === 'string' ? dayNumber(row.expires) : null;
  const added = typeof row.added === 'string' ? dayNumber(row.added) : null;
  if (expires !== null) {
    const window = windowFinding(label, expires, added, row.added === undefined, rules);
    if (window) problems.push(window);
    if (expires < rules.today) {
      if (id !== undefined) out.expired.push({ id, expires: dateOf(expires) });
      problems.push(expiredFinding(label, expires, rules.path, rules.owner, rules.todayText));
    }
  }
  out.findings.push(...problems);

  if (schemaClean && problems.length === 0 && id !== undefined && expires !== null && typeof row.reason === 'string') {
    const entry: FreezeRow = { id, reason: row.reason, expires: dateOf(expires) };
    if (typeof row.owner === 'string') entry.owner = row.owner;
    if (added !== null) entry.added = dateOf(added);
    out.active.push(entry);
    out.findings.push(
      finding('FREEZE_ACTIVE', {
        severity: 'info',
        path: rules.path,
        message: `${id} is frozen (${row.reason}) until ${dateOf(expires)} (${expires === rules.today ? 'today is its last day' : `${plural(expires - rules.today, 'day')} left`}).`,
        fix: `nothing to do now; fix the test, and ${rules.owner} removes the row by ${dateOf(expires)}, after which the freeze closes the gate`,
      }),
    );
  }
}

/** FREEZE_WINDOW: `added` after `expires`, a window over maxDays, or (no `added`) an expiry
 * more than maxDays after today. */
function windowFinding(label: string, expires: number, added: number | null, noAdded: boolean, rules: RowRules): Finding | null {
  const { path, maxDays, today } = rules;
  if (added !== null && added > expires) {
    return finding('FREEZE_WINDOW', {
      path,
      message: `${label} was added on ${dateOf(added)}, after it expires (${dateOf(expires)}).`,
      fix: `${rules.owner} corrects the dates in ${path} so that "added" is on or before "expires"`,
    });
  }
  if (added !== null && expires - added > maxDays) {
    return finding('FREEZE_WINDOW', {
      path,
      message: `${label} spans ${plural(expires - added, 'day')} (${dateOf(added)} to ${dateOf(expires)}), more than the policy's maxDays of ${maxDays}.`,
      fix: `${rules.owner} shortens the freeze: "expires" ${dateOf(added + maxDays)} or earlier; fix the test rather than extend the freeze`,
    });
  }
  if (noAdded && expires - today > maxDays) {
    return finding('FREEZE_WINDOW', {
      path,
      message: `${label} expires on ${dateOf(expires)}, ${plural(expires - today, 'day')} after today (${rules.todayText}), more than the policy's maxDays of ${maxDays}.`,
      fix: `${rules.owner} shortens the freeze: "expires" ${dateOf(today + maxDays)} or earlier`,
    });
  }
  return null;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
