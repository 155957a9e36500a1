// The push log's parts on real repositories, in process: entries and their checks, the chain's
// links (forks and splices), the audit file's rotation, REF_RESERVED on an unguarded repository.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import { createPublicKey } from 'node:crypto';
import { join } from 'node:path';
import { appendEntries, EMPTY_TREE, entryTextOf, writeLoose } from '../../src/pushlog/append';
import { checkEntry, signEntry, type LogPredicate } from '../../src/pushlog/entry';
import { audit, auditFile, processAlive, sweepPending } from '../../src/pushlog/server-state';
import { verifyLog } from '../../src/pushlog/verify';
import { prepareCandidates } from '../../src/pushlog/prepare';
import { withoutNamespace } from '../../src/pushlog/run';
import { warmAppendPath } from '../../src/pushlog/warm';
import { generateKeyPair, loadPrivateKey, loadPublicKey } from '../../src/receipt/dsse';
import { History } from '../../src/git/history/history';
import { ObjectStore } from '../../src/git/store';
import { receivePush } from '../../src/server/receive';
import { remoteLines } from '../../src/report/remote';
import { ZERO } from '../server/helpers';
import { gitValue, tempDir } from '../helpers/git';

const pair = generateKeyPair();
const key = loadPrivateKey(pair.privateKeyPem, 'test key');
const pub = loadPublicKey(pair.publicKeyPem, 'test pub');


function bareWithCommits(n: number): { dir: string; commits: string[] } {
  const dir = tempDir('pushlog-unit');
  gitValue(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
  const commits: string[] = [];
  let parent: string | null = null;
  for (let i = 0; i < n; i++) {
    const c: string = gitValue(dir, ['commit-tree', EMPTY_TREE_OF(dir), ...(parent ? ['-p', parent] : []), '-m', `c${i}`]);
    commits.push(c);
    parent = c;
  }
  gitValue(dir, ['update-ref', 'refs/heads/main', parent!]);
  return { dir, commits };
}

function EMPTY_TREE_OF(dir: string): string {
  return gitValue(dir, ['hash-object', '-w', '-t', 'tree', '--stdin'], { input: '' });
}

function push(ref: string, old: string, next: string): Omit<LogPredicate, 'seq' | 'prev'> {
  return {
    schema: 'receipt-gate-push-log/v1',
    kind: 'push',
    time: '2026-09-10T00:00:00.000Z',
    tool_version: 'test',
    identity: 'alice',
    policy_blob: null,
    updates: [{ ref, old, new: next, verdict: 'eligible', findings: [], protected: true }],
    push_certificate: null,
  };
}

function genesis(refs: Record<string, string>): Omit<LogPredicate, 'seq' | 'prev'> {
  return { ...push('x', ZERO, ZERO), kind: 'genesis', updates: [], refs };
}

async function verify(dir: string, opts: { checkpoint?: { commit: string; seq: number } } = {}) {
  const store = await ObjectStore.open({ gitdir: dir, env: {} });
  try {
    return await verifyLog({ store, history: new History(store), publicKeys: [pub], logRef: 'refs/receipt-gate/log', refs: async () => ['refs/heads/main'], checkpoint: opts.checkpoint ?? null });
  } finally {
    store.close();
  }
}

test('checkEntry: a signed entry verifies; an edited payload, another predicate type or a malformed predicate never does', () => {
  const p = { ...push('refs/heads/main', ZERO, 'a'.repeat(40)), seq: 1, prev: 'b'.repeat(64) } as LogPredicate;
  const signed = signEntry(p, key);
  const ok = checkEntry(signed.text, pub);
  assert.ok(ok.ok);
  if (ok.ok) assert.equal(ok.predicate, p);
  const edited = JSON.parse(signed.text);
  const statement = JSON.parse(Buffer.from(edited.payload, 'base64').toString('utf8'));
  statement.predicate.updates[0].verdict = 'closed';
  edited.payload = Buffer.from(JSON.stringify(statement)).toString('base64');
  const bad = checkEntry(JSON.stringify(edited), pub);
  assert.ok(!bad.ok && /no signature verifies/.test(bad.reason));
  const other = loadPublicKey(generateKeyPair().publicKeyPem, 'other');
  assert.ok(!checkEntry(signed.text, other).ok);
  assert.ok(checkEntry(signed.text, [other, pub]).ok);
  const wrongType = signEntry({ ...p, schema: 'nope' } as unknown as LogPredicate, key);
  const r = checkEntry(wrongType.text, pub);
  assert.ok(!r.ok && /schema is "nope"/.test(r.reason));
  const noUpdates = signEntry({ ...p, updates: [{ ref: 'refs/heads/main', old: 'x', new: ZERO }] } as unknown as LogPredicate, key);
  assert.ok(!checkEntry(noUpdates.text, pub).ok);
  assert.ok(!checkEntry('not json', pub).ok);
});

test('a log spliced from another log signed by the same key is LOG_FORKED; so is a merge in the log', async () => {
  const { dir, commits } = bareWithCommits(4);
  const [c0, c1, c2, c3] = commits as [string, string, string, string];
  await appendEntries(dir, key, () => [genesis({ 'refs/heads/main': c0 }), push('refs/heads/main', c0, c1), push('refs/heads/main', c1, c2), push('refs/heads/main', c2, c3)]);
  assert.equal((await verify(dir)).findings, []);
  const chain = gitValue(dir, ['rev-list', '--first-parent', 'refs/receipt-gate/log']).split('\n'); // tip first
  // Drop entry #2: #3's commit rewritten onto #1 (same key, the payload unchanged).
  const entry3 = entryTextOf(Buffer.from(gitValue(dir, ['cat-file', 'commit', chain[0]!])))!;
  const spliced = writeLoose(join(dir, 'objects'), 'commit', Buffer.from(`tree ${EMPTY_TREE}\nparent ${chain[2]}\nauthor a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\nspliced\n\n${entry3}\n`));
  gitValue(dir, ['update-ref', 'refs/receipt-gate/log', spliced]);
  let v = await verify(dir);
  assert.equal(v.findings.map((f) => f.code), ['LOG_FORKED']);
  assert.match(v.findings[0]!.message, /is #3 at position 2/);
  // A merge of two lines.
  const merged = writeLoose(join(dir, 'objects'), 'commit', Buffer.from(`tree ${EMPTY_TREE}\nparent ${chain[1]}\nparent ${chain[2]}\nauthor a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\nmerge\n\n${entry3}\n`));
  gitValue(dir, ['update-ref', 'refs/receipt-gate/log', merged]);
  v = await verify(dir);
  assert.equal(v.findings.map((f) => f.code), ['LOG_FORKED']);
  assert.match(v.findings[0]!.message, /has 2 parents/);
  // Back to the real tip: a checkpoint from a longer log than this one is a rewind.
  gitValue(dir, ['update-ref', 'refs/receipt-gate/log', chain[0]!]);
  assert.equal((await verify(dir, { checkpoint: { commit: chain[0]!, seq: 3 } })).findings, []);
  v = await verify(dir, { checkpoint: { commit: 'f'.repeat(40), seq: 3 } });
  assert.equal(v.findings.map((f) => f.code), ['LOG_FORKED']);
  rmSync(dir, { recursive: true, force: true });
});

test('the tip signature vouches for the chain: an entry below it edited in place breaks the link; --every-signature names a damaged signature', async () => {
  const { dir, commits } = bareWithCommits(3);
  const [c0, c1, c2] = commits as [string, string, string];
  await appendEntries(dir, key, () => [genesis({ 'refs/heads/main': c0 }), push('refs/heads/main', c0, c1), push('refs/heads/main', c1, c2)]);
  const chain = gitValue(dir, ['rev-list', '--first-parent', 'refs/receipt-gate/log']).split('\n');
  const rewrite = (at: number, edit: (envelope: { payload: string; signatures: { sig: string }[] }) => void): string => {
    // Rewrites entry `at` (0 = tip) and re-parents the entries above it, envelopes unchanged.
    let parent = chain[at + 1] ?? null;
    for (let i = at; i >= 0; i--) {
      const envelope = JSON.parse(entryTextOf(Buffer.from(gitValue(dir, ['cat-file', 'commit', chain[i]!])))!);
      if (i === at) edit(envelope);
      parent = writeLoose(join(dir, 'objects'), 'commit', Buffer.from(`tree ${EMPTY_TREE}\n${parent ? `parent ${parent}\n` : ''}author a <a@x> 1 +0000\ncommitter a <a@x> 1 +0000\n\nx\n\n${JSON.stringify(envelope)}\n`));
    }
    return parent!;
  };
  // Entry #1 says another commit: its digest no longer matches what #2 signed.
  const edited = rewrite(1, (e) => {
    const st = JSON.parse(Buffer.from(e.payload, 'base64').toString('utf8'));
    st.predicate.updates[0].new = c2;
    e.payload = Buffer.from(JSON.stringify(st)).toString('base64');
  });
  gitValue(dir, ['update-ref', 'refs/receipt-gate/log', edited]);
  let v = await verify(dir);
  assert.equal(v.findings.map((f) => f.code), ['LOG_FORKED']);
  // Only #1's signature damaged, its payload intact: the chain still proves it; every signature does not.
  const damaged = rewrite(1, (e) => {
    e.signatures[0]!.sig = Buffer.alloc(64, 7).toString('base64');
  });
  gitValue(dir, ['update-ref', 'refs/receipt-gate/log', damaged]);
  v = await verify(dir);
  assert.equal(v.findings, []);
  const store = await ObjectStore.open({ gitdir: dir, env: {} });
  v = await verifyLog({ store, history: new History(store), publicKeys: [pub], logRef: 'refs/receipt-gate/log', refs: async () => ['refs/heads/main'], everySignature: true });
  store.close();
  assert.equal(v.findings.map((f) => f.code), ['LOG_SIGNATURE']);
  rmSync(dir, { recursive: true, force: true });
});

test('a gap between entries names both entries and the commits; a hold on a protected ref is LOG_UNGATED', async () => {
  const { dir, commits } = bareWithCommits(4);
  const [c0, c1, c2, c3] = commits as [string, string, string, string];
  const held = push('refs/heads/main', c2, c3);
  held.updates[0]!.verdict = 'hold';
  await appendEntries(dir, key, () => [genesis({ 'refs/heads/main': c0 }), push('refs/heads/main', c0, c1), held]);
  const v = await verify(dir);
  assert.equal(v.findings.map((f) => f.code).sort(), ['LOG_GAP', 'LOG_UNGATED']);
  const gap = v.findings.find((f) => f.code === 'LOG_GAP')!;
  assert.match(gap.message, new RegExp(`moved from ${c1.slice(0, 7)} \\(entry #1\\) to ${c2.slice(0, 7)} with no entry: entry #2`));
  assert.is(gap.commit, c2);
  rmSync(dir, { recursive: true, force: true });
});

test('the audit file rotates past its size and keeps five old files', () => {
  const dir = tempDir('pushlog-unit');
  for (let i = 0; i < 40; i++) audit(dir, { event: 'rejected', i, pad: 'x'.repeat(100) }, 500);
  const file = auditFile(dir);
  assert.ok(existsSync(file));
  for (let i = 1; i <= 5; i++) assert.ok(existsSync(`${file}.${i}`), `${file}.${i}`);
  assert.ok(!existsSync(`${file}.6`));
  const last = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.is(last[last.length - 1].i, 39);
  const newestOld = readFileSync(`${file}.1`, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.is(newestOld[newestOld.length - 1].i, last[0].i - 1);
  rmSync(dir, { recursive: true, force: true });
});

test('prepared candidates: each single extends the one before, "all" extends the tip; every one is an entry verify-log takes; a tip the key did not sign gets none', async () => {
  const { dir, commits } = bareWithCommits(1);
  await appendEntries(dir, key, () => [genesis({ 'refs/heads/main': commits[0]! })]);
  const tip = gitValue(dir, ['rev-parse', 'refs/receipt-gate/log']);
  mkdirSync(join(dir, 'receipt-gate'));
  const updates = ['a', 'b', 'c'].map((n) => ({ ref: `refs/heads/${n}`, old: ZERO, new: commits[0]!, verdict: 'eligible' as const, findings: [], protected: false }));
  const facts = { time: '2026-09-10T00:00:00.000Z', identity: 'alice', policy_blob: null, push_certificate: null };
  assert.ok(await prepareCandidates(dir, 4242, key, [pub], facts, updates));
  const lines = readFileSync(join(dir, 'receipt-gate', 'pending', '4242.log'), 'utf8').trim().split('\n').map((l) => l.split(' '));
  assert.is(lines.length, 4);
  const singles = lines.slice(0, 3);
  assert.equal(singles.map((l) => l.slice(2)), updates.map((u) => [u.old, u.new, u.ref]));
  assert.equal(singles.map((l) => l[1]), [tip, singles[0]![0], singles[1]![0]]);
  assert.equal(lines[3]!.slice(0, 1).concat(lines[3]!.slice(2)), ['all', tip]);
  for (const c of [...singles.map((l) => l[0]!), lines[3]![1]!]) {
    gitValue(dir, ['update-ref', 'refs/receipt-gate/log', c]);
    const v = await verify(dir);
    assert.equal(v.findings, [], c);
  }
  gitValue(dir, ['update-ref', 'refs/receipt-gate/log', singles[2]![0]!]);
  assert.is((await verify(dir)).entries, 4);
  gitValue(dir, ['update-ref', 'refs/receipt-gate/log', lines[3]![1]!]);
  assert.is((await verify(dir)).entries, 2);
  // A tip signed by another key: nothing is prepared.
  const other = loadPrivateKey(generateKeyPair().privateKeyPem, 'other');
  await appendEntries(dir, other, () => [push('refs/heads/x', ZERO, commits[0]!)], [pub, createPublicKey(other)]);
  rmSync(join(dir, 'receipt-gate', 'pending', '4242.log'));
  assert.is(await prepareCandidates(dir, 4242, key, [pub], facts, updates), false);
  assert.ok(!existsSync(join(dir, 'receipt-gate', 'pending', '4242.log')));
  rmSync(dir, { recursive: true, force: true });
});

test('withoutNamespace: the name inside every namespace a ref is under', () => {
  assert.is(withoutNamespace('refs/heads/main'), 'refs/heads/main');
  assert.is(withoutNamespace('refs/namespaces/proj/refs/heads/main'), 'refs/heads/main');
  assert.is(withoutNamespace('refs/namespaces/a/refs/namespaces/b/refs/tags/v1'), 'refs/tags/v1');
  assert.is(withoutNamespace('refs/namespaces/proj/HEAD'), 'refs/namespaces/proj/HEAD');
});

test('REF_RESERVED closes a push of refs/receipt-gate/** on an unguarded repository too', async () => {
  const { dir, commits } = bareWithCommits(1);
  for (const line of [`${ZERO} ${commits[0]} refs/receipt-gate/log`, `${ZERO} ${commits[0]} refs/receipt-gate/x/y`]) {
    const outcome = await receivePush({ gitdir: dir, env: {}, today: () => '2026-09-10' }, `${line}\n`);
    assert.is(outcome.accepted, false, remoteLines(outcome).join('\n'));
    assert.equal(outcome.result.findings.map((f) => f.code), ['REF_RESERVED']);
    assert.match(remoteLines(outcome).join('\n'), /REF_RESERVED/);
  }
  const ok = await receivePush({ gitdir: dir, env: {}, today: () => '2026-09-10' }, `${ZERO} ${commits[0]} refs/heads/receipt-gate/log\n`);
  assert.is(ok.accepted, true);
  rmSync(dir, { recursive: true, force: true });
});

test('the snapshot warm-up runs the whole append path and leaves nothing behind', async () => {
  const tmp = tempDir('warm');
  const before = process.env.TMPDIR;
  process.env.TMPDIR = tmp;
  try {
    assert.is(await warmAppendPath(), true);
  } finally {
    if (before === undefined) delete process.env.TMPDIR;
    else process.env.TMPDIR = before;
  }
  assert.equal(readdirSync(tmp), []);
});

test('the sweep: a gone receive-pack\'s decisions are audited but for what the shell logged; an emptied push is removed silently; a live one stays', () => {
  const gitdir = tempDir('sweep');
  const dir = join(gitdir, 'receipt-gate', 'pending');
  mkdirSync(dir, { recursive: true });
  const ended = () => Number(spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim());
  const gone = ended();
  const emptied = ended();
  assert.is(processAlive(gone), false);
  assert.is(processAlive(emptied), false);
  assert.is(processAlive(process.pid), true);
  const upd = (ref: string, n: string) => ({ ref, old: ZERO, new: n.repeat(40), verdict: 'eligible', findings: [], protected: true });
  const push = (updates: unknown[]) => JSON.stringify({ receive_pid: gone, created: 'x', identity: 'ann', policy_blob: null, push_certificate: null, updates });
  writeFileSync(join(dir, `${gone}.json`), push([upd('refs/heads/a', 'a'), upd('refs/heads/b', 'b')]));
  writeFileSync(join(dir, `${gone}.log`), 'candidates\n');
  writeFileSync(join(dir, `${gone}.applied`), `${ZERO} ${'a'.repeat(40)} refs/heads/a\n`);
  writeFileSync(join(dir, `${emptied}.json`), '');
  writeFileSync(join(dir, `${emptied}.log`), '');
  writeFileSync(join(dir, `${process.pid}.json`), push([upd('refs/heads/c', 'c')]));
  sweepPending(gitdir);
  assert.equal(readdirSync(dir).sort(), [`${process.pid}.json`]);
  const lines = readFileSync(auditFile(gitdir), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.equal(lines.map((l) => [l.event, l.updates.map((u: { ref: string }) => u.ref)]), [['not-applied', ['refs/heads/b']]]);
});

test.run();
