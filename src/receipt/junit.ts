// JUnit XML results, the format pytest (--junitxml), jest (jest-junit), vitest (--reporter=junit),
// Node's test runner (--test-reporter=junit) and most other runners write. Parsed with
// fast-xml-parser; the receipt records which frozen tests passed anyway (reported, never used to
// unfreeze) and which tests outside the freeze failed (each closes the verdict).
//
// A failed test is reported under the id the freeze file uses for its runner (docs/evidence.md,
// Freeze file), so it can be pasted into `freeze add --id`:
//   pytest        the node id: tests/test_x.py::TestClass::test_name[param]
//   jest-junit    FILE::FULL NAME with jest-junit's addFileAttribute, else the full name
//                 (describe blocks and title, as `jest -t` matches it)
//   vitest        FILE::SUITE > NAME (vitest's classname is the file)
//   gotestsum     IMPORT/PATH::TestName/subtest
//   JUnit (Java)  com.example.ClassTest::method (Maven Surefire, Gradle)
//   others        CLASSNAME::NAME, or NAME without a classname

import { XMLParser, XMLValidator } from 'fast-xml-parser';

export type TestStatus = 'passed' | 'failed' | 'skipped';

/** Which runner wrote the report, as far as its shape says: pytest names its suite `pytest`;
 * jest-junit and vitest name the root `jest tests` and `vitest tests` (their defaults); Go's
 * converters (gotestsum, go-junit-report) give each package's suite a `go.version` property
 * and name it by the package's import path. */
export type Runner = 'pytest' | 'jest' | 'vitest' | 'go' | 'other';

export interface TestCase {
  name: string;
  classname: string | null;
  file: string | null;
  status: TestStatus;
  runner: Runner;
  /** The name of the innermost <testsuite> around it (a Go package's import path). */
  suite: string | null;
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
    // jest-junit writes a test outside any describe as ` title` (its `{classname} {title}` with an
    // empty classname); trimmed, the name is Jest's full name.
    trimValues: true,
    htmlEntities: false,
    isArray: (tag) => tag === 'testsuite' || tag === 'testcase' || tag === 'testsuites',
  });
  const doc = parser.parse(xml) as Node;
  if (!('testsuites' in doc) && !('testsuite' in doc)) {
    throw new JUnitError(`${label}: no <testsuites> or <testsuite> element; is this a JUnit XML report?`);
  }
  const cases: TestCase[] = [];
  collect(doc, cases, 'other', null);
  return cases;
}

/** The runner a <testsuites> or <testsuite> element names (its default name), else `inherited`. */
function runnerOf(key: string, node: unknown, inherited: Runner): Runner {
  const name = attr(node, 'name');
  if (key === 'testsuites' && name === 'jest tests') return 'jest';
  if (key === 'testsuites' && name === 'vitest tests') return 'vitest';
  if (key === 'testsuite' && name === 'pytest') return 'pytest';
  if (key === 'testsuite' && hasProperty(node, 'go.version')) return 'go';
  return inherited;
}

/** Whether a <testsuite> has <properties><property name="NAME" …/></properties>. */
function hasProperty(node: unknown, name: string): boolean {
  const properties = typeof node === 'object' && node !== null ? (node as Node).properties : undefined;
  const listed = typeof properties === 'object' && properties !== null ? (properties as Node).property : undefined;
  return (Array.isArray(listed) ? listed : [listed]).some((p) => attr(p, 'name') === name);
}

function collect(node: unknown, out: TestCase[], runner: Runner, suite: string | null): void {
  if (Array.isArray(node)) {
    for (const n of node) collect(n, out, runner, suite);
    return;
  }
  if (typeof node !== 'object' || node === null) return;
  for (const [key, value] of Object.entries(node as Node)) {
    if (key === 'testcase') {
      for (const tc of value as unknown[]) out.push(toCase(tc, runner, suite));
    } else if (key === 'testsuite' || key === 'testsuites') {
      for (const n of value as unknown[]) collect(n, out, runnerOf(key, n, runner), key === 'testsuite' ? attr(n, 'name') : suite);
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

function toCase(node: unknown, runner: Runner, suite: string | null): TestCase {
  const failed = has(node, 'failure') || has(node, 'error');
  const skipped = has(node, 'skipped');
  return {
    name: attr(node, 'name') ?? '',
    classname: attr(node, 'classname'),
    file: attr(node, 'file'),
    status: failed ? 'failed' : skipped ? 'skipped' : 'passed',
    runner,
    suite,
  };
}

/**
 * pytest's node id from its JUnit attributes. pytest writes `classname` as the node id's path
 * without `.py`, `/` and `::` turned into dots (`tests.test_x.TestGroup` for
 * `tests/test_x.py::TestGroup`), and `name` as the function with its parameters. With `file`
 * (junit_family=xunit1) the module is known; without it, the trailing dotted parts that start
 * with an upper-case letter are classes (pytest collects classes named `Test*`) and the rest is
 * the module's path.
 */
export function pytestNodeId(tc: Pick<TestCase, 'name' | 'classname' | 'file'>): string {
  const { name, classname, file } = tc;
  if (!classname) return file ? `${file}::${name}` : name;
  const parts = classname.split('.');
  if (file && file.endsWith('.py')) {
    const module = file.slice(0, -'.py'.length).split('/');
    const prefix = module.join('.');
    if (classname === prefix) return `${file}::${name}`;
    if (classname.startsWith(`${prefix}.`)) return [file, ...classname.slice(prefix.length + 1).split('.'), name].join('::');
  }
  let k = parts.length;
  while (k > 1 && /^[A-Z]/.test(parts[k - 1]!)) k--;
  return [`${parts.slice(0, k).join('/')}.py`, ...parts.slice(k), name].join('::');
}

/** The id a test case is reported under: the one the freeze file uses for its runner. */
export function testId(tc: TestCase): string {
  switch (tc.runner) {
    case 'pytest':
      return pytestNodeId(tc);
    case 'jest':
      // jest-junit's classname repeats the full name by default; the file only with addFileAttribute.
      return tc.file ? `${tc.file}::${tc.name}` : tc.name;
    case 'go':
      // The suite is the package's import path (go-junit-report's classname is its last element).
      return `${tc.suite ?? tc.classname ?? ''}::${tc.name}`;
    default:
      if (tc.classname) return `${tc.classname}::${tc.name}`;
      return tc.file ? `${tc.file}::${tc.name}` : tc.name;
  }
}

/** The ids a freeze entry may use for a test case. Runners name tests differently: pytest's
 * node id `tests/test_x.py::TestC::test_y` (from `file`, or from a dotted `classname`
 * `tests.test_x.TestC`), `classname.name`, `classname::name`, jest's `classname name`, or the
 * bare name. */
export function candidateIds(tc: TestCase): string[] {
  const ids = new Set<string>([testId(tc)]);
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
      unfrozenFailed.add(testId(tc));
    }
  }
  const frozenPassed = frozen.filter((id) => {
    const statuses = frozenStatus.get(id);
    return statuses !== undefined && statuses.length > 0 && statuses.every((s) => s === 'passed');
  });
  return { frozenPassed: [...new Set(frozenPassed)].sort(), unfrozenFailed: [...unfrozenFailed].sort() };
}
