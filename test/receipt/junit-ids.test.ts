// Test ids round-trip: a failure read from a runner's JUnit XML is reported under the id the
// freeze file uses for that runner (docs/evidence.md, Freeze file), and that id, pasted into a
// freeze, matches the same test case.
//
// pytest is run for real here (Debian's python3-pytest): its JUnit XML, in both junit
// families, against pytest's own node ids (`--collect-only -q`, and the `FAILED` lines of `-rf`).
// Jest, Vitest, Go and Java are run for real in junit-real-runners.test.ts (test/ci-services.sh
// installs them); the reports below are the same runners' documented shapes (jest-junit's README
// examples, vitest's junit reporter test snapshot, gotestsum and go-junit-report output, Maven
// Surefire's TEST-*.xml) for the variants those runs do not produce, with names made up here.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseJUnit, summarize, testId } from '../../src/receipt/junit';

const PYTHON = '/usr/bin/python3';

function pytest(cwd: string, args: string[]): { status: number; stdout: string } {
  const r = spawnSync(PYTHON, ['-m', 'pytest', '-p', 'no:cacheprovider', '--color=no', ...args], { cwd, encoding: 'utf8', env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1' } });
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout };
}

function pytestProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rg-pytest-'));
  mkdirSync(join(dir, 'tests', 'sub'), { recursive: true });
  writeFileSync(join(dir, 'tests', '__init__.py'), '');
  writeFileSync(join(dir, 'tests', 'sub', '__init__.py'), '');
  writeFileSync(
    join(dir, 'tests', 'test_alloc.py'),
    [
      'import pytest',
      '',
      'def test_sum():',
      '    assert sum([1, 2]) == 3',
      '',
      'def test_remainder():',
      '    assert 10 // 3 == 4',
      '',
      '@pytest.mark.parametrize("total,parts", [(100, 3), (7, 2), (5, "x y")])',
      'def test_split(total, parts):',
      '    assert isinstance(parts, int) and total % parts == 1',
      '',
      'class TestTies:',
      '    def test_stable(self):',
      '        assert [1, 1] == [1, 1]',
      '',
      '    def test_swapped(self):',
      '        assert [1, 2] == [2, 1]',
      '',
      '    class TestNested:',
      '        def test_deep(self):',
      '            assert False',
      '',
    ].join('\n'),
  );
  writeFileSync(join(dir, 'tests', 'sub', 'test_money.py'), 'def test_cents():\n    assert round(0.1 + 0.2, 2) == 0.31\n');
  // A module outside a package, at the root.
  writeFileSync(join(dir, 'test_root.py'), 'def test_top():\n    assert True\n');
  return dir;
}

for (const family of ['xunit2', 'xunit1'] as const) {
  test(`pytest (${family}): every id is pytest's node id, failures are reported as pytest names them, and they match a freeze`, () => {
    const dir = pytestProject();
    try {
      const collected = pytest(dir, ['--collect-only', '-q']);
      const nodeIds = collected.stdout.split('\n').filter((l) => l.includes('::'));
      assert.is(nodeIds.length, 10, collected.stdout);
      const ran = pytest(dir, ['-q', '-rf', '-o', `junit_family=${family}`, '--junitxml=out.xml']);
      assert.is(ran.status, 1, 'some tests fail');
      const failedByPytest = ran.stdout
        .split('\n')
        .map((l) => /^FAILED (.+?)(?: - .*)?$/.exec(l)?.[1])
        .filter((x): x is string => x !== undefined)
        .sort();
      assert.equal(failedByPytest.length, 5, ran.stdout);

      const cases = parseJUnit(readFileSync(join(dir, 'out.xml'), 'utf8'), 'out.xml');
      assert.equal(cases.map(testId).sort(), [...nodeIds].sort());
      const reported = summarize(cases, []).unfrozenFailed;
      assert.equal(reported, failedByPytest);
      // Round trip: the reported ids, frozen, cover exactly those failures.
      assert.equal(summarize(cases, reported).unfrozenFailed, []);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/** Reported failures, and the round trip through a freeze. */
function roundTrip(xml: string, expectedFailed: string[]): void {
  const cases = parseJUnit(xml, 'sample.xml');
  assert.equal(summarize(cases, []).unfrozenFailed, [...expectedFailed].sort());
  assert.equal(summarize(cases, expectedFailed).unfrozenFailed, []);
}

test('jest-junit (defaults; sample): the full name, as `jest -t` matches it; with addFileAttribute, FILE::FULL NAME', () => {
  const defaults = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="2" failures="1" errors="0" time="0.4">
  <testsuite name="allocate" errors="0" failures="1" skipped="0" timestamp="2026-12-04T10:00:00" time="0.2" tests="2">
    <testcase classname="allocate positive totals sums to total" name="allocate positive totals sums to total" time="0.004">
    </testcase>
    <testcase classname="allocate ties stay put" name="allocate ties stay put" time="0.003">
      <failure>Error: expect(received).toEqual(expected)</failure>
    </testcase>
  </testsuite>
</testsuites>`;
  roundTrip(defaults, ['allocate ties stay put']);
  const withFile = defaults.replace(/<testcase /g, '<testcase file="src/__tests__/allocate.test.js" ');
  roundTrip(withFile, ['src/__tests__/allocate.test.js::allocate ties stay put']);
});

test('vitest (sample): FILE::SUITE > NAME', () => {
  const xml = `<?xml version="1.0" encoding="UTF-8" ?>
<testsuites name="vitest tests" tests="3" failures="1" errors="0" time="0.02">
    <testsuite name="src/allocate.test.ts" timestamp="2026-12-04T10:00:00.000Z" hostname="ci" tests="3" failures="1" errors="0" skipped="0" time="0.01">
        <testcase classname="src/allocate.test.ts" name="sums to total" time="0.001">
        </testcase>
        <testcase classname="src/allocate.test.ts" name="ties &gt; stay put" time="0.002">
            <failure message="expected [ 2, 1 ] to deeply equal [ 1, 2 ]" type="AssertionError">
AssertionError: expected [ 2, 1 ] to deeply equal [ 1, 2 ]
 ❯ src/allocate.test.ts:12:20
            </failure>
        </testcase>
        <testcase classname="src/allocate.test.ts" name="ties &gt; nested &gt; same seed" time="0.001">
        </testcase>
    </testsuite>
</testsuites>`;
  roundTrip(xml, ['src/allocate.test.ts::ties > stay put']);
});

test('Go (samples): IMPORT/PATH::TestName/subtest, from gotestsum and from go-junit-report', () => {
  const gotestsum = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites tests="3" failures="2" errors="0" time="0.012000">
	<testsuite tests="3" failures="2" time="0.011000" name="example.com/alloc/split" timestamp="2026-12-04T10:00:00Z">
		<properties>
			<property name="go.version" value="go1.22.3 linux/amd64"></property>
		</properties>
		<testcase classname="example.com/alloc/split" name="TestSum" time="0.000000"></testcase>
		<testcase classname="example.com/alloc/split" name="TestTies" time="0.001000">
			<failure message="Failed" type="">=== RUN   TestTies</failure>
		</testcase>
		<testcase classname="example.com/alloc/split" name="TestTies/equal_weights" time="0.000000">
			<failure message="Failed" type="">split_test.go:31: got [2 1]</failure>
		</testcase>
	</testsuite>
</testsuites>`;
  roundTrip(gotestsum, ['example.com/alloc/split::TestTies', 'example.com/alloc/split::TestTies/equal_weights']);
  // go-junit-report names the classname by the package's last element; the suite keeps the path.
  const goJunitReport = gotestsum.replace(/classname="example.com\/alloc\/split"/g, 'classname="split"');
  roundTrip(goJunitReport, ['example.com/alloc/split::TestTies', 'example.com/alloc/split::TestTies/equal_weights']);
});

test('JUnit for Java (Maven Surefire sample): com.example.ClassTest::method', () => {
  const xml = `<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xsi:noNamespaceSchemaLocation="https://maven.apache.org/surefire/maven-surefire-plugin/xsd/surefire-test-report-3.0.xsd" version="3.0" name="com.example.alloc.AllocatorTest" time="0.05" tests="2" errors="0" skipped="0" failures="1">
  <properties>
    <property name="java.version" value="17.0.9"/>
  </properties>
  <testcase name="sumsToTotal" classname="com.example.alloc.AllocatorTest" time="0.01"/>
  <testcase name="tiesStayPut" classname="com.example.alloc.AllocatorTest" time="0.002">
    <failure message="expected: &lt;[1, 2]&gt; but was: &lt;[2, 1]&gt;" type="org.opentest4j.AssertionFailedError"><![CDATA[org.opentest4j.AssertionFailedError: expected: <[1, 2]> but was: <[2, 1]>]]></failure>
  </testcase>
</testsuite>`;
  roundTrip(xml, ['com.example.alloc.AllocatorTest::tiesStayPut']);
});

test.run();
