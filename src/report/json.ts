// The --format json object of docs/contract.md §3. Paths and messages are kept exactly (JSON's own
// escaping makes them safe to print); a setup error is the same object with an `error` member.

import { refNameJson } from '../quote';
import type { Finding, Identities, Severity } from '../findings';
import { sortFindings } from './order';
import type { Outcome, OutcomeContext } from './outcome';
import type { SetupFailure } from './failure';

export interface JsonFinding {
  code: string;
  severity: Severity;
  ref: string | null;
  commit: string | null;
  path: string | null;
  message: string;
  fix: string;
  /** Only with bounded contexts. */
  context?: string;
}

export function jsonFinding(f: Finding): JsonFinding {
  return {
    code: f.code,
    severity: f.severity,
    ref: f.ref === undefined ? null : refNameJson(f.ref),
    commit: f.commit ?? null,
    path: f.path ?? null,
    message: f.message,
    fix: f.fix,
    ...(f.context !== undefined ? { context: f.context } : {}),
  };
}

export interface JsonOutput {
  /** null when nothing was checked (a setup failure, exit 2): there is no verdict. */
  verdict: Outcome['verdict'] | null;
  findings: JsonFinding[];
  identities: Identities | null;
  base: string | null;
  head: string | null;
  error?: string;
  unguarded?: boolean;
  /** With bounded contexts: each context's verdict (over every ref of the run). */
  contexts?: OutcomeContext[];
}

export function toJson(outcome: Outcome): JsonOutput {
  return {
    verdict: outcome.verdict,
    findings: sortFindings(outcome.findings).map(jsonFinding),
    identities: outcome.identities,
    base: outcome.base,
    head: outcome.head,
    ...(outcome.contexts ? { contexts: outcome.contexts } : {}),
  };
}

/** Nothing was checked: no verdict (`"verdict": null`; every hook treats exit 2 as closed),
 * the reason in `error`. */
export function jsonFailure(failure: SetupFailure): JsonOutput {
  return {
    verdict: null,
    ...(failure.unguarded ? { unguarded: true } : {}),
    error: failure.message,
    findings: [],
    identities: null,
    base: failure.base ?? null,
    head: failure.head ?? null,
  };
}

export function renderJson(value: JsonOutput): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}
