// The freeze file (freeze.json): tests whose failures are tolerated until a date, for a reason
// from the policy's closed set. An absent file freezes nothing. Valid, unexpired rows are listed
// (FREEZE_ACTIVE, info) and do not change the verdict; an expired row closes it, whoever pushes.

import { finding, type Finding } from '../findings';
import { sha256Hex } from '../hash';
import { dateOf, dayNumber, plural, todayNumber } from './dates';
import { toPlain } from './pyjson';
import { anOwner, readJsonEvidence, schemaCheck, type FileRole } from './read';
import type { EvidenceContext } from './types';

export interface FreezeRow {
  id: string;
  reason: string;
  expires: string;
  owner?: string;
  added?: string;
}

export interface FreezeFileCheck {
  findings: Finding[];
  /** SHA-256 of the freeze file's bytes; null when there is no (readable) freeze file. */
  freezeFileSha256: string | null;
  /** Rows that are valid and not expired. */
  active: FreezeRow[];
}

export async function checkFreezeFile(ctx: EvidenceContext): Promise<FreezeFileCheck> {
  const { policy } = ctx;
  const none: FreezeFileCheck = { findings: [], freezeFileSha256: null, active: [] };
  if (!policy.freeze) return none;
  const { path, reasons, maxDays } = policy.freeze;
  const owner = anOwner(policy);
  const role: FileRole = {
    code: 'FREEZE_INVALID',
    what: 'freeze file',
    notA: 'not a valid freeze file',
    fix: `fix ${path} to match schemas/freeze.schema.json (\`receipt-gate freeze add\` writes valid rows); ${owner} may change it`,
  };

  const read = await readJsonEvidence(ctx.atNew, path, role, policy.limits.maxEvidenceBytes);
  if (read.kind === 'missing') return none; // nothing frozen
  if (read.kind === 'failed') return { ...none, findings: read.findings };

  const freezeFileSha256 = sha256Hex(read.bytes);
  const plain = toPlain(read.value);
  const { findings, pointers: badPointers } = schemaCheck(role, path, 'freeze.schema.json', plain);
  const active: FreezeRow[] = [];
  const today = todayNumber(ctx.today);

  const frozen = isObject(plain) ? plain.frozen : undefined;
  if (!Array.isArray(frozen)) return { findings, freezeFileSha256, active };

  const firstIndexOfId = new Map<string, number>();
  frozen.forEach((row: unknown, i: number) => {
    if (!isObject(row)) return;
    const at = `/frozen/${i}`;
    const id = typeof row.id === 'string' ? row.id : undefined;
    const label = `${path} ${at}${id !== undefined ? ` (${JSON.stringify(id)})` : ''}`;
    let clean = !badPointers.some((p) => p === at || p.startsWith(at + '/'));

    if (id !== undefined && id !== '') {
      const first = firstIndexOfId.get(id);
      if (first !== undefined) {
        clean = false;
        findings.push(
          finding('FREEZE_INVALID', {
            path,
            message: `${label} freezes the same id as /frozen/${first}; each id may appear once.`,
            fix: `merge the two rows of ${JSON.stringify(id)} into one; ${owner} may change ${path}`,
          }),
        );
      } else {
        firstIndexOfId.set(id, i);
      }
    }

    if (typeof row.reason === 'string' && !reasons.includes(row.reason)) {
      clean = false;
      findings.push(
        finding('FREEZE_REASON', {
          path,
          message: `${label} gives reason ${JSON.stringify(row.reason)}, which is not one of the policy's freeze reasons (${reasons.join(', ')}).`,
          fix: `use one of ${reasons.join(', ')}; only ${owner} may add a reason to freeze.reasons in the policy`,
        }),
      );
    }

    const expires = typeof row.expires === 'string' ? dayNumber(row.expires) : null;
    const added = typeof row.added === 'string' ? dayNumber(row.added) : null;
    if (expires !== null) {
      if (added !== null && added > expires) {
        clean = false;
        findings.push(
          finding('FREEZE_WINDOW', {
            path,
            message: `${label} was added on ${dateOf(added)}, after it expires (${dateOf(expires)}).`,
            fix: `correct the dates so that "added" is on or before "expires"`,
          }),
        );
      } else if (added !== null && expires - added > maxDays) {
        clean = false;
        findings.push(
          finding('FREEZE_WINDOW', {
            path,
            message: `${label} spans ${plural(expires - added, 'day')} (${dateOf(added)} to ${dateOf(expires)}), more than the policy's maxDays of ${maxDays}.`,
            fix: `set "expires" to ${dateOf(added + maxDays)} or earlier; fix the test rather than extend the freeze`,
          }),
        );
      } else if (row.added === undefined && expires - today > maxDays) {
        clean = false;
        findings.push(
          finding('FREEZE_WINDOW', {
            path,
            message: `${label} expires on ${dateOf(expires)}, ${plural(expires - today, 'day')} after today (${ctx.today}), more than the policy's maxDays of ${maxDays}.`,
            fix: `set "expires" to ${dateOf(today + maxDays)} or earlier`,
          }),
        );
      }
      if (expires < today) {
        clean = false;
        findings.push(
          finding('FREEZE_EXPIRED', {
            path,
            message: `${label} expired: its last day was ${dateOf(expires)} and today is ${ctx.today}.`,
            fix: `${owner} removes the expired entry with \`receipt-gate freeze prune\`, once the test is fixed or re-frozen with a fresh reason`,
          }),
        );
      }
    }

    if (clean && id !== undefined && expires !== null && typeof row.reason === 'string') {
      const entry: FreezeRow = { id, reason: row.reason, expires: dateOf(expires) };
      if (typeof row.owner === 'string') entry.owner = row.owner;
      if (added !== null) entry.added = dateOf(added);
      active.push(entry);
      findings.push(
        finding('FREEZE_ACTIVE', {
          severity: 'info',
          path,
          message: `${id} is frozen (${row.reason}) until ${dateOf(expires)} (${expires === today ? 'today is its last day' : `${plural(expires - today, 'day')} left`}).`,
          fix: `nothing to do now; fix the test and remove the row by ${dateOf(expires)}, after which the freeze closes the gate`,
        }),
      );
    }
  });
  return { findings, freezeFileSha256, active };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}
