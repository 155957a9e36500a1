// Untouched contexts whose tree is the base's (docs/contexts.md): judged on their freezes alone.
// Contexts whose freeze files and keyed freezes are the same blobs read them once; each context
// still gets its own findings (its own paths, its own context, its own fix), the same as when
// every context's files are blobs of their own. Real repositories built with the git CLI, the
// engine called directly.

import { createHash } from 'node:crypto';
import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { evaluate } from '../../src/engine';
import { History } from '../../src/git/history/history';
import { ObjectStore } from '../../src/git/store';
import { resolveBase } from '../../src/run/base';
import { ZERO_OID } from '../../src/types';
import type { Finding } from '../../src/findings';
import { cleanupTempDirs, commitAll, git, initRepo, writeFiles } from '../helpers/git';

test.after(cleanupTempDirs);

const TODAY = '2026-11-02';
const CONTEXTS = ['alpha', 'beta', 'gamma', 'delta'];

const json = (value: unknown) => `${JSON.stringify(value, null, 2)}\n`;

/** A monorepo of four contexts. The untouched ones (all but alpha) hold a freeze file with an
 * expired, a live and an undated row, and keyed freezes: one expired, one live, one not JSON, one
 * without a date. With `shared`, those files are the same bytes in every untouched context; else
 * each context's are bytes of their own (the same JSON, indented differently). */
function monorepo(shared: boolean): { repo: string; tip: string } {
  const repo = initRepo();
  const policy = {
    version: 2,
    baseBranch: 'main',
    owners: ['platform-bot'],
    freeze: { reasons: ['timing', 'network'], maxDays: 14 },
    contexts: CONTEXTS.map((name, i) => ({
      name,
      root: `services/${name}`,
      owners: [`owner-${name}`],
      protected: ['freeze.json', 'freezes/**'],
      epoch: { pin: 'fixtures/EPOCH' },
      freeze: { path: 'freeze.json' },
      observations: { dir: 'observations', freezes: 'freezes' },
      ...(i === 2 ? { freeze: { path: 'freeze.json', maxDays: 7 } } : {}),
    })),
  };
  const files: Record<string, string> = { '.receipt-gate.json': json(policy), 'README.md': '# services\n' };
  for (const [i, name] of CONTEXTS.entries()) {
    const root = `services/${name}`;
    const own = (value: unknown) => (shared ? json(value) : `${JSON.stringify(value, null, 1 + i)}\n`);
    files[`${root}/src/main.txt`] = `${name}\n`;
    const generator = `print("${name}")\n`;
    files[`${root}/fixtures/gen.py`] = generator;
    files[`${root}/fixtures/in.json`] = '{}\n';
    files[`${root}/fixtures/EPOCH`] = json({ epoch_id: `${name}-1`, generator: `${root}/fixtures/gen.py`, generator_sha256: createHash('sha256').update(generator).digest('hex'), inputs: [`${root}/fixtures/in.json`] });
    if (i === 0) {
      files[`${root}/freeze.json`] = json({ version: 1, frozen: [{ id: 'tests/a.py::live', reason: 'timing', expires: '2026-11-05', added: '2026-11-01' }] });
      continue;
    }
    files[`${root}/freeze.json`] = own({
      version: 1,
      frozen: [
        { id: 'tests/a.py::gone', reason: 'timing', expires: '2026-10-30', added: '2026-10-20' },
        { id: 'tests/a.py::live', reason: 'network', expires: '2026-11-06', added: '2026-11-01' },
        { id: 'tests/a.py::undated', reason: 'timing' },
        { id: 'tests/a.py::older', reason: 'timing', expires: '2026-10-01', added: '2026-09-25' },
      ],
    });
    files[`${root}/freezes/flaky-old.json`] = own({ observation_id: 'flaky-old', expires_on: '2026-10-15', reason: 'rerun passed' });
    files[`${root}/freezes/flaky-live.json`] = own({ observation_id: 'flaky-live', expires_on: '2026-11-20', reason: 'rerun passed' });
    files[`${root}/freezes/broken.json`] = '{"observation_id": ';
    files[`${root}/freezes/undated.json`] = own({ observation_id: 'undated' });
  }
  writeFiles(repo, files);
  commitAll(repo, 'four services');
  git(repo, ['checkout', '-q', '-b', 'patch']);
  writeFiles(repo, { 'services/alpha/src/main.txt': 'alpha, patched\n' });
  const tip = commitAll(repo, 'patch alpha');
  git(repo, ['checkout', '-q', 'main']);
  return { repo, tip };
}

async function judge(repo: string, tip: string) {
  const store = await ObjectStore.discover(repo, {});
  try {
    const base = await resolveBase(store, { kind: 'named', spec: 'main' });
    const blobReads: string[] = [];
    const readBlob = store.objects.readBlob.bind(store.objects);
    store.objects.readBlob = (oid: string, maxBytes: number) => {
      blobReads.push(oid);
      return readBlob(oid, maxBytes);
    };
    const result = await evaluate({ store, history: new History(store), base, identity: null, today: TODAY, scope: { kind: 'base', exclude: [] } }, [
      { old: ZERO_OID, new: tip, ref: 'refs/heads/patch' },
    ]);
    return { result, blobReads };
  } finally {
    store.close();
  }
}

const line = (f: Finding) => `${f.severity} ${f.code} [${f.context}] ${f.path}: ${f.message} | ${f.fix}`;

test('untouched contexts that share freeze blobs read each blob once and get the findings of contexts that do not', async () => {
  const shared = monorepo(true);
  const own = monorepo(false);
  const a = await judge(shared.repo, shared.tip);
  const b = await judge(own.repo, own.tip);
  assert.is(a.result.verdict, 'eligible', a.result.refs[0]!.findings.map(line).join('\n'));
  assert.equal(a.result.refs[0]!.findings.map(line), b.result.refs[0]!.findings.map(line));
  // What the untouched contexts report: the expired rows and the expired keyed freeze, as info,
  // each in its own context and at its own path, in policy order.
  const untouched = a.result.refs[0]!.findings.filter((f) => f.context !== 'alpha').map((f) => `${f.severity} ${f.code} ${f.context} ${f.path}`);
  assert.equal(
    untouched,
    CONTEXTS.slice(1).flatMap((c) => [
      `info FREEZE_EXPIRED ${c} services/${c}/freeze.json`,
      `info FREEZE_EXPIRED ${c} services/${c}/freeze.json`,
      `info FREEZE_EXPIRED ${c} services/${c}/freezes/flaky-old.json`,
    ]),
  );
  assert.match(a.result.refs[0]!.findings.find((f) => f.context === 'gamma')!.message, /^services\/gamma\/freeze\.json \/frozen\/0 \("tests\/a\.py::gone"\) expired: its last day was 2026-10-30 and today is 2026-11-02 \(context gamma: this update touches nothing under services\/gamma/);
  assert.match(a.result.refs[0]!.findings.find((f) => f.context === 'delta' && f.path!.includes('freezes'))!.fix, /owner-delta/);
  // The untouched contexts' blobs: read once each when shared (one freeze file, four keyed
  // freezes), once per context otherwise.
  const untouchedReads = (reads: string[], repo: string) => {
    const blobs = new Set(CONTEXTS.slice(1).flatMap((c) => git(repo, ['ls-tree', '-r', '--format=%(objectname)', 'main', `services/${c}/freeze.json`, `services/${c}/freezes`]).trim().split('\n')));
    return reads.filter((oid) => blobs.has(oid)).length;
  };
  assert.is(untouchedReads(a.blobReads, shared.repo), 5);
  assert.is(untouchedReads(b.blobReads, own.repo), 5 * (CONTEXTS.length - 1) - (CONTEXTS.length - 2), 'broken.json is one blob in every context');
});

test.run();
