// husky 9 already in use (.husky/pre-commit runs the project's lint-staged and a slow step),
// end to end with the real husky 9.1.7: the gate goes first, lint-staged is not added twice.

import * as assert from 'uvu/assert';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { managerScenario } from './managers-scenario';

managerScenario({
  name: 'husky9',
  packages: ['husky@9.1.7', 'lint-staged@15.5.2'],
  pushNotice: null,
  packageJson: true,
  files: { '.husky/pre-commit': 'npx lint-staged\necho the slow project step\n' },
  activate(sandbox, dir) {
    if (existsSync(join(dir, '.husky/pre-commit'))) chmodSync(join(dir, '.husky/pre-commit'), 0o755);
    // What `npm install` runs through the prepare script: `husky`.
    const r = sandbox.run(join(dir, 'node_modules', '.bin', 'husky'), [], dir);
    assert.is(r.status, 0, r.stderr + r.stdout);
  },
  wrote(sandbox, owner, out) {
    assert.match(out, /hook manager: husky 9/);
    assert.is(sandbox.read(owner, '.husky/pre-commit'), 'receipt-gate pre-commit\nnpx lint-staged\necho the slow project step\n');
    assert.is(sandbox.read(owner, '.husky/pre-push'), 'receipt-gate pre-push "$@"\n');
    const pkg = JSON.parse(sandbox.read(owner, 'package.json'));
    assert.is(pkg.scripts.prepare, 'husky');
    assert.is(sandbox.git(owner, 'config', 'core.hooksPath').trim(), '.husky/_');
  },
});
