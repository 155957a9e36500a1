// Acknowledgement entries in process, on real bare repositories: their shape (checkEntry), and
// what verifyLog does with them: the findings named become info, the ref is re-anchored, one
// that does not follow the log or names another finding leaves the move closed, and none covers
// a move after it.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { appendEntries } from '../../src/pushlog/append';
import { checkEntry, signEntry, type AcknowledgedRef, type LogPredicate } from '../../src/pushlog/entry';
import { verifyLog } from '../../src/pushlog/verify';
import { generateKeyPair, loadPrivateKey, loadPublicKey } from '../../src/receipt/dsse';
import { History } from '../../src/git/history/history';
import { ObjectStore } from '../../src/git/store';
import { ZERO } from '../server/helpers';
import { gitValue, tempDir } from '../helpers/git';

const pair = generateKeyPair();
const key = loadPrivateKey(pair.privateKeyPem, 'test key');
const pub = loadPublicKey(pair.publicKeyPem, 'test pub');
type Draft = Omit<LogPredicate, 'seq' | 'prev'>;

const BASE = { schema: 'receipt-gate-push-log/v1', time: '2026-09-10T00:00:00.000Z', tool_version: 'test', policy_blob: null, push_certificate: null } as const;

function repo(n: number): { dir: string; c: string[] } {
  const dir = tempDir('ack-unit');
  gitValue(dir, ['init', '-q', '--bare', '-b', 'main', '.']);
  const tree = gitValue(dir, ['hash-object', '-w', '-t', 'tree', '--stdin'], { input: '' });
  const c: string[] = [];
  for (let i = 0; i < n; i++) c.push(gitValue(dir, ['commit-tree', tree, ...(i ? ['-p', c[i - 1]!] : []), '-m', `c${i}`]));
  return { dir, c };
}

const genesis = (oid: string): Draft => ({ ...BASE, kind: 'genesis', identity: null, updates: [], refs: { 'refs/heads/main': oid } });
const pushed = (old: string, next: string): Draft => ({ ...BASE, kind: 'push', identity: 'alice', updates: [{ ref: 'refs/heads/main', old, new: next, verdict: 'eligible', findings: [], protected: true }] });
const ungated = (old: string, next: string): Draft => ({ ...BASE, kind: 'ungated', identity: null, updates: [{ ref: 'refs/heads/main', old, new: next, verdict: null, findings: [], protected: false }] });
const ack = (refs: AcknowledgedRef[], identity = 'alice'): Draft => ({ ...BASE, kind: 'acknowledge', identity, updates: [], acknowledgement: { reason: 'reviewed', account: 'git', refs } });

async function verify(dir: string, at: string) {
  gitValue(dir, ['update-ref', 'refs/heads/main', at]);
  const store = await ObjectStore.open({ gitdir: dir, env: {} });
  try {
    return await verifyLog({ store, history: new History(store), publicKeys: [pub], logRef: 'refs/receipt-gate/log', refs: async () => ['refs/heads/main'] });
  } finally {
    store.close();
  }
}

const summary = (r: Awaited<ReturnType<typeof verify>>) => r.findings.map((f) => [f.code, f.severity, f.commit ?? null]).sort();

test('checkEntry: an acknowledgement needs an owner, a reason, a ref and findings, and moves nothing; no other kind carries one', () => {
  const good = { ...ack([{ ref: 'refs/heads/main', logged: 'a'.repeat(40), accepted: 'b'.repeat(40), findings: [{ code: 'LOG_GAP', entry: null, commit: 'b'.repeat(40) }] }]), seq: 3, prev: 'c'.repeat(64) } as LogPredicate;
  assert.ok(checkEntry(signEntry(good, key).text, pub).ok);
  const bad: [string, LogPredicate][] = [
    ['no owner', { ...good, identity: null }],
    ['no reason', { ...good, acknowledgement: { ...good.acknowledgement!, reason: ' ' } }],
    ['no ref', { ...good, acknowledgement: { ...good.acknowledgement!, refs: [] } }],
    ['an update', { ...good, updates: pushed(ZERO, 'a'.repeat(40)).updates }],
    ['a bad entry number', { ...good, acknowledgement: { ...good.acknowledgement!, refs: [{ ...good.acknowledgement!.refs[0]!, findings: [{ code: 'LOG_GAP', entry: -1, commit: null }] }] } }],
    ['a push carrying one', { ...pushed(ZERO, 'a'.repeat(40)), seq: 3, prev: 'c'.repeat(64), acknowledgement: good.acknowledgement } as LogPredicate],
  ];
  for (const [what, p] of bad) {
    const r = checkEntry(signEntry(p, key).text, pub);
    assert.not.ok(r.ok, what);
  }
});

test('an acknowledgement turns exactly the findings it names into info and re-anchors the ref; later moves are judged as usual', async () => {
  const { dir, c } = repo(5);
  try {
    // #0 genesis c0, #1 push c0→c1, #2 ungated c1→c2, then main moved to c3 with no entry.
    await appendEntries(dir, key, () => [genesis(c[0]!), pushed(c[0]!, c[1]!), ungated(c[1]!, c[2]!)]);
    let r = await verify(dir, c[3]!);
    assert.equal(summary(r), [['LOG_GAP', 'closed', c[3]], ['LOG_UNGATED', 'closed', c[2]]]);
    assert.equal(r.open, [{ ref: 'refs/heads/main', code: 'LOG_UNGATED', entry: 2, commit: c[2] }, { ref: 'refs/heads/main', code: 'LOG_GAP', entry: null, commit: c[3] }]);

    // Naming only the ungated entry: it is info, the move to c3 stays closed (not named).
    await appendEntries(dir, key, () => [ack([{ ref: 'refs/heads/main', logged: c[2]!, accepted: c[3]!, findings: [{ code: 'LOG_UNGATED', entry: 2, commit: c[2]! }] }])]);
    r = await verify(dir, c[3]!);
    assert.equal(summary(r), [['LOG_GAP', 'closed', c[3]], ['LOG_UNGATED', 'info', c[2]]]);
    assert.match(r.findings.find((f) => f.severity === 'closed')!.message, /without naming that move/);

    // A second acknowledgement naming what is left; then a push from c3 verifies as usual.
    await appendEntries(dir, key, () => [ack([{ ref: 'refs/heads/main', logged: c[3]!, accepted: c[3]!, findings: [{ code: 'LOG_GAP', entry: 3, commit: c[3]! }] }], 'release-bot'), pushed(c[3]!, c[4]!)]);
    r = await verify(dir, c[4]!);
    assert.equal(summary(r), [['LOG_GAP', 'info', c[3]], ['LOG_UNGATED', 'info', c[2]]]);
    assert.equal(r.acknowledgements!.map((a) => [a.seq, a.identity]), [[3, 'alice'], [4, 'release-bot']]);
    assert.ok(r.findings.every((f) => / acknowledged by (alice|release-bot) in entry #[34] /.test(f.message)), JSON.stringify(r.findings));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an acknowledgement that does not start where the log left the ref, or names a finding that comes after it, covers nothing', async () => {
  const { dir, c } = repo(4);
  try {
    // It says main was at c0, the log left it at c1: closed. It also names the ungated entry
    // #3 that comes after it: that entry stays closed.
    await appendEntries(dir, key, () => [
      genesis(c[0]!),
      pushed(c[0]!, c[1]!),
      ack([{ ref: 'refs/heads/main', logged: c[0]!, accepted: c[1]!, findings: [{ code: 'LOG_GAP', entry: null, commit: c[1]! }, { code: 'LOG_UNGATED', entry: 3, commit: c[2]! }] }]),
      ungated(c[1]!, c[2]!),
    ]);
    const r = await verify(dir, c[2]!);
    assert.equal(summary(r), [['LOG_GAP', 'closed', c[0]], ['LOG_GAP', 'info', c[1]], ['LOG_UNGATED', 'closed', c[2]]]);
    assert.match(r.findings.find((f) => f.code === 'LOG_GAP' && f.severity === 'closed')!.message, /does not follow the log/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a log ref cut short (its file holds no oid: a full disk) is LOG_SIGNATURE, not an internal error; pointed at the entry again, it verifies', async () => {
  const { dir, c } = repo(2);
  try {
    const done = await appendEntries(dir, key, () => [genesis(c[0]!), pushed(c[0]!, c[1]!)]);
    const file = join(dir, 'refs', 'receipt-gate', 'log');
    writeFileSync(file, done!.commit.slice(0, 17));
    let r = await verify(dir, c[1]!);
    assert.equal(summary(r), [['LOG_SIGNATURE', 'closed', null]]);
    assert.match(r.findings[0]!.message, /the push log's ref refs\/receipt-gate\/log cannot be read/);
    assert.match(r.findings[0]!.fix, /newest entry the key signed/);
    // The runbook: the broken file removed, the ref set to the entry (git refuses to update a
    // broken ref in place).
    rmSync(file);
    gitValue(dir, ['update-ref', 'refs/receipt-gate/log', done!.commit]);
    r = await verify(dir, c[1]!);
    assert.equal(r.findings, []);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
