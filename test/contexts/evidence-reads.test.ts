// What a bounded context's evidence reads outside its root (docs/contexts.md): the generator and
// inputs its epoch pin names at the base. A change that reaches one (a symlink over its folder,
// an 8.3 short name of it, a path outside every root) touches the context and needs its owner;
// an untouched context whose pin's paths are the same entries at new as at the base keeps the
// shortcut and reads its pin once per run. Real repositories built with the git CLI, the engine
// called directly.

import { createHash } from 'node:crypto';
import { symlinkSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../../src/engine';
import type { Finding } from '../../src/findings';
import { History } from '../../src/git/history/history';
import { ObjectStore } from '../../src/git/store';
import { resolveBase } from '../../src/run/base';
import { ZERO_OID } from '../../src/types';
import { cleanupTempDirs, commitAll, git, initRepo, writeFiles } from '../helpers/git';

test.after(cleanupTempDirs);

const TODAY = '2026-12-05';
const GEN = 'services/inventory/src/gen.js';
const TABLE = 'libs/shared/table.csv';
const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');
const GENERATOR = 'module.exports = (order) => order;\n';

/** billing (bob) pins a generator under inventory's root (carol) and an input under libs/,
 * which inventory's dependsOn names; platform-bot owns the repository. */
function monorepo(): string {
  const repo = initRepo();
  const policy = {
    version: 2,
    baseBranch: 'main',
    owners: ['platform-bot'],
    contexts: [
      { name: 'billing', root: 'services/billing', owners: ['bob'], protected: ['fixtures/**'], epoch: { pin: 'fixtures/EPOCH' } },
      { name: 'inventory', root: 'services/inventory', owners: ['carol'], protected: ['fixtures/**'], dependsOn: ['libs/**'], epoch: { pin: 'fixtures/EPOCH' } },
    ],
  };
  const inventoryGenerator = 'module.exports = (stock) => stock;\n';
  writeFiles(repo, {
    '.receipt-gate.json': json(policy),
    'services/billing/src/invoice.js': 'module.exports = 1;\n',
    'services/billing/fixtures/EPOCH': json({ epoch_id: 'billing-1', generator: GEN, generator_sha256: sha256(GENERATOR), inputs: [TABLE] }),
    [GEN]: GENERATOR,
    [TABLE]: 'north,south\n',
    'services/inventory/src/reserve.js': 'module.exports = 2;\n',
    'services/inventory/fixtures/generate.js': inventoryGenerator,
    'services/inventory/fixtures/EPOCH': json({ epoch_id: 'inventory-1', generator: 'services/inventory/fixtures/generate.js', generator_sha256: sha256(inventoryGenerator), inputs: [] }),
  });
  commitAll(repo, 'two services');
  return repo;
}

/** A branch `patch` off `from` with `edit` applied, committed. */
function patch(repo: string, edit: () => void, from = 'main'): string {
  git(repo, ['checkout', '-q', '-B', 'patch', from]);
  edit();
  const tip = commitAll(repo, 'patch');
  git(repo, ['checkout', '-q', 'main']);
  return tip;
}

async function judge(repo: string, tip: string, identity: string | null) {
  const store = await ObjectStore.discover(repo, {});
  try {
    const base = await resolveBase(store, { kind: 'named', spec: 'main' });
    const blobReads: string[] = [];
    const readBlob = store.objects.readBlob.bind(store.objects);
    store.objects.readBlob = (oid: string, maxBytes: number) => {
      blobReads.push(oid);
      return readBlob(oid, maxBytes);
    };
    const result = await evaluate({ store, history: new History(store), base, identity, today: TODAY, scope: { kind: 'base', exclude: [] } }, [
      { old: ZERO_OID, new: tip, ref: 'refs/heads/patch' },
    ]);
    const ref = result.refs[0]!;
    return {
      findings: ref.findings.map((f: Finding) => `${f.code} [${f.context ?? '-'}] ${f.path}`),
      messages: ref.findings.map((f: Finding) => f.message),
      contexts: (ref.contexts ?? []).map((c) => ({ name: c.name, touched: c.touched, pin: c.evidence?.pin?.epoch_id ?? null })),
      blobReads,
    };
  } finally {
    store.close();
  }
}

test('a symlink over the folder of the generator billing pins touches billing and needs its owner', async () => {
  const repo = monorepo();
  const tip = patch(repo, () => {
    rmSync(join(repo, 'services/inventory/src'), { recursive: true });
    symlinkSync('../billing/src', join(repo, 'services/inventory/src'));
  });
  const asCarol = await judge(repo, tip, 'carol');
  assert.ok(asCarol.findings.includes('PATH_PROTECTED [billing] services/inventory/src'), asCarol.findings.join('\n'));
  assert.ok(asCarol.messages.some((m) => /changes the type \(tree -> symlink\) of a protected path \(generator named by services\/billing\/fixtures\/EPOCH of context billing\) as carol/.test(m)), asCarol.messages.join('\n'));
  assert.equal(asCarol.contexts.map((c) => [c.name, c.touched]), [['billing', true], ['inventory', true]]);
  const asBob = await judge(repo, tip, 'bob');
  assert.not.ok(asBob.findings.some((f) => f.startsWith('PATH_PROTECTED [billing]')), asBob.findings.join('\n'));
});

test('an 8.3 short name of the generator\'s folder is a change of it', async () => {
  const repo = monorepo();
  const tip = patch(repo, () => writeFiles(repo, { 'services/INVENT~1/src/gen.js': 'module.exports = () => 0;\n' }));
  const r = await judge(repo, tip, 'dave');
  assert.ok(r.findings.includes('PATH_PROTECTED [billing] services/INVENT~1/src/gen.js'), r.findings.join('\n'));
});

test('an input outside every root: billing (whose pin names it) and inventory (whose dependsOn names it) are touched; only billing\'s owner may change it', async () => {
  const repo = monorepo();
  const tip = patch(repo, () => writeFiles(repo, { [TABLE]: 'north\n' }));
  const asOwner = await judge(repo, tip, 'platform-bot');
  assert.equal(asOwner.findings, [`PATH_PROTECTED [billing] ${TABLE}`]);
  assert.match(asOwner.messages[0]!, /\(input named by services\/billing\/fixtures\/EPOCH of context billing\) as platform-bot, who is not an owner of billing/);
  assert.equal(asOwner.contexts.map((c) => [c.name, c.touched]), [['billing', true], ['inventory', true]]);
  assert.equal((await judge(repo, tip, 'bob')).findings, []);
});

test('an update that reaches nothing billing reads keeps the shortcut: billing untouched, its pin read once', async () => {
  const repo = monorepo();
  const tip = patch(repo, () => writeFiles(repo, { 'services/inventory/src/reserve.js': 'module.exports = 3;\n' }));
  const r = await judge(repo, tip, 'dave');
  assert.equal(r.findings, []);
  // billing judged on its freezes alone (no pin in its results); inventory in full.
  assert.equal(r.contexts, [
    { name: 'billing', touched: false, pin: null },
    { name: 'inventory', touched: true, pin: 'inventory-1' },
  ]);
  const pinBlob = git(repo, ['rev-parse', 'main:services/billing/fixtures/EPOCH']).trim();
  assert.is(r.blobReads.filter((oid) => oid === pinBlob).length, 1, 'billing\'s pin is read once, for what it names');
});

test('a branch that forked before the base changed an input billing\'s pin names: billing untouched but judged in full', async () => {
  const repo = monorepo();
  const fork = git(repo, ['rev-parse', 'main']).trim();
  writeFiles(repo, { [TABLE]: 'north,south,east\n' });
  commitAll(repo, 'bob adds a warehouse to billing\'s input');
  const tip = patch(repo, () => writeFiles(repo, { 'services/inventory/src/reserve.js': 'module.exports = 4;\n' }), fork);
  const r = await judge(repo, tip, 'dave');
  assert.equal(r.findings, []);
  assert.equal(r.contexts, [
    { name: 'billing', touched: false, pin: 'billing-1' },
    { name: 'inventory', touched: true, pin: 'inventory-1' },
  ]);
});

test.run();
