// The pre-commit framework (Debian's /usr/bin/pre-commit), end to end in a project without a
// package.json (receipt-gate on PATH): init adds a `repo: local` entry (language: system, no
// network), and pre-push reads the push from the framework's PRE_COMMIT_* variables, since the
// framework passes no stdin.

import * as assert from 'uvu/assert';
import { mkdtempSync } from 'node:fs';
import { join } from 'node:path';
import { installedWith } from './harness';
import { managerScenario } from './managers-scenario';

const installation = installedWith('pre-commit', []);

managerScenario({
  name: 'pre-commit',
  packages: [],
  pushNotice: /no ref lines on standard input; judging refs\/heads\/main \([0-9a-f]{7}\) to refs\/heads\/main on origin, from the pre-commit framework's PRE_COMMIT_\* variables/,
  showsPassingOutput: true,
  packageJson: false,
  files: {
    '.pre-commit-config.yaml':
      'repos:\n-   repo: local\n    hooks:\n    -   id: no-todo\n        name: no TODO in src\n        entry: "TODO-not-allowed"\n        language: pygrep\n        files: ^src/\n',
  },
  env: (sandbox) => ({
    PRE_COMMIT_HOME: mkdtempSync(join(sandbox.dir, 'pre-commit-home-')),
    PATH: `${join(installation.project, 'node_modules', '.bin')}:${process.env.PATH}`,
  }),
  activate(sandbox, dir) {
    const r = sandbox.run('pre-commit', ['install', '--hook-type', 'pre-commit', '--hook-type', 'pre-push'], dir);
    assert.is(r.status, 0, r.stderr + r.stdout);
  },
  wrote(sandbox, owner, out) {
    assert.match(out, /hook manager: the pre-commit framework/);
    const config = sandbox.read(owner, '.pre-commit-config.yaml');
    assert.match(config, /^default_install_hook_types: \[pre-commit, pre-push\]\nrepos:\n-   repo: local\n    hooks:\n    -   id: receipt-gate-pre-commit\n/);
    assert.match(config, /entry: receipt-gate pre-push\n/);
    assert.ok(config.indexOf('receipt-gate-pre-push') < config.indexOf('no-todo'), "the gate's hooks run first");
    assert.ok(JSON.parse(sandbox.read(owner, '.receipt-gate.json')).protected.includes('.pre-commit-config.yaml'));
  },
});
