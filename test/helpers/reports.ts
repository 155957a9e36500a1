// Independent readers of the machine reports: SARIF validated against the OASIS SARIF 2.1.0
// schema (the copy the SARIF SDK ships, checked with ajv and its formats), JUnit XML parsed by
// python's xml.etree.

import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Log } from 'sarif';

const ROOT = resolve(__dirname, '../..');

let validator: ReturnType<Ajv2020['compile']> | null = null;

/** Parses `text` as SARIF and validates it against the 2.1.0 schema; throws naming the errors. */
export function validSarif(text: string, what: string): Log {
  if (validator === null) {
    const candidates = ['linux', 'darwin', 'win32'].map((p) => join(ROOT, 'node_modules', '@microsoft', `sarif-multitool-${p}`, 'sarif-2.1.0.json'));
    const file = candidates.find(existsSync);
    if (!file) throw new Error(`no SARIF 2.1.0 schema: expected one of ${candidates.join(', ')} (npm ci installs @microsoft/sarif-multitool)`);
    const ajv = new Ajv2020({ allErrors: true, strict: false });
    addFormats(ajv);
    validator = ajv.compile(JSON.parse(readFileSync(file, 'utf8')));
  }
  if (text.trim() === '') throw new Error(`${what}: empty SARIF file`);
  const log = JSON.parse(text);
  if (!validator(log)) throw new Error(`${what}: invalid SARIF: ${JSON.stringify(validator.errors, null, 2)}`);
  return log as Log;
}

export interface Junit {
  tests: number;
  failures: number;
  cases: { name: string; failure: string | null }[];
}

/** JUnit read by python's standard XML parser (an independent, strict reader). */
export function pythonJunit(xml: string): Junit {
  const script =
    'import sys,json,xml.etree.ElementTree as ET\n' +
    'r=ET.fromstring(sys.stdin.buffer.read())\n' +
    's=r.find("testsuite")\n' +
    'print(json.dumps({"tests":int(s.get("tests")),"failures":int(s.get("failures")),"cases":[{"name":c.get("name"),"failure":(c.find("failure").get("message") if c.find("failure") is not None else None)} for c in s.findall("testcase")]}))\n';
  return JSON.parse(execFileSync('python3', ['-c', script], { input: xml }).toString()) as Junit;
}
