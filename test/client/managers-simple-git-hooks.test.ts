// simple-git-hooks 2.14.0 (commands in package.json, written into .git/hooks by
// `simple-git-hooks`), end to end: init puts the gate first in each command.

import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { managerScenario } from './managers-scenario';

managerScenario({
  name: 'simple-git-hooks',
  packages: ['simple-git-hooks@2.14.0'],
  pushNotice: null,
  packageJson: true,
  files: {},
  activate(sandbox, dir) {
    const pkg = JSON.parse(sandbox.read(dir, 'package.json'));
    if (pkg['simple-git-hooks'] === undefined) {
      pkg['simple-git-hooks'] = { 'pre-commit': 'echo the project step' };
      sandbox.write(dir, 'package.json', `${JSON.stringify(pkg, null, 2)}\n`);
    }
    const r = sandbox.run(join(dir, 'node_modules', '.bin', 'simple-git-hooks'), [], dir);
    assert.is(r.status, 0, r.stderr + r.stdout);
  },
  wrote(sandbox, owner, out) {
    assert.match(out, /hook manager: simple-git-hooks \(package\.json\)/);
    const pkg = JSON.parse(sandbox.read(owner, 'package.json'));
    assert.equal(pkg['simple-git-hooks'], {
      'pre-commit': 'node_modules/.bin/receipt-gate pre-commit && echo the project step',
      'pre-push': 'node_modules/.bin/receipt-gate pre-push "$@"',
    });
    assert.match(sandbox.read(owner, '.git/hooks/pre-push'), /receipt-gate pre-push/, "init ran 'simple-git-hooks'");
  },
});
