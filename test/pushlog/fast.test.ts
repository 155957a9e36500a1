// The push log's fast path end to end (docs/push-log.md, "How it is written"): pre-receive
// signs the push's entries in advance and the reference-transaction hook appends one with
// shell builtins, no Node. Real pushes over file:// into bare repositories with the installed
// hooks; node is run through a wrapper that notes each start, so a test can tell which path
// appended. Then everything the fast path could get wrong: several refs with and without
// --atomic, an update git refuses in the middle of a plain push, a log tip that moved after
// pre-receive, the log's lock held by another writer, a push the hooks stop midway.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { spawn, spawnSync } from 'node:child_process';
import { baseEnv, cleanup, commitAll, push, refOid, write } from '../server/helpers';
import { gitValue } from '../helpers/git';
import { codes, freshRepo, logEntries, nodeRecorder, startServers, verifyLog, type LogRepo, type LogServer } from './helpers';

const ZERO = '0'.repeat(40);

let server: LogServer;
let nodeWrapper: string;
let nodeStarts: string;

test.before(async () => {
  server = await startServers('pushlog-fast');
  ({ wrapper: nodeWrapper, starts: nodeStarts } = nodeRecorder(server));
});

test.after(() => {
  server?.stop();
  cleanup(server?.root);
});

/** What node was started for during `fn` (one line per start: its arguments). */
function starts(fn: () => void): string[] {
  rmSync(nodeStarts, { force: true });
  fn();
  return existsSync(nodeStarts) ? readFileSync(nodeStarts, 'utf8').trim().split('\n').filter(Boolean) : [];
}

const loggerStarts = (lines: string[]) => lines.filter((l) => / reference-transaction /.test(`${l} `));

function branch(work: string, name: string, file: string, from = 'main'): string {
  gitValue(work, ['checkout', '-q', '-B', name, from]);
  write(work, file, `x = "${name}"\n`);
  const oid = commitAll(work, `${name}: ${file}`);
  gitValue(work, ['checkout', '-q', 'main']);
  return oid;
}

function filePush(r: LogRepo, args: string[]) {
  return push(r.work, [`file://${r.bare}`, ...args], { RECEIPT_GATE_NODE: nodeWrapper });
}

/** The pending files that still hold something (the shell hook empties a logged push's files;
 * the next push's pre-receive removes them). */
function pendingFiles(r: LogRepo): string[] {
  const dir = join(r.bare, 'receipt-gate', 'pending');
  return existsSync(dir) ? readdirSync(dir).filter((n) => statSync(join(dir, n)).size > 0) : [];
}

function allPendingFiles(r: LogRepo): string[] {
  const dir = join(r.bare, 'receipt-gate', 'pending');
  return existsSync(dir) ? readdirSync(dir) : [];
}

function auditLines(r: LogRepo): { event: string; updates?: { ref: string; new: string }[] }[] {
  const file = join(r.bare, 'receipt-gate', 'audit.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l)) : [];
}

test('a push of one ref: the entry pre-receive signed is appended without starting node again', () => {
  const r = freshRepo(server, 'fast-one');
  const before = refOid(r.bare, 'refs/heads/main')!;
  const head = branch(r.work, 'main', 'src/one.py');
  let p;
  const lines = starts(() => {
    p = filePush(r, ['main']);
  });
  assert.is(p!.status, 0, p!.stderr);
  assert.ok(lines.some((l) => / pre-receive( |$)/.test(l)), lines.join('\n'));
  assert.equal(loggerStarts(lines), [], lines.join('\n'));
  const entries = logEntries(r.bare);
  assert.equal(entries.map((e) => e.seq), [0, 1]);
  assert.is(entries[1]!.kind, 'push');
  assert.equal(entries[1]!.updates.map((u) => [u.ref, u.old, u.new, u.verdict]), [['refs/heads/main', before, head, 'eligible']]);
  assert.equal(pendingFiles(r), []);
  // What is left of the push is its emptied files; the next push's pre-receive removes them
  // (their receive-pack is gone), and audits nothing for them.
  const emptied = allPendingFiles(r);
  assert.equal(emptied.sort().map((n) => n.replace(/^\d+/, 'PID')), ['PID.json', 'PID.log']);
  assert.ok(!existsSync(join(r.bare, 'refs', 'receipt-gate', 'log.lock')));
  const v = verifyLog(r.bare, server.pub, '--every-signature');
  assert.is(v.status, 0, v.text);
  const next = branch(r.work, 'main', 'src/two.py');
  const q = filePush(r, ['main']);
  assert.is(q.status, 0, q.stderr);
  assert.equal(logEntries(r.bare).map((e) => e.updates.map((u) => u.new)), [[], [head], [next]]);
  const left = allPendingFiles(r);
  assert.ok(emptied.every((n) => !left.includes(n)), left.join(' '));
  assert.equal(auditLines(r), []);
});

test('three new branches in a plain push: one entry for the three (the proc-receive hook creates them in one transaction), appended by the shell; three updates: one entry each, chained, all by the shell; with --atomic one entry for all', () => {
  const r = freshRepo(server, 'fast-many');
  const heads = ['a', 'b', 'c'].map((n) => branch(r.work, `feature/${n}`, `src/${n}.py`));
  let p;
  let lines = starts(() => {
    p = filePush(r, ['feature/a', 'feature/b', 'feature/c']);
  });
  assert.is(p!.status, 0, p!.stderr);
  assert.equal(loggerStarts(lines), [], lines.join('\n'));
  assert.is(lines.filter((l) => / proc-receive$/.test(l)).length, 1, lines.join('\n'));
  let entries = logEntries(r.bare);
  assert.equal(entries.map((e) => e.seq), [0, 1]);
  assert.equal(entries[1]!.updates.map((u) => `${u.old} ${u.new} ${u.ref}`), heads.map((h, i) => `${ZERO} ${h} refs/heads/feature/${'abc'[i]}`));
  heads.forEach((h, i) => assert.is(refOid(r.bare, `refs/heads/feature/${'abc'[i]}`), h));
  assert.equal(pendingFiles(r), []);

  const moved = ['a', 'b', 'c'].map((n) => branch(r.work, `feature/${n}`, `src/${n}1.py`, `feature/${n}`));
  lines = starts(() => {
    p = filePush(r, ['feature/a', 'feature/b', 'feature/c']);
  });
  assert.is(p!.status, 0, p!.stderr);
  assert.equal(loggerStarts(lines), [], lines.join('\n'));
  assert.equal(lines.filter((l) => / proc-receive$/.test(l)), [], 'updates of existing refs never reach the proc-receive hook');
  entries = logEntries(r.bare);
  assert.equal(entries.map((e) => e.seq), [0, 1, 2, 3, 4]);
  assert.equal(entries.slice(2).map((e) => e.updates.map((u) => `${u.ref} ${u.new}`)), moved.map((h, i) => [`refs/heads/feature/${'abc'[i]} ${h}`]));
  assert.equal(pendingFiles(r), []);

  const next = ['a', 'b'].map((n) => branch(r.work, `feature/${n}`, `src/${n}2.py`, `feature/${n}`));
  lines = starts(() => {
    p = filePush(r, ['--atomic', 'feature/a', 'feature/b']);
  });
  assert.is(p!.status, 0, p!.stderr);
  assert.equal(loggerStarts(lines), [], lines.join('\n'));
  entries = logEntries(r.bare);
  assert.is(entries.length, 6);
  assert.equal(entries[5]!.updates.map((u) => `${u.ref} ${u.new}`).sort(), [`refs/heads/feature/a ${next[0]}`, `refs/heads/feature/b ${next[1]}`]);
  assert.equal(pendingFiles(r), []);
  const v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', 'feature/a', '--ref', 'feature/b', '--ref', 'feature/c');
  assert.is(v.status, 0, v.text);
});

test('new refs git refuses to create together (one name is locked): none is created, each is refused with the reason, the log is unchanged, and the next push audits them as not applied', () => {
  const r = freshRepo(server, 'fast-batch-refused');
  const heads = ['a', 'b', 'c'].map((n) => branch(r.work, `nb/${n}`, `src/${n}.py`));
  mkdirSync(join(r.bare, 'refs', 'heads', 'nb'), { recursive: true });
  writeFileSync(join(r.bare, 'refs', 'heads', 'nb', 'b.lock'), '');
  const tip = refOid(r.bare, 'refs/receipt-gate/log');
  const p = filePush(r, ['nb/a', 'nb/b', 'nb/c']);
  assert.is.not(p.status, 0, p.stderr);
  for (const n of ['a', 'b', 'c']) {
    assert.is(refOid(r.bare, `refs/heads/nb/${n}`), null);
    assert.match(p.stderr, new RegExp(`refs/heads/nb/${n}:refs/heads/nb/${n}\\t\\[remote rejected\\] \\(the 3 new refs of this push are created together, and git refused: .*nb/b.*nothing was created, push again\\)`));
  }
  assert.is(refOid(r.bare, 'refs/receipt-gate/log'), tip);
  rmSync(join(r.bare, 'refs', 'heads', 'nb', 'b.lock'));
  branch(r.work, 'main', 'src/after.py');
  assert.is(filePush(r, ['main']).status, 0);
  const notApplied = auditLines(r).filter((x) => x.event === 'not-applied');
  assert.equal(notApplied.map((x) => x.updates!.map((u) => `${u.ref} ${u.new}`)), [heads.map((h, i) => `refs/heads/nb/${'abc'[i]} ${h}`)]);
  const v = verifyLog(r.bare, server.pub, '--every-signature');
  assert.is(v.status, 0, v.text);
  // Pushed again, they are created, in one entry.
  const again = filePush(r, ['nb/a', 'nb/b', 'nb/c']);
  assert.is(again.status, 0, again.stderr);
  assert.equal(logEntries(r.bare).pop()!.updates.map((u) => u.ref), ['refs/heads/nb/a', 'refs/heads/nb/b', 'refs/heads/nb/c']);
});

test('parallel pushes of six refs: every update is one entry, in one chain, none lost; the first to commit is appended by the shell, the others by whichever path their tip allows', async () => {
  const r = freshRepo(server, 'fast-parallel');
  const n = 6;
  const heads = Array.from({ length: n }, (_, i) => branch(r.work, `par/${i}`, `src/par${i}.py`));
  rmSync(nodeStarts, { force: true });
  const results = await Promise.all(
    heads.map(
      (_, i) =>
        new Promise<{ status: number; stderr: string }>((resolveDone) => {
          const child = spawn('git', ['push', `file://${r.bare}`, `par/${i}`], { cwd: r.work, env: baseEnv({ RECEIPT_GATE_NODE: nodeWrapper }), stdio: ['ignore', 'pipe', 'pipe'] });
          let stderr = '';
          child.stderr.on('data', (d) => (stderr += d));
          child.on('close', (code) => resolveDone({ status: code ?? -1, stderr }));
        }),
    ),
  );
  results.forEach((res, i) => assert.is(res.status, 0, `push ${i}: ${res.stderr}`));
  const lines = existsSync(nodeStarts) ? readFileSync(nodeStarts, 'utf8').trim().split('\n') : [];
  assert.ok(loggerStarts(lines).length <= n - 1, lines.join('\n'));
  const entries = logEntries(r.bare);
  assert.equal(entries.map((e) => e.seq), [...Array(n + 1).keys()]);
  assert.equal(entries.slice(1).flatMap((e) => e.updates.map((u) => `${u.ref} ${u.new}`)).sort(), heads.map((h, i) => `refs/heads/par/${i} ${h}`).sort());
  assert.equal(pendingFiles(r), []);
  assert.ok(!existsSync(join(r.bare, 'refs', 'receipt-gate', 'log.lock')));
  const v = verifyLog(r.bare, server.pub, '--every-signature', ...heads.flatMap((_, i) => ['--ref', `par/${i}`]));
  assert.is(v.status, 0, v.text);
});

test('a plain push whose middle update git refuses: the others are logged (the last by the Node logger), the refused one is audited as not applied', () => {
  const r = freshRepo(server, 'fast-partial');
  ['a', 'b', 'c'].map((n) => branch(r.work, `part/${n}`, `src/${n}.py`));
  assert.is(filePush(r, ['part/a', 'part/b', 'part/c']).status, 0);
  const [a, b, c] = ['a', 'b', 'c'].map((n) => branch(r.work, `part/${n}`, `src/${n}1.py`, `part/${n}`));
  // A lock someone holds on part/b: receive-pack cannot lock it after pre-receive accepted.
  writeFileSync(join(r.bare, 'refs', 'heads', 'part', 'b.lock'), '');
  let p;
  const lines = starts(() => {
    p = filePush(r, ['part/a', 'part/b', 'part/c']);
  });
  assert.is.not(p!.status, 0, p!.stderr);
  assert.is(refOid(r.bare, 'refs/heads/part/a'), a);
  assert.is.not(refOid(r.bare, 'refs/heads/part/b'), b);
  assert.is(refOid(r.bare, 'refs/heads/part/c'), c);
  // part/a from its prepared entry; part/c's prepared entry sits on part/b's, which git never
  // applied: the Node logger signs it on the real tip.
  assert.is(loggerStarts(lines).length, 1, lines.join('\n'));
  const entries = logEntries(r.bare);
  assert.equal(entries.slice(2).map((e) => e.updates.map((u) => `${u.ref} ${u.new}`)), [[`refs/heads/part/a ${a}`], [`refs/heads/part/c ${c}`]]);
  assert.equal(entries.map((e) => e.seq), [0, 1, 2, 3]);
  let v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', 'part/a', '--ref', 'part/b', '--ref', 'part/c');
  assert.is(v.status, 0, v.text);
  // The next push sweeps what the gate accepted and git did not apply: part/b alone.
  rmSync(join(r.bare, 'refs', 'heads', 'part', 'b.lock'));
  branch(r.work, 'main', 'src/next.py');
  assert.is(filePush(r, ['main']).status, 0);
  const notApplied = auditLines(r).filter((x) => x.event === 'not-applied');
  assert.equal(notApplied.map((x) => x.updates!.map((u) => `${u.ref} ${u.new}`)), [[`refs/heads/part/b ${b}`]]);
  v = verifyLog(r.bare, server.pub, '--every-signature');
  assert.is(v.status, 0, v.text);
});

test('a failed --atomic push leaves its prepared entries unused; the next push appends on the real tip', () => {
  const r = freshRepo(server, 'fast-atomic');
  const a = branch(r.work, 'feature/a', 'src/a.py');
  const b = branch(r.work, 'feature/b', 'src/b.py');
  gitValue(r.bare, ['update-ref', 'refs/heads/feature/b', refOid(r.bare, 'refs/heads/main')!]);
  writeFileSync(join(r.bare, 'refs', 'heads', 'feature', 'b.lock'), '');
  const tip = refOid(r.bare, 'refs/receipt-gate/log');
  const p = filePush(r, ['--atomic', '--force', 'feature/a', 'feature/b']);
  assert.is.not(p.status, 0, p.stderr);
  assert.is(refOid(r.bare, 'refs/heads/feature/a'), null);
  // (The update-ref above is an ungated entry; the failed push adds nothing.)
  assert.is(refOid(r.bare, 'refs/receipt-gate/log'), tip);
  assert.ok(!logEntries(r.bare).some((e) => e.updates.some((u) => u.new === a || u.new === b)));
  rmSync(join(r.bare, 'refs', 'heads', 'feature', 'b.lock'));
  const head = branch(r.work, 'main', 'src/after.py');
  let q;
  const lines = starts(() => {
    q = filePush(r, ['main']);
  });
  assert.is(q!.status, 0, q!.stderr);
  assert.equal(loggerStarts(lines), [], lines.join('\n'));
  const last = logEntries(r.bare).pop()!;
  assert.equal(last.updates.map((u) => u.new), [head]);
  assert.equal(auditLines(r).filter((x) => x.event === 'not-applied').map((x) => x.updates!.map((u) => u.new).sort()), [[a, b].sort()]);
  const v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', 'main');
  assert.is(v.status, 0, v.text);
});

test('the log moved after pre-receive signed (another transaction appended first): the Node logger signs on the real tip', () => {
  const r = freshRepo(server, 'fast-stale');
  // A chained pre-receive hook that runs after the gate accepted: an administrator's
  // update-ref of another ref, which the log records (ungated) before the push is applied.
  const other = refOid(r.bare, 'refs/heads/main')!;
  const chained = join(r.bare, 'hooks', 'pre-receive.receipt-gate-chained');
  writeFileSync(chained, `#!/bin/sh\ncat > /dev/null\n# (outside the quarantine receive-pack keeps the pushed objects in)\nenv -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES git update-ref refs/heads/side ${other}\n`);
  chmodSync(chained, 0o755);
  const head = branch(r.work, 'main', 'src/stale.py');
  let p;
  const lines = starts(() => {
    p = filePush(r, ['main']);
  });
  assert.is(p!.status, 0, p!.stderr);
  assert.is(loggerStarts(lines).filter((l) => / committed$/.test(l)).length, 2, lines.join('\n'));
  const entries = logEntries(r.bare);
  assert.equal(entries.slice(1).map((e) => [e.kind, e.updates.map((u) => `${u.ref} ${u.new}`)]), [
    ['ungated', [`refs/heads/side ${other}`]],
    ['push', [`refs/heads/main ${head}`]],
  ]);
  assert.equal(pendingFiles(r), []);
  const v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', 'main');
  assert.is(v.status, 0, v.text);
});

test("the log's lock held by another writer: the transaction waits for it in `prepared`, then is applied and logged in order", async () => {
  const r = freshRepo(server, 'fast-lock');
  const before = refOid(r.bare, 'refs/heads/main');
  const head = branch(r.work, 'main', 'src/lock.py');
  const lock = join(r.bare, 'refs', 'receipt-gate', 'log.lock');
  // A live writer's lock: its process id inside (this test's own process).
  writeFileSync(lock, `${process.pid}\n`);
  const done = new Promise<{ status: number; stderr: string }>((resolveDone) => {
    const child = spawn('git', ['push', `file://${r.bare}`, 'main'], { cwd: r.work, env: baseEnv({ RECEIPT_GATE_NODE: nodeWrapper }), stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.on('close', (code) => resolveDone({ status: code ?? -1, stderr }));
  });
  // The push waits on the lock before git applies it: main does not move, the log neither,
  // while git holds main's lock (the transaction is prepared).
  const mainLock = join(r.bare, 'refs', 'heads', 'main.lock');
  for (let i = 0; i < 600 && !existsSync(mainLock); i++) await new Promise((ok) => setTimeout(ok, 50));
  assert.ok(existsSync(mainLock), 'the transaction is prepared');
  await new Promise((ok) => setTimeout(ok, 300));
  assert.is(refOid(r.bare, 'refs/heads/main'), before);
  assert.is(logEntries(r.bare).length, 1);
  rmSync(lock);
  const p = await done;
  assert.is(p.status, 0, p.stderr);
  const entries = logEntries(r.bare);
  assert.equal(entries.map((e) => e.seq), [0, 1]);
  assert.equal(entries[1]!.updates.map((u) => u.new), [head]);
  assert.ok(!existsSync(lock));
  const v = verifyLog(r.bare, server.pub, '--every-signature');
  assert.is(v.status, 0, v.text);
});

test("a lock a crashed writer left on the log (older than two minutes) is cleared: the entry is appended at once, by the shell", () => {
  const r = freshRepo(server, 'fast-stale-lock');
  const head = branch(r.work, 'main', 'src/crashed.py');
  const lock = join(r.bare, 'refs', 'receipt-gate', 'log.lock');
  writeFileSync(lock, '');
  const old = new Date(Date.now() - 10 * 60 * 1000);
  utimesSync(lock, old, old);
  let p;
  const lines = starts(() => {
    p = filePush(r, ['main']);
  });
  assert.is(p!.status, 0, p!.stderr);
  assert.equal(loggerStarts(lines), [], lines.join('\n'));
  const entries = logEntries(r.bare);
  assert.equal(entries.map((e) => e.seq), [0, 1]);
  assert.equal(entries[1]!.updates.map((u) => u.new), [head]);
  assert.ok(!existsSync(lock));
  const v = verifyLog(r.bare, server.pub, '--every-signature');
  assert.is(v.status, 0, v.text);
});

test('a lock left by a transaction whose process is gone is broken: the entry is appended at once, by the shell', () => {
  const r = freshRepo(server, 'fast-dead-lock');
  const head = branch(r.work, 'main', 'src/dead.py');
  const lock = join(r.bare, 'refs', 'receipt-gate', 'log.lock');
  // The id of a process that has ended (a git killed between `prepared` and `committed`).
  const gone = spawnSync('sh', ['-c', 'echo $$']).stdout.toString().trim();
  writeFileSync(lock, `${gone}\n`);
  let p;
  const lines = starts(() => {
    p = filePush(r, ['main']);
  });
  assert.is(p!.status, 0, p!.stderr);
  assert.equal(loggerStarts(lines), [], lines.join('\n'));
  assert.equal(logEntries(r.bare).map((e) => e.updates.map((u) => u.new)), [[], [head]]);
  assert.ok(!existsSync(lock));
  assert.ok(!existsSync(`${lock}.break`));
});

test('an update of refs/receipt-gate/ refs only takes no lock: a direct update-ref of the log ref is not held up by the hook', () => {
  const r = freshRepo(server, 'fast-own-ref');
  const tip = refOid(r.bare, 'refs/receipt-gate/log')!;
  // git holds the log ref's lock (log.lock, the new oid inside) while the hook runs `prepared`.
  gitValue(r.bare, ['update-ref', 'refs/receipt-gate/other', tip]);
  gitValue(r.bare, ['update-ref', '-d', 'refs/receipt-gate/other']);
  gitValue(r.bare, ['update-ref', 'refs/receipt-gate/log', tip, tip]);
  assert.is(refOid(r.bare, 'refs/receipt-gate/log'), tip);
  assert.ok(!existsSync(join(r.bare, 'refs', 'receipt-gate', 'log.lock')));
  assert.is(logEntries(r.bare).length, 1);
});

test('RECEIPT_GATE_LOG_NO_FAST: the Node logger appends under the lock the transaction took in `prepared`, and releases it', () => {
  const r = freshRepo(server, 'fast-off');
  const before = refOid(r.bare, 'refs/heads/main')!;
  const head = branch(r.work, 'main', 'src/slow.py');
  let p;
  const lines = starts(() => {
    p = push(r.work, [`file://${r.bare}`, 'main'], { RECEIPT_GATE_NODE: nodeWrapper, RECEIPT_GATE_LOG_NO_FAST: '1' });
  });
  assert.is(p!.status, 0, p!.stderr);
  assert.is(loggerStarts(lines).length, 1, lines.join('\n'));
  const entries = logEntries(r.bare);
  assert.equal(entries.map((e) => [e.seq, e.kind]), [[0, 'genesis'], [1, 'push']]);
  assert.equal(entries[1]!.updates.map((u) => [u.ref, u.old, u.new, u.verdict]), [['refs/heads/main', before, head, 'eligible']]);
  assert.ok(!existsSync(join(r.bare, 'refs', 'receipt-gate', 'log.lock')));
  assert.equal(pendingFiles(r), []);
  assert.equal(auditLines(r), []);
  const v = verifyLog(r.bare, server.pub, '--every-signature');
  assert.is(v.status, 0, v.text);
});

test('a push the hooks stop midway (a chained hook refuses it after the gate accepted): nothing is logged, no lock is left, the next push is logged', () => {
  const r = freshRepo(server, 'fast-midway');
  const tip = refOid(r.bare, 'refs/receipt-gate/log');
  // After pre-receive prepared the entry: a chained reference-transaction hook refuses the
  // transaction in `prepared` (git aborts it).
  const chained = join(r.bare, 'hooks', 'reference-transaction.receipt-gate-chained');
  writeFileSync(chained, '#!/bin/sh\ncat > /dev/null\n[ "$1" = prepared ] && exit 1\nexit 0\n');
  chmodSync(chained, 0o755);
  const refused = branch(r.work, 'main', 'src/refused.py');
  const p = filePush(r, ['main']);
  assert.is.not(p.status, 0, p.stderr);
  assert.is.not(refOid(r.bare, 'refs/heads/main'), refused);
  assert.is(refOid(r.bare, 'refs/receipt-gate/log'), tip);
  assert.ok(!existsSync(join(r.bare, 'refs', 'receipt-gate', 'log.lock')));
  rmSync(chained);
  // The entry signed for the refused push is never used: the next push's entry is on the tip.
  const head = branch(r.work, 'main', 'src/accepted.py');
  let q;
  const lines = starts(() => {
    q = filePush(r, ['main']);
  });
  assert.is(q!.status, 0, q!.stderr);
  assert.equal(loggerStarts(lines), [], lines.join('\n'));
  const entries = logEntries(r.bare);
  assert.equal(entries.map((e) => e.seq), [0, 1]);
  assert.equal(entries[1]!.updates.map((u) => u.new), [head]);
  assert.equal(auditLines(r).filter((x) => x.event === 'not-applied').map((x) => x.updates!.map((u) => u.new)), [[refused]]);
  const v = verifyLog(r.bare, server.pub, '--every-signature');
  assert.is(v.status, 0, v.text);
  assert.equal(codes(v), []);
});

test.run();
