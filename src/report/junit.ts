// JUnit XML, the report format every CI system shows as test results (GitLab's
// artifacts:reports:junit, Jenkins, Azure). One test case per finding, named by the rule and
// the path; closing and hold findings are failures, info findings pass. A run without findings
// is one passing case; a setup error is one failing case that says why nothing was checked.

import type { Finding } from '../findings';
import { printable, quoteRefName } from '../quote';
import type { SetupFailure } from './failure';
import { sortFindings } from './order';
import type { Outcome } from './outcome';
import { sentence, verdictLine } from './text';

/** Text for XML 1.0 character data and attribute values: markup escaped, and characters XML
 * cannot hold at all (most C0 controls, lone surrogates, U+FFFE/U+FFFF) written as escapes. */
export function xmlText(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\r/g, '&#13;')
    .replace(/\n/g, '&#10;')
    .replace(/\t/g, '&#9;');
}

interface Case {
  classname: string;
  name: string;
  failure?: { type: string; message: string; body: string };
}

function caseOf(f: Finding): Case {
  const where = f.path ?? (f.ref ? quoteRefName(f.ref) : 'repository');
  const text = `${sentence(f.message)} Fix: ${sentence(f.fix)}`;
  const body = [text, f.ref ? `ref: ${quoteRefName(f.ref)}` : null, f.commit ? `commit: ${f.commit}` : null, f.path !== undefined ? `path: ${f.path}` : null]
    .filter((x): x is string => x !== null)
    .join('\n');
  return {
    classname: f.context !== undefined ? `receipt-gate.${f.context}.${f.code}` : `receipt-gate.${f.code}`,
    name: `${f.code} ${where}`,
    ...(f.severity === 'info' ? {} : { failure: { type: f.severity === 'hold' ? 'hold' : f.code, message: text, body } }),
  };
}

function suite(name: string, cases: Case[], properties: Record<string, string>): string {
  const failures = cases.filter((c) => c.failure).length;
  const lines = [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="receipt-gate" tests="${cases.length}" failures="${failures}" errors="0">`,
    `  <testsuite name="${xmlText(name)}" tests="${cases.length}" failures="${failures}" errors="0" skipped="0">`,
    '    <properties>',
    ...Object.entries(properties).map(([k, v]) => `      <property name="${xmlText(k)}" value="${xmlText(v)}"/>`),
    '    </properties>',
  ];
  for (const c of cases) {
    const open = `    <testcase classname="${xmlText(c.classname)}" name="${xmlText(c.name)}"`;
    if (!c.failure) {
      lines.push(`${open}/>`);
      continue;
    }
    lines.push(`${open}>`);
    lines.push(`      <failure type="${xmlText(c.failure.type)}" message="${xmlText(c.failure.message)}">${xmlBody(c.failure.body)}</failure>`);
    lines.push('    </testcase>');
  }
  lines.push('  </testsuite>', '</testsuites>');
  return `${lines.join('\n')}\n`;
}

/** Character data keeps its line breaks (they read well in a CI's test view). */
function xmlBody(text: string): string {
  return xmlText(text).replace(/&#10;/g, '\n');
}

export function toJunit(outcome: Outcome): string {
  const cases = sortFindings(outcome.findings).map(caseOf);
  if (cases.length === 0) cases.push({ classname: 'receipt-gate.verdict', name: `verdict ${outcome.verdict}` });
  return suite(`receipt-gate ${outcome.command}`, cases, {
    verdict: outcome.verdict,
    summary: printable(verdictLine(outcome.verdict, outcome.findings, outcome.command)),
    ...(outcome.base ? { base: outcome.base } : {}),
    ...(outcome.head ? { head: outcome.head } : {}),
  });
}

export function junitFailure(failure: SetupFailure): string {
  return suite(
    `receipt-gate ${failure.command}`,
    [
      {
        classname: 'receipt-gate.setup',
        name: failure.exitCode === 2 ? 'setup: nothing was checked' : 'INTERNAL_ERROR: the gate failed closed',
        failure: { type: failure.exitCode === 2 ? 'setup' : 'INTERNAL_ERROR', message: failure.message, body: failure.message },
      },
    ],
    { error: failure.message },
  );
}
