// SARIF 2.1.0 (OASIS): one run, one result per finding, `ruleId` the finding's code, the path
// as the location, the rules with their help text. GitHub code scanning, GitLab and most
// review tools read it. A setup error is a run with no results whose invocation failed.

import { refNameJson } from '../quote';
import type { Location, Log, ReportingDescriptor, Result, Run } from 'sarif';
import type { Finding, Severity } from '../findings';
import { POLICY_PATH } from '../evidence/types';
import { compareCodePoints } from '../code-points';
import { sortFindings } from './order';
import type { Outcome } from './outcome';
import type { SetupFailure } from './failure';
import { ruleHelp } from './rules';
import { sentence } from './text';

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';

const LEVEL: Record<Severity, Result.level> = { closed: 'error', hold: 'warning', info: 'note' };

/** A repository path as a relative URI reference: each segment percent-encoded, so `ä.txt`
 * and `a b` stay exact once decoded. */
export function pathUri(path: string): string {
  return path
    .split('/')
    .map((segment) => {
      try {
        return encodeURIComponent(segment);
      } catch {
        // A lone surrogate cannot be UTF-8 encoded; name it by its replacement character.
        return encodeURIComponent(segment.replace(/[\ud800-\udfff]/g, '\ufffd'));
      }
    })
    .join('/');
}

function location(f: Finding): Location {
  // Code scanning needs a file for every result; a finding on a ref (REF_PROTECTED, a
  // deadline) is placed on the policy that the rule enforces.
  const path = f.path ?? POLICY_PATH;
  const loc: Location = {
    physicalLocation: { artifactLocation: { uri: pathUri(path), uriBaseId: '%SRCROOT%' } },
  };
  if (f.ref) loc.logicalLocations = [{ name: refNameJson(f.ref), kind: 'ref' }];
  return loc;
}

function rule(code: string): ReportingDescriptor {
  const help = ruleHelp(code);
  return {
    id: code,
    name: code,
    shortDescription: { text: help.summary },
    fullDescription: { text: help.summary },
    help: { text: help.help },
  };
}

function driver(rules: ReportingDescriptor[], version: string): Run['tool'] {
  return { driver: { name: 'receipt-gate', version, semanticVersion: semver(version), rules } };
}

/** SARIF's semanticVersion must be a semantic version; a development build is 0.0.0-dev. */
function semver(version: string): string | undefined {
  return /^\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?(?:\+[0-9A-Za-z.-]+)?$/.test(version) ? version : undefined;
}

export function toSarif(outcome: Outcome, version: string): Log {
  const findings = sortFindings(outcome.findings);
  const codes = [...new Set(findings.map((f) => f.code))].sort(compareCodePoints);
  const results: Result[] = findings.map((f) => ({
    ruleId: f.code,
    ruleIndex: codes.indexOf(f.code),
    level: LEVEL[f.severity],
    kind: 'fail',
    message: { text: `${sentence(f.message)} Fix: ${sentence(f.fix)}` },
    locations: [location(f)],
    properties: {
      severity: f.severity,
      ...(f.ref ? { ref: refNameJson(f.ref) } : {}),
      ...(f.commit ? { commit: f.commit } : {}),
      ...(f.path !== undefined ? { path: f.path } : {}),
      ...(f.context !== undefined ? { context: f.context } : {}),
    },
  }));
  const run: Run = {
    tool: driver(codes.map(rule), version),
    invocations: [
      {
        executionSuccessful: true,
        exitCode: { eligible: 0, closed: 1, hold: 3 }[outcome.verdict],
        properties: { command: outcome.command, verdict: outcome.verdict },
      },
    ],
    results,
    properties: {
      verdict: outcome.verdict,
      base: outcome.base,
      head: outcome.head,
      identities: outcome.identities,
      ...(outcome.contexts ? { contexts: outcome.contexts } : {}),
    },
  };
  return { $schema: SARIF_SCHEMA_URI, version: '2.1.0', runs: [run] };
}

export function sarifFailure(failure: SetupFailure, version: string): Log {
  const run: Run = {
    tool: driver([], version),
    invocations: [
      {
        executionSuccessful: false,
        exitCode: failure.exitCode,
        toolExecutionNotifications: [{ level: 'error', message: { text: failure.message } }],
        properties: { command: failure.command, ...(failure.unguarded ? { unguarded: true } : {}) },
      },
    ],
    results: [],
    properties: { verdict: null, error: failure.message, base: failure.base ?? null, head: failure.head ?? null },
  };
  return { $schema: SARIF_SCHEMA_URI, version: '2.1.0', runs: [run] };
}

export function renderSarif(log: Log): string {
  return `${JSON.stringify(log, null, 2)}\n`;
}
