// husky 6 (hooks in .husky/ sourcing _/husky.sh, installed by `husky install`, no
// node_modules/.bin on PATH), end to end with the real husky 6.0.0.

import * as assert from 'uvu/assert';
import { chmodSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { managerScenario } from './managers-scenario';

const HUSKY6_PRE_COMMIT = '#!/bin/sh\n. "$(dirname "$0")/_/husky.sh"\n\nnpx lint-staged\n';

managerScenario({
  name: 'husky6',
  packages: ['husky@6.0.0', 'lint-staged@15.5.2'],
  pushNotice: null,
  packageJson: true,
  files: { '.husky/pre-commit': HUSKY6_PRE_COMMIT },
  activate(sandbox, dir) {
    // `husky add` writes hooks executable; git runs .husky/<hook> itself.
    if (existsSync(join(dir, '.husky/pre-commit'))) chmodSync(join(dir, '.husky/pre-commit'), 0o755);
    // What `npm install` runs through the prepare script init keeps: `husky install`.
    const r = sandbox.run(join(dir, 'node_modules', '.bin', 'husky'), ['install'], dir);
    assert.is(r.status, 0, r.stderr + r.stdout);
  },
  wrote(sandbox, owner, out) {
    assert.match(out, /hook manager: husky 5-8/);
    // The gate before the project's lint-staged, called by path; no second lint-staged.
    assert.is(
      sandbox.read(owner, '.husky/pre-commit'),
      '#!/bin/sh\n. "$(dirname "$0")/_/husky.sh"\n\nnode_modules/.bin/receipt-gate pre-commit\nnpx lint-staged\n',
    );
    assert.is(sandbox.read(owner, '.husky/pre-push'), '#!/bin/sh\n. "$(dirname "$0")/_/husky.sh"\n\nnode_modules/.bin/receipt-gate pre-push "$@"\n');
    const pkg = JSON.parse(sandbox.read(owner, 'package.json'));
    assert.is(pkg.scripts.prepare, 'husky install', 'husky 6 installs with `husky install`; a bare `husky` only prints its usage');
    assert.ok(Object.values(pkg['lint-staged']).includes('receipt-gate check'));
    assert.is(sandbox.git(owner, 'config', 'core.hooksPath').trim(), '.husky');
  },
});
