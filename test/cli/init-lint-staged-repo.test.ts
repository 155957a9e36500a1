// `init` in a repository shaped like lint-staged's own, with the real husky 9.1.7 and
// lint-staged 15.5.2 from the npm cache (test/client/harness.ts): the project *is* lint-staged,
// so its `.husky/pre-commit` runs `node bin/lint-staged.js` (here a bin that starts the
// installed lint-staged, as the real one starts ../lib) and its configuration is
// lint-staged.config.js. init must take that line for the project's lint-staged run: no second
// lint-staged line, no lint-staged devDependency, nothing of it re-added by a later
// `init --owner carol`, and no request to add an entry that lint-staged.config.js already
// has. Every commit through the installed husky hook then runs one lint-staged pass (a task of
// the project's config counts them) and the gate once.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { installedProject, OWNER_EMAIL, Sandbox } from '../client/harness';

const sandbox = new Sandbox('lint-staged-repo', installedProject());
sandbox.installServerHook();

const ENTRY = "'{.receipt-gate.json,freeze.json,fixtures/**,checks/**,observations/**,freezes/**}': 'receipt-gate check'";
const configWith = (extra: string) =>
  `// lint-staged's own configuration, as its repository keeps it\nexport default {\n  '*': 'node scripts/count-pass.js',${extra}\n}\n`;

/** How many lint-staged passes ran in `dir` (the count-pass task appends one line per pass). */
function passes(dir: string): number {
  const file = join(dir, '.git', 'lint-staged-passes');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter((l) => l !== '').length : 0;
}

let owner = '';

test("init recognises `node bin/lint-staged.js` in lint-staged's own repository: no second run, no dependency on itself", () => {
  owner = sandbox.clone('owner', OWNER_EMAIL, () => undefined);
  const pkg = {
    name: 'lint-staged',
    version: '16.0.0',
    type: 'module',
    bin: 'bin/lint-staged.js',
    scripts: { prepare: 'husky', test: 'node --test' },
    devDependencies: { husky: '9.1.7' },
  };
  sandbox.write(owner, 'package.json', `${JSON.stringify(pkg, null, 2)}\n`);
  sandbox.write(owner, '.gitignore', 'node_modules\n');
  sandbox.write(owner, 'bin/lint-staged.js', "#!/usr/bin/env node\nimport '../node_modules/lint-staged/bin/lint-staged.js'\n");
  sandbox.write(owner, 'scripts/count-pass.js', "import { appendFileSync } from 'node:fs'\nappendFileSync('.git/lint-staged-passes', `pass ${process.argv.length - 2}\\n`)\n");
  sandbox.write(owner, 'lib/index.js', 'export default function lintStaged() {}\n');
  sandbox.write(owner, 'lint-staged.config.js', configWith(''));
  sandbox.write(owner, '.husky/pre-commit', 'node bin/lint-staged.js\n');
  // What `npm install` runs through the prepare script.
  const husky = sandbox.run(join(owner, 'node_modules', '.bin', 'husky'), [], owner);
  assert.is(husky.status, 0, husky.stderr + husky.stdout);

  // No fixtures yet: the owner protects them (and the other guards) before they exist.
  const init = sandbox.receiptGate(owner, ['init', '--guard-absent', '--owner', OWNER_EMAIL, '--owner', 'alice']);
  assert.is(init.status, 0, init.stderr + init.stdout);
  assert.match(init.stdout, /hook manager: husky 9/);
  assert.is(sandbox.read(owner, '.husky/pre-commit'), 'receipt-gate pre-commit\nnode bin/lint-staged.js\n', 'the gate first, the project\'s own lint-staged run kept, no second one');
  const written = JSON.parse(sandbox.read(owner, 'package.json'));
  assert.is(written.devDependencies['lint-staged'], undefined, 'lint-staged does not depend on itself');
  assert.is(written['lint-staged'], undefined, 'the configuration stays in lint-staged.config.js');
  assert.is(written.devDependencies.husky, '9.1.7');
  assert.is(written.scripts.prepare, 'husky');
  // The entry is not in lint-staged.config.js yet: init says, once, what to add there.
  const asks = init.stdout.split('\n').filter((l) => /there yourself/.test(l));
  assert.is(asks.length, 1, init.stdout);
  assert.match(asks[0]!, /lint-staged is configured in lint-staged\.config\.js: add ".*": "receipt-gate check" there yourself/);
});

test('with the entry added to lint-staged.config.js, init stops asking and changes nothing', () => {
  sandbox.write(owner, 'lint-staged.config.js', configWith(`\n  ${ENTRY},`));
  const again = sandbox.receiptGate(owner, ['init', '--owner', OWNER_EMAIL]);
  assert.is(again.status, 0, again.stderr + again.stdout);
  assert.match(again.stdout, /nothing to change/);
  assert.not.match(again.stdout, /there yourself/);
});

test('the first commit through the installed husky hook runs one lint-staged pass, and the push lands', () => {
  sandbox.git(owner, 'add', '-A');
  const commit = sandbox.commit(owner, 'Guard evidence with receipt-gate');
  const out = commit.stderr + commit.stdout;
  assert.is(commit.status, 0, out);
  assert.is(passes(owner), 1, `one lint-staged pass:\n${out}`);
  assert.is(sandbox.git(owner, 'log', '--format=%s', '-1').trim(), 'Guard evidence with receipt-gate');
  const push = sandbox.push(owner, 'alice', ['origin', 'main']);
  assert.is(push.status, 0, push.stderr + push.stdout);
});

test('a later `init --owner carol` adds the owner and re-adds nothing; its commit runs one pass again', () => {
  const hookBefore = sandbox.read(owner, '.husky/pre-commit');
  const pkgBefore = sandbox.read(owner, 'package.json');
  const carol = sandbox.receiptGate(owner, ['init', '--owner', 'carol']);
  assert.is(carol.status, 0, carol.stderr + carol.stdout);
  assert.match(carol.stdout, /added carol to the owners/);
  assert.not.match(carol.stdout, /there yourself/);
  assert.is(sandbox.read(owner, '.husky/pre-commit'), hookBefore, 'no second lint-staged line');
  assert.is(sandbox.read(owner, 'package.json'), pkgBefore, 'no lint-staged dependency or entry');
  // The new owner is in the policy and in the CODEOWNERS block init keeps with it.
  assert.equal(sandbox.git(owner, 'status', '--porcelain').trim(), 'M .receipt-gate.json\n M CODEOWNERS');
  assert.match(sandbox.read(owner, 'CODEOWNERS'), /^\/\.receipt-gate\.json .*@carol$/m);

  sandbox.git(owner, 'add', '-A');
  const commit = sandbox.commit(owner, 'Add carol to the owners');
  assert.is(commit.status, 0, commit.stderr + commit.stdout);
  assert.is(passes(owner), 2, 'one more pass for one more commit');

  // A commit that changes a fixture as a non-owner is still stopped by the gate, which runs
  // before the project's lint-staged (so no pass is counted for it).
  sandbox.git(owner, 'config', 'user.email', 'agent@example.com');
  sandbox.write(owner, 'fixtures/orders.json', '{"id": "orders"}\n');
  sandbox.git(owner, 'add', '-A');
  const agent = sandbox.commit(owner, 'edit a fixture');
  assert.is.not(agent.status, 0, agent.stderr + agent.stdout);
  assert.match(agent.stderr + agent.stdout, /PATH_PROTECTED/);
  assert.is(passes(owner), 2);
});

test.run();
