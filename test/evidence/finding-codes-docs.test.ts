// Every finding code is listed once (src/findings.ts) and documented: one row of docs/contract.md's
// findings table each (the push log's LOG_* codes: docs/push-log.md), no row for a code that does not exist, and a summary in src/report/rules.ts
// (SARIF, JUnit, explain).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FINDING_CODES } from '../../src/findings';
import { ruleHelp } from '../../src/report/rules';

const ROOT = join(__dirname, '..', '..');

test('each code is declared once', () => {
  assert.is(new Set(FINDING_CODES).size, FINDING_CODES.length);
});

test("docs/contract.md's findings table has exactly one row per code, and only those", () => {
  const contract = readFileSync(join(ROOT, 'docs/contract.md'), 'utf8');
  const rows = [...contract.matchAll(/^\| `([A-Z_]+)` \| (closed|hold|info)[^|]*\|/gm)].map((m) => m[1]!);
  const counts = new Map<string, number>();
  for (const code of rows) counts.set(code, (counts.get(code) ?? 0) + 1);
  // The push log's own codes are tabled in docs/push-log.md (§ verify-log), once each.
  const pushLog = readFileSync(join(ROOT, 'docs/push-log.md'), 'utf8');
  for (const code of FINDING_CODES) {
    if (code.startsWith('LOG_')) assert.is(pushLog.split(`\n| \`${code}\` |`).length - 1 >= 1, true, `${code}: a row in docs/push-log.md`);
    else assert.is(counts.get(code), 1, `${code}: rows in docs/contract.md`);
  }
  assert.equal(rows.filter((code) => !(FINDING_CODES as readonly string[]).includes(code)), [], 'rows for codes that do not exist');
});

test('the new codes say what happened, each with its severity in the table', () => {
  const contract = readFileSync(join(ROOT, 'docs/contract.md'), 'utf8');
  for (const [code, severity] of [['FIXTURE_INVALID', 'closed'], ['OBSERVATION_INVALID', 'closed'], ['PROPERTIES_FAILED', 'closed'], ['OBSERVATION_ARCHIVED', 'info']] as const) {
    assert.match(contract, new RegExp(`^\\| \`${code}\` \\| ${severity} \\|`, 'm'), code);
  }
});

test('every code has a summary and help in src/report/rules.ts', () => {
  for (const code of FINDING_CODES) {
    const help = ruleHelp(code);
    assert.ok(help.summary.length > 0 && help.help.length > 0, code);
    assert.is.not(help.summary, `receipt-gate rule ${code}.`, `${code} has its own entry, not the fallback`);
  }
});

test.run();
