// Every error is a sentence with a fix and the documented exit code: the cases a new user hits
// (explain before the first push, a mistyped check argument, a base a CI clone only has as
// origin/main, an 8.3 short name), and each command's shared exit paths once: --help (0), an
// unknown flag (2, naming it, with the usage), outside a repository or with a wrong argument
// (2, a sentence), all through the built CLI.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { guardedRepo, POLICY, runCli } from '../helpers/repo';
import { commitAll, git, initRepo, tempDir, writeFiles } from '../helpers/git';

/** A sentence, not a stack or a template hole: ends with a fix, no `undefined`/`null`, no
 * colon with nothing after it. */
function assertSentence(text: string, what: string): void {
  assert.ok(text.trim().length > 0, `${what}: says something`);
  assert.not.match(text, /\bundefined\b|\bnull\b|:\s*$|:\s*\n|\n\s+at /m, `${what}: ${text}`);
}

test('explain before the first push reads the proposed policy from the working tree and says so', () => {
  const dir = tempDir('err');
  try {
    // origin/main exists and has no policy; the owner has just run init (not committed).
    mkdirSync(join(dir, 'work'));
    const work = initRepo({ dir: join(dir, 'work') });
    writeFiles(work, { 'src/app.js': 'x\n' });
    commitAll(work, 'app');
    git(dir, ['clone', '-q', '--bare', work, join(dir, 'origin.git')]);
    git(work, ['remote', 'add', 'origin', join(dir, 'origin.git')]);
    git(work, ['fetch', '-q', 'origin']);
    const none = runCli(['explain', 'fixtures/a.json'], { cwd: work });
    assert.is(none.status, 2, none.stdout + none.stderr);
    assert.match(none.stderr, /refs\/remotes\/origin\/main \([0-9a-f]{7}\) has no \.receipt-gate\.json, and the working tree has none either: nothing is protected yet\. Propose one with 'receipt-gate init'/);
    assert.not.match(none.stderr, /is invalid/);
    assertSentence(none.stderr, 'explain, no policy anywhere');
    const noneJson = runCli(['explain', 'fixtures/a.json', '--json'], { cwd: work });
    assert.is(noneJson.status, 2);
    assert.match(JSON.parse(noneJson.stdout).error, /has no \.receipt-gate\.json/);

    writeFiles(work, { '.receipt-gate.json': `${JSON.stringify({ ...POLICY, epoch: undefined, manifest: undefined, observations: undefined, fixtures: undefined })}\n` });
    const proposed = runCli(['explain', 'fixtures/a.json', 'src/app.js'], { cwd: work });
    assert.is(proposed.status, 0, proposed.stderr);
    assert.match(proposed.stdout, /^receipt-gate explain: the proposed policy in the working tree \(\.receipt-gate\.json; refs\/remotes\/origin\/main \([0-9a-f]{7}\) has none yet: it applies once an owner commits and pushes it\)\n/);
    assert.match(proposed.stdout, /fixtures\/a\.json: protected\n {2}protected glob "fixtures\/\*\*" matches/);
    assert.match(proposed.stdout, /src\/app\.js: not protected/);
    const json = JSON.parse(runCli(['explain', 'fixtures/a.json', '--json'], { cwd: work }).stdout);
    assert.is(json.policy_source, 'working tree');
    assert.is(json.paths[0].protected, true);

    writeFiles(work, { '.receipt-gate.json': '{"version": 1, "owners": "alice"}\n' });
    const invalid = runCli(['explain', 'fixtures/a.json'], { cwd: work });
    assert.is(invalid.status, 2);
    assert.match(invalid.stderr, /the proposed \.receipt-gate\.json in the working tree is invalid: .*owners.*Fix it \('receipt-gate check \.receipt-gate\.json'/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('explain FIXTUR~1/x.json: the 8.3 short name, spelled as given, in a sentence', () => {
  const repo = guardedRepo();
  try {
    const r = runCli(['explain', 'FIXTUR~1/x.json'], { cwd: repo });
    assert.is(r.status, 0, r.stderr);
    assert.match(r.stdout, /FIXTUR~1\/x\.json: protected\n {2}matched as fixtur~1\/x\.json .*\n {2}reaches a protected file by another name: FIXTUR~1 reads as an NTFS 8\.3 short name, which may stand for a longer name\n/);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('check of a file that does not exist is exit 2 naming it and the nearest name, never a silent pass', () => {
  const repo = guardedRepo();
  try {
    const typo = runCli(['check', 'freez.json'], { cwd: repo });
    assert.is(typo.status, 2, typo.stdout + typo.stderr);
    assert.match(typo.stderr, /freez\.json: no such file in the working tree \(did you mean freeze\.json\?\)/);
    const missing = runCli(['check', 'fixtures/missing.json'], { cwd: repo });
    assert.is(missing.status, 2);
    assert.match(missing.stderr, /fixtures\/missing\.json: no such file in the working tree\ncheck validates files that exist/);
    assertSentence(missing.stderr, 'check missing');
    const sarif = runCli(['check', 'fixtures/missing.json', '--format', 'sarif'], { cwd: repo });
    assert.is(sarif.status, 2);
    assert.is(JSON.parse(sarif.stdout).runs[0].invocations[0].executionSuccessful, false);
    assert.is(runCli(['check', 'freeze.json'], { cwd: repo }).status, 0);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('a base that is only origin/NAME in this clone, or not fetched at all, is exit 2 saying what to pass or fetch', () => {
  const dir = tempDir('err');
  try {
    const seed = guardedRepo();
    git(seed, ['checkout', '-q', '-b', 'feature']);
    writeFiles(seed, { 'src/alloc.py': 'x = 1\n' });
    commitAll(seed, 'feature');
    git(dir, ['clone', '-q', '--branch', 'feature', seed, join(dir, 'ci')]);
    rmSync(seed, { recursive: true, force: true });
    const work = join(dir, 'ci');
    const main = runCli(['verify-ref', 'HEAD', '--base', 'main'], { cwd: work });
    assert.is(main.status, 2, main.stdout + main.stderr);
    assert.match(main.stderr, /--base 'main': 'main' does not name an object: .* This clone has origin\/main \(no local main, as in a CI checkout\): pass origin\/main\./);
    const dev = runCli(['verify-ref', 'HEAD', '--base', 'origin/dev'], { cwd: work });
    assert.is(dev.status, 2);
    assert.match(dev.stderr, /If dev is a branch of the remote, fetch it first: git fetch origin dev:refs\/remotes\/origin\/dev, then pass origin\/dev\./);
    assert.is(runCli(['verify-ref', 'HEAD', '--base', 'origin/main'], { cwd: work }).status, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

/** Each command's arguments that reach its repository work (for the outside-a-repository path). */
const COMMANDS: Record<string, string[]> = {
  'verify-ref': [],
  'pre-push': [],
  'pre-commit': [],
  check: ['freeze.json'],
  receipt: [],
  'verify-receipt': ['receipt.json'],
  keygen: ['extra'],
  explain: ['fixtures/a.json'],
  init: [],
  epoch: ['pin', '--id', 'e1'],
  manifest: ['sample', '--seed', '1'],
  freeze: ['list'],
  observe: ['--id', 'o1', '--status', 'pass', '--witness', 'w.bin'],
};

test('every command: --help is exit 0; an unknown flag is exit 2 naming it with the usage; outside a repository, exit 2 with a sentence', () => {
  const outside = tempDir('outside');
  try {
    for (const [command, args] of Object.entries(COMMANDS)) {
      const help = runCli([command, '--help'], { cwd: outside });
      assert.is(help.status, 0, `${command} --help`);
      assert.match(help.stdout + help.stderr, new RegExp(`usage: receipt-gate ${command}`), `${command} --help`);

      const bogus = runCli([command, '--bogus'], { cwd: outside });
      assert.is(bogus.status, 2, `${command} --bogus`);
      assert.match(bogus.stderr, new RegExp(`^receipt-gate ${command}: unknown option '--bogus'\\nusage: receipt-gate ${command}`), command);

      const run = runCli([command, ...args], { cwd: outside, env: { GIT_CEILING_DIRECTORIES: outside } });
      assert.is(run.status, 2, `${command} outside a repository: ${run.stdout}${run.stderr}`);
      assert.match(run.stderr, new RegExp(`^receipt-gate ${command}: `), command);
      assertSentence(run.stderr, `${command} outside a repository`);
      assert.match(run.stderr, /\b(run|pass|name|fix|add|use|record|check|write)\b|\nusage: /i, `${command}: the sentence says what to do: ${run.stderr}`);
    }
    const unknown = runCli(['verfy-ref'], { cwd: outside });
    assert.is(unknown.status, 2);
    assert.match(unknown.stderr, /unknown command 'verfy-ref'; did you mean 'verify-ref'\?/);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
});

test('verify-ref exit codes: 0 eligible, 1 closed, 3 hold, 2 nothing was checked', () => {
  const repo = guardedRepo();
  try {
    assert.is(runCli(['verify-ref', 'main', '--base', 'main', '--now', '2026-11-29'], { cwd: repo }).status, 0);
    git(repo, ['checkout', '-q', '-b', 'agent']);
    writeFiles(repo, { 'fixtures/orders/base.json': '{"orders": [1]}\n' });
    commitAll(repo, 'edit');
    assert.is(runCli(['verify-ref', 'agent', '--base', 'main', '--now', '2026-11-29'], { cwd: repo }).status, 1);
    const nothing = runCli(['verify-ref', 'no-such-ref', '--base', 'main'], { cwd: repo });
    assert.is(nothing.status, 2);
    assertSentence(nothing.stderr, 'verify-ref unknown ref');
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('check before the first commit says it read the policy proposed in the working tree', () => {
  const repo = initRepo();
  try {
    writeFiles(repo, { '.receipt-gate.json': `${JSON.stringify(POLICY)}\n`, 'freeze.json': '{"version": 1, "frozen": []}\n' });
    const r = runCli(['check', 'freeze.json', '.receipt-gate.json'], { cwd: repo });
    assert.is(r.status, 0, r.stdout + r.stderr);
    assert.match(r.stderr, /^receipt-gate check: notice: no base yet \(no commit, no origin\/main\): checked against the policy proposed in the working tree \(\.receipt-gate\.json\)/);
    assertSentence(r.stderr, 'check before the first commit');
    commitAll(repo, 'first');
    const after = runCli(['check', 'freeze.json'], { cwd: repo });
    assert.is(after.status, 0);
    assert.not.match(after.stderr, /no base yet/, 'a base exists now');
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('setup failures are exit 2 with a message and no verdict, in JSON, SARIF and JUnit; a missing ref names the fetch', () => {
  const dir = tempDir('rg-err-');
  const repo = guardedRepo();
  try {
    mkdirSync(join(dir, 'bare'));
    const bare = initRepo({ dir: join(dir, 'bare') });
    writeFiles(bare, { 'src/app.js': 'x\n' });
    commitAll(bare, 'no policy');
    const cases: { cwd: string; args: string[]; what: RegExp }[] = [
      { cwd: bare, args: ['explain', 'fixtures/a.json'], what: /has no \.receipt-gate\.json, and the working tree has none either/ },
      { cwd: bare, args: ['verify-ref'], what: /unguarded and nothing was checked/ },
      { cwd: bare, args: ['check', 'a.json'], what: /no \.receipt-gate\.json at .*run 'receipt-gate init' first/ },
      { cwd: repo, args: ['verify-ref', 'HEAD', '--base', 'release'], what: /git fetch origin release:refs\/remotes\/origin\/release, then pass origin\/release/ },
      { cwd: repo, args: ['explain', 'fixtures/a.json', '--base', 'release'], what: /git fetch origin release:refs\/remotes\/origin\/release, then pass origin\/release/ },
      { cwd: repo, args: ['check', 'freez.json'], what: /did you mean freeze\.json/ },
    ];
    for (const c of cases) {
      const json = runCli([...c.args, '--json'], { cwd: c.cwd });
      assert.is(json.status, 2, `${c.args.join(' ')}: ${json.stdout}${json.stderr}`);
      assert.match(json.json.error, c.what, c.args.join(' '));
      assert.is(json.json.verdict, null, `${c.args.join(' ')}: no verdict when nothing was checked`);
      assert.not.match(json.stdout, /"(closed|eligible|hold)"/, c.args.join(' '));
      assertSentence(json.json.error, c.args.join(' '));
      if (c.args[0] === 'explain') continue; // explain prints text or json
      const sarif = JSON.parse(runCli([...c.args, '--format', 'sarif'], { cwd: c.cwd }).stdout);
      assert.is(sarif.runs[0].properties.verdict, null);
      assert.is(sarif.runs[0].invocations[0].executionSuccessful, false);
      const junit = runCli([...c.args, '--format', 'junit'], { cwd: c.cwd }).stdout;
      assert.not.match(junit, /name="verdict"/);
      assert.match(junit, /type="setup"/);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
    rmSync(repo, { recursive: true, force: true });
  }
});

test.run();
