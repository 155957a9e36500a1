// JUnit XML as the common runners write it: frozen tests that passed are reported, unfrozen
// failures are listed, and malformed or hostile XML is refused with a sentence.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { candidateIds, parseJUnit, summarize } from '../../src/receipt/junit';

// pytest --junitxml (xunit2: no file attribute; classes as dotted classname)
const PYTEST = `<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest" errors="1" failures="1" skipped="1" tests="5" time="0.9">
<testcase classname="tests.test_x" name="test_y" time="0.001" />
<testcase classname="tests.test_x.TestGroup" name="test_z" time="0.002"><failure message="AssertionError: 1 != 2">trace &amp; more</failure></testcase>
<testcase classname="tests.test_net" name="test_fetch" time="0.1"><error message="ConnectionError">boom</error></testcase>
<testcase classname="tests.test_net" name="test_skip" time="0"><skipped message="no network" type="pytest.skip" /></testcase>
<testcase classname="tests.test_x" name="test_param[a-1]" time="0.001" />
</testsuite></testsuites>`;

// jest-junit
const JEST = `<?xml version="1.0" encoding="UTF-8"?>
<testsuites name="jest tests" tests="2" failures="1">
  <testsuite name="allocate" tests="2" failures="1">
    <testcase classname="allocate splits evenly" name="allocate splits evenly" time="0.01"></testcase>
    <testcase classname="allocate keeps ties stable" name="allocate keeps ties stable" time="0.01">
      <failure>Error: expected [1,2] to equal [2,1]</failure>
    </testcase>
  </testsuite>
</testsuites>`;

// node --test --test-reporter=junit (nested suites)
const NODE = `<?xml version="1.0" encoding="utf-8"?>
<testsuites>
  <testsuite name="allocate" time="0.01" disabled="0" errors="0" tests="2" failures="0" skipped="0" hostname="ci">
    <testsuite name="ties" time="0.01" disabled="0" errors="0" tests="1" failures="0" skipped="0" hostname="ci">
      <testcase name="stable for a seed" time="0.001" classname="test"/>
    </testsuite>
    <testcase name="sums to total" time="0.001" classname="test"/>
  </testsuite>
</testsuites>`;

test('pytest: statuses and node ids', () => {
  const cases = parseJUnit(PYTEST, 'pytest.xml');
  assert.equal(
    cases.map((c) => [c.classname, c.name, c.status]),
    [
      ['tests.test_x', 'test_y', 'passed'],
      ['tests.test_x.TestGroup', 'test_z', 'failed'],
      ['tests.test_net', 'test_fetch', 'failed'],
      ['tests.test_net', 'test_skip', 'skipped'],
      ['tests.test_x', 'test_param[a-1]', 'passed'],
    ],
  );
  assert.ok(candidateIds(cases[0]).includes('tests/test_x.py::test_y'));
  assert.ok(candidateIds(cases[1]).includes('tests/test_x.py::TestGroup::test_z'));
  const s = summarize(cases, ['tests/test_x.py::test_y', 'tests/test_x.py::TestGroup::test_z', 'tests/test_net.py::test_skip', 'tests/test_gone.py::test_never_ran']);
  // Frozen and passed: reported. Frozen and failed or skipped, or absent: not "passed".
  assert.equal(s.frozenPassed, ['tests/test_x.py::test_y']);
  // The frozen failure is not an unfrozen failure; the error is.
  // Reported under pytest's node id, the id the freeze file uses.
  assert.equal(s.unfrozenFailed, ['tests/test_net.py::test_fetch']);
});

test('jest and node --test reports parse; nested suites are walked', () => {
  const jest = parseJUnit(JEST, 'jest.xml');
  assert.equal(jest.map((c) => c.status), ['passed', 'failed']);
  assert.equal(summarize(jest, ['allocate keeps ties stable']).unfrozenFailed, []);
  // jest-junit repeats the full name as the classname: reported once, as `jest -t` matches it.
  assert.equal(summarize(jest, []).unfrozenFailed, ['allocate keeps ties stable']);
  const node = parseJUnit(NODE, 'node.xml');
  assert.equal(node.map((c) => c.name).sort(), ['stable for a seed', 'sums to total']);
  assert.equal(summarize(node, ['stable for a seed']).frozenPassed, ['stable for a seed']);
});

test('a single <testsuite> root and a file attribute are understood', () => {
  const xml = '<testsuite name="s"><testcase classname="tests.test_a.TestA" name="test_b" file="tests/test_a.py"/></testsuite>';
  const [c] = parseJUnit(xml, 'one.xml');
  assert.ok(candidateIds(c).includes('tests/test_a.py::TestA::test_b'));
  assert.equal(summarize([c], ['tests/test_a.py::TestA::test_b']).frozenPassed, ['tests/test_a.py::TestA::test_b']);
});

test('a frozen id counts as passed only when every run of it passed (retries)', () => {
  const xml = '<testsuite><testcase classname="t" name="flaky"/><testcase classname="t" name="flaky"><failure/></testcase></testsuite>';
  const s = summarize(parseJUnit(xml, 'retry.xml'), ['t::flaky']);
  assert.equal(s.frozenPassed, []);
  assert.equal(s.unfrozenFailed, []);
});

test('malformed, foreign and entity-declaring XML is refused with the file named', () => {
  assert.throws(() => parseJUnit('<testsuite><testcase name="x"></testsuite>', 'broken.xml'), /broken\.xml: not well-formed XML/);
  assert.throws(() => parseJUnit('<coverage/>', 'cov.xml'), /cov\.xml: no <testsuites> or <testsuite>/);
  const bomb = '<?xml version="1.0"?><!DOCTYPE l [<!ENTITY a "aaaa"><!ENTITY b "&a;&a;&a;">]><testsuite><testcase name="&b;"/></testsuite>';
  assert.throws(() => parseJUnit(bomb, 'bomb.xml'), /bomb\.xml: a DOCTYPE or ENTITY declaration is not accepted/);
});

test.run();
