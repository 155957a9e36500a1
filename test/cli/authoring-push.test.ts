// Authoring end to end, through a real push: an owner turns the epoch and fixtures sections on
// with `policy enable`, pins the generator, records a fixture with `fixture record`, refreshes
// the CODEOWNERS block, and pushes to a bare repository guarded by the installed server hook
// (accepted); an agent's edit of the recorded fixture is then refused by that hook.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { LocalRepo } from '../client/local';
import { tempDir } from '../helpers/git';
import { ensureBuilt, installHook, machine, push } from '../server/helpers';

const FIXTURE_SCRIPT = 'import json, sys\ndoc = json.load(sys.stdin)\nprint(json.dumps({"sum": sum(doc["weights"])}))\n';

test('policy enable, epoch pin, fixture record, codeowners --write: the owner\'s push is accepted, the agent\'s fixture edit refused', async () => {
  ensureBuilt();
  const repo = new LocalRepo('authoring-push', 'alice@example.com');
  try {
    const policy = { version: 1, baseBranch: 'main', protected: ['tools/**'], owners: ['alice', 'alice@example.com'] };
    repo.write('.receipt-gate.json', `${JSON.stringify(policy, null, 2)}\n`);
    repo.write('tools/fixture.py', FIXTURE_SCRIPT);
    repo.write('fixtures/gen.py', 'print("orders")\n');
    repo.git('add', '.');
    repo.git('commit', '-q', '-m', 'start');
    const bare = join(tempDir('authoring-push-remote'), 'remote.git');
    repo.git('init', '-q', '--bare', '-b', 'main', bare);
    repo.git('remote', 'add', 'origin', `file://${bare}`);
    repo.git('push', '-q', 'origin', 'main');
    installHook(bare);

    for (const args of [
      ['policy', 'enable', 'epoch'],
      ['epoch', 'pin', '--id', 'orders-a', '--generator', 'fixtures/gen.py'],
      ['policy', 'enable', 'fixtures'],
      ['fixture', 'record', 'weights_v3', '--cmd', 'python3 tools/fixture.py', '--input', '{"weights": [50, 30, 20]}'],
      ['codeowners', '--write'],
    ]) {
      const r = await repo.cli(args);
      assert.is(r.code, 0, `${args.join(' ')}: ${r.stderr}`);
    }
    repo.git('add', '.receipt-gate.json', 'fixtures/EPOCH', 'fixtures/weights_v3.json', 'CODEOWNERS');
    repo.git('commit', '-q', '-m', 'evidence');
    const owner = push(repo.dir, ['origin', 'main'], { REMOTE_USER: 'alice' });
    assert.is(owner.status, 0, owner.stderr);

    const record = repo.json('fixtures/weights_v3.json') as { sha256: string };
    repo.write('fixtures/weights_v3.json', `${JSON.stringify({ ...record, sha256: 'f'.repeat(64) }, null, 2)}\n`);
    repo.git('commit', '-q', '-am', 'agent moves the oracle');
    const agent = push(repo.dir, ['origin', 'main'], { REMOTE_USER: 'agent' });
    assert.is.not(agent.status, 0);
    const line = machine(agent);
    assert.is(line.verdict, 'closed');
    assert.ok(line.blocked_paths.includes('fixtures/weights_v3.json'), JSON.stringify(line));
  } finally {
    repo.remove();
  }
});

test.run();
