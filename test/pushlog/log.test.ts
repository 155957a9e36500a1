// The signed push log end to end: real pushes through git daemon and smart HTTP into bare
// repositories with the installed hooks, then every way of moving `main` around the gate that
// docs/push-log.md names, each found by `receipt-gate verify-log`.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { execFileSync, spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { baseEnv, cleanup, commitAll, machine, push, refOid, write, ZERO } from '../server/helpers';
import { codes, execCli, freshRepo, logEntries, startServers, verifyLog, type LogServer } from './helpers';
import { gitResult, gitValue } from '../helpers/git';

let server: LogServer;

test.before(async () => {
  server = await startServers('pushlog');
});

test.after(() => {
  server?.stop();
  cleanup(server?.root);
});

function change(work: string, branch: string, file: string, text: string): string {
  gitValue(work, ['checkout', '-q', '-B', branch, 'main']);
  write(work, file, text);
  return commitAll(work, `${branch}: ${file}`);
}

function advanceMain(work: string, n: number): string {
  gitValue(work, ['checkout', '-q', 'main']);
  write(work, 'src/orders.py', `def total(orders):\n    return sum(o["amount"] for o in orders)  # ${n}\n`);
  return commitAll(work, `main ${n}`);
}

test('install starts the log: a genesis entry with every ref, signed; verify-log holds', () => {
  const r = freshRepo(server, 'genesis');
  const entries = logEntries(r.bare);
  assert.is(entries.length, 1);
  assert.is(entries[0]!.kind, 'genesis');
  assert.equal(entries[0]!.refs, { 'refs/heads/main': refOid(r.bare, 'refs/heads/main') });
  assert.is(gitValue(r.bare, ['config', 'receipt-gate.logKey']), server.key);
  const v = verifyLog(r.bare, server.pub);
  assert.is(v.status, 0, v.text);
  assert.is(v.verdict, 'eligible');
});

test('git daemon and smart HTTP: each applied update is one entry with ref, old, new, pusher, verdict, codes, policy blob, version', () => {
  const r = freshRepo(server, 'transports');
  const mainBefore = refOid(r.bare, 'refs/heads/main')!;
  const m1 = advanceMain(r.work, 1);
  let p = push(r.work, [r.daemonUrl, 'main']);
  assert.is(p.status, 0, p.stderr);
  const m2 = advanceMain(r.work, 2);
  p = push(r.work, [r.httpUrl('bob'), 'main']);
  assert.is(p.status, 0, p.stderr);
  const feature = change(r.work, 'feature/x', 'src/extra.py', 'x = 1\n');
  p = push(r.work, [r.httpUrl('alice'), 'feature/x']);
  assert.is(p.status, 0, p.stderr);

  const entries = logEntries(r.bare);
  assert.is(entries.length, 4, JSON.stringify(entries, null, 1));
  const [, daemon, http, branch] = entries;
  assert.equal(daemon!.updates, [{ ref: 'refs/heads/main', old: mainBefore, new: m1, verdict: 'eligible', findings: ['FREEZE_ACTIVE'], protected: true }]);
  assert.is(daemon!.kind, 'push');
  assert.is(daemon!.identity, null); // git daemon: nobody
  assert.is(http!.identity, 'bob');
  assert.equal(http!.updates.map((u) => [u.old, u.new]), [[m1, m2]]);
  assert.is(branch!.identity, 'alice');
  assert.equal(branch!.updates.map((u) => [u.ref, u.old, u.new]), [['refs/heads/feature/x', ZERO, feature]]);
  const policyBlob = gitValue(r.bare, ['rev-parse', `${mainBefore}:.receipt-gate.json`]);
  assert.is(daemon!.policy_blob, policyBlob);
  assert.match(daemon!.tool_version, /^\d+\.\d+\.\d+/);
  assert.ok(!Number.isNaN(Date.parse(daemon!.time)));
  assert.equal(entries.map((e) => e.seq), [0, 1, 2, 3]);
  const v = verifyLog(r.bare, server.pub);
  assert.is(v.status, 0, v.text);
});

test('a rejected push goes to the audit file, not into the log', () => {
  const r = freshRepo(server, 'rejected');
  const head = change(r.work, 'feature/cheat', 'fixtures/orders/base.json', '{"orders": [{"amount": 1}]}\n');
  const p = push(r.work, [r.httpUrl('bob'), 'feature/cheat']);
  assert.is.not(p.status, 0, p.stderr);
  assert.is(logEntries(r.bare).length, 1);
  const lines = readFileSync(join(r.bare, 'receipt-gate', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.is(lines.length, 1);
  assert.is(lines[0].event, 'rejected');
  assert.is(lines[0].identity, 'bob');
  assert.equal(lines[0].updates[0].ref, 'refs/heads/feature/cheat');
  assert.is(lines[0].updates[0].new, head);
  assert.equal(lines[0].updates[0].findings, ['FREEZE_ACTIVE', 'PATH_PROTECTED']);
});

test('REF_RESERVED: creating, moving or deleting refs/receipt-gate/** is closed for everyone, owners included', () => {
  const r = freshRepo(server, 'reserved');
  const logTip = refOid(r.bare, 'refs/receipt-gate/log')!;
  const head = advanceMain(r.work, 1);
  for (const [url, spec] of [
    [r.httpUrl('alice'), `${head}:refs/receipt-gate/log`],
    [r.httpUrl('alice'), `${head}:refs/receipt-gate/other`],
    [r.httpUrl('alice'), ':refs/receipt-gate/log'],
    [r.daemonUrl, `+${head}:refs/receipt-gate/log`],
  ] as const) {
    const p = push(r.work, ['--force', url, spec]);
    assert.is.not(p.status, 0, `${spec}: ${p.stderr}`);
    const m = machine(p);
    assert.ok(m.findings.some((f) => f.code === 'REF_RESERVED'), p.stderr);
  }
  assert.is(refOid(r.bare, 'refs/receipt-gate/log'), logTip);
  assert.is(refOid(r.bare, 'refs/receipt-gate/other'), null);
});

test("an administrator's direct update-ref of main: logged as ungated (hooks on), a gap (hooks off)", () => {
  const r = freshRepo(server, 'update-ref');
  const m1 = advanceMain(r.work, 1);
  assert.is(push(r.work, [r.daemonUrl, 'main']).status, 0);
  const before = refOid(r.bare, 'refs/heads/main~1')!;
  gitValue(r.bare, ['update-ref', 'refs/heads/main', before]); // no old value given
  const entries = logEntries(r.bare);
  const last = entries[entries.length - 1]!;
  assert.is(last.kind, 'ungated');
  assert.equal(last.updates, [{ ref: 'refs/heads/main', old: m1, new: before, verdict: null, findings: [], protected: false }]);
  let v = verifyLog(r.bare, server.pub);
  assert.is(v.status, 1, v.text);
  assert.equal(codes(v), ['LOG_UNGATED']);
  assert.ok(v.findings[0]!.message.includes(m1.slice(0, 7)), v.text);

  // The same with the hooks out of the way: nothing is logged, and the tip says so.
  const r2 = freshRepo(server, 'update-ref-nohooks');
  const n1 = advanceMain(r2.work, 1);
  assert.is(push(r2.work, [r2.daemonUrl, 'main']).status, 0);
  const older = refOid(r2.bare, 'refs/heads/main~1')!;
  gitValue(r2.bare, ['-c', 'core.hooksPath=/nonexistent', 'update-ref', 'refs/heads/main', older, n1]);
  v = verifyLog(r2.bare, server.pub);
  assert.is(v.status, 1, v.text);
  assert.equal(codes(v), ['LOG_GAP']);
  assert.match(v.findings[0]!.message, /rewound/);
  assert.is(v.findings[0]!.ref, 'refs/heads/main');
  assert.is(v.findings[0]!.commit, older);
});

test('a push with pre-receive moved aside is ungated; with both hooks moved aside, a gap the next entry shows', () => {
  const r = freshRepo(server, 'hook-aside');
  renameSync(join(r.bare, 'hooks', 'pre-receive'), join(r.bare, 'hooks', 'pre-receive.off'));
  const m1 = advanceMain(r.work, 1);
  assert.is(push(r.work, [r.daemonUrl, 'main']).status, 0);
  let v = verifyLog(r.bare, server.pub);
  assert.equal(codes(v), ['LOG_UNGATED']);
  assert.is(v.findings[0]!.commit, m1);

  const r2 = freshRepo(server, 'hooks-aside');
  renameSync(join(r2.bare, 'hooks'), join(r2.bare, 'hooks.off'));
  const before = refOid(r2.bare, 'refs/heads/main')!;
  const n1 = advanceMain(r2.work, 1);
  assert.is(push(r2.work, [r2.daemonUrl, 'main']).status, 0);
  v = verifyLog(r2.bare, server.pub);
  assert.equal(codes(v), ['LOG_GAP']);
  assert.match(v.findings[0]!.message, /moved forward past the last entry/);
  // Hooks back, the next push: its entry starts where the unlogged push left main.
  renameSync(join(r2.bare, 'hooks.off'), join(r2.bare, 'hooks'));
  advanceMain(r2.work, 2);
  assert.is(push(r2.work, [r2.daemonUrl, 'main']).status, 0);
  v = verifyLog(r2.bare, server.pub);
  assert.equal(codes(v), ['LOG_GAP']);
  assert.ok(v.findings[0]!.message.includes(`from ${before.slice(0, 7)}`) && v.findings[0]!.message.includes(`to ${n1.slice(0, 7)} with no entry`), v.text);
});

test('a restored backup: main alone rewound is a gap; main and the log rewound together break the checkpoint', () => {
  const r = freshRepo(server, 'backup');
  const backup = `${r.bare}.backup`;
  cpSync(r.bare, backup, { recursive: true, verbatimSymlinks: true });
  const checkpoint = join(server.root, 'checkpoint-backup.json');
  advanceMain(r.work, 1);
  assert.is(push(r.work, [r.daemonUrl, 'main']).status, 0);
  let v = verifyLog(r.bare, server.pub, '--checkpoint', checkpoint);
  assert.is(v.status, 0, v.text);
  assert.equal(JSON.parse(readFileSync(checkpoint, 'utf8')).seq, 1);

  // The refs of the backup only (objects kept): main goes back, the log does not.
  const mainBackup = readFileSync(join(backup, 'refs', 'heads', 'main'));
  writeFileSync(join(r.bare, 'refs', 'heads', 'main'), mainBackup);
  v = verifyLog(r.bare, server.pub);
  assert.equal(codes(v), ['LOG_GAP']);
  assert.match(v.findings[0]!.message, /rewound to an older commit/);

  // The whole repository from the backup: main and the log agree again, but the log is shorter
  // than the one verified before.
  rmSync(r.bare, { recursive: true, force: true });
  cpSync(backup, r.bare, { recursive: true, verbatimSymlinks: true });
  v = verifyLog(r.bare, server.pub);
  assert.is(v.status, 0, v.text);
  v = verifyLog(r.bare, server.pub, '--checkpoint', checkpoint);
  assert.equal(codes(v), ['LOG_FORKED']);
  assert.match(v.findings[0]!.message, /rewound/);
});

test('a log commit forged with another key is LOG_SIGNATURE, never trusted, and never extended by the server', async () => {
  const r = freshRepo(server, 'forged');
  advanceMain(r.work, 1);
  assert.is(push(r.work, [r.daemonUrl, 'main']).status, 0);
  // Someone with the repository's files but not the server's key moves main and writes an
  // entry for it, signed with a key of their own, chained to the log's tip as the server would.
  const other = join(server.root, 'keys', 'other');
  execCli(['keygen', '--out', other]);
  const { signEntry } = await import('../../src/pushlog/entry');
  const { writeLoose, EMPTY_TREE } = await import('../../src/pushlog/append');
  const { loadPrivateKey } = await import('../../src/receipt/dsse');
  const otherKey = loadPrivateKey(readFileSync(`${other}.key`, 'utf8'), 'other');
  const tip = refOid(r.bare, 'refs/receipt-gate/log')!;
  const tipEnvelope = JSON.parse(gitValue(r.bare, ['log', '-1', '--format=%B', tip]).split('\n').filter(Boolean).pop()!);
  const prev = createHash('sha256').update(Buffer.from(tipEnvelope.payload, 'base64')).digest('hex');
  const target = refOid(r.bare, 'refs/heads/main~1')!;
  const forged = signEntry(
    {
      schema: 'receipt-gate-push-log/v1',
      seq: logEntries(r.bare).length,
      prev,
      kind: 'push',
      time: new Date().toISOString(),
      tool_version: '0.1.0',
      identity: 'alice',
      policy_blob: null,
      updates: [{ ref: 'refs/heads/main', old: refOid(r.bare, 'refs/heads/main')!, new: target, verdict: 'eligible', findings: [], protected: true }],
      push_certificate: null,
    },
    otherKey,
  );
  const commit = writeLoose(
    join(r.bare, 'objects'),
    'commit',
    Buffer.from(`tree ${EMPTY_TREE}\nparent ${tip}\nauthor receipt-gate <receipt-gate@localhost> 1764000000 +0000\ncommitter receipt-gate <receipt-gate@localhost> 1764000000 +0000\n\nforged\n\n${forged.text}\n`),
  );
  gitValue(r.bare, ['-c', 'core.hooksPath=/nonexistent', 'update-ref', 'refs/receipt-gate/log', commit]);
  gitValue(r.bare, ['-c', 'core.hooksPath=/nonexistent', 'update-ref', 'refs/heads/main', target]);
  const v = verifyLog(r.bare, server.pub);
  assert.is(v.status, 1, v.text);
  assert.equal(codes(v), ['LOG_SIGNATURE']);
  assert.match(v.findings[0]!.message, /no signature verifies with the given public key/);
  assert.is(v.findings[0]!.commit, commit);
  // Verified with the forger's key and --every-signature, the entries before it fail instead.
  const w = verifyLog(r.bare, `${other}.pub`, '--every-signature');
  assert.equal(codes(w), ['LOG_SIGNATURE']);
  assert.is.not(w.findings[0]!.commit, commit);
  // The server does not sign on top of an entry it cannot verify: the next push is applied and
  // the audit file says it is not logged (reference-transaction's stderr reaches the server's
  // log, not the pusher, over git daemon).
  gitValue(r.work, ['fetch', '-q', r.daemonUrl, '+main:refs/remotes/origin/main']);
  gitValue(r.work, ['checkout', '-q', '-B', 'main', 'origin/main']);
  advanceMain(r.work, 2);
  const p = push(r.work, [r.daemonUrl, 'main']);
  assert.is(p.status, 0, p.stderr);
  assert.is(refOid(r.bare, 'refs/receipt-gate/log'), commit);
  const audit = readFileSync(join(r.bare, 'receipt-gate', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.ok(audit.some((x) => x.event === 'unlogged' && /the push log's tip [0-9a-f]{40} is not an entry this server's keys signed/.test(x.error)), JSON.stringify(audit));
  assert.equal(codes(verifyLog(r.bare, server.pub)), ['LOG_SIGNATURE']);
});

test('key rotation: a new key with the old one as logPreviousKey extends the log; verify-log takes both keys', () => {
  const r = freshRepo(server, 'rotation');
  advanceMain(r.work, 1);
  assert.is(push(r.work, [r.daemonUrl, 'main']).status, 0);
  const next = join(server.root, 'keys', `rotated-${Date.now()}`);
  execCli(['keygen', '--out', next]);
  gitValue(r.bare, ['config', 'receipt-gate.logKey', `${next}.key`]);
  // Without the old public key the server refuses to extend what it cannot verify ...
  advanceMain(r.work, 2);
  let p = push(r.work, [r.daemonUrl, 'main']);
  assert.is(p.status, 0, p.stderr);
  assert.match(readFileSync(join(r.bare, 'receipt-gate', 'audit.jsonl'), 'utf8'), /"event":"unlogged".*not an entry this server's keys signed/);
  // ... (that move is now a gap, as it should be; start over on a fresh copy)
  const r2 = freshRepo(server, 'rotation-2');
  advanceMain(r2.work, 1);
  assert.is(push(r2.work, [r2.daemonUrl, 'main']).status, 0);
  gitValue(r2.bare, ['config', 'receipt-gate.logKey', `${next}.key`]);
  gitValue(r2.bare, ['config', '--add', 'receipt-gate.logPreviousKey', server.pub]);
  advanceMain(r2.work, 2);
  p = push(r2.work, [r2.daemonUrl, 'main']);
  assert.is(p.status, 0, p.stderr);
  assert.ok(!existsSync(join(r2.bare, 'receipt-gate', 'audit.jsonl')));
  const entries = logEntries(r2.bare);
  assert.is(entries.length, 3);
  let v = verifyLog(r2.bare, server.pub, '--pub', `${next}.pub`);
  assert.is(v.status, 0, v.text);
  // The new key's tip vouches for the old key's entries through the chain of digests ...
  v = verifyLog(r2.bare, `${next}.pub`);
  assert.is(v.status, 0, v.text);
  // ... and each entry's own signature needs its own key.
  v = verifyLog(r2.bare, `${next}.pub`, '--every-signature');
  assert.equal(codes(v), ['LOG_SIGNATURE']);
  assert.is(verifyLog(r2.bare, `${next}.pub`, '--pub', server.pub, '--every-signature').status, 0);
});

test('concurrent pushes: every applied update is one entry, none lost or interleaved, in git\'s order', async () => {
  const r = freshRepo(server, 'parallel');
  const n = 8;
  const heads: string[] = [];
  for (let i = 0; i < n; i++) heads.push(change(r.work, `par/${i}`, `src/par${i}.py`, `x = ${i}\n`));
  gitValue(r.work, ['checkout', '-q', 'main']);
  const results = await Promise.all(heads.map((_, i) => pushAsync(r.work, [i % 2 ? r.daemonUrl : r.httpUrl('bob'), `par/${i}`])));
  results.forEach((res, i) => assert.is(res.status, 0, `push ${i}: ${res.stderr}`));
  const entries = logEntries(r.bare);
  assert.equal(entries.map((e) => e.seq), [...Array(n + 1).keys()]);
  const logged = entries.slice(1).flatMap((e) => e.updates.map((u) => `${u.ref} ${u.new}`)).sort();
  assert.equal(logged, heads.map((h, i) => `refs/heads/par/${i} ${h}`).sort());
  for (const e of entries.slice(1)) assert.is(e.updates.length, 1);
  const v = verifyLog(r.bare, server.pub, ...heads.map((_, i) => ['--ref', `refs/heads/par/${i}`]).flat());
  assert.is(v.status, 0, v.text);
  assert.ok(!existsSync(join(r.bare, 'refs', 'receipt-gate', 'log.lock')));
});

test('concurrent pushes of main from two clones: the log follows main in the order git applied them', async () => {
  const r = freshRepo(server, 'race-main');
  const work2 = `${r.work}-2`;
  cpSync(r.work, work2, { recursive: true, verbatimSymlinks: true });
  for (let round = 0; round < 3; round++) {
    gitValue(r.work, ['fetch', '-q', r.daemonUrl, '+main:refs/remotes/origin/main']);
    gitValue(r.work, ['checkout', '-q', '-B', 'main', 'origin/main']);
    gitValue(work2, ['fetch', '-q', r.daemonUrl, '+main:refs/remotes/origin/main']);
    gitValue(work2, ['checkout', '-q', '-B', 'main', 'origin/main']);
    advanceMain(r.work, 10 + round);
    write(work2, 'README.md', `# orders ${round}\n`);
    commitAll(work2, `readme ${round}`);
    await Promise.all([pushAsync(r.work, [r.daemonUrl, 'main']), pushAsync(work2, [r.httpUrl('bob'), 'main'])]);
  }
  const v = verifyLog(r.bare, server.pub);
  assert.is(v.status, 0, v.text);
  const mainEntries = logEntries(r.bare).slice(1).filter((e) => e.updates.some((u) => u.ref === 'refs/heads/main'));
  assert.ok(mainEntries.length >= 3, `${mainEntries.length}`);
  assert.is(mainEntries[mainEntries.length - 1]!.updates[0]!.new, refOid(r.bare, 'refs/heads/main'));
});

test('an update git refuses after the hook (a ref lock held, --atomic) is not logged as applied; the audit file says so', () => {
  const r = freshRepo(server, 'atomic');
  const a = change(r.work, 'feature/a', 'src/a.py', 'a = 1\n');
  const b = change(r.work, 'feature/b', 'src/b.py', 'b = 1\n');
  // A lock someone holds on feature/b: receive-pack cannot lock it after pre-receive accepted.
  gitValue(r.bare, ['update-ref', 'refs/heads/feature/b', refOid(r.bare, 'refs/heads/main')!]);
  writeFileSync(join(r.bare, 'refs', 'heads', 'feature', 'b.lock'), '');
  const p = push(r.work, ['--atomic', '--force', r.daemonUrl, 'feature/a', 'feature/b']);
  assert.is.not(p.status, 0, p.stderr);
  assert.is(refOid(r.bare, 'refs/heads/feature/a'), null);
  const entries = logEntries(r.bare);
  assert.ok(!entries.some((e) => e.updates.some((u) => u.new === a || u.new === b)), JSON.stringify(entries));
  // The next push sweeps the decisions nobody applied into the audit file.
  rmSync(join(r.bare, 'refs', 'heads', 'feature', 'b.lock'));
  advanceMain(r.work, 1);
  assert.is(push(r.work, [r.daemonUrl, 'main']).status, 0);
  const audit = readFileSync(join(r.bare, 'receipt-gate', 'audit.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  const notApplied = audit.find((x) => x.event === 'not-applied');
  assert.ok(notApplied, JSON.stringify(audit));
  assert.equal(notApplied.updates.map((u: { new: string }) => u.new).sort(), [a, b].sort());
});

test('a signed push (git push --signed, receive.certNonceSeed): the entry keeps the certificate and git\'s verdicts on it', () => {
  const r = freshRepo(server, 'signed');
  const gnupg = join(server.root, 'gnupg');
  mkdirSync(gnupg, { recursive: true, mode: 0o700 });
  const env = baseEnv({ GNUPGHOME: gnupg });
  execFileSync('gpg', ['--batch', '--passphrase', '', '--quick-gen-key', 'Dev <dev@example.com>', 'ed25519', 'sign', 'never'], { env, stdio: 'ignore' });
  gitValue(r.bare, ['config', 'receive.certNonceSeed', 'a server secret']);
  const head = advanceMain(r.work, 1);
  // file:// runs receive-pack with the pusher's GNUPGHOME, so git can check the signature.
  const p = gitResult(r.work, ['-c', 'user.signingkey=dev@example.com', 'push', '--signed', `file://${r.bare}`, 'main'], { env });
  assert.is(p.status, 0, p.stderr);
  const last = logEntries(r.bare).pop()!;
  assert.equal(last.updates.map((u) => u.new), [head]);
  const cert = last.push_certificate!;
  assert.ok(cert, JSON.stringify(last));
  assert.is(cert.status, 'G');
  assert.is(cert.nonce_status, 'OK');
  assert.match(cert.signer ?? '', /Dev <dev@example.com>/);
  assert.match(cert.certificate ?? '', /^certificate version 0\.1\n/);
  assert.ok(cert.certificate!.includes(`${head} refs/heads/main`), cert.certificate!);
  assert.match(cert.certificate ?? '', /-----BEGIN PGP SIGNATURE-----/);
  const v = verifyLog(r.bare, server.pub);
  assert.is(v.status, 0, v.text);
});

test('offline: a mirror and a plain clone carry the log; verify-log --remote, verify-ref --log, and the machine formats', () => {
  const r = freshRepo(server, 'clones');
  advanceMain(r.work, 1);
  assert.is(push(r.work, [r.httpUrl('bob'), 'main']).status, 0);
  const mirror = join(server.root, 'clones', 'clones-mirror.git');
  gitValue(server.root, ['clone', '-q', '--mirror', r.daemonUrl, mirror]);
  let v = verifyLog(mirror, server.pub);
  assert.is(v.status, 0, v.text);
  const clone = join(server.root, 'clones', 'clones-plain');
  gitValue(server.root, ['clone', '-q', r.daemonUrl, clone]);
  gitValue(clone, ['fetch', '-q', 'origin', 'refs/receipt-gate/log:refs/receipt-gate/log']);
  v = verifyLog(clone, server.pub, '--remote', 'origin');
  assert.is(v.status, 0, v.text);
  let ref = execCli(['verify-ref', 'origin/main', '--repo', clone, '--log', server.pub, '--json']);
  assert.is(ref.status, 0, ref.stdout + ref.stderr);

  // The server's main moves around the gate; a fetch brings the move, and both commands see it.
  gitValue(r.bare, ['-c', 'core.hooksPath=/nonexistent', 'update-ref', 'refs/heads/main', refOid(r.bare, 'refs/heads/main~1')!]);
  gitValue(clone, ['fetch', '-q', '--force', 'origin', '+refs/heads/main:refs/remotes/origin/main', 'refs/receipt-gate/log:refs/receipt-gate/log']);
  v = verifyLog(clone, server.pub, '--remote', 'origin');
  assert.equal(codes(v), ['LOG_GAP']);
  ref = execCli(['verify-ref', 'origin/main', '--repo', clone, '--log', server.pub, '--json']);
  assert.is(ref.status, 1, ref.stdout + ref.stderr);
  assert.ok(JSON.parse(ref.stdout).findings.some((f: { code: string }) => f.code === 'LOG_GAP'), ref.stdout);
  const sarif = JSON.parse(execCli(['verify-log', '--repo', clone, '--pub', server.pub, '--remote', 'origin', '--format', 'sarif']).stdout);
  assert.is(sarif.runs[0].results[0].ruleId, 'LOG_GAP');
  const gh = execCli(['verify-log', '--repo', clone, '--pub', server.pub, '--remote', 'origin', '--format', 'github']);
  assert.match(gh.stdout, /^::error .*LOG_GAP/m);
  const junit = execCli(['verify-log', '--repo', clone, '--pub', server.pub, '--remote', 'origin', '--format', 'junit']);
  assert.match(junit.stdout, /<testsuite name="receipt-gate verify-log"/);
  assert.match(junit.stdout, /LOG_GAP/);
  const bad = execCli(['verify-log', '--repo', clone, '--format', 'json']);
  assert.is(bad.status, 2);
  assert.match(JSON.parse(bad.stdout).error, /--pub KEY is required/);
});

function pushAsync(work: string, args: string[]): Promise<{ status: number; stderr: string }> {
  return new Promise((resolveDone) => {
    const child = spawn('git', ['push', '--porcelain', ...args], { cwd: work, env: baseEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stdout.on('data', (d) => (stderr += d));
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolveDone({ status: code ?? -1, stderr }));
  });
}

test.run();
