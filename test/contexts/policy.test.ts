// Policy version 2: bounded contexts, as parsed from bytes and as read from a real commit (a
// root must be a folder of the base). Every refusal is POLICY_INVALID with the JSON pointer.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import { parsePolicy, policySchemaProblems } from '../../src/evidence/policy';
import { parsePyJson, toPlain } from '../../src/evidence/pyjson';
import { validateAgainst } from '../../src/evidence/schema';
import { openRepository } from '../../src/run/repository';
import { readPolicyAt } from '../../src/run/policy-at';
import { policyLeftFindings } from '../../src/rules/policy-left';
import { commitAll, initRepo, removeFiles, writeFiles } from '../helpers/git';

const bytes = (doc: unknown) => Buffer.from(JSON.stringify(doc));
const billing = { name: 'billing', root: 'services/billing', epoch: {}, freeze: { path: 'freeze.json' }, fixtures: {}, protected: ['checks/**'], owners: ['bob'] };
const inventory = { name: 'inventory', root: 'services/inventory', manifest: { catalog: 'checks/properties.json' }, observations: {}, epoch: { pin: 'pin/EPOCH' } };

function messages(doc: unknown): string[] {
  const parsed = parsePolicy(bytes(doc));
  assert.is(parsed.ok, false, 'refused');
  if (parsed.ok) return [];
  for (const f of parsed.findings) assert.is(f.code, 'POLICY_INVALID');
  return parsed.findings.map((f) => f.message);
}

test('a version 2 policy resolves each context to repository paths, with the repository-wide policy as its default', () => {
  const parsed = parsePolicy(bytes({ version: 2, owners: ['alice'], protected: ['.github/**'], freeze: { maxDays: 7, reasons: ['infra'] }, contexts: [billing, inventory] }));
  assert.ok(parsed.ok, JSON.stringify(parsed));
  if (!parsed.ok) return;
  const [b, i] = parsed.policy.contexts!;
  assert.is(b!.name, 'billing');
  assert.is(b!.root, 'services/billing');
  assert.equal(b!.policy.epoch, { pin: 'services/billing/fixtures/EPOCH' });
  assert.equal(b!.policy.freeze, { path: 'services/billing/freeze.json', reasons: ['infra'], maxDays: 7 });
  assert.equal(b!.policy.fixtures, { records: 'services/billing/fixtures/*.json' });
  assert.equal(b!.policy.owners, ['bob']);
  // Repository-wide globs and evidence paths (the repository-wide freeze section names freeze.json)
  // first, then the context's own, under its root.
  assert.equal(b!.policy.protected, ['.github/**', 'freeze.json', 'services/billing/checks/**']);
  assert.is(b!.policy.manifest, undefined, 'a section the context leaves out is not checked');
  assert.equal(i!.policy.owners, ['alice'], 'no owners: the repository-wide owners');
  assert.equal(i!.policy.manifest, { path: 'services/inventory/checks/manifest.json', catalog: 'services/inventory/checks/properties.json' });
  assert.equal(i!.policy.observations, { dir: 'services/inventory/observations', freezes: 'services/inventory/freezes' });
  assert.equal(i!.policy.epoch, { pin: 'services/inventory/pin/EPOCH' });
  assert.is(i!.policy.contexts, undefined);
});

test('a policy without contexts parses exactly as before (no contexts member)', () => {
  const parsed = parsePolicy(bytes({ version: 1, epoch: {} }));
  assert.ok(parsed.ok);
  if (parsed.ok) {
    assert.is(parsed.policy.contexts, undefined);
    assert.is(parsed.policy.version, 1);
  }
});

test('contexts need version 2, and version 1 keeps refusing unknown members', () => {
  assert.equal(messages({ version: 1, contexts: [billing] }), ['.receipt-gate.json is not a valid policy: at /version: expected 2, found 1.']);
});

test('overlapping roots (folded as paths are), a duplicate name and a root over the policy file are refused with their pointers', () => {
  const out = messages({
    version: 2,
    contexts: [
      billing,
      { name: 'billing-tax', root: 'Services/Billing/tax' },
      { name: 'billing', root: 'services/other' },
      { name: 'top', root: '.receipt-gate.json' },
    ],
  });
  assert.equal(out, [
    '.receipt-gate.json is not a valid policy: at /contexts/1/root: the root Services/Billing/tax overlaps the root services/billing of context "billing" (/contexts/0/root); roots may not hold one another.',
    '.receipt-gate.json is not a valid policy: at /contexts/2/name: the context name "billing" is also the name of /contexts/0; each context needs its own name.',
    '.receipt-gate.json is not a valid policy: at /contexts/3/root: the root .receipt-gate.json holds the policy file .receipt-gate.json, which belongs to the whole repository.',
  ]);
});

test('a context glob that reaches outside its root is refused at its pointer', () => {
  const out = messages({
    version: 2,
    contexts: [{ name: 'escape', root: 'services/escape', protected: ['../billing/**'], dependsOn: ['libs//x'], fixtures: { records: 'a/../../x/*.json' } }],
  });
  assert.equal(out.map((m) => /at (\S+):/.exec(m)![1]), ['/contexts/0/dependsOn/0', '/contexts/0/protected/0', '/contexts/0/fixtures/records']);
  assert.match(out[1]!, /"\.\.\/billing\/\*\*" is not a usable glob: it has a "\.\." segment/);
});

test('an evidence path outside its root (a .. segment, a leading /) and a bad name fail the schema at their pointers', () => {
  const out = messages({
    version: 2,
    contexts: [{ name: 'Billing!', root: 'services/billing', epoch: { pin: '../inventory/fixtures/EPOCH' }, freeze: { path: '/freeze.json' } }],
  });
  const pointers = out.map((m) => /at (\S+):/.exec(m)![1]);
  assert.equal(pointers.sort(), ['/contexts/0/epoch/pin', '/contexts/0/freeze/path', '/contexts/0/name']);
});

test('a context whose root is not a folder at the base is POLICY_INVALID naming /contexts/N/root', async () => {
  const repo = initRepo();
  writeFiles(repo, {
    '.receipt-gate.json': JSON.stringify({ version: 2, contexts: [billing, { name: 'inventory', root: 'services/inventory' }, { name: 'docs', root: 'README.md' }] }),
    'services/billing/src/a.js': '1\n',
    'README.md': '# x\n',
  });
  const commit = commitAll(repo, 'start');
  const store = await openRepository(repo, {});
  const read = await readPolicyAt(store, commit);
  assert.is(read.policy, null);
  assert.equal(
    read.findings.map((f) => [f.code, f.message]),
    [
      ['POLICY_INVALID', `.receipt-gate.json is not a valid policy: at /contexts/1/root: the root services/inventory of context "inventory" must be a folder of commit ${commit.slice(0, 7)}, but nothing is there.`],
      ['POLICY_INVALID', `.receipt-gate.json is not a valid policy: at /contexts/2/root: the root README.md of context "docs" must be a folder of commit ${commit.slice(0, 7)}, but it is a file.`],
    ],
  );
});

test('a push that keeps the policy but removes a root leaves an invalid policy behind', async () => {
  const repo = initRepo();
  writeFiles(repo, {
    '.receipt-gate.json': JSON.stringify({ version: 2, contexts: [billing, { name: 'inventory', root: 'services/inventory' }] }),
    'services/billing/src/a.js': '1\n',
    'services/inventory/src/b.js': '2\n',
  });
  const base = commitAll(repo, 'start');
  const store = await openRepository(repo, {});
  const read = await readPolicyAt(store, base);
  assert.ok(read.policy?.contexts);
  removeFiles(repo, ['services/inventory']);
  const next = commitAll(repo, 'drop inventory');
  const fresh = await openRepository(repo, {});
  const { tree } = await fresh.commits.read(next);
  const left = await policyLeftFindings(fresh, next, tree, read.oid, 'refs/heads/x', read.policy!.contexts);
  assert.equal(left.map((f) => [f.code, f.ref, /at (\S+):/.exec(f.message)![1]]), [['POLICY_INVALID', 'refs/heads/x', '/contexts/1/root']]);
  // Without contexts (or with the roots in place) nothing is found.
  assert.equal(await policyLeftFindings(fresh, next, tree, read.oid, 'refs/heads/x'), []);
  const { tree: baseTree } = await fresh.commits.read(base);
  assert.equal(await policyLeftFindings(fresh, base, baseTree, read.oid, 'refs/heads/x', read.policy!.contexts), []);
});

// Contexts that repeat one another but for their name and root are validated once
// (policySchemaProblems): whatever is wrong with any of them, the problems are those of the whole
// document validated as written, in the same order.
const service = (i: number, extra: Record<string, unknown> = {}) => ({
  name: `s${i}`,
  root: `services/s${i}`,
  protected: ['checks/**'],
  epoch: { pin: 'fixtures/EPOCH' },
  freeze: { path: 'freeze.json', reasons: ['timing'], maxDays: 14 },
  observations: {},
  ...extra,
});
// Values the JSON text spells as Python reads them: NaN, Infinity, -0.0 and a big integer.
const SPELLED: Record<string, string> = { '"@nan"': 'NaN', '"@inf"': '-Infinity', '"@neg0"': '-0.0', '"@big"': '123456789012345678901234567890' };
const valueArb = fc.constantFrom<unknown>('services/x', 's-ok', '', '/abs', 'a//b', 'Bad Name', 7, 0, -1, 3651, 14, '@nan', '@inf', '@neg0', '@big', null, true, [], ['timing', 'timing'], ['x'], {}, { pin: 'x' }, 'checks/**');
const memberArb = fc.constantFrom(['name'], ['root'], ['freeze', 'maxDays'], ['freeze', 'reasons'], ['protected', 0], ['epoch', 'pin'], ['epoch'], ['extra'], ['observations'], ['manifest', 'catalog'], ['owners'], ['dependsOn']);
const mutationArb = fc.record({ at: fc.integer({ min: 0, max: 5 }), member: memberArb, value: fc.option(valueArb, { nil: undefined }) });

function mutated(mutations: { at: number; member: readonly (string | number)[]; value: unknown }[]): Uint8Array {
  const doc = { version: 2, owners: ['alice'], contexts: [service(0), service(1), service(2), service(3, { owners: ['bob'] }), service(4), service(5)] };
  for (const m of mutations) {
    let holder: any = doc.contexts[m.at];
    for (const key of m.member.slice(0, -1)) holder = holder[key] ??= {};
    const last = m.member[m.member.length - 1]!;
    if (m.value === undefined) delete holder[last];
    else holder[last] = m.value;
  }
  let text = JSON.stringify(doc);
  for (const [spelled, python] of Object.entries(SPELLED)) text = text.split(spelled).join(python);
  return Buffer.from(text);
}

test('repeated contexts: the schema problems of the whole document, whatever is wrong (fixed seed)', () => {
  const cases = fc.sample(fc.array(mutationArb, { maxLength: 3 }), { seed: 20261129, numRuns: 600 });
  let refused = 0;
  for (const mutations of cases) {
    const plain = toPlain(parsePyJson(mutated(mutations)));
    const whole = validateAgainst('policy.schema.json', plain);
    assert.equal(policySchemaProblems(plain), whole, JSON.stringify(mutations));
    if (whole.length > 0) refused++;
  }
  assert.ok(refused > 200 && refused < 580, `both valid and invalid documents are drawn (${refused} refused)`);
  const ok = parsePolicy(mutated([]));
  assert.ok(ok.ok && ok.policy.contexts!.map((c) => c.policy.freeze!.path).join() === [0, 1, 2, 3, 4, 5].map((i) => `services/s${i}/freeze.json`).join());
});

test('a repeated context with a bad name or root is refused at its own pointer', () => {
  assert.equal(messages({ version: 2, contexts: [service(0), service(1, { name: 'Bad' }), service(2, { root: '/abs' })] }), [
    '.receipt-gate.json is not a valid policy: at /contexts/1/name: expected a context name: lowercase letters, digits, \'.\', \'_\' or \'-\', starting with a letter or digit, at most 64 characters, found "Bad".',
    '.receipt-gate.json is not a valid policy: at /contexts/2/root: expected a repository path relative to the root (no leading or trailing /, no . or .. segments), found "/abs".',
  ]);
});

test.run();
