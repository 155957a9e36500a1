// `receipt-gate fixture record` on a real repository: the record's digest is the SHA-256 of the
// fixture command's output on the committed tree (never the working tree), checked against
// python's hashlib over the same command run by hand; `receipt --fixture-cmd` on the commit that
// holds the record then reports the row ok. Failing commands and records outside the policy's
// glob write nothing.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalRepo, python } from '../client/local';

const FIXTURE_SCRIPT = [
  'import json, sys',
  'doc = json.load(sys.stdin)',
  'total, weights = doc["total"], doc["weights"]',
  'parts = [total * w // sum(weights) for w in weights]',
  'parts[0] += total - sum(parts)',
  'print(json.dumps({"parts": parts}, sort_keys=True))',
  '',
].join('\n');
const INPUT = '{"weights": [1, 1, 1], "total": 1000}';
const CMD = 'python3 tools/fixture.py';

function repoWithFixtures(name: string, fixtures = true): LocalRepo {
  const repo = new LocalRepo(name);
  const policy: Record<string, unknown> = { version: 1, baseBranch: 'main', protected: ['fixtures/**', 'tools/**'], owners: ['alice@example.com'] };
  if (fixtures) policy.fixtures = { records: 'fixtures/*.json' };
  repo.write('.receipt-gate.json', `${JSON.stringify(policy, null, 2)}\n`);
  repo.write('tools/fixture.py', FIXTURE_SCRIPT);
  repo.git('add', '.');
  repo.git('commit', '-q', '-m', 'start');
  return repo;
}

/** The digest an independent run gives: the committed script, the input as Python's canonical
 * json.dumps on stdin, hashlib over its stdout. */
function pythonDigest(repo: LocalRepo, rev: string): string {
  return python(
    [
      'import hashlib, json, subprocess',
      `src = subprocess.check_output(["git", "show", "${rev}:tools/fixture.py"])`,
      `doc = json.dumps(json.loads(${JSON.stringify(INPUT)}), sort_keys=True, separators=(",", ":"))`,
      'out = subprocess.run(["python3", "-c", src], input=doc.encode(), capture_output=True, check=True).stdout',
      'print(hashlib.sha256(out).hexdigest())',
    ].join('\n'),
    { cwd: repo.dir },
  ).trim();
}

test('fixture record writes {"id", "input", "sha256"} from the committed tree; receipt then finds the row ok', async () => {
  const repo = repoWithFixtures('fixture-record');
  const out = mkdtempSync(join(tmpdir(), 'rg-fixture-receipt-'));
  try {
    // An uncommitted edit of the fixture script: the record must not see it.
    repo.write('tools/fixture.py', FIXTURE_SCRIPT.replace('parts[0] +=', 'parts[-1] +='));
    const r = await repo.cli(['fixture', 'record', 'weights_v3', '--cmd', CMD, '--input', INPUT]);
    assert.is(r.code, 0, r.stderr);
    assert.match(r.stdout, /wrote fixtures\/weights_v3\.json: id weights_v3, sha256 [0-9a-f]{64}/);
    assert.match(r.stdout, /next: git add fixtures\/weights_v3\.json/);
    const written = repo.json('fixtures/weights_v3.json') as { id: string; input: unknown; sha256: string };
    assert.equal(Object.keys(written), ['id', 'input', 'sha256']);
    assert.is(written.id, 'weights_v3');
    assert.equal(written.input, { weights: [1, 1, 1], total: 1000 });
    const expected = pythonDigest(repo, 'HEAD');
    assert.is(written.sha256, expected);
    // sha256sum over the same run agrees, and the working tree's script would give another digest.
    const bySha256sum = repo.git('-c', 'core.pager=cat', 'show', 'HEAD:tools/fixture.py');
    const viaShell = python(
      `import subprocess; print(subprocess.run("printf '%s' '{\\"total\\":1000,\\"weights\\":[1,1,1]}' | python3 -c \\"$SRC\\" | sha256sum", shell=True, capture_output=True, text=True, env={"SRC": ${JSON.stringify(bySha256sum)}, "PATH": "/usr/bin:/bin"}).stdout.split()[0])`,
    ).trim();
    assert.is(viaShell, expected);
    const workingTreeDigest = python(
      `import hashlib, subprocess; print(hashlib.sha256(subprocess.run(["python3", "tools/fixture.py"], input=b'{"total":1000,"weights":[1,1,1]}', capture_output=True).stdout).hexdigest())`,
      { cwd: repo.dir },
    ).trim();
    assert.is.not(workingTreeDigest, expected);

    // Running it again changes nothing; re-recording takes the input from the record.
    const again = await repo.cli(['fixture', 'record', 'weights_v3', '--cmd', CMD]);
    assert.is(again.code, 0, again.stderr);
    assert.match(again.stdout, /already records sha256 .* nothing changed/);

    // Commit the record (with the script as committed) and grade that commit.
    repo.git('checkout', '--', 'tools/fixture.py');
    repo.git('add', 'fixtures/weights_v3.json');
    repo.git('commit', '-q', '-m', 'record weights_v3');
    const receiptPath = join(out, 'receipt.json');
    const graded = await repo.cli(['receipt', '--ref', 'HEAD', '--properties-cmd', 'true', '--fixture-cmd', CMD, '--out', receiptPath]);
    assert.ok(existsSync(receiptPath), graded.stderr);
    const receipt = JSON.parse(readFileSync(receiptPath, 'utf8')) as { fixtures: { path: string; expected: string; actual: string; ok: boolean }[] };
    assert.equal(receipt.fixtures, [{ path: 'fixtures/weights_v3.json', id: 'weights_v3', expected, actual: expected, ok: true }]);
    assert.match(graded.stdout, /fixtures: 1\/1 match/);
  } finally {
    repo.remove();
    rmSync(out, { recursive: true, force: true });
  }
});

test('--ref records on another commit: the output of that commit\'s script', async () => {
  const repo = repoWithFixtures('fixture-ref');
  try {
    const first = repo.git('rev-parse', 'HEAD').trim();
    repo.write('tools/fixture.py', FIXTURE_SCRIPT.replace('parts[0] +=', 'parts[-1] +='));
    repo.git('commit', '-q', '-am', 'remainder to the last part');
    const r = await repo.cli(['fixture', 'record', 'w', '--cmd', CMD, '--input', INPUT, '--ref', first]);
    assert.is(r.code, 0, r.stderr);
    assert.is((repo.json('fixtures/w.json') as { sha256: string }).sha256, pythonDigest(repo, first));
    assert.is.not(pythonDigest(repo, first), pythonDigest(repo, 'HEAD'));
  } finally {
    repo.remove();
  }
});

test('nothing is written when the command fails, the record lies outside the glob, or there is no fixtures section', async () => {
  const repo = repoWithFixtures('fixture-refuse');
  try {
    const failed = await repo.cli(['fixture', 'record', 'w', '--cmd', 'exit 3', '--input', INPUT]);
    assert.is(failed.code, 1);
    assert.match(failed.stderr, /nothing written; the fixture command 'exit 3' exited with status 3/);
    assert.not.ok(existsSync(join(repo.dir, 'fixtures/w.json')));
    const outside = await repo.cli(['fixture', 'record', 'w', '--cmd', CMD, '--input', INPUT, '--out', 'data/w.json']);
    assert.is(outside.code, 2);
    assert.match(outside.stderr, /not a fixture record .*fixtures\/\*\.json/);
    const noInput = await repo.cli(['fixture', 'record', 'w', '--cmd', CMD]);
    assert.is(noInput.code, 2);
    assert.match(noInput.stderr, /--input JSON is required/);
  } finally {
    repo.remove();
  }
  const bare = repoWithFixtures('fixture-nosection', false);
  try {
    const r = await bare.cli(['fixture', 'record', 'w', '--cmd', CMD, '--input', INPUT]);
    assert.is(r.code, 2);
    assert.match(r.stderr, /policy enable fixtures/);
  } finally {
    bare.remove();
  }
});

test('fixture --help describes every option in one line', async () => {
  const repo = new LocalRepo('fixture-help');
  try {
    const r = await repo.cli(['fixture', '--help']);
    assert.is(r.code, 0);
    const options = r.stdout.split('\n').filter((l) => /^ {2}(-\w, )?--/.test(l));
    assert.ok(options.length >= 7);
    for (const line of options) assert.match(line, /^ {2}(-\w, )?--[\w-]+( [A-Z|.-]+)? {3}\S/, line);
  } finally {
    repo.remove();
  }
});

test.run();
