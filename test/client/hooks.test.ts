// End to end on the developer's machine: the packed package installed with husky and
// lint-staged, `receipt-gate init`, then real `git commit` and `git push` to a bare repository
// that runs the server hook. The client must stop what the server would stop, with the same
// findings, and let an owner's consistent change through.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AGENT_EMAIL, machineLineOf, OWNER_EMAIL, Sandbox, TODAY } from './harness';

const sandbox = new Sandbox('hooks');
const owner = sandbox.guardedRepository();

test('init wrote the policy, the evidence, the hooks and the lint-staged entry; a second run changes nothing', () => {
  const policy = JSON.parse(sandbox.read(owner, '.receipt-gate.json'));
  assert.equal(policy.owners, [OWNER_EMAIL, 'alice']);
  for (const glob of ['.github/workflows/**', '.husky/**', '.gitattributes', 'conftest.py', 'pytest.ini', 'jest.config.*', 'vitest.config.*']) {
    assert.ok(policy.protected.includes(glob), glob);
  }
  assert.equal(JSON.parse(sandbox.read(owner, 'freeze.json')), { version: 1, frozen: [] });
  assert.match(sandbox.read(owner, '.husky/pre-commit'), /^receipt-gate pre-commit\nlint-staged\n$/);
  assert.match(sandbox.read(owner, '.husky/pre-push'), /^receipt-gate pre-push "\$@"\n$/);
  const pkg = JSON.parse(sandbox.read(owner, 'package.json'));
  assert.is(pkg.scripts.prepare, 'husky');
  assert.ok(Object.values(pkg['lint-staged']).includes('receipt-gate check'));
  assert.is(sandbox.git(owner, 'config', 'core.hooksPath').trim(), '.husky/_');

  const again = sandbox.receiptGate(owner, ['init', '--owner', OWNER_EMAIL]);
  assert.is(again.status, 0, again.stderr);
  assert.match(again.stdout, /nothing to change/);
  assert.is(sandbox.git(owner, 'status', '--porcelain'), '');
  // The server has the owner's commit.
  assert.is(sandbox.git(sandbox.bare, 'rev-parse', 'main'), sandbox.git(owner, 'rev-parse', 'HEAD'));
});

test("pre-commit stops an agent's commit that touches a fixture; RECEIPT_GATE_SKIP=1 skips it with one line", () => {
  const agent = sandbox.clone('agent-commit', AGENT_EMAIL);
  const before = sandbox.git(agent, 'rev-parse', 'HEAD');
  sandbox.write(agent, 'fixtures/orders.json', '{"id": "orders", "input": {}, "sha256": "TODO"}\n');
  sandbox.write(agent, 'src/app.js', 'module.exports = 2;\n');
  sandbox.git(agent, 'add', '-A');
  const commit = sandbox.commit(agent, 'make the test pass');
  assert.is.not(commit.status, 0);
  const out = commit.stderr + commit.stdout;
  assert.match(out, /PATH_PROTECTED/);
  assert.match(out, /fixtures\/orders\.json/);
  assert.match(out, /unstage it with `git restore --staged fixtures\/orders\.json`/);
  assert.match(out, /only alice@example\.com, alice may change it/);
  assert.is(sandbox.git(agent, 'rev-parse', 'HEAD'), before);
  const line = machineLineOf(out);
  assert.ok(line, 'the machine-readable line is printed');
  assert.is(line!.verdict, 'closed');
  assert.equal(line!.blocked_paths, ['fixtures/orders.json']);

  const skipped = sandbox.commit(agent, 'make the test pass', [], { RECEIPT_GATE_SKIP: '1' });
  assert.is(skipped.status, 0, skipped.stderr);
  assert.match(skipped.stderr, /receipt-gate pre-commit: skipped \(RECEIPT_GATE_SKIP=1\); the server hook still checks every push/);
  assert.is.not(sandbox.git(agent, 'rev-parse', 'HEAD'), before);
});

test('pre-push stops the push with the findings the server gives for the same push', () => {
  const agent = sandbox.clone('agent-push', AGENT_EMAIL);
  sandbox.write(agent, 'fixtures/orders.json', '{"id": "orders"}\n');
  sandbox.write(agent, 'conftest.py', 'collect_ignore = ["tests"]\n');
  sandbox.git(agent, 'add', '-A');
  assert.is(sandbox.commit(agent, 'skip the hard tests', ['--no-verify']).status, 0);
  sandbox.git(agent, 'checkout', '-q', '-b', 'feature/agent');
  sandbox.write(agent, 'src/app.js', 'module.exports = 3;\n');
  sandbox.git(agent, 'commit', '-qam', 'and some code');
  const serverBefore = sandbox.git(sandbox.bare, 'for-each-ref');

  const client = sandbox.push(agent, 'agent', ['origin', 'feature/agent']);
  assert.is.not(client.status, 0);
  assert.match(client.stdout + client.stderr, /husky - pre-push script failed/);
  const clientLine = machineLineOf(client.stderr);
  assert.is(sandbox.git(sandbox.bare, 'for-each-ref'), serverBefore, 'nothing reached the server');

  const server = sandbox.push(agent, 'agent', ['--no-verify', 'origin', 'feature/agent']);
  assert.is.not(server.status, 0);
  assert.match(server.stderr, /remote: /);
  const serverLine = machineLineOf(server.stderr);
  assert.ok(clientLine && serverLine);
  assert.is(clientLine!.verdict, 'closed');
  assert.equal(clientLine!.blocked_paths, ['conftest.py', 'fixtures/orders.json']);
  assert.equal(clientLine!.verdict, serverLine!.verdict);
  assert.equal(clientLine!.blocked_paths, serverLine!.blocked_paths);
  assert.equal(clientLine!.findings, serverLine!.findings);
  assert.is(sandbox.git(sandbox.bare, 'for-each-ref'), serverBefore, 'the server refused too');
});

test("an owner's consistent change passes pre-commit, pre-push and the server", () => {
  sandbox.git(owner, 'pull', '-q', '--ff-only');
  const freeze = sandbox.receiptGate(owner, ['freeze', 'add', '--id', 'tests/test_orders.py::test_total', '--reason', 'timing', '--expires', '2026-12-06']);
  assert.is(freeze.status, 0, freeze.stderr);
  sandbox.write(owner, 'fixtures/orders/base.json', '{"orders": []}\n');
  sandbox.git(owner, 'add', '-A');
  const commit = sandbox.commit(owner, 'Freeze the timing test for a week; add the base orders');
  assert.is(commit.status, 0, commit.stderr);
  const push = sandbox.push(owner, 'alice', ['origin', 'main']);
  assert.is(push.status, 0, push.stderr);
  assert.is(sandbox.git(sandbox.bare, 'rev-parse', 'main'), sandbox.git(owner, 'rev-parse', 'HEAD'));
  // A valid freeze row is listed, not a rejection.
  assert.match(push.stderr, /FREEZE_ACTIVE/);
});

test('a bad freeze file is refused at commit (the gate runs before lint-staged): file, JSON pointer, expected value', () => {
  sandbox.write(
    owner,
    'freeze.json',
    `${JSON.stringify({ version: 1, frozen: [{ id: 'tests/test_x.py::test_y', reason: 'because', expires: '2026-02-30' }] }, null, 2)}\n`,
  );
  sandbox.git(owner, 'add', 'freeze.json');
  const before = sandbox.git(owner, 'rev-parse', 'HEAD');
  const commit = sandbox.commit(owner, 'a bad freeze');
  assert.is.not(commit.status, 0);
  const out = commit.stdout + commit.stderr;
  assert.match(out, /receipt-gate pre-commit/);
  assert.match(out, /FREEZE_INVALID/);
  assert.match(out, /freeze\.json/);
  assert.match(out, /\/frozen\/0\/expires/);
  assert.match(out, /calendar date/);
  assert.is(sandbox.git(owner, 'rev-parse', 'HEAD'), before);
  // The staged change is kept for the owner to fix.
  assert.match(sandbox.git(owner, 'diff', '--cached', '--name-only'), /freeze\.json/);
  sandbox.git(owner, 'reset', '-q', '--hard', 'HEAD');
});

test(`an expired freeze already on main closes every push (today is ${TODAY})`, () => {
  const agent = sandbox.clone('agent-expired', AGENT_EMAIL);
  sandbox.git(agent, 'checkout', '-q', '-b', 'feature/later');
  sandbox.write(agent, 'src/app.js', 'module.exports = 4;\n');
  sandbox.git(agent, 'commit', '-qam', 'code only');
  const later = sandbox.push(agent, 'agent', ['origin', 'feature/later'], false);
  assert.is(later.status, 0, later.stderr);
  const expired = sandbox.run('git', ['push', 'origin', 'feature/later:feature/later2'], agent, {
    GITHUB_USER_LOGIN: 'agent',
    RECEIPT_GATE_NOW: '2026-12-07',
  });
  assert.is.not(expired.status, 0);
  const line = machineLineOf(expired.stderr);
  assert.ok(line);
  assert.equal(line!.findings.map((f) => f.code), ['FREEZE_EXPIRED']);
});

test.run();
