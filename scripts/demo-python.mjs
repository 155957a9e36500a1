#!/usr/bin/env node
// npm run demo:python: the Python worked example (examples/python) through a real server.
//   1. the owner (alice) pushes the example to a bare repository with the pre-receive hook;
//   2. an agent's honest patch to src/allocate.py is accepted;
//   3. the agent's edit of a fixture record is rejected;
//   4. the agent's edit of pyproject.toml and conftest.py (either could switch tests off) is
//      rejected;
//   5. receipt grades the honest patch with pytest (seeded properties, fixture digests): eligible.
// Needs git, Node.js, the built dist/cli.js (./install.sh builds it) and python3 with pytest
// (Debian: python3-pytest).
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cli, demoSetup, finishDemo, root } from './demo-lib.mjs';

const keep = process.argv.includes('--keep');
const { dir, work, step, run, git } = demoSetup({ prefix: 'receipt-gate-python-', now: '2026-09-10' });
const bare = join(dir, 'allocation.git');
const edit = (path, change) => writeFileSync(join(work, path), change(readFileSync(join(work, path), 'utf8')));
const push = (who, branch, mayFail = false) =>
  run('git', ['push', 'origin', branch], { env: { REMOTE_USER: who }, show: true, mayFail, label: `REMOTE_USER=${who} git push origin ${branch}` });
// The grader's commands run in a sandbox that sees /usr but not $HOME: Debian's python3 first.
const pythonPath = { PATH: `/usr/bin:${process.env.PATH}` };

const started = Date.now();
let failed = false;
const expect = (ok, what) => {
  if (!ok) {
    console.log(`  !! expected: ${what}`);
    failed = true;
  }
};
try {
  step('0. python3 and pytest');
  const py = run('python3', ['-m', 'pytest', '--version'], { cwd: dir, env: pythonPath, mayFail: true });
  if (py.status !== 0) throw new Error(`python3 -m pytest is not available (${(py.stderr || String(py.error)).trim()}); install python3-pytest`);
  console.log(`  ${(py.stdout + py.stderr).trim()}`);

  step('1. the owner sets up: the example, its pins checked, pushed to a server running the hook');
  run('git', ['init', '-q', '--bare', '-b', 'main', bare], { cwd: dir });
  run(join(root, 'scripts', 'install-server.sh'), ['--server', bare], { cwd: dir, show: true, label: './install.sh --server allocation.git' });
  cpSync(join(root, 'examples', 'python'), work, { recursive: true, filter: (src) => !/__pycache__|\.pytest_cache|\.benchmarks/.test(src) });
  git('init', '-q', '-b', 'main');
  git('remote', 'add', 'origin', bare);
  git('add', '-A');
  git('commit', '-qm', 'allocation, guarded by receipt-gate');
  const evidence = ['.receipt-gate.json', 'fixtures/EPOCH', 'checks/manifest.json', 'checks/properties.json', 'freeze.json', 'fixtures/weights_v3.json', 'fixtures/odd_cents.json', 'fixtures/zero_weight.json'];
  const checked = run('node', [cli, 'check', ...evidence], { show: true, mayFail: true, label: `receipt-gate check ${evidence.join(' ')}` });
  expect(checked.status === 0, 'check: the pin, the sampled manifest and the records are valid (exit 0)');
  const tests = run('python3', ['-m', 'pytest', '-q', '-p', 'no:cacheprovider'], { env: pythonPath, show: true, mayFail: true, label: 'python3 -m pytest -q' });
  expect(tests.status === 0, 'every test passes, the frozen one included');
  const owner = push('alice', 'main');
  expect(owner.status === 0, "the owner's push is accepted");

  git('checkout', '-q', '-b', 'agent/honest', 'main');
  edit('src/allocate.py', (t) => t.replace('    whole = sum(weights)\n', '    whole = sum(weights)  # every share has this denominator\n'));
  git('commit', '-qam', 'allocate: name the denominator');
  git('checkout', '-q', '-b', 'agent/fixture', 'main');
  edit('fixtures/weights_v3.json', (t) => t.replace(/"sha256": "[0-9a-f]{64}"/, `"sha256": "${'0'.repeat(64)}"`));
  git('commit', '-qam', 'refresh the weights_v3 fixture');
  git('checkout', '-q', '-b', 'agent/config', 'main');
  edit('pyproject.toml', (t) => t.replace('testpaths = ["tests", "properties"]', 'testpaths = ["tests"]'));
  edit('conftest.py', (t) => `${t}\n\ndef pytest_ignore_collect(collection_path, config):\n    return "properties" in str(collection_path)\n`);
  git('commit', '-qam', 'pytest: collect the unit tests only');
  git('checkout', '-q', 'main');

  step('2. the agent pushes an honest patch to src/allocate.py: accepted');
  const honest = push('agent', 'agent/honest', true);
  expect(honest.status === 0 && /push accepted/.test(honest.stderr), 'accepted');

  step('3. the agent pushes an edit of a fixture record: rejected');
  const fixture = push('agent', 'agent/fixture', true);
  expect(fixture.status !== 0 && /PATH_PROTECTED/.test(fixture.stderr) && /fixtures\/weights_v3\.json/.test(fixture.stderr), 'rejected, PATH_PROTECTED on fixtures/weights_v3.json');

  step('4. the agent pushes an edit of pyproject.toml and conftest.py: rejected');
  const config = push('agent', 'agent/config', true);
  expect(
    config.status !== 0 && /PATH_PROTECTED/.test(config.stderr) && /pyproject\.toml/.test(config.stderr) && /conftest\.py/.test(config.stderr),
    'rejected, PATH_PROTECTED on pyproject.toml and conftest.py',
  );

  step('5. CI grades the honest patch: pytest on the recorded seed, fixture digests, the receipt');
  const receiptFile = join(dir, 'receipt.json');
  const graded = run(
    'node',
    [cli, 'receipt', '--ref', 'agent/honest', '--base', 'main', '--properties-cmd', 'python3 -m pytest -q properties', '--fixture-cmd', 'python3 src/allocate_cli.py', '--out', receiptFile],
    { env: pythonPath, show: true, mayFail: true, label: 'receipt-gate receipt --ref agent/honest --base main --properties-cmd "python3 -m pytest -q properties" --fixture-cmd "python3 src/allocate_cli.py" --out receipt.json' },
  );
  const receipt = graded.status === 0 ? JSON.parse(readFileSync(receiptFile, 'utf8')) : null;
  expect(
    receipt !== null && receipt.verdict === 'eligible' && receipt.properties_ok === true && receipt.fixtures.length === 3 && receipt.fixtures.every((f) => f.ok),
    'eligible: properties passed on seed 20260925, 3/3 fixtures match',
  );
  rmSync(receiptFile, { force: true });
} catch (err) {
  console.error(`demo: ${err instanceof Error ? err.message : String(err)}`);
  failed = true;
}
finishDemo({ dir, keep, started, failed });
