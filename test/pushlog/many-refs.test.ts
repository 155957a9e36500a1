// A plain push of many refs (docs/push-log.md, "Many refs in one push"): the new refs are
// created in one ref transaction by the proc-receive hook, the other updates each in a
// transaction of its own by receive-pack, and the shell hook appends each transaction's entry
// by looking up the candidate on top of the log's tip (receipt-gate/candidates/<pid>/<tip>,
// <tip>.txn), with no Node start for the log and no walk of the push's list. Real pushes over file:// into a bare
// repository with the installed hooks. (The cost curve is bench/pushlog-refs.mjs; no timing
// here.)

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, cleanup, commitAll, push, refOid, write } from '../server/helpers';
import { gitValue } from '../helpers/git';
import { codes, execCli, freshRepo, logEntries, nodeRecorder, startServers, verifyLog, type LogServer } from './helpers';

let server: LogServer;
let nodeWrapper: string;
let nodeStarts: string;

test.before(async () => {
  server = await startServers('pushlog-many-refs');
  ({ wrapper: nodeWrapper, starts: nodeStarts } = nodeRecorder(server));
});

test.after(() => {
  server?.stop();
  cleanup(server?.root);
});

test('300 new tags and a branch update in one plain push: the tags are one entry (one ref transaction, made by the proc-receive hook), the branch the next; both appended by the shell; three candidates signed in advance, not 301; the next push sweeps them', () => {
  const r = freshRepo(server, 'many');
  gitValue(r.work, ['checkout', '-q', 'main']);
  write(r.work, 'src/many.py', 'x = 1\n');
  const head = commitAll(r.work, 'many refs');
  const tags = Array.from({ length: 300 }, (_, i) => `refs/tags/m${String(i).padStart(3, '0')}`);
  gitValue(r.work, ['update-ref', '--stdin'], { input: tags.map((t) => `create ${t} ${head}\n`).join('') });
  const tipBefore = gitValue(r.bare, ['rev-parse', 'refs/receipt-gate/log']);
  rmSync(nodeStarts, { force: true });
  const p = push(r.work, [`file://${r.bare}`, 'main', ...tags], { RECEIPT_GATE_NODE: nodeWrapper });
  assert.is(p.status, 0, p.stderr);
  const starts = readFileSync(nodeStarts, 'utf8').trim().split('\n');
  assert.equal(starts.filter((l) => / reference-transaction /.test(`${l} `)), [], starts.join('\n'));
  assert.is(starts.filter((l) => / proc-receive$/.test(l)).length, 1, starts.join('\n'));
  const entries = logEntries(r.bare);
  const before = entries.findIndex((e) => e.commit === tipBefore);
  assert.ok(before >= 0);
  const added = entries.slice(before + 1);
  // receive-pack runs the proc-receive hook (the new refs) before it applies the other updates.
  assert.equal(added.map((e) => e.updates.length), [300, 1]);
  assert.equal(added[0]!.updates.map((u) => `${u.ref} ${u.new}`), tags.map((t) => `${t} ${head}`));
  assert.equal(added[1]!.updates.map((u) => `${u.ref} ${u.new}`), [`refs/heads/main ${head}`]);
  for (const t of tags.slice(0, 5)) assert.is(gitValue(r.bare, ['rev-parse', t]), head);
  const candidates = join(r.bare, 'receipt-gate', 'candidates');
  const folders = readdirSync(candidates);
  assert.is(folders.length, 1);
  const files = readdirSync(join(candidates, folders[0]!));
  assert.equal(files.sort(), [`${tipBefore}.txn`, added[0]!.commit, 'all.txn'].sort());
  const v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', 'main', ...tags.slice(0, 3).flatMap((t) => ['--ref', t]));
  assert.is(v.status, 0, v.text);

  write(r.work, 'src/next.py', 'x = 2\n');
  commitAll(r.work, 'next');
  assert.is(push(r.work, [`file://${r.bare}`, 'main']).status, 0);
  assert.not.ok(existsSync(join(candidates, folders[0]!)), 'the gone push\'s candidates are swept');
  assert.is(logEntries(r.bare).length, entries.length + 1);
});

test('a single new tag, and new refs with an update hook installed: receive-pack applies each itself (the proc-receive hook answers fall-through), one entry per ref, as without it', () => {
  const r = freshRepo(server, 'many-fallthrough');
  gitValue(r.work, ['checkout', '-q', 'main']);
  const head = gitValue(r.work, ['rev-parse', 'HEAD']);
  gitValue(r.work, ['tag', 'solo', head]);
  const n0 = logEntries(r.bare).length;
  rmSync(nodeStarts, { force: true });
  let p = push(r.work, [`file://${r.bare}`, 'refs/tags/solo'], { RECEIPT_GATE_NODE: nodeWrapper });
  assert.is(p.status, 0, p.stderr);
  assert.is(logEntries(r.bare).length, n0 + 1);
  // pre-receive wrote the proc-receive hook's answer: no Node start for it.
  const started = readFileSync(nodeStarts, 'utf8').trim().split('\n');
  assert.equal(started.filter((l) => / proc-receive$/.test(l)), [], started.join('\n'));
  assert.is(gitValue(r.bare, ['rev-parse', 'refs/tags/solo']), head);
  const update = join(r.bare, 'hooks', 'update');
  writeFileSync(update, '#!/bin/sh\necho "update hook: $1" >&2\nexit 0\n');
  chmodSync(update, 0o755);
  gitValue(r.work, ['tag', 'u1', head]);
  gitValue(r.work, ['tag', 'u2', head]);
  p = push(r.work, [`file://${r.bare}`, 'refs/tags/u1', 'refs/tags/u2']);
  assert.is(p.status, 0, p.stderr);
  assert.match(p.stderr, /update hook: refs\/tags\/u1/);
  assert.match(p.stderr, /update hook: refs\/tags\/u2/);
  const entries = logEntries(r.bare);
  assert.equal(entries.slice(n0 + 1).map((e) => e.updates.map((u) => u.ref)), [['refs/tags/u1'], ['refs/tags/u2']]);
  const v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', 'refs/tags/u1', '--ref', 'refs/tags/solo');
  assert.is(v.status, 0, v.text);
});

test('new tags with receive.shallowUpdate=2 (git reads it as true), and with a linked worktree: receive-pack applies each itself, one entry per ref', () => {
  const r = freshRepo(server, 'many-shallow-worktree');
  gitValue(r.work, ['checkout', '-q', 'main']);
  const head = gitValue(r.work, ['rev-parse', 'HEAD']);
  const n0 = logEntries(r.bare).length;
  gitValue(r.bare, ['config', 'receive.shallowUpdate', '2']);
  gitValue(r.work, ['tag', 's1', head]);
  gitValue(r.work, ['tag', 's2', head]);
  let p = push(r.work, [`file://${r.bare}`, 'refs/tags/s1', 'refs/tags/s2']);
  assert.is(p.status, 0, p.stderr);
  assert.equal(logEntries(r.bare).slice(n0).map((e) => e.updates.map((u) => u.ref)), [['refs/tags/s1'], ['refs/tags/s2']]);
  gitValue(r.bare, ['config', '--unset', 'receive.shallowUpdate']);
  mkdirSync(join(r.bare, 'worktrees', 'elsewhere'), { recursive: true });
  gitValue(r.work, ['tag', 'w1', head]);
  gitValue(r.work, ['tag', 'w2', head]);
  p = push(r.work, [`file://${r.bare}`, 'refs/tags/w1', 'refs/tags/w2']);
  assert.is(p.status, 0, p.stderr);
  assert.equal(logEntries(r.bare).slice(n0 + 2).map((e) => e.updates.map((u) => u.ref)), [['refs/tags/w1'], ['refs/tags/w2']]);
  const v = verifyLog(r.bare, server.pub, '--ref', 'refs/tags/s2', '--ref', 'refs/tags/w2');
  assert.is(v.status, 0, v.text);
});

test('hooks moved by a config include git reads (includeIf) with an update hook there: git runs the update hook for every new ref, none is batched past it', () => {
  const r = freshRepo(server, 'many-include-hooks');
  gitValue(r.work, ['checkout', '-q', 'main']);
  const head = gitValue(r.work, ['rev-parse', 'HEAD']);
  const moved = join(r.bare, 'hooks-moved');
  cpSync(join(r.bare, 'hooks'), moved, { recursive: true, verbatimSymlinks: true });
  writeFileSync(join(moved, 'update'), '#!/bin/sh\necho "update hook: $1" >&2\nexit 0\n');
  chmodSync(join(moved, 'update'), 0o755);
  writeFileSync(join(r.bare, 'moved.config'), `[core]\n\thooksPath = ${moved}\n`);
  gitValue(r.bare, ['config', '--add', `includeIf.gitdir:${r.bare}/.path`, join(r.bare, 'moved.config')]);
  assert.is(gitValue(r.bare, ['config', 'core.hooksPath']), moved, 'git reads the included hooks folder');
  gitValue(r.work, ['tag', 'i1', head]);
  gitValue(r.work, ['tag', 'i2', head]);
  const p = push(r.work, [`file://${r.bare}`, 'refs/tags/i1', 'refs/tags/i2']);
  assert.is(p.status, 0, p.stderr);
  assert.match(p.stderr, /update hook: refs\/tags\/i1/);
  assert.match(p.stderr, /update hook: refs\/tags\/i2/);
  assert.is(gitValue(r.bare, ['rev-parse', 'refs/tags/i2']), head);
});

test('new refs with the branch HEAD names and a name outside the batch\'s pattern among them: those two are applied by receive-pack after the batch, in push order; one entry each; all by the shell', () => {
  const r = freshRepo(server, 'many-mixed');
  gitValue(r.work, ['checkout', '-q', 'main']);
  const head = gitValue(r.work, ['rev-parse', 'HEAD']);
  gitValue(r.bare, ['symbolic-ref', 'HEAD', 'refs/heads/trunk']);
  const refs = ['refs/heads/trunk', 'refs/tags/t1', 'refs/tags/t2', 'refs/tags/t3', 'refs/tags/a=b'];
  gitValue(r.work, ['update-ref', '--stdin'], { input: refs.map((t) => `create ${t} ${head}\n`).join('') });
  const n0 = logEntries(r.bare).length;
  rmSync(nodeStarts, { force: true });
  const p = push(r.work, [`file://${r.bare}`, ...refs], { RECEIPT_GATE_NODE: nodeWrapper });
  assert.is(p.status, 0, p.stderr);
  const starts = readFileSync(nodeStarts, 'utf8').trim().split('\n');
  assert.equal(starts.filter((l) => / reference-transaction /.test(`${l} `)), [], starts.join('\n'));
  assert.equal(logEntries(r.bare).slice(n0).map((e) => e.updates.map((u) => u.ref)), [['refs/tags/t1', 'refs/tags/t2', 'refs/tags/t3'], ['refs/heads/trunk'], ['refs/tags/a=b']]);
  for (const ref of refs) assert.is(gitValue(r.bare, ['rev-parse', ref]), head);
  const v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', 'refs/heads/trunk', '--ref', 'refs/tags/a=b', '--ref', 'refs/tags/t2');
  assert.is(v.status, 0, v.text);
});

test('new tags with a name of bytes >= 0x80 among them (refs/tags/caf\\xe9): that one goes back to receive-pack by its bytes, the others are one batch; every tag created and logged, verify-log clean', () => {
  const r = freshRepo(server, 'many-bytes');
  gitValue(r.work, ['checkout', '-q', 'main']);
  const head = gitValue(r.work, ['rev-parse', 'HEAD']);
  const plain = ['refs/tags/b1', 'refs/tags/b2'];
  gitValue(r.work, ['update-ref', '--stdin'], { input: plain.map((t) => `create ${t} ${head}\n`).join('') });
  // The name's bytes as they are (latin1 é, not UTF-8): git takes any byte from 0x80 up.
  spawnSync('git', ['-C', r.work, 'update-ref', Buffer.from('refs/tags/caf\xe9', 'latin1').toString('latin1'), head], { env: baseEnv() });
  const n0 = logEntries(r.bare).length;
  const p = push(r.work, [`file://${r.bare}`, ...plain, 'refs/tags/caf\xe9']);
  assert.is(p.status, 0, p.stderr);
  assert.not.match(p.stderr, /unknown ref|NOT recorded|failed to report/);
  assert.equal(logEntries(r.bare).slice(n0).map((e) => e.updates.length), [2, 1]);
  for (const t of plain) assert.is(gitValue(r.bare, ['rev-parse', t]), head);
  const v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', 'refs/tags/b1');
  assert.is(v.status, 0, v.text);
  assert.equal(codes(verifyLog(r.bare, server.pub)), []);
});

test('new tags with --atomic: receive-pack applies them in its own one transaction (the proc-receive hook answers fall-through), one entry, by the shell hook', () => {
  const r = freshRepo(server, 'many-atomic');
  gitValue(r.work, ['checkout', '-q', 'main']);
  const head = gitValue(r.work, ['rev-parse', 'HEAD']);
  const tags = Array.from({ length: 30 }, (_, i) => `refs/tags/a${i}`);
  gitValue(r.work, ['update-ref', '--stdin'], { input: tags.map((t) => `create ${t} ${head}\n`).join('') });
  const n0 = logEntries(r.bare).length;
  rmSync(nodeStarts, { force: true });
  const p = push(r.work, ['--atomic', `file://${r.bare}`, ...tags], { RECEIPT_GATE_NODE: nodeWrapper });
  assert.is(p.status, 0, p.stderr);
  const starts = readFileSync(nodeStarts, 'utf8').trim().split('\n');
  assert.equal(starts.filter((l) => / reference-transaction /.test(`${l} `)), [], starts.join('\n'));
  assert.equal(logEntries(r.bare).slice(n0).map((e) => e.updates.map((u) => u.ref)), [tags]);
});

test('with the hooks folder moved aside, git refuses a push that creates refs (no proc-receive hook) and applies an update of an existing ref, which verify-log shows as a gap', () => {
  const r = freshRepo(server, 'many-hooks-aside');
  gitValue(r.work, ['checkout', '-q', 'main']);
  renameSync(join(r.bare, 'hooks'), join(r.bare, 'hooks.off'));
  gitValue(r.work, ['tag', 'aside1']);
  let p = push(r.work, [`file://${r.bare}`, 'refs/tags/aside1']);
  assert.is.not(p.status, 0, p.stderr);
  assert.match(p.stderr, /proc-receive/);
  assert.is(refOid(r.bare, 'refs/tags/aside1'), null);
  write(r.work, 'src/aside.py', 'x = 3\n');
  commitAll(r.work, 'aside');
  p = push(r.work, [`file://${r.bare}`, 'main']);
  assert.is(p.status, 0, p.stderr);
  renameSync(join(r.bare, 'hooks.off'), join(r.bare, 'hooks'));
  const v = verifyLog(r.bare, server.pub, '--ref', 'main');
  assert.equal(codes(v), ['LOG_GAP']);
});

test('new tags over git daemon and over smart HTTP: one entry each push, by the shell hook; verify-log clean', () => {
  const r = freshRepo(server, 'many-served');
  gitValue(r.work, ['checkout', '-q', 'main']);
  const head = gitValue(r.work, ['rev-parse', 'HEAD']);
  const n0 = logEntries(r.bare).length;
  const batch = (prefix: string) => Array.from({ length: 40 }, (_, i) => `refs/tags/${prefix}${i}`);
  const viaDaemon = batch('d');
  const viaHttp = batch('h');
  gitValue(r.work, ['update-ref', '--stdin'], { input: [...viaDaemon, ...viaHttp].map((t) => `create ${t} ${head}\n`).join('') });
  let p = push(r.work, [r.daemonUrl, ...viaDaemon]);
  assert.is(p.status, 0, p.stderr);
  p = push(r.work, [r.httpUrl('alice'), ...viaHttp]);
  assert.is(p.status, 0, p.stderr);
  const entries = logEntries(r.bare).slice(n0);
  assert.equal(entries.map((e) => e.updates.map((u) => u.ref)), [viaDaemon, viaHttp]);
  assert.equal(entries.map((e) => e.kind), ['push', 'push']);
  const v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', viaDaemon[0]!, '--ref', viaHttp[39]!);
  assert.is(v.status, 0, v.text);
  // A short name is the ref git takes for it: the tag d0, not a branch of that name.
  const short = execCli(['verify-log', '--repo', r.bare, '--pub', server.pub, '--json', '--ref', 'd0', '--ref', 'main']);
  assert.is(short.status, 0, short.stdout + short.stderr);
  assert.equal((JSON.parse(short.stdout) as { refs: { ref: string }[] }).refs.map((x) => x.ref).sort(), ['refs/heads/main', 'refs/tags/d0']);
});

test.run();
