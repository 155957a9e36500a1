// lefthook 2.2.1 from npm (its Go binary ships in lefthook-linux-x64; nothing is downloaded),
// end to end: init adds commands to lefthook.yml and leaves core.hooksPath alone.

import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { managerScenario } from './managers-scenario';

managerScenario({
  name: 'lefthook',
  packages: ['lefthook@2.2.1'],
  pushNotice: null,
  packageJson: true,
  files: { 'lefthook.yml': '# the project\'s hooks\npre-commit:\n  commands:\n    lint:\n      run: echo lint {staged_files}\n' },
  activate(sandbox, dir) {
    const r = sandbox.run(join(dir, 'node_modules', '.bin', 'lefthook'), ['install'], dir);
    assert.is(r.status, 0, r.stderr + r.stdout);
  },
  wrote(sandbox, owner, out) {
    assert.match(out, /hook manager: lefthook \(lefthook\.yml\)/);
    assert.is(
      sandbox.read(owner, 'lefthook.yml'),
      "# the project's hooks\npre-commit:\n  commands:\n    receipt-gate:\n      run: node_modules/.bin/receipt-gate pre-commit\n    lint:\n      run: echo lint {staged_files}\n" +
        '\npre-push:\n  commands:\n    receipt-gate:\n      run: node_modules/.bin/receipt-gate pre-push {1} {2}\n      use_stdin: true\n',
    );
    assert.is(sandbox.run('git', ['config', '--get', 'core.hooksPath'], owner).stdout, '', 'lefthook keeps the hooks directory');
    assert.match(sandbox.read(owner, '.git/hooks/pre-push'), /lefthook/, "init ran 'lefthook install' for the new pre-push hook");
    assert.ok(JSON.parse(sandbox.read(owner, '.receipt-gate.json')).protected.includes('lefthook.yml'));
  },
});
