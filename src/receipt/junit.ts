// JUnit XML results, the format pytest (--junitxml), jest (jest-junit), vitest (--reporter=junit),
// Node's test runner (--test-reporter=junit) and most other runners write. Parsed with
// fast-xml-parser; the receipt records which frozen tests passed anyway (reported, never used to
// unfreeze) and which tests outside the freeze failed (each closes the verdict).

import { XMLParser, XMLValidator } from 'fast-xml-parser';

export type TestStatus = 'passed' | 'failed' | 'skipped';

export interface TestCase {
  name: string;
  classname: string | null;
  file: string | null;
  status: TestStatus;
}

export class JUnitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'JUnitError';
  }
}

type Node = Record<string, unknown>;

/** Every <testcase> in a JUnit XML document, wherever the suites nest it. */
export function parseJUnit(xml: string, label: string): TestCase[] {
  // A DOCTYPE could declare entities that expand without bound; test reports never need one.
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) {
    throw new JUnitError(`${label}: a DOCTYPE or ENTITY declaration is not accepted in JUnit results`);
  }
  const valid = XMLValidator.validate(xml);
  if (valid !== true) {
    throw new JUnitError(`${label}: not well-formed XML (line ${valid.err.line}, column ${valid.err.col}: ${valid.err.msg})`);
  }
  const parser = new XMLParser({
    ignoreAttributes: false,
    attributeNamePrefix: '@',
    parseTagValue: false,
    parseAttributeValue: false,
    processEntities: true,
    htmlEntities: false,
    isArray: (tag) => tag === 'testsuite' || tag === 'testcase' || tag === 'testsuites',
  });
  const doc = parser.parse(xml) as Node;
  if (!('testsuites' in doc) && !('testsuite' in doc)) {
    throw new JUnitError(`${label}: no <testsuites> or <testsuite> element; is this a JUnit XML report?`);
  }
  const cases: TestCase[] = [];
  collect(doc, cases);
  return cases;
}

function collect(node: unknown, out: TestCase[]): void {
  if (Array.isArray(node)) {
    for (const n of node) collect(n, out);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node as Node)) {
    if (key === 'testcase') {
      for (const tc of value as unknown[]) out.push(toCase(tc));
    } else if (key === 'testsuite' || key === 'testsuites') {
      collect(value, out);
    }
  }
}

function attr(node: unknown, name: string): string | null {
  if (typeof node !== 'object' || node === null) return null;
  const v = (node as Node)[`@${name}`];
  return typeof v === 'string' ? v : null;
}

function has(node: unknown, child: string): boolean {
  return typeof node === 'object' && node !== null && child in (node as Node);
}

function toCase(node: unknown): TestCase {
  const failed = has(node, 'failure') || has(node, 'error');
  const skipped = has(node, 'skipped');
  return {
    name: attr(node, 'name') ?? '',
    classname: attr(node, 'classname'),
    file: attr(node, 'file'),
    status: failed ? 'failed' : skipped ? 'skipped' : 'passed',
  };
}

/** The ids a freeze entry may use for a test case. Runners name tests differently: pytest's
 * node id `tests/test_x.py::TestC::test_y` (from `file`, or from a dotted `classname`
 * `tests.test_x.TestC`), `classname.name`, `classname::name`, jest's `classname name`, or the
 * bare name. */
export function candidateIds(tc: TestCase): string[] {
  const ids = new Set<string>();
  const { name, classname, file } = tc;
  if (file) ids.add(`${file}::${name}`);
  if (classname) {
    ids.add(`${classname}::${name}`);
    ids.add(`${classname}.${name}`);
    ids.add(`${classname} ${name}`);
    const parts = classname.split('.');
    for (let k = 1; k <= parts.length; k++) {
      const module = `${parts.slice(0, k).join('/')}.py`;
      const rest = parts.slice(k);
      ids.add([module, ...rest, name].join('::'));
      if (file && file === module) continue;
      if (file) ids.add([file, ...rest, name].join('::'));
    }
  }
  ids.add(name);
  return [...ids];
}

/** The id a test is reported under when no freeze entry names it. */
function displayId(tc: TestCase): string {
  if (tc.file) return `${tc.file}::${tc.name}`;
  if (tc.classname) return `${tc.classname}::${tc.name}`;
  return tc.name;
}

export interface JUnitSummary {
  /** Frozen ids every matching case of which passed (and at least one ran). */
  frozenPassed: string[];
  /** Failed cases that no frozen id names. */
  unfrozenFailed: string[];
}

export function summarize(cases: readonly TestCase[], frozen: readonly string[]): JUnitSummary {
  const frozenSet = new Set(frozen);
  const frozenStatus = new Map<string, TestStatus[]>();
  const unfrozenFailed = new Set<string>();
  for (const tc of cases) {
    const hits = candidateIds(tc).filter((id) => frozenSet.has(id));
    if (hits.length > 0) {
      for (const id of hits) frozenStatus.set(id, [...(frozenStatus.get(id) ?? []), tc.status]);
    } else if (tc.status === 'failed') {
      unfrozenFailed.add(displayId(tc));
    }
  }
  const frozenPassed = frozen.filter((id) => {
    const statuses = frozenStatus.get(id);
    return statuses !== undefined && statuses.length > 0 && statuses.every((s) => s === 'passed');
  });
  return { frozenPassed: [...new Set(frozenPassed)].sort(), unfrozenFailed: [...unfrozenFailed].sort() };
}
