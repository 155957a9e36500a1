// `receipt-gate policy enable SECTION` on real repositories: each evidence section turned on
// with its documented defaults (or the paths given), the policy's own layout kept (indentation,
// CRLF, one-line sections), running it twice changes nothing, a policy with contexts is edited
// only in the context named, and what the policy would not accept is refused with nothing written.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { LocalRepo } from '../client/local';

const BASE = { version: 1, baseBranch: 'main', protected: ['src/**'], owners: ['alice@example.com'] };

function repoWith(policyText: string, name: string): LocalRepo {
  const repo = new LocalRepo(name);
  repo.write('.receipt-gate.json', policyText);
  repo.write('README.md', 'x\n');
  repo.git('add', '.');
  repo.git('commit', '-q', '-m', 'start');
  return repo;
}

test('each section is turned on with its documented defaults; the second run changes nothing', async () => {
  const repo = repoWith(`${JSON.stringify(BASE, null, 2)}\n`, 'policy-defaults');
  try {
    for (const section of ['epoch', 'manifest', 'freeze', 'observations', 'fixtures']) {
      const r = await repo.cli(['policy', 'enable', section]);
      assert.is(r.code, 0, r.stderr);
      assert.match(r.stdout, new RegExp(`enabled the "${section}" section`));
      assert.match(r.stdout, /next: git add \.receipt-gate\.json && git commit/);
    }
    const policy = repo.json('.receipt-gate.json') as Record<string, unknown>;
    assert.equal(policy.epoch, { pin: 'fixtures/EPOCH' });
    assert.equal(policy.manifest, { path: 'checks/manifest.json' });
    assert.equal(policy.freeze, { path: 'freeze.json', reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 });
    assert.equal(policy.observations, { dir: 'observations', freezes: 'freezes' });
    assert.equal(policy.fixtures, { records: 'fixtures/*.json' });
    // The documented order, and the file as JSON.stringify(…, 2) writes it (init's layout).
    assert.equal(Object.keys(policy), ['version', 'baseBranch', 'protected', 'owners', 'epoch', 'manifest', 'freeze', 'observations', 'fixtures']);
    assert.is(repo.read('.receipt-gate.json'), `${JSON.stringify(policy, null, 2)}\n`);

    const before = repo.read('.receipt-gate.json');
    for (const section of ['epoch', 'manifest', 'freeze', 'observations', 'fixtures']) {
      const again = await repo.cli(['policy', 'enable', section]);
      assert.is(again.code, 0, again.stderr);
      assert.match(again.stdout, /already on .*nothing changed/);
    }
    assert.is(repo.read('.receipt-gate.json'), before);
  } finally {
    repo.remove();
  }
});

test('the epoch section: the gate closes on the missing pin until it is pinned, and says how', async () => {
  const repo = repoWith(`${JSON.stringify(BASE, null, 2)}\n`, 'policy-epoch');
  try {
    const r = await repo.cli(['policy', 'enable', 'epoch', '--pin', 'data/EPOCH']);
    assert.is(r.code, 0, r.stderr);
    assert.equal((repo.json('.receipt-gate.json') as Record<string, unknown>).epoch, { pin: 'data/EPOCH' });
    assert.match(r.stdout, /EPOCH_MISSING/);
    assert.match(r.stdout, /receipt-gate epoch pin --id ID --generator PATH/);
    // Then the pin the section asks for can be written.
    repo.write('data/gen.py', 'print(1)\n');
    repo.git('add', 'data/gen.py');
    const pin = await repo.cli(['epoch', 'pin', '--id', 'e1', '--generator', 'data/gen.py']);
    assert.is(pin.code, 0, pin.stderr);
  } finally {
    repo.remove();
  }
});

test('manifest --catalog, an override of an existing section, and options of another section refused', async () => {
  const repo = repoWith(`${JSON.stringify(BASE, null, 2)}\n`, 'policy-manifest');
  try {
    const r = await repo.cli(['policy', 'enable', 'manifest', '--catalog', 'checks/properties.json']);
    assert.is(r.code, 0, r.stderr);
    assert.equal((repo.json('.receipt-gate.json') as Record<string, unknown>).manifest, { path: 'checks/manifest.json', catalog: 'checks/properties.json' });
    const moved = await repo.cli(['policy', 'enable', 'manifest', '--path', 'checks/m.json']);
    assert.is(moved.code, 0, moved.stderr);
    assert.match(moved.stdout, /changed the "manifest" section/);
    assert.equal((repo.json('.receipt-gate.json') as Record<string, unknown>).manifest, { path: 'checks/m.json', catalog: 'checks/properties.json' });
    const wrong = await repo.cli(['policy', 'enable', 'manifest', '--pin', 'x']);
    assert.is(wrong.code, 2);
    assert.match(wrong.stderr, /--pin is not an option of the manifest section/);
  } finally {
    repo.remove();
  }
});

test('the file keeps its layout: tabs, CRLF, one-line sections with padded braces', async () => {
  const text = '{\r\n\t"version": 1,\r\n\t"owners": ["alice@example.com"],\r\n\t"freeze":   { "path": "freeze.json" },\r\n\t"limits": { "timeoutMs": 4000 }\r\n}\r\n';
  const repo = repoWith(text, 'policy-layout');
  try {
    const r = await repo.cli(['policy', 'enable', 'epoch']);
    assert.is(r.code, 0, r.stderr);
    assert.is(
      repo.read('.receipt-gate.json'),
      '{\r\n\t"version": 1,\r\n\t"owners": ["alice@example.com"],\r\n\t"epoch": { "pin": "fixtures/EPOCH" },\r\n\t"freeze":   { "path": "freeze.json" },\r\n\t"limits": { "timeoutMs": 4000 }\r\n}\r\n',
    );
  } finally {
    repo.remove();
  }
});

test('what the policy would not accept is refused, nothing written: observations without epoch, folders that overlap', async () => {
  const repo = repoWith(`${JSON.stringify(BASE, null, 2)}\n`, 'policy-refuse');
  try {
    const before = repo.read('.receipt-gate.json');
    const r = await repo.cli(['policy', 'enable', 'observations']);
    assert.is(r.code, 2);
    assert.match(r.stderr, /needs the epoch section/);
    assert.is((await repo.cli(['policy', 'enable', 'epoch'])).code, 0);
    const overlap = await repo.cli(['policy', 'enable', 'observations', '--dir', 'obs', '--freezes', 'obs/keyed']);
    assert.is(overlap.code, 2);
    assert.match(overlap.stderr, /must be separate folders/);
    assert.not.match(repo.read('.receipt-gate.json'), /observations/);
    assert.is.not(repo.read('.receipt-gate.json'), before);
    const bad = await repo.cli(['policy', 'enable', 'fixtures', '--records', '/abs/*.json']);
    assert.is(bad.code, 2);
    assert.match(bad.stderr, /POLICY_INVALID/);
  } finally {
    repo.remove();
  }
});

test('a policy with contexts: refused without --context; with it, the section goes in that context', async () => {
  const policy = {
    version: 2,
    baseBranch: 'main',
    owners: ['alice@example.com'],
    contexts: [
      { name: 'billing', root: 'services/billing' },
      { name: 'search', root: 'services/search' },
    ],
  };
  const repo = repoWith(`${JSON.stringify(policy, null, 2)}\n`, 'policy-contexts');
  try {
    const r = await repo.cli(['policy', 'enable', 'epoch']);
    assert.is(r.code, 2);
    assert.match(r.stderr, /declares bounded contexts \(billing, search\): name the one .* with --context NAME/);
    const ok = await repo.cli(['policy', 'enable', 'epoch', '--context', 'search']);
    assert.is(ok.code, 0, ok.stderr);
    const after = repo.json('.receipt-gate.json') as { contexts: Record<string, unknown>[] };
    assert.equal(after.contexts[1], { name: 'search', root: 'services/search', epoch: { pin: 'fixtures/EPOCH' } });
    assert.equal(after.contexts[0], { name: 'billing', root: 'services/billing' });
    assert.match(ok.stdout, /services\/search\/fixtures\/EPOCH/);
    const unknown = await repo.cli(['policy', 'enable', 'epoch', '--context', 'nope']);
    assert.is(unknown.code, 2);
  } finally {
    repo.remove();
  }
});

test('policy --help describes every option in one line', async () => {
  const repo = new LocalRepo('policy-help');
  try {
    const r = await repo.cli(['policy', '--help']);
    assert.is(r.code, 0);
    const options = r.stdout.split('\n').filter((l) => /^ {2}(-\w, )?--/.test(l));
    assert.ok(options.length >= 10);
    for (const line of options) assert.match(line, /^ {2}(-\w, )?--[\w-]+( [A-Z|.-]+)? {3}\S/, line);
  } finally {
    repo.remove();
  }
});

test.run();
