// husky 4.3.8 (hooks configured in package.json "husky": {"hooks"}, installed into .git/hooks
// by husky's own installer; pre-push's lines arrive in HUSKY_GIT_STDIN), end to end.

import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { managerScenario } from './managers-scenario';

managerScenario({
  name: 'husky4',
  packages: ['husky@4.3.8', 'lint-staged@15.5.2'],
  pushNotice: null,
  packageJson: true,
  files: {},
  activate(sandbox, dir) {
    const pkg = JSON.parse(sandbox.read(dir, 'package.json'));
    if (pkg.husky === undefined) {
      pkg.husky = { hooks: { 'pre-commit': 'npx lint-staged' } };
      sandbox.write(dir, 'package.json', `${JSON.stringify(pkg, null, 2)}\n`);
    }
    // What husky 4's install script does on `npm install`: npm sets INIT_CWD (the project)
    // and the user agent husky 4 records as the package manager its hooks run through (with
    // none, its hooks print "Unknown package manager" and pass everything). husky 4 skips
    // installing on a CI machine (ci-info: a non-empty CI); a developer's laptop is not one.
    const r = sandbox.run('node', [join(dir, 'node_modules', 'husky', 'husky.js'), 'install'], join(dir, 'node_modules', 'husky'), {
      CI: '',
      INIT_CWD: dir,
      npm_config_user_agent: `npm/10 node/${process.version} linux x64`,
    });
    assert.match(sandbox.read(dir, '.git/hooks/husky.local.sh'), /packageManager=npm/);
    assert.is(r.status, 0, r.stderr + r.stdout);
  },
  wrote(sandbox, owner, out) {
    assert.match(out, /hook manager: husky 4/);
    const pkg = JSON.parse(sandbox.read(owner, 'package.json'));
    assert.equal(pkg.husky.hooks, {
      'pre-commit': 'node_modules/.bin/receipt-gate pre-commit && npx lint-staged',
      'pre-push': 'node_modules/.bin/receipt-gate pre-push $HUSKY_GIT_PARAMS',
    });
    assert.ok(Object.values(pkg['lint-staged']).includes('receipt-gate check'));
    assert.is(pkg.scripts?.prepare, undefined, 'husky 4 installs itself; no prepare script');
  },
});
