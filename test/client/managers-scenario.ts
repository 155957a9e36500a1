// One end-to-end scenario per hook manager, run with the real tool: a project that already uses
// the manager, a bare "server" with the server hook, `receipt-gate init` as the owner, then an
// agent's fixture commit (refused by the pre-commit hook), a fixture push (refused by the
// pre-push hook before anything leaves), and a src/ change committed and pushed through.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { AGENT_EMAIL, installedWith, machineLineOf, OWNER_EMAIL, Sandbox, type Run } from './harness';

export interface ManagerSetup {
  /** Names the sandbox and the installation. */
  name: string;
  /** npm specs installed beside the packed receipt-gate (exact versions). */
  packages: string[];
  /** The project's files before init, besides .gitignore and src/app.js (package.json: the
   * installation's, when `packageJson` is true). */
  files: Record<string, string>;
  packageJson: boolean;
  /** Switches the manager's hooks on in a fresh clone, as the developer (or npm install) does. */
  activate(sandbox: Sandbox, dir: string): void;
  /** Extra environment for every git and receipt-gate run. */
  env?(sandbox: Sandbox): NodeJS.ProcessEnv;
  /** How pre-push learns the push: null when git's stdin lines reach it, else the notice it
   * prints for the input it reconstructed. */
  pushNotice: RegExp | null;
  /** Checks of what init wrote, in the owner's clone. */
  wrote(sandbox: Sandbox, owner: string, initOutput: string): void;
  /** The manager hides a passing hook's output unless told otherwise (the pre-commit
   * framework's `verbose: true`): check that a passing hook's verdict and a skip still show. */
  showsPassingOutput?: boolean;
}

/** Registers the scenario's tests and runs them. */
export function managerScenario(setup: ManagerSetup): void {
  const installation = installedWith(setup.name, setup.packages);
  const sandbox = new Sandbox(setup.name, installation);
  Object.assign(sandbox.env, setup.env?.(sandbox) ?? {});
  sandbox.installServerHook();
  const hooksPathOf = (dir: string) => sandbox.run('git', ['config', '--get', 'core.hooksPath'], dir).stdout.trim();

  let owner = '';
  let initOutput = '';
  let hooksPathBefore = '';

  test(`${setup.name}: init adds receipt-gate to the manager the project uses; a second run changes nothing`, () => {
    owner = sandbox.clone('owner', OWNER_EMAIL, () => undefined);
    if (setup.packageJson) sandbox.write(owner, 'package.json', sandbox.projectPackageJson());
    sandbox.write(owner, '.gitignore', 'node_modules\n');
    sandbox.write(owner, 'src/app.js', 'module.exports = 1;\n');
    for (const [path, text] of Object.entries(setup.files)) sandbox.write(owner, path, text);
    setup.activate(sandbox, owner);
    hooksPathBefore = hooksPathOf(owner);

    // No fixtures yet: the owner protects them (and the other guards) before they exist.
    const init = sandbox.receiptGate(owner, ['init', '--guard-absent', '--owner', OWNER_EMAIL, '--owner', 'alice']);
    assert.is(init.status, 0, init.stderr + init.stdout);
    initOutput = init.stdout;
    assert.is(hooksPathOf(owner), hooksPathBefore, 'core.hooksPath stays the manager\'s');
    assert.is(sandbox.run('test', ['-e', 'package.json'], owner).status === 0, setup.packageJson, 'package.json only where there was one');
    setup.wrote(sandbox, owner, init.stdout);

    sandbox.git(owner, 'add', '-A');
    const commit = sandbox.commit(owner, 'Guard evidence with receipt-gate');
    assert.is(commit.status, 0, commit.stderr + commit.stdout);
    const push = sandbox.push(owner, 'alice', ['origin', 'main']);
    assert.is(push.status, 0, push.stderr + push.stdout);

    const again = sandbox.receiptGate(owner, ['init', '--owner', OWNER_EMAIL]);
    assert.is(again.status, 0, again.stderr);
    assert.match(again.stdout, /nothing to change/);
    assert.is(sandbox.git(owner, 'status', '--porcelain'), '');
  });

  test(`${setup.name}: the pre-commit hook refuses an agent's fixture commit`, () => {
    const agent = sandbox.clone('agent-commit', AGENT_EMAIL, (dir) => setup.activate(sandbox, dir));
    const before = sandbox.git(agent, 'rev-parse', 'HEAD');
    sandbox.write(agent, 'fixtures/orders.json', '{"id": "orders", "input": {}, "sha256": "TODO"}\n');
    sandbox.write(agent, 'src/app.js', 'module.exports = 2;\n');
    sandbox.git(agent, 'add', '-A');
    const commit = sandbox.commit(agent, 'make the test pass');
    const out = commit.stderr + commit.stdout;
    assert.is.not(commit.status, 0, out);
    assert.match(out, /PATH_PROTECTED/);
    assert.match(out, /git restore --staged fixtures\/orders\.json/);
    assert.is(machineLineOf(out)?.verdict, 'closed', out);
    assert.equal(machineLineOf(out)?.blocked_paths, ['fixtures/orders.json']);
    assert.is(sandbox.git(agent, 'rev-parse', 'HEAD'), before);
  });

  test(`${setup.name}: the pre-push hook refuses a fixture push before anything leaves`, () => {
    const agent = sandbox.clone('agent-push', AGENT_EMAIL, (dir) => setup.activate(sandbox, dir));
    sandbox.write(agent, 'fixtures/orders.json', '{"id": "orders"}\n');
    sandbox.git(agent, 'add', '-A');
    assert.is(sandbox.commit(agent, 'edit the fixture', ['--no-verify']).status, 0);
    const serverBefore = sandbox.git(sandbox.bare, 'for-each-ref');
    const push: Run = sandbox.push(agent, 'agent', ['origin', 'main']);
    const out = push.stderr + push.stdout;
    assert.is.not(push.status, 0, out);
    assert.match(out, /receipt-gate pre-push to origin/);
    if (setup.pushNotice === null) assert.not.match(out, /no ref lines on standard input/, 'git\'s lines reached pre-push');
    else assert.match(out, setup.pushNotice);
    assert.not.match(out, /remote: /, 'refused on the client: the server never saw it');
    assert.is(machineLineOf(out)?.verdict, 'closed', out);
    assert.equal(machineLineOf(out)?.blocked_paths, ['fixtures/orders.json']);
    assert.is(sandbox.git(sandbox.bare, 'for-each-ref'), serverBefore);
  });

  test(`${setup.name}: a src/ change is committed and pushed through both hooks and the server`, () => {
    const agent = sandbox.clone('agent-src', AGENT_EMAIL, (dir) => setup.activate(sandbox, dir));
    sandbox.git(agent, 'checkout', '-q', '-b', 'feature/src');
    sandbox.write(agent, 'src/app.js', 'module.exports = 3;\n');
    sandbox.git(agent, 'add', '-A');
    const commit = sandbox.commit(agent, 'code only');
    assert.is(commit.status, 0, commit.stderr + commit.stdout);
    const push = sandbox.push(agent, 'agent', ['origin', 'feature/src']);
    assert.is(push.status, 0, push.stderr + push.stdout);
    assert.is(sandbox.git(sandbox.bare, 'rev-parse', 'feature/src'), sandbox.git(agent, 'rev-parse', 'HEAD'));
    assert.ok(initOutput.length > 0);
    if (setup.showsPassingOutput) {
      // What the passing pre-push printed reaches the developer: the notice naming the input it
      // judged (a clean push prints nothing else; a hold's notice goes the same way).
      const pushed = push.stderr + push.stdout;
      assert.match(pushed, /\nreceipt-gate pre-push: no ref lines on standard input; judging refs\/heads\/feature\/src \([0-9a-f]{7}\) to refs\/heads\/feature\/src on origin/, pushed);
    }
  });

  if (setup.showsPassingOutput) {
    test(`${setup.name}: a skipped hook says so through the manager (RECEIPT_GATE_SKIP=1)`, () => {
      const agent = sandbox.clone('agent-skip', AGENT_EMAIL, (dir) => setup.activate(sandbox, dir));
      sandbox.write(agent, 'fixtures/orders.json', '{"id": "orders", "skipped": true}\n');
      sandbox.git(agent, 'add', '-A');
      const commit = sandbox.commit(agent, 'skip the client hook', [], { RECEIPT_GATE_SKIP: '1' });
      const out = commit.stderr + commit.stdout;
      assert.is(commit.status, 0, out);
      assert.match(out, /receipt-gate pre-commit: skipped \(RECEIPT_GATE_SKIP=1\); the server hook still checks every push/, out);
    });
  }

  test.run();
}
