// The server hook's V8 startup snapshot (hooks/receipt-gate.blob, docs/server.md): install.sh
// builds and checks it with the node the hook runs, the shim starts node from it, and it never
// decides a push on its own: a snapshot run that ends without the gate's answer (another
// Node.js, a damaged file, a bundle copied over it) is replaced by the plain bundle's run.
// Real `git push`es into bare repositories, plus the snapshot run beside the plain run.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { baseEnv, CLI, cleanup, commitAll, guardedRemote, INSTALL, machine, makeTemplate, push, refOid, sha256, write, type PushResult, type Remote } from './helpers';
import { SHIM_EXIT } from '../../src/verdict';
import { gitValue, tempDir } from '../helpers/git';

const FLAGS = ['--max-semi-space-size=4', '--interrupt-budget=270336', '--max-inlined-bytecode-size-cumulative=460', '--single-threaded-gc']; // the shim's node_flags
/** How a node start the shim made begins: its flags, as a pattern (escaped, matched literally). */
const FLAGS_RE = FLAGS.join(' ').replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
/** Commit dates fixed, so that every copy of the template makes the same commits. */
const FIXED = { GIT_AUTHOR_DATE: '2026-09-09T12:00:00Z', GIT_COMMITTER_DATE: '2026-09-09T12:00:00Z' };
const NOTICE = /^receipt-gate: notice: the startup snapshot receipt-gate\.blob could not be used \(exit status (\d+);/;

let installed: Remote; // the hook installed the default way (helpers' installHook), snapshot included
let bare: Remote; // no hook yet
const copies: Remote[] = [];
test.before(() => {
  installed = makeTemplate();
  bare = makeTemplate({ install: false });
  for (const t of [installed, bare]) {
    gitValue(t.work, ['checkout', '-q', '-B', 'feature/honest', 'main']);
    write(t.work, 'src/orders.py', 'def total(orders):\n    return sum(o["amount"] for o in orders if o)\n');
    commitAll(t.work, 'skip empty orders', FIXED);
    gitValue(t.work, ['checkout', '-q', '-B', 'feature/cheat', 'main']);
    write(t.work, 'fixtures/orders/base.json', '{"orders": [{"amount": 3}]}\n');
    commitAll(t.work, 'adjust fixture', FIXED);
    gitValue(t.work, ['checkout', '-q', 'main']);
  }
});
test.after(() => {
  for (const r of [installed, bare, ...copies]) cleanup(r?.root);
});

function copyOf(template: Remote, label: string): Remote {
  const r = guardedRemote(template, label);
  copies.push(r);
  return r;
}

function install(r: Remote, env: Record<string, string> = {}, ...args: string[]): string {
  const res = spawnSync('bash', [INSTALL, ...args, r.bare], { encoding: 'utf8', env: baseEnv({ RECEIPT_GATE_BUNDLE_SOURCE: CLI, ...env }) });
  assert.is(res.status, 0, res.stdout + res.stderr);
  return res.stdout + res.stderr;
}

/** A node for the hook that logs each start's arguments, then is node (or SCRIPT first). */
function loggingNode(r: Remote, script = ''): { path: string; starts(): string[] } {
  const path = join(r.root, 'logging-node');
  const log = join(r.root, 'node-starts.log');
  writeFileSync(path, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${log}'\n${script}\nexec node "$@"\n`, { mode: 0o755 });
  return { path, starts: () => (existsSync(log) ? readFileSync(log, 'utf8').trim().split('\n') : []) };
}

const hooks = (r: Remote) => join(r.bare, 'hooks');
const blobOf = (r: Remote) => join(hooks(r), 'receipt-gate.blob');
const idOf = (r: Remote) => join(hooks(r), 'receipt-gate.blob.id');

/** The pushes every comparison makes, in order: accepted and rejected, several identities. */
const PUSHES: { refspec: string; env: Record<string, string>; accepted: boolean }[] = [
  { refspec: 'feature/cheat', env: { REMOTE_USER: 'bob' }, accepted: false },
  { refspec: 'feature/cheat', env: { GL_USERNAME: 'bob', GL_PROTOCOL: 'ssh' }, accepted: false },
  { refspec: 'feature/honest', env: { REMOTE_USER: 'bob' }, accepted: true },
  { refspec: 'feature/cheat:refs/heads/feature/owner', env: { REMOTE_USER: 'alice', RECEIPT_GATE_NOW: '2026-09-12' }, accepted: true },
  { refspec: 'feature/cheat:refs/heads/feature/nobody', env: {}, accepted: false },
];

function pushAll(r: Remote, env: Record<string, string>): PushResult[] {
  return PUSHES.map((p) => {
    const result = push(r.work, ['origin', p.refspec], { ...p.env, ...env });
    assert.is(result.status === 0, p.accepted, `${p.refspec} ${JSON.stringify(p.env)}:\n${result.stderr}`);
    machine(result);
    return result;
  });
}

test('the shim and the reference-transaction hook start node with the same flags (the snapshot loads only under them)', () => {
  const flagsOf = (file: string) => /^node_flags='(.*)'$/m.exec(readFileSync(join(__dirname, '..', '..', 'server-hooks', file), 'utf8'))?.[1];
  assert.is(flagsOf('pre-receive'), FLAGS.join(' '));
  assert.is(flagsOf('reference-transaction'), FLAGS.join(' '));
});

test('install.sh builds receipt-gate.blob for this node and records what it is for', () => {
  const id = readFileSync(idOf(installed), 'utf8');
  const nodeVersion = execFileSync('node', ['-p', 'process.version'], { encoding: 'utf8' }).trim();
  assert.ok(id.includes(`bundle sha256 ${sha256(readFileSync(CLI))}\n`), id);
  assert.ok(id.includes(`node ${nodeVersion} `), id);
  assert.ok(id.includes(`node flags ${FLAGS.join(' ')}\n`), id);
  const res = spawnSync('node', [...FLAGS, '--snapshot-blob', blobOf(installed), join(hooks(installed), 'receipt-gate.cjs'), 'version'], { encoding: 'utf8' });
  assert.is(res.status, 0, res.stderr);
  assert.is(res.stdout, execFileSync('node', [CLI, 'version'], { encoding: 'utf8' }));
});

test('pushes are judged from the snapshot, with the same answers, byte for byte, as the plain bundle', () => {
  const fromSnapshot = copyOf(installed, 'snap');
  const plain = copyOf(installed, 'plain');
  const node = loggingNode(fromSnapshot);
  const plainNode = loggingNode(plain);
  const a = pushAll(fromSnapshot, { RECEIPT_GATE_NODE: node.path });
  const b = pushAll(plain, { RECEIPT_GATE_NODE: plainNode.path, RECEIPT_GATE_NO_SNAPSHOT: '1' });
  // One node start per push, from the snapshot; none from the snapshot with it turned off.
  assert.is(node.starts().length, PUSHES.length);
  for (const start of node.starts()) assert.match(start, new RegExp(`^${FLAGS_RE} --snapshot-blob \\S+/receipt-gate\\.blob \\S+/receipt-gate\\.cjs pre-receive$`));
  for (const start of plainNode.starts()) assert.match(start, new RegExp(`^${FLAGS_RE} \\S+/receipt-gate\\.cjs pre-receive$`));
  for (let i = 0; i < PUSHES.length; i++) {
    assert.equal(a[i]!.remote, b[i]!.remote, PUSHES[i]!.refspec);
    assert.is(a[i]!.status, b[i]!.status);
  }
  assert.match(a[0]!.remote.join('\n'), /PATH_PROTECTED feature\/cheat/);
  assert.ok(a[1]!.remote.every((l) => l.startsWith('GL-HOOK-ERR: ')), a[1]!.remote.join('\n'));
  assert.match(a[2]!.remote.join('\n'), /push accepted: eligible .*pusher bob/);
  assert.match(a[4]!.remote.join('\n'), /pusher nobody/);
  assert.is(refOid(fromSnapshot.bare, 'refs/heads/feature/cheat'), null);
  assert.is(refOid(fromSnapshot.bare, 'refs/heads/feature/honest'), gitValue(fromSnapshot.work, ['rev-parse', 'feature/honest']));
});

test('nothing of the build is frozen into the snapshot: identity, date, GitLab, GIT_DIR and cwd are the run\'s', () => {
  // Built by hand in a hostile environment (install.sh builds in an empty one): an owner's
  // identity, another date, GitLab, a GIT_DIR and a quarantine, another directory.
  const root = tempDir('snap-build');
  copies.push({ root, bare: root, work: root });
  const blob = join(root, 'hostile.blob');
  const hostile = {
    REMOTE_USER: 'alice',
    GITHUB_USER_LOGIN: 'alice',
    GL_USERNAME: 'alice',
    RECEIPT_GATE_NOW: '2001-01-01',
    GL_PROTOCOL: 'ssh',
    GIT_DIR: root,
    GIT_QUARANTINE_PATH: root,
    TZ: 'Pacific/Kiritimati',
  };
  execFileSync('node', [...FLAGS, '--snapshot-blob', blob, '--build-snapshot', CLI], { cwd: root, env: { ...baseEnv(), ...hostile }, stdio: 'pipe' });

  const r = copyOf(bare, 'snap-direct');
  gitValue(r.bare, ['fetch', '-q', r.work, 'feature/cheat:refs/tmp/cheat']);
  const main = gitValue(r.bare, ['rev-parse', 'main']);
  const cheat = gitValue(r.bare, ['rev-parse', 'refs/tmp/cheat']);
  const update = `${main} ${cheat} refs/heads/main\n`;
  const clean: NodeJS.ProcessEnv = { ...baseEnv(), GIT_DIR: '.' };
  delete clean.RECEIPT_GATE_NOW;
  const runs: { args: string[]; env: NodeJS.ProcessEnv; cwd?: string; stdin?: string }[] = [
    { args: ['pre-receive'], env: { ...clean, REMOTE_USER: 'bob' } },
    { args: ['pre-receive'], env: { ...clean, REMOTE_USER: 'bob', RECEIPT_GATE_NOW: '2026-09-12' } },
    { args: ['pre-receive'], env: { ...clean, REMOTE_USER: 'alice', RECEIPT_GATE_NOW: '2026-09-12' } },
    { args: ['pre-receive'], env: { ...clean, GL_USERNAME: 'bob', GL_PROTOCOL: 'ssh', RECEIPT_GATE_NOW: '2026-09-12' } },
    { args: ['pre-receive'], env: { ...clean, RECEIPT_GATE_NOW: '2026-09-12' } },
    { args: ['pre-receive'], env: { ...clean, GIT_DIR: r.bare, GITEA_PUSHER_NAME: 'alice', RECEIPT_GATE_NOW: '2026-09-12' }, cwd: '/' },
    { args: ['pre-receive'], env: { ...clean, RECEIPT_GATE_NOW: 'tomorrow' } },
    { args: ['pre-receive'], env: { ...clean, REMOTE_USER: 'alice', RECEIPT_GATE_NOW: '2026-09-25' } },
    { args: ['pre-receive', '--now', '2026-09-12'], env: { ...clean, REMOTE_USER: 'bob' } },
    { args: ['pre-receive', '--help'], env: clean },
    { args: ['version'], env: clean },
    { args: ['help'], env: clean },
    { args: ['verfy-ref'], env: clean },
    { args: [], env: clean },
  ];
  const answers: string[] = [];
  for (const run of runs) {
    const opts = { cwd: run.cwd ?? r.bare, env: run.env, input: run.stdin ?? update, encoding: 'utf8' as const };
    const plain = spawnSync('node', [...FLAGS, CLI, ...run.args], opts);
    const snap = spawnSync('node', [...FLAGS, '--snapshot-blob', blob, CLI, ...run.args], opts);
    const label = `${run.args.join(' ')} ${JSON.stringify({ ...run.env, PATH: undefined, HOME: undefined })}`;
    assert.is(snap.status, plain.status, label);
    assert.is(snap.stdout, plain.stdout, label);
    assert.is(snap.stderr, plain.stderr, label);
    answers.push(`${plain.status} ${plain.stderr}`);
  }
  // The runs differ as their environments do (an identity, a date, GitLab read at run time).
  assert.match(answers[1]!, /^1 [\s\S]*pusher bob/);
  assert.match(answers[2]!, /^0 [\s\S]*pusher alice/);
  assert.match(answers[3]!, /^1 GL-HOOK-ERR: /);
  assert.match(answers[4]!, /^1 [\s\S]*pusher nobody/);
  assert.match(answers[5]!, /^0 [\s\S]*pusher alice/);
  assert.match(answers[6]!, /^1 [\s\S]*RECEIPT_GATE_NOW must be a UTC date/);
  assert.match(answers[7]!, /^1 [\s\S]*FREEZE_EXPIRED/);
});

test('a snapshot this node refuses: the plain bundle answers instead, with the same verdicts', () => {
  const reference = pushAll(copyOf(installed, 'snap-ref'), { RECEIPT_GATE_NO_SNAPSHOT: '1' });
  const cases: { label: string; damage(r: Remote): Record<string, string> }[] = [
    {
      label: 'garbage',
      damage: (r) => {
        writeFileSync(blobOf(r), Buffer.alloc(1 << 20, 0x5a));
        return {};
      },
    },
    {
      label: 'truncated',
      damage: (r) => {
        writeFileSync(blobOf(r), readFileSync(blobOf(r)).subarray(0, 1 << 20));
        return {};
      },
    },
    {
      label: 'empty',
      damage: (r) => {
        writeFileSync(blobOf(r), '');
        return {};
      },
    },
    // Node.js upgraded since the install: another V8 configuration than the blob was built for.
    { label: 'another node', damage: (r) => ({ RECEIPT_GATE_NODE: loggingNode(r, 'set -- --max-old-space-size=300 "$@"').path }) },
    // A snapshot run that says nothing and exits 0, or stops inside the machine line: no answer.
    { label: 'silent success', damage: (r) => ({ RECEIPT_GATE_NODE: loggingNode(r, 'case "$*" in *--snapshot-blob*) exit 0 ;; esac').path }) },
    {
      label: 'half an answer',
      damage: (r) => ({
        RECEIPT_GATE_NODE: loggingNode(r, `case "$*" in *--snapshot-blob*) printf 'receipt-gate: {"verdict":"eligible"\\n' >&2; exit 0 ;; esac`).path,
      }),
    },
  ];
  for (const c of cases) {
    const r = copyOf(installed, 'snap-refused');
    const env = c.damage(r);
    const results = pushAll(r, env);
    for (let i = 0; i < PUSHES.length; i++) {
      const [notice, ...rest] = results[i]!.remote;
      assert.match(notice!, NOTICE, `${c.label}:\n${results[i]!.stderr}`);
      assert.equal(rest, reference[i]!.remote, c.label);
    }
    assert.is(refOid(r.bare, 'refs/heads/feature/cheat'), null, c.label);
    assert.is(refOid(r.bare, 'refs/heads/feature/nobody'), null, c.label);
  }
});

test('a bundle copied over the installed one is not judged by the old snapshot', () => {
  const r = copyOf(installed, 'snap-stale');
  // A "new version" of the bundle: it answers differently (a notice line first).
  const bundle = join(hooks(r), 'receipt-gate.cjs');
  writeFileSync(bundle, `${readFileSync(CLI, 'utf8')}\nprocess.stderr.write('receipt-gate: the new bundle ran\\n');\n`);
  const result = push(r.work, ['origin', 'feature/honest'], { REMOTE_USER: 'bob' });
  assert.is(result.status, 0, result.stderr);
  assert.match(result.remote[0]!, NOTICE);
  assert.is(NOTICE.exec(result.remote[0]!)![1], String(SHIM_EXIT.snapshotRefused));
  assert.ok(result.remote.includes('receipt-gate: the new bundle ran'), result.stderr);
  const cheat = push(r.work, ['origin', 'feature/cheat'], { REMOTE_USER: 'bob' });
  assert.is.not(cheat.status, 0);
  assert.is(machine(cheat).verdict, 'closed');
});

test('installing twice changes nothing; a changed record or a damaged blob rebuilds; --uninstall removes the snapshot', () => {
  const r = copyOf(bare, 'snap-install');
  const first = install(r, {}, '--server');
  assert.match(first, /installed .*pre-receive \(\+ receipt-gate\.cjs, receipt-gate\.blob\)/);
  const files = () => Object.fromEntries(readdirSync(hooks(r)).sort().map((f) => [f, readFileSync(join(hooks(r), f), 'latin1')]));
  const once = files();
  assert.ok(once['receipt-gate.blob'] && once['receipt-gate.blob.id'], Object.keys(once).join(' '));
  const again = install(r, {}, '--server');
  assert.match(again, /up to date/);
  assert.not.match(again, /snapshot/);
  assert.equal(files(), once);

  // The record says another node built it: rebuilt (and used) at the next install.
  writeFileSync(idOf(r), once['receipt-gate.blob.id']!.replace(/^node v\S+/m, 'node v0.0.1'));
  assert.match(install(r, {}, '--server'), /installed .*receipt-gate\.blob/);
  assert.is(readFileSync(idOf(r), 'latin1'), once['receipt-gate.blob.id']);
  // A damaged blob with the right record: the install runs it, sees it fail, and rebuilds it.
  writeFileSync(blobOf(r), readFileSync(blobOf(r)).subarray(0, 4096));
  assert.match(install(r, {}, '--server'), /installed .*receipt-gate\.blob/);
  assert.match(install(r, {}, '--server'), /up to date/);
  const node = loggingNode(r);
  const ok = push(r.work, ['origin', 'feature/honest'], { REMOTE_USER: 'bob', RECEIPT_GATE_NODE: node.path });
  assert.is(ok.status, 0, ok.stderr);
  assert.not.match(ok.stderr, /startup snapshot/);
  assert.match(node.starts().join('\n'), new RegExp(`^${FLAGS_RE} --snapshot-blob `));

  assert.match(install(r, {}, '--uninstall'), /removed/);
  assert.equal(readdirSync(hooks(r)).filter((f) => f.startsWith('receipt-gate') || f === 'pre-receive'), []);
});

test('RECEIPT_GATE_NO_SNAPSHOT=1 at install, or RECEIPT_GATE_BUNDLE at run time: the plain bundle runs', () => {
  const r = copyOf(installed, 'snap-off');
  const off = install(r, { RECEIPT_GATE_NO_SNAPSHOT: '1' }, '--server');
  assert.match(off, /removed the startup snapshot \(RECEIPT_GATE_NO_SNAPSHOT is set\)/);
  assert.not.ok(existsSync(blobOf(r)));
  assert.not.ok(existsSync(idOf(r)));
  assert.match(install(r, { RECEIPT_GATE_NO_SNAPSHOT: '1' }, '--server'), /up to date/);
  const node = loggingNode(r);
  const cheat = push(r.work, ['origin', 'feature/cheat'], { REMOTE_USER: 'bob', RECEIPT_GATE_NODE: node.path });
  assert.is(machine(cheat).verdict, 'closed');
  assert.match(install(r, {}, '--server'), /installed .*receipt-gate\.blob/);
  const other = join(r.root, 'other.cjs');
  copyFileSync(CLI, other);
  const ok = push(r.work, ['origin', 'feature/honest'], { REMOTE_USER: 'bob', RECEIPT_GATE_NODE: node.path, RECEIPT_GATE_BUNDLE: other });
  assert.is(ok.status, 0, ok.stderr);
  assert.is(node.starts().length, 2);
  assert.match(node.starts()[0]!, new RegExp(`^${FLAGS_RE} \\S*receipt-gate\\.cjs pre-receive$`));
  assert.is(node.starts()[1], `${FLAGS.join(' ')} ${other} pre-receive`);
});

test('a node that cannot build or run the snapshot: installed without it, in one line, and pushes are judged', () => {
  const r = copyOf(installed, 'snap-fail');
  assert.ok(existsSync(blobOf(r)));
  const cases = [
    { script: 'case "$*" in *--build-snapshot*) echo "snapshots are not supported here" >&2; exit 1 ;; esac', why: /node --build-snapshot failed: snapshots are not supported here/ },
    {
      script: 'case "$*" in *--build-snapshot*) for a; do [ "$prev" = --snapshot-blob ] && echo garbage > "$a"; prev=$a; done; exit 0 ;; esac',
      why: /the snapshot it built does not run/,
    },
  ];
  for (const c of cases) {
    const node = loggingNode(r, c.script);
    const out = install(r, { RECEIPT_GATE_NODE: node.path }, '--server');
    const lines = out.split('\n').filter((l) => /snapshot/.test(l));
    assert.is(lines.length, 1, out);
    assert.match(lines[0]!, /installed without the startup snapshot \(/);
    assert.match(lines[0]!, c.why);
    assert.not.ok(existsSync(blobOf(r)), 'the old snapshot is removed');
    assert.not.ok(existsSync(idOf(r)));
  }
  const cheat = push(r.work, ['origin', 'feature/cheat'], { REMOTE_USER: 'bob' });
  assert.is(machine(cheat).verdict, 'closed');
  assert.not.match(cheat.stderr, /startup snapshot/);
  const ok = push(r.work, ['origin', 'feature/honest'], { REMOTE_USER: 'bob' });
  assert.is(ok.status, 0, ok.stderr);
});

test('built blobs are cached beside the bundle, checked before reuse, and only the current bundle\'s are kept', () => {
  const dir = tempDir('snap-cache');
  copies.push({ root: dir, bare: dir, work: dir });
  const bundle = join(dir, 'cli.js');
  copyFileSync(CLI, bundle);
  const cache = join(dir, 'snapshot-cache');
  const env = { RECEIPT_GATE_BUNDLE_SOURCE: bundle };
  const stale = join(cache, 'ffffffffffffffff-00000000000000000000000000000000.blob');

  const a = copyOf(bare, 'snap-cache-a');
  install(a, env, '--server');
  const cached = readdirSync(cache);
  assert.is(cached.length, 1, cached.join(' '));
  assert.ok(cached[0]!.startsWith(`${sha256(readFileSync(CLI)).slice(0, 16)}-`), cached[0]);
  assert.ok(readFileSync(join(cache, cached[0]!)).equals(readFileSync(blobOf(a))));

  // Reused for another repository; a damaged cache file is noticed, rebuilt and replaced.
  const b = copyOf(bare, 'snap-cache-b');
  install(b, env, '--server');
  assert.ok(readFileSync(blobOf(b)).equals(readFileSync(blobOf(a))));
  writeFileSync(join(cache, cached[0]!), 'garbage');
  writeFileSync(stale, 'a blob of another bundle');
  const c = copyOf(bare, 'snap-cache-c');
  install(c, env, '--server');
  assert.equal(readdirSync(cache), cached);
  assert.ok(readFileSync(join(cache, cached[0]!)).equals(readFileSync(blobOf(c))));
  const node = loggingNode(c);
  const ok = push(c.work, ['origin', 'feature/honest'], { REMOTE_USER: 'bob', RECEIPT_GATE_NODE: node.path });
  assert.is(ok.status, 0, ok.stderr);
  assert.not.match(ok.stderr, /startup snapshot/);
  assert.is(node.starts().length, 1);
  assert.match(node.starts()[0]!, /--snapshot-blob/);
  rmSync(cache, { recursive: true, force: true });
});

test.run();
