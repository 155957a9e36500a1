// Test ids round-trip on real runners' output: Jest (with jest-junit), Vitest (its junit
// reporter), Go (gotestsum) and Java (Maven Surefire on JUnit 4) each run a tiny project with
// passing and failing tests, a nested describe, subtest or class and a parametrized case. Their
// JUnit XML goes through src/receipt/junit.ts; the expected ids are derived independently from
// the runner's own output (Jest's and Vitest's `--json` results, `go test -json` events, JUnit's
// own test descriptions through JUnitCore), per the id form docs/evidence.md gives for the
// runner. pytest is covered the same way in junit-ids.test.ts.
//
// The runners are installed by test/ci-services.sh (`npm test` runs it first): Jest, jest-junit
// and Vitest from the npm registry into /var/cache/receipt-gate-test/js-runners, outside the
// repository; Debian's golang-go, gotestsum, maven, its Surefire plugin and junit4. A missing
// runner fails the test, naming the fix. Go and Maven run offline: GOPROXY=off, GOPATH, GOCACHE
// and HOME in a temp dir; `mvn -o` on Debian's /usr/share/maven-repo.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { parseJUnit, summarize, testId, type TestCase } from '../../src/receipt/junit';

const JS_RUNNERS = '/var/cache/receipt-gate-test/js-runners';
const INSTALL = 'install the runners as root with: sudo test/ci-services.sh';
// Debian's Maven plugins and JUnit 4 (maven, libsurefire-java, libmaven-compiler-plugin-java,
// libmaven-resources-plugin-java, junit4), run offline from Debian's Maven repository.
const JAVA = {
  repo: '/usr/share/maven-repo',
  repoCheck: '/usr/share/maven-repo/org/apache/maven/plugins/maven-surefire-plugin/2.22.3',
  junit: '4.13.2',
  surefire: '2.22.3',
  compiler: '3.10.1',
  resources: '3.3.0',
  junitJar: '/usr/share/java/junit4.jar',
  hamcrestJar: '/usr/share/java/hamcrest-core.jar',
};

function runnerEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    // The runners' own settings come only from this test.
    if (k.startsWith('JEST_') || k.startsWith('VITEST') || k.startsWith('GO') || k === 'NODE_OPTIONS' || k === 'CI') continue;
    env[k] = v;
  }
  return { ...env, ...extra };
}

function run(cmd: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): { status: number; stdout: string; stderr: string } {
  const r = spawnSync(cmd, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (r.error) throw new Error(`${cmd} ${args.join(' ')}: ${r.error.message}; ${INSTALL}`);
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr };
}

function jsRunner(pkg: string, bin: string): string {
  const path = join(JS_RUNNERS, 'node_modules', pkg, bin);
  if (!existsSync(path)) throw new Error(`${path} is missing: the JUnit id tests need it; ${INSTALL}`);
  return path;
}

/** A small test file, the same for Jest and Vitest: two top-level tests (one fails), a describe
 * with a nested describe (fails) and a parametrized case (one of two fails). */
function jsProject(prefix: string, importLine: string, packageJson: object): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  mkdirSync(join(dir, 'src', 'money'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify(packageJson));
  writeFileSync(
    join(dir, 'src', 'alloc.test.js'),
    [
      importLine,
      "test('sums', () => { expect(1 + 2).toBe(3); });",
      "test('remainder', () => { expect(10 % 3).toBe(2); });",
      "describe('ties', () => {",
      "  test('stay put', () => { expect([1, 1]).toEqual([1, 1]); });",
      "  describe('when swapped', () => {",
      "    test('keeps order', () => { expect([1, 2]).toEqual([2, 1]); });",
      '  });',
      "  test.each([[1, 2], [3, 3]])('split %i into %i', (a, b) => { expect(a).toBe(b); });",
      '});',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(dir, 'src', 'money', 'cents.test.js'),
    [importLine, "describe('cents', () => { test('round', () => { expect(Math.round(0.1 * 3 * 100)).toBe(31); }); });", ''].join('\n'),
  );
  return dir;
}

interface JsonResults {
  testResults: { name: string; assertionResults: { ancestorTitles: string[]; title: string; fullName: string; status: string }[] }[];
}

interface Expected {
  all: string[];
  failed: string[];
}

function ids(cases: TestCase[]): Expected {
  return {
    all: cases.map(testId).sort(),
    failed: cases.filter((c) => c.status === 'failed').map(testId).sort(),
  };
}

/** The round trip: the parser's ids equal the runner's own, and each failing id, pasted into a
 * freeze, matches its test case (no unfrozen failure remains). */
function assertRoundTrip(cases: TestCase[], expected: Expected, runner: TestCase['runner']): void {
  assert.ok(cases.length > 0, 'the report has test cases');
  for (const c of cases) assert.is(c.runner, runner, `runner told from the report for ${c.name}`);
  const got = ids(cases);
  assert.equal(got.all, expected.all);
  assert.equal(got.failed, expected.failed);
  assert.ok(expected.failed.length >= 3, 'several tests fail');
  assert.equal(summarize(cases, []).unfrozenFailed, expected.failed);
  assert.equal(summarize(cases, expected.failed).unfrozenFailed, []);
}

function jestRun(addFile: boolean): { cases: TestCase[]; json: JsonResults; dir: string } {
  const jest = jsRunner('jest', 'bin/jest.js');
  const junit = join(JS_RUNNERS, 'node_modules', 'jest-junit');
  jsRunner('jest-junit', 'package.json');
  const dir = jsProject('rg-jest-', '', { name: 'alloc', private: true });
  const env = runnerEnv({ JEST_JUNIT_OUTPUT_FILE: join(dir, 'junit.xml'), ...(addFile ? { JEST_JUNIT_ADD_FILE_ATTRIBUTE: 'true' } : {}) });
  const r = run(
    process.execPath,
    [jest, '--rootDir', dir, '--ci', '--watchman=false', '--cacheDirectory', join(dir, '.jest-cache'), '--reporters', junit, '--json', '--outputFile', join(dir, 'jest.json')],
    dir,
    env,
  );
  assert.is(r.status, 1, `jest exits 1 on failing tests: ${r.stderr}`);
  const json = JSON.parse(readFileSync(join(dir, 'jest.json'), 'utf8')) as JsonResults;
  return { cases: parseJUnit(readFileSync(join(dir, 'junit.xml'), 'utf8'), 'junit.xml'), json, dir };
}

/** Jest's own ids: the full name (describe blocks and title joined by spaces), with the file
 * relative to the root when the report carries it. */
function jestExpected(json: JsonResults, dir: string, withFile: boolean): Expected {
  const all: string[] = [];
  const failed: string[] = [];
  for (const file of json.testResults) {
    for (const a of file.assertionResults) {
      assert.is(a.fullName, [...a.ancestorTitles, a.title].join(' '));
      const id = withFile ? `${relative(dir, file.name)}::${a.fullName}` : a.fullName;
      all.push(id);
      if (a.status === 'failed') failed.push(id);
    }
  }
  return { all: all.sort(), failed: failed.sort() };
}

test('Jest + jest-junit (real run, defaults): failures are reported under their full name, as Jest names them', () => {
  const { cases, json, dir } = jestRun(false);
  try {
    const expected = jestExpected(json, dir, false);
    assert.ok(expected.failed.includes('remainder'), 'a top-level failing test');
    // jest-junit writes a test outside any describe with a leading space; the id is Jest's name.
    assert.match(readFileSync(join(dir, 'junit.xml'), 'utf8'), 'name=" remainder"');
    assert.ok(expected.failed.includes('ties when swapped keeps order'), 'a nested describe');
    assert.ok(expected.failed.includes('ties split 1 into 2'), 'a parametrized case');
    assertRoundTrip(cases, expected, 'jest');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Jest + jest-junit (real run, addFileAttribute): FILE::FULL NAME, the file relative to the root', () => {
  const { cases, json, dir } = jestRun(true);
  try {
    const expected = jestExpected(json, dir, true);
    assert.ok(expected.failed.includes('src/money/cents.test.js::cents round'));
    assertRoundTrip(cases, expected, 'jest');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Vitest junit reporter (real run): FILE::SUITE > NAME, as Vitest names its tests', () => {
  const vitest = jsRunner('vitest', 'vitest.mjs');
  const dir = jsProject('rg-vitest-', "import { describe, test, expect } from 'vitest';", { name: 'alloc', private: true, type: 'module' });
  try {
    writeFileSync(join(dir, 'vitest.config.mjs'), 'export default {};\n');
    const r = run(
      process.execPath,
      [vitest, 'run', '--root', dir, '--config', join(dir, 'vitest.config.mjs'), '--reporter=junit', '--outputFile.junit=junit.xml', '--reporter=json', '--outputFile.json=vitest.json'],
      dir,
      runnerEnv({}),
    );
    assert.is(r.status, 1, `vitest exits 1 on failing tests: ${r.stderr}`);
    const json = JSON.parse(readFileSync(join(dir, 'vitest.json'), 'utf8')) as JsonResults;
    const all: string[] = [];
    const failed: string[] = [];
    for (const file of json.testResults) {
      for (const a of file.assertionResults) {
        const id = `${relative(dir, file.name)}::${[...a.ancestorTitles, a.title].join(' > ')}`;
        all.push(id);
        if (a.status === 'failed') failed.push(id);
      }
    }
    const expected = { all: all.sort(), failed: failed.sort() };
    assert.ok(expected.failed.includes('src/alloc.test.js::remainder'));
    assert.ok(expected.failed.includes('src/alloc.test.js::ties > when swapped > keeps order'));
    assert.ok(expected.failed.includes('src/alloc.test.js::ties > split 1 into 2'));
    assertRoundTrip(parseJUnit(readFileSync(join(dir, 'junit.xml'), 'utf8'), 'junit.xml'), expected, 'vitest');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('Go via gotestsum (real run): IMPORT/PATH::TestName/subtest, as `go test -json` names them', () => {
  const dir = mkdtempSync(join(tmpdir(), 'rg-go-'));
  try {
    const mod = join(dir, 'mod');
    mkdirSync(join(mod, 'split'), { recursive: true });
    mkdirSync(join(dir, 'home'));
    writeFileSync(join(mod, 'go.mod'), 'module example.com/alloc\n\ngo 1.19\n');
    writeFileSync(
      join(mod, 'alloc_test.go'),
      'package alloc\n\nimport "testing"\n\nfunc TestSum(t *testing.T) {\n\tif 1+2 != 3 {\n\t\tt.Fatal("sum")\n\t}\n}\n\nfunc TestRemainder(t *testing.T) {\n\tif 10%3 != 2 {\n\t\tt.Fatal("remainder is 1")\n\t}\n}\n',
    );
    writeFileSync(
      join(mod, 'split', 'split_test.go'),
      [
        'package split',
        '',
        'import (',
        '\t"fmt"',
        '\t"testing"',
        ')',
        '',
        'func TestTies(t *testing.T) {',
        '\tt.Run("stay put", func(t *testing.T) {})',
        '\tt.Run("equal weights", func(t *testing.T) {',
        '\t\tt.Run("deep", func(t *testing.T) { t.Fatal("swapped") })',
        '\t})',
        '\tfor _, n := range []int{1, 2} {',
        '\t\tn := n',
        '\t\tt.Run(fmt.Sprintf("n=%d", n), func(t *testing.T) {',
        '\t\t\tif n == 2 {',
        '\t\t\t\tt.Fatal("two")',
        '\t\t\t}',
        '\t\t})',
        '\t}',
        '}',
        '',
      ].join('\n'),
    );
    const env = runnerEnv({
      HOME: join(dir, 'home'),
      GOPATH: join(dir, 'gopath'),
      GOCACHE: join(dir, 'gocache'),
      GOFLAGS: '-mod=mod',
      GOPROXY: 'off',
      GOSUMDB: 'off',
      GOTOOLCHAIN: 'local',
      GO111MODULE: 'on',
      CGO_ENABLED: '0',
    });
    const junitFile = join(dir, 'out.xml');
    const g = run('gotestsum', ['--junitfile', junitFile, '--format', 'standard-quiet', '--', './...'], mod, env);
    assert.is(g.status, 1, `gotestsum exits 1 on failing tests: ${g.stdout}${g.stderr}`);
    const j = run('go', ['test', '-json', './...'], mod, env);
    assert.is(j.status, 1, `go test exits 1 on failing tests: ${j.stderr}`);
    const all: string[] = [];
    const failed: string[] = [];
    for (const line of j.stdout.split('\n')) {
      if (!line.trim()) continue;
      const e = JSON.parse(line) as { Action?: string; Package?: string; Test?: string };
      if (!e.Test || (e.Action !== 'pass' && e.Action !== 'fail')) continue;
      const id = `${e.Package}::${e.Test}`;
      all.push(id);
      if (e.Action === 'fail') failed.push(id);
    }
    const expected = { all: all.sort(), failed: failed.sort() };
    assert.ok(expected.failed.includes('example.com/alloc::TestRemainder'));
    assert.ok(expected.failed.includes('example.com/alloc/split::TestTies/equal_weights/deep'));
    assert.ok(expected.failed.includes('example.com/alloc/split::TestTies/n=2'));
    assertRoundTrip(parseJUnit(readFileSync(junitFile, 'utf8'), 'out.xml'), expected, 'go');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** A small Maven project for Surefire (Debian's, offline from /usr/share/maven-repo) on JUnit 4:
 * a plain class with a failing test, a class of nested classes (Enclosed) and a parametrized
 * class; and a listing program that runs the same classes under JUnit itself (JUnitCore) and
 * prints each test's class, method and outcome, JUnit's own names for them. */
function javaProject(): string {
  const dir = mkdtempSync(join(tmpdir(), 'rg-java-'));
  const pkg = join(dir, 'src', 'test', 'java', 'com', 'example', 'alloc');
  mkdirSync(pkg, { recursive: true });
  mkdirSync(join(dir, 'home'));
  writeFileSync(
    join(dir, 'pom.xml'),
    [
      '<project xmlns="http://maven.apache.org/POM/4.0.0">',
      '  <modelVersion>4.0.0</modelVersion>',
      '  <groupId>com.example</groupId>',
      '  <artifactId>alloc</artifactId>',
      '  <version>1</version>',
      '  <properties>',
      '    <maven.compiler.source>11</maven.compiler.source>',
      '    <maven.compiler.target>11</maven.compiler.target>',
      '    <project.build.sourceEncoding>UTF-8</project.build.sourceEncoding>',
      '  </properties>',
      '  <dependencies>',
      `    <dependency><groupId>junit</groupId><artifactId>junit</artifactId><version>${JAVA.junit}</version><scope>test</scope></dependency>`,
      '  </dependencies>',
      '  <build>',
      '    <plugins>',
      `      <plugin><artifactId>maven-resources-plugin</artifactId><version>${JAVA.resources}</version></plugin>`,
      `      <plugin><artifactId>maven-compiler-plugin</artifactId><version>${JAVA.compiler}</version></plugin>`,
      `      <plugin><artifactId>maven-surefire-plugin</artifactId><version>${JAVA.surefire}</version></plugin>`,
      '    </plugins>',
      '  </build>',
      '</project>',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(pkg, 'AllocatorTest.java'),
    [
      'package com.example.alloc;',
      '',
      'import static org.junit.Assert.assertEquals;',
      '',
      'import org.junit.Test;',
      'import org.junit.experimental.runners.Enclosed;',
      'import org.junit.runner.RunWith;',
      '',
      '@RunWith(Enclosed.class)',
      'public class AllocatorTest {',
      '  public static class Ties {',
      '    @Test public void stayPut() { assertEquals(1, 1); }',
      '    @Test public void swapped() { assertEquals(1, 2); }',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(pkg, 'MoneyTest.java'),
    [
      'package com.example.alloc;',
      '',
      'import static org.junit.Assert.assertEquals;',
      '',
      'import org.junit.Test;',
      '',
      'public class MoneyTest {',
      '  @Test public void sums() { assertEquals(3, 1 + 2); }',
      '  @Test public void remainder() { assertEquals(2, 10 % 3); }',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    join(pkg, 'SplitTest.java'),
    [
      'package com.example.alloc;',
      '',
      'import static org.junit.Assert.assertEquals;',
      '',
      'import java.util.Arrays;',
      'import java.util.Collection;',
      'import org.junit.Test;',
      'import org.junit.runner.RunWith;',
      'import org.junit.runners.Parameterized;',
      '',
      '@RunWith(Parameterized.class)',
      'public class SplitTest {',
      '  @Parameterized.Parameters public static Collection<Object[]> data() { return Arrays.asList(new Object[][] {{1}, {2}}); }',
      '  private final int n;',
      '  public SplitTest(int n) { this.n = n; }',
      '  @Test public void split() { assertEquals(1, n); }',
      '}',
      '',
    ].join('\n'),
  );
  // Not named like a test class, so Surefire does not run it.
  writeFileSync(
    join(pkg, 'ListIds.java'),
    [
      'package com.example.alloc;',
      '',
      'import org.junit.runner.Description;',
      'import org.junit.runner.JUnitCore;',
      'import org.junit.runner.notification.Failure;',
      'import org.junit.runner.notification.RunListener;',
      'import java.util.HashSet;',
      'import java.util.Set;',
      '',
      'public class ListIds {',
      '  public static void main(String[] args) throws Exception {',
      '    Set<Description> failed = new HashSet<>();',
      '    JUnitCore core = new JUnitCore();',
      '    core.addListener(new RunListener() {',
      '      @Override public void testFailure(Failure f) { failed.add(f.getDescription()); }',
      '      @Override public void testFinished(Description d) {',
      '        System.out.println((failed.contains(d) ? "failed" : "passed") + "\\t" + d.getClassName() + "\\t" + d.getMethodName());',
      '      }',
      '    });',
      '    Class<?>[] classes = new Class<?>[args.length];',
      '    for (int i = 0; i < args.length; i++) classes[i] = Class.forName(args[i]);',
      '    core.run(classes);',
      '  }',
      '}',
      '',
    ].join('\n'),
  );
  return dir;
}

test('JUnit for Java, Maven Surefire (real run): CLASS::method, as JUnit names its tests', () => {
  for (const path of [JAVA.repoCheck, JAVA.junitJar]) {
    if (!existsSync(path)) throw new Error(`${path} is missing: the JUnit id tests need Debian's Surefire and JUnit 4; ${INSTALL}`);
  }
  const dir = javaProject();
  try {
    const env = runnerEnv({ HOME: join(dir, 'home') });
    delete env.MAVEN_OPTS;
    delete env.JAVA_TOOL_OPTIONS;
    const m = run('mvn', ['-o', '-q', '-B', `-Dmaven.repo.local=${JAVA.repo}`, 'test'], dir, env);
    assert.is(m.status, 1, `mvn test exits 1 on failing tests: ${m.stdout.slice(-2000)}${m.stderr}`);
    const reports = join(dir, 'target', 'surefire-reports');
    const cases = readdirSync(reports)
      .filter((f) => f.startsWith('TEST-') && f.endsWith('.xml'))
      .sort()
      .flatMap((f) => parseJUnit(readFileSync(join(reports, f), 'utf8'), f));
    const l = run(
      'java',
      ['-cp', [join(dir, 'target', 'test-classes'), JAVA.junitJar, JAVA.hamcrestJar].join(':'), 'com.example.alloc.ListIds', 'com.example.alloc.MoneyTest', 'com.example.alloc.AllocatorTest', 'com.example.alloc.SplitTest'],
      dir,
      env,
    );
    assert.is(l.status, 0, l.stderr);
    const all: string[] = [];
    const failed: string[] = [];
    for (const line of l.stdout.split('\n')) {
      if (!line.trim()) continue;
      const [status, cls, method] = line.split('\t');
      const id = `${cls}::${method}`;
      all.push(id);
      if (status === 'failed') failed.push(id);
    }
    const expected = { all: all.sort(), failed: failed.sort() };
    assert.ok(expected.failed.includes('com.example.alloc.MoneyTest::remainder'));
    assert.ok(expected.failed.includes('com.example.alloc.AllocatorTest$Ties::swapped'));
    assert.ok(expected.failed.includes('com.example.alloc.SplitTest::split[1]'));
    assertRoundTrip(cases, expected, 'other');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
