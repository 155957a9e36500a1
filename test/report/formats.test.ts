// Every output form of one verify-ref run, read back by independent readers: SARIF validated
// against the OASIS SARIF 2.1.0 schema (the copy the SARIF SDK ships, checked with ajv and its
// formats), GitHub workflow commands decoded as the runner decodes them, JUnit XML parsed by
// python's xml.etree, and JSON. Setup errors print every machine format too.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import Ajv2020 from 'ajv/dist/2020';
import addFormats from 'ajv-formats';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Log } from 'sarif';
import { guardedRepo, runCli } from '../helpers/repo';
import { commitAll, git, tempDir, writeFiles } from '../helpers/git';

const ROOT = resolve(__dirname, '../..');
const NOW = ['--now', '2026-09-10'];

/** The schema from the SARIF SDK's npm package for this platform. */
function sarifValidator() {
  const candidates = ['linux', 'darwin', 'win32'].map((p) => join(ROOT, 'node_modules', '@microsoft', `sarif-multitool-${p}`, 'sarif-2.1.0.json'));
  const file = candidates.find(existsSync);
  if (!file) throw new Error(`no SARIF 2.1.0 schema: expected one of ${candidates.join(', ')} (npm ci installs @microsoft/sarif-multitool)`);
  const schema = JSON.parse(readFileSync(file, 'utf8'));
  assert.match(schema.title, /SARIF\) Version 2\.1\.0 JSON Schema/);
  const ajv = new Ajv2020({ allErrors: true, strict: false });
  addFormats(ajv);
  return ajv.compile(schema);
}
const validSarif = sarifValidator();

function assertSarif(text: string): Log {
  const log = JSON.parse(text);
  const ok = validSarif(log);
  assert.ok(ok, JSON.stringify(validSarif.errors, null, 2));
  return log as Log;
}

const NAMES = ['fixtures/data/ä b.json', 'fixtures/data/x,y:z%25.json', 'fixtures/data/new\nline\u001b[2K.json', 'fixtures/data/z.json'];

/** main guarded; feature (by a non-owner) adds four protected files with awkward names. */
function repoWithFindings(): string {
  const repo = guardedRepo();
  git(repo, ['checkout', '-q', '-b', 'feature']);
  writeFiles(repo, Object.fromEntries(NAMES.map((n) => [n, '{}\n'])));
  commitAll(repo, 'touch fixtures');
  return repo;
}

/** GitHub's runner: `::name k=v,k=v::data`, with toolkit's escapes undone. */
function parseCommand(line: string): { name: string; props: Record<string, string>; data: string } | null {
  const m = /^::([a-z]+)(?: ([^:]*))?::(.*)$/.exec(line);
  if (!m) return null;
  const unescape = (s: string) => s.replace(/%0D/g, '\r').replace(/%0A/g, '\n').replace(/%3A/g, ':').replace(/%2C/g, ',').replace(/%25/g, '%');
  const props: Record<string, string> = {};
  for (const kv of (m[2] ?? '').split(',').filter(Boolean)) {
    const i = kv.indexOf('=');
    props[kv.slice(0, i)] = unescape(kv.slice(i + 1));
  }
  return { name: m[1]!, props, data: unescape(m[3]!) };
}

/** JUnit read by python's standard XML parser (an independent, strict reader). */
function pythonJunit(xml: string): { tests: number; failures: number; cases: { name: string; failure: string | null }[] } {
  const script =
    'import sys,json,xml.etree.ElementTree as ET\n' +
    'r=ET.fromstring(sys.stdin.buffer.read())\n' +
    's=r.find("testsuite")\n' +
    'print(json.dumps({"tests":int(s.get("tests")),"failures":int(s.get("failures")),"cases":[{"name":c.get("name"),"failure":(c.find("failure").get("message") if c.find("failure") is not None else None)} for c in s.findall("testcase")]}))\n';
  return JSON.parse(execFileSync('python3', ['-c', script], { input: xml }).toString());
}

test('all formats describe the same findings; paths stay exact in JSON, SARIF and GitHub file=', () => {
  const repo = repoWithFindings();
  try {
    const json = runCli(['verify-ref', 'feature', '--base', 'main', '--json', ...NOW], { cwd: repo });
    assert.is(json.status, 1, json.stderr);
    const findings = json.json.findings as { code: string; path: string | null; severity: string }[];
    const touched = findings.filter((f) => f.code === 'PATH_PROTECTED').map((f) => f.path).sort();
    assert.equal(touched, [...NAMES].sort());
    assert.equal(runCli(['verify-ref', 'feature', '--base', 'main', '--format', 'json', ...NOW], { cwd: repo }).stdout, json.stdout);

    const sarifRun = runCli(['verify-ref', 'feature', '--base', 'main', '--format', 'sarif', ...NOW], { cwd: repo });
    assert.is(sarifRun.status, 1);
    const log = assertSarif(sarifRun.stdout);
    const run = log.runs[0]!;
    assert.is(run.results!.length, findings.length, 'one result per finding');
    const rules = new Map(run.tool.driver.rules!.map((r) => [r.id, r]));
    for (const [i, r] of run.results!.entries()) {
      assert.is(r.ruleId, findings[i]!.code);
      assert.ok(rules.get(r.ruleId!)?.help?.text, `rule ${r.ruleId} has help text`);
      assert.is(run.tool.driver.rules![r.ruleIndex!]!.id, r.ruleId);
      const uri = r.locations![0]!.physicalLocation!.artifactLocation!.uri!;
      if (findings[i]!.path !== null) assert.is(decodeURIComponent(uri), findings[i]!.path);
    }
    assert.is(run.invocations![0]!.executionSuccessful, true);

    const gh = runCli(['verify-ref', 'feature', '--base', 'main', '--format', 'github', ...NOW], { cwd: repo });
    assert.is(gh.status, 1);
    const lines = gh.stdout.trimEnd().split('\n');
    const commands = lines.map(parseCommand).filter((c) => c !== null);
    assert.is(commands.length, findings.length, gh.stdout);
    assert.is(lines.length, findings.length + 1, 'one command per finding, then the verdict line');
    assert.equal(
      commands.filter((c) => c!.props.title === 'PATH_PROTECTED (refs/heads/feature)').map((c) => c!.props.file).sort(),
      [...NAMES].sort(),
    );
    for (const c of commands) {
      assert.is(c!.name, 'error');
      assert.not.match(c!.data, /[\n\r\u001b]/, 'the message a reviewer reads has no raw control characters');
    }

    const junit = runCli(['verify-ref', 'feature', '--base', 'main', '--format', 'junit', ...NOW], { cwd: repo });
    assert.is(junit.status, 1);
    const parsed = pythonJunit(junit.stdout);
    assert.is(parsed.tests, findings.length);
    assert.is(parsed.failures, findings.filter((f) => f.severity !== 'info').length);
    // XML 1.0 cannot hold ESC at all: it is written as the text \u001b; LF survives as &#10;.
    const inXml = (n: string) => n.replace(/\u001b/g, '\\u001b');
    for (const n of NAMES) assert.ok(parsed.cases.some((c) => c.name === `PATH_PROTECTED ${inXml(n)}` && c.failure), JSON.stringify(parsed.cases));
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('an eligible run: SARIF with no results, JUnit with one passing case, no GitHub error', () => {
  const repo = guardedRepo();
  try {
    const sarif = runCli(['verify-ref', 'main', '--format', 'sarif', ...NOW], { cwd: repo });
    assert.is(sarif.status, 0, sarif.stderr);
    assert.is(assertSarif(sarif.stdout).runs[0]!.results!.length, 0);
    const junit = pythonJunit(runCli(['verify-ref', 'main', '--format', 'junit', ...NOW], { cwd: repo }).stdout);
    assert.equal([junit.tests, junit.failures], [1, 0]);
    const gh = runCli(['verify-ref', 'main', '--format', 'github', ...NOW], { cwd: repo });
    assert.not.match(gh.stdout, /^::error/m);
    assert.match(gh.stdout, /verdict: eligible/);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('setup errors print every machine format (exit 2), never an empty stdout', () => {
  const repo = guardedRepo();
  const empty = tempDir();
  const unguarded = tempDir();
  try {
    git(unguarded, ['init', '-q', '-b', 'main']);
    writeFiles(unguarded, { 'a.txt': 'a\n' });
    commitAll(unguarded, 'no policy');
    const cases: { cwd: string; args: string[]; what: RegExp }[] = [
      { cwd: empty, args: ['verify-ref'], what: /No git repository/ },
      { cwd: repo, args: ['verify-ref', 'no-such-ref'], what: /'no-such-ref' does not name an object/ },
      { cwd: repo, args: ['verify-ref', '--bsae', 'main'], what: /did you mean --base/ },
      { cwd: unguarded, args: ['verify-ref'], what: /unguarded/ },
      { cwd: repo, args: ['check'], what: /name at least one FILE/ },
      { cwd: empty, args: ['check', 'x.json'], what: /./ },
    ];
    for (const c of cases) {
      const json = runCli([...c.args, '--json'], { cwd: c.cwd });
      assert.is(json.status, 2, `${c.args.join(' ')}: ${json.stderr}`);
      assert.match(json.json?.error ?? '', c.what, json.stdout);
      assert.is(json.json.verdict, null, 'nothing was checked: no verdict');

      const sarif = runCli([...c.args, '--format', 'sarif'], { cwd: c.cwd });
      assert.is(sarif.status, 2);
      const inv = assertSarif(sarif.stdout).runs[0]!.invocations![0]!;
      assert.is(inv.executionSuccessful, false);
      assert.match(inv.toolExecutionNotifications![0]!.message.text!, c.what);

      const gh = runCli([...c.args, '--format=github'], { cwd: c.cwd });
      assert.is(gh.status, 2);
      const command = parseCommand(gh.stdout.trimEnd());
      assert.is(command?.name, 'error', gh.stdout);
      assert.match(command!.data, c.what);

      const junit = runCli([...c.args, '--format', 'junit'], { cwd: c.cwd });
      assert.is(junit.status, 2);
      const parsed = pythonJunit(junit.stdout);
      assert.is(parsed.failures, 1);
      assert.match(parsed.cases[0]!.failure!, c.what);
    }
    const unguardedJson = runCli(['verify-ref', '--json'], { cwd: unguarded });
    assert.is(unguardedJson.json.unguarded, true);
    assert.is(typeof unguardedJson.json.head, 'string');
  } finally {
    for (const d of [repo, empty, unguarded]) rmSync(d, { recursive: true, force: true });
  }
});

test('a bad --format is a usage error naming the formats', () => {
  const repo = guardedRepo();
  try {
    const r = runCli(['verify-ref', '--format', 'xml'], { cwd: repo });
    assert.is(r.status, 2);
    assert.match(r.stderr, /--format must be one of text, json, sarif, github, junit/);
    const both = runCli(['verify-ref', '--json', '--format', 'sarif'], { cwd: repo });
    assert.is(both.status, 2);
    assertSarif(both.stdout);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test.run();
