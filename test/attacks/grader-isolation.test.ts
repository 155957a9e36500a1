// The isolated grader (docs/receipts.md § Isolation), with the real bubblewrap and real git
// repositories. A patch whose code, once the property command loads it, tries to read the
// signing key, copy it into the tree or next to the receipt, overwrite the receipt, write a git
// note, a ref or an object into the repository, write into the home folder and reach a listener
// on 127.0.0.1: each attempt fails in the sandbox, and the receipt still comes out right (signed,
// verifiable, isolation "bwrap"). The same patch without a sandbox succeeds at every attempt,
// which shows the attempts are real; that receipt says isolation "none", and
// --require-isolation refuses to make it or to accept it.
//
// bwrap is required, never skipped: when it is missing, test/ci-services.sh installs it (Debian
// package bubblewrap; as root) or fails saying how.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { delimiter, join } from 'node:path';
import { cli, exampleRepo, ROOT } from '../receipt/helpers';
import { commitAll, git, gitResult, tempDir } from '../helpers/git';

const NOW = ['--now', '2026-11-29'];
const COMMANDS = ['--properties-cmd', 'node properties/allocate.properties.js', '--fixture-cmd', 'node src/allocate-cli.js'];
const ATTACKS = ['read-key', 'copy-key-to-tree', 'copy-key-next-to-receipt', 'overwrite-receipt', 'write-note', 'write-ref', 'write-ref-file', 'write-object', 'write-home', 'read-home', 'connect-loopback'];

function bwrapOnPath(): boolean {
  return (process.env.PATH ?? '').split(delimiter).some((d) => d !== '' && existsSync(join(d, 'bwrap')));
}
if (!bwrapOnPath()) execFileSync('bash', [join(ROOT, 'test/ci-services.sh')], { stdio: 'inherit' });
assert.ok(bwrapOnPath(), 'bwrap (Debian package bubblewrap) is required: run test/ci-services.sh as root');

/** A listener on 127.0.0.1 that counts the connections it gets. */
async function listener(): Promise<{ server: Server; port: number; connections: () => number }> {
  let count = 0;
  const server = createServer((socket) => {
    count++;
    socket.destroy();
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return { server, port: address.port, connections: () => count };
}

interface Scene {
  repo: string;
  keys: string;
  home: string;
  outDir: string;
  out: string;
  sha: string;
}

/** The worked example with a patch whose code, loaded by the property command, runs every
 * attack (src/attack.sh) once and reports each as "ATTACK name: succeeded|failed". */
function scene(port: number, policyExtra: Record<string, unknown> = {}): Scene {
  const { repo } = exampleRepo();
  if (Object.keys(policyExtra).length > 0) {
    const policy = JSON.parse(readFileSync(join(repo, '.receipt-gate.json'), 'utf8'));
    writeFileSync(join(repo, '.receipt-gate.json'), JSON.stringify({ ...policy, ...policyExtra }, null, 2));
    commitAll(repo, 'policy');
  }
  const keys = tempDir('iso-keys');
  const home = tempDir('iso-home');
  writeFileSync(join(home, 'secret.txt'), 'home secret\n');
  const outDir = tempDir('iso-out');
  const out = join(outDir, 'receipt.json');
  const key = join(keys, 'ci.key');
  const connect = `const s=require('net').connect(${port},'127.0.0.1');s.on('connect',()=>{s.end();process.exit(0)});s.on('error',()=>process.exit(1));setTimeout(()=>process.exit(1),3000)`;
  const script = [
    `KEY='${key}'; REPO='${repo}'; OUTDIR='${outDir}'`,
    'attempt() { name=$1; shift; if "$@" >/dev/null 2>&1; then echo "ATTACK $name: succeeded" >&2; else echo "ATTACK $name: failed" >&2; fi; }',
    'attempt read-key cat "$KEY"',
    'attempt copy-key-to-tree cp "$KEY" ./stolen.key',
    'attempt copy-key-next-to-receipt cp "$KEY" "$OUTDIR/stolen.key"',
    'attempt overwrite-receipt sh -c "echo forged > \'$OUTDIR/receipt.json\'"',
    'attempt write-note git -C "$REPO" notes --ref receipt-gate add -f -m evil HEAD',
    'attempt write-ref git -C "$REPO" update-ref refs/heads/evil HEAD',
    'attempt write-ref-file sh -c "echo 0123456789012345678901234567890123456789 > \'$REPO/.git/refs/heads/evil2\'"',
    'attempt write-object sh -c "echo x > \'$REPO/.git/objects/evil\'"',
    'attempt write-home sh -c "echo pwned > \'$HOME/pwned\'"',
    'attempt read-home cat "$HOME/secret.txt"',
    `attempt connect-loopback node -e "${connect}"`,
    // Whatever it could read goes to its output (which receipt relays).
    'cat "$KEY" >&2 2>/dev/null || true',
    '',
  ].join('\n');
  git(repo, ['checkout', '-q', '-b', 'attack', 'main']);
  writeFileSync(join(repo, 'src/attack.sh'), script);
  const allocate = join(repo, 'src/allocate.js');
  writeFileSync(
    allocate,
    readFileSync(allocate, 'utf8') +
      "\n// Runs once, when the property command loads this module.\nif (process.env.RECEIPT_GATE_COMMIT && !require('fs').existsSync(__dirname + '/../.attacked')) {\n  require('fs').writeFileSync(__dirname + '/../.attacked', '');\n  require('child_process').execFileSync('/bin/sh', [__dirname + '/attack.sh'], { stdio: ['ignore', 2, 2] });\n}\n",
  );
  const sha = commitAll(repo, 'a patch that attacks the grader');
  git(repo, ['checkout', '-q', 'main']);
  return { repo, keys, home, outDir, out, sha };
}

function attackLines(stderr: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of stderr.matchAll(/^ATTACK (\S+): (succeeded|failed)$/gm)) out[m[1]!] = m[2]!;
  return out;
}

function predicate(path: string): Record<string, any> {
  return JSON.parse(Buffer.from(JSON.parse(readFileSync(path, 'utf8')).payload, 'base64').toString('utf8')).predicate;
}

async function keygen(s: Scene): Promise<string> {
  const r = await cli(s.keys, ['keygen', '--out', 'ci']);
  assert.is(r.code, 0, r.stderr);
  return readFileSync(join(s.keys, 'ci.key'), 'utf8');
}

/** The key's PEM body (the base64 lines), which must appear in no output. */
function keyBody(pem: string): string {
  return pem.split('\n').filter((l) => l !== '' && !l.startsWith('-----')).join('');
}

test('in the sandbox every attack fails, and the receipt is signed, verifiable and says bwrap', async () => {
  const l = await listener();
  try {
    const s = scene(l.port);
    const pem = await keygen(s);
    const refs = () => git(s.repo, ['for-each-ref', '--format=%(refname) %(objectname)']).split('\n').filter((l) => !l.startsWith('refs/notes/receipt-gate ')).join('\n');
    const refsBefore = refs();
    const r = await cli(s.repo, ['receipt', '--ref', 'attack', '--base', 'main', ...COMMANDS, '--out', s.out, '--sign-key', join(s.keys, 'ci.key'), '--note', '--require-isolation', ...NOW], { HOME: s.home });
    assert.is(r.code, 0, r.stdout + r.stderr);
    const seen = attackLines(r.stderr);
    assert.equal(Object.keys(seen).sort(), [...ATTACKS].sort(), r.stderr);
    for (const name of ATTACKS) assert.is(seen[name], 'failed', `${name} must fail in the sandbox`);
    // The key never reaches the output, and nothing was taken or written.
    assert.not.ok((r.stdout + r.stderr).replace(/\s/g, '').includes(keyBody(pem)), 'the key is not in the output');
    assert.is(readFileSync(join(s.keys, 'ci.key'), 'utf8'), pem);
    assert.equal(readdirSync(s.outDir).sort(), ['receipt.json']);
    assert.equal(readdirSync(s.home).sort(), ['secret.txt']);
    assert.is(l.connections(), 0, 'no connection reached the listener');
    assert.is(refs(), refsBefore, 'no ref was written (the note ref is written by receipt after the run, below)');
    assert.not.ok(existsSync(join(s.repo, '.git/objects/evil')));
    assert.is(gitResult(s.repo, ['rev-parse', '--verify', '-q', 'refs/heads/evil']).status, 1);
    // The receipt: signed, eligible, isolation bwrap; the note is the receipt, not the attacker's.
    const rc = predicate(s.out);
    assert.is(rc.isolation, 'bwrap');
    assert.is(rc.verdict, 'eligible');
    assert.is(rc.git_sha, s.sha);
    assert.is(rc.properties_ok, true);
    assert.match(r.stdout, /^ {2}isolation: bwrap /m);
    assert.is(git(s.repo, ['notes', '--ref', 'receipt-gate', 'show', s.sha]).trim(), readFileSync(s.out, 'utf8').trim());
    const v = await cli(s.repo, ['verify-receipt', s.out, '--ref', 'attack', '--base', 'main', '--pub', join(s.keys, 'ci.pub'), '--require-isolation']);
    assert.is(v.code, 0, v.stdout + v.stderr);
    assert.match(v.stdout, /verdict eligible, isolation bwrap$/m);
  } finally {
    l.server.close();
  }
});

test('without a sandbox the same attacks succeed; the receipt says none, with a warning; --require-isolation refuses both ways', async () => {
  const l = await listener();
  try {
    const s = scene(l.port);
    const pem = await keygen(s);
    const noBwrap = { HOME: s.home, RECEIPT_GATE_BWRAP: join(s.keys, 'no-such-bwrap') };
    const refused = await cli(s.repo, ['receipt', '--ref', 'attack', '--base', 'main', ...COMMANDS, '--out', s.out, '--sign-key', join(s.keys, 'ci.key'), '--require-isolation', ...NOW], noBwrap);
    assert.is(refused.code, 2);
    assert.match(refused.stderr, /--require-isolation: the grader's commands cannot run isolated here \(RECEIPT_GATE_BWRAP=\S+ is not an executable file\); nothing was graded\. Install bubblewrap \(Debian and Ubuntu: apt-get install bubblewrap\) and run again/);
    assert.not.ok(existsSync(s.out));
    assert.not.match(refused.stderr, /ATTACK/);

    const r = await cli(s.repo, ['receipt', '--ref', 'attack', '--base', 'main', ...COMMANDS, '--out', s.out, '--sign-key', join(s.keys, 'ci.key'), ...NOW], noBwrap);
    assert.is(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stderr, /warning: the property and fixture commands run WITHOUT isolation/);
    const seen = attackLines(r.stderr);
    for (const name of ATTACKS) assert.is(seen[name], 'succeeded', `${name} succeeds without a sandbox`);
    assert.ok((r.stdout + r.stderr).replace(/\s/g, '').includes(keyBody(pem)), 'without a sandbox the key reaches the output');
    assert.ok(existsSync(join(s.home, 'pwned')));
    assert.ok(l.connections() > 0);
    const rc = predicate(s.out);
    assert.is(rc.isolation, 'none');
    assert.match(r.stdout, /^ {2}isolation: none$/m);
    const v = await cli(s.repo, ['verify-receipt', s.out, '--ref', 'attack', '--base', 'main', '--pub', join(s.keys, 'ci.pub'), '--require-isolation']);
    assert.is(v.code, 1);
    assert.match(v.stdout, /^FAILED isolation: the property and fixture commands ran without isolation \(isolation none\)/m);
    // Without the flag, verify-receipt judges the rest as before.
    const plain = await cli(s.repo, ['verify-receipt', s.out, '--ref', 'attack', '--base', 'main', '--pub', join(s.keys, 'ci.pub')]);
    assert.is(plain.code, 0, plain.stdout);
  } finally {
    l.server.close();
  }
});

test('grader.network: true at the base lets the commands reach the network; the rest stays out of reach', async () => {
  const l = await listener();
  try {
    const s = scene(l.port, { grader: { network: true } });
    await keygen(s);
    const r = await cli(s.repo, ['receipt', '--ref', 'attack', '--base', 'main', ...COMMANDS, '--out', s.out, '--sign-key', join(s.keys, 'ci.key'), '--require-isolation', ...NOW], { HOME: s.home });
    assert.is(r.code, 0, r.stdout + r.stderr);
    const seen = attackLines(r.stderr);
    assert.is(seen['connect-loopback'], 'succeeded');
    assert.ok(l.connections() > 0);
    for (const name of ATTACKS.filter((a) => a !== 'connect-loopback')) assert.is(seen[name], 'failed', name);
    assert.is(predicate(s.out).isolation, 'bwrap');
  } finally {
    l.server.close();
  }
});

test('a key inside a folder the sandbox mounts (NODE_PATH) is covered', async () => {
  const l = await listener();
  try {
    const s = scene(l.port);
    // The key sits in a folder given to the commands read-only: the sandbox covers the file.
    const shared = tempDir('iso-shared');
    mkdirSync(join(shared, 'lib'));
    const r0 = await cli(shared, ['keygen', '--out', 'lib/ci']);
    assert.is(r0.code, 0, r0.stderr);
    const probe = await cli(s.repo, ['receipt', '--ref', 'attack', '--base', 'main', '--properties-cmd', `cat '${join(shared, 'lib/ci.key')}' >&2; ls '${join(shared, 'lib')}' >&2; node properties/allocate.properties.js`, '--fixture-cmd', 'node src/allocate-cli.js', '--out', join(s.outDir, 'probe.json'), '--sign-key', join(shared, 'lib/ci.key'), '--require-isolation', ...NOW], {
      HOME: s.home,
      RECEIPT_GATE_SANDBOX_READONLY: shared,
    });
    assert.is(probe.code, 0, probe.stdout + probe.stderr);
    assert.match(probe.stderr, /ci\.pub/, 'the folder is mounted');
    const pem = readFileSync(join(shared, 'lib/ci.key'), 'utf8');
    assert.not.ok((probe.stdout + probe.stderr).replace(/\s/g, '').includes(keyBody(pem)), 'the key file reads as empty');
  } finally {
    l.server.close();
  }
});

test('a program that only exits 0 is not taken for bwrap: isolation none, and --require-isolation refuses', async () => {
  const s = scene(1);
  await keygen(s);
  const fake = join(s.keys, 'fake-bwrap');
  writeFileSync(fake, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  const refused = await cli(s.repo, ['receipt', '--ref', 'main', '--base', 'main', ...COMMANDS, '--out', s.out, '--require-isolation', ...NOW], { HOME: s.home, RECEIPT_GATE_BWRAP: fake });
  assert.is(refused.code, 2);
  assert.match(refused.stderr, /did not run a sandbox here \(exit 0, no sign of a sandbox\)\); nothing was graded\. Install bubblewrap/, refused.stderr);
});

test('a command that outlives its deadline is killed with everything it started in the sandbox', async () => {
  const s = scene(1);
  await keygen(s);
  const marker = `receipt-gate-sandbox-sleeper-${process.pid}-${Date.now()}`;
  const sleeper = `node -e 'setTimeout(() => {}, 300000)' ${marker}`;
  const started = Date.now();
  const r = await cli(s.repo, ['receipt', '--ref', 'main', '--base', 'main', '--properties-cmd', `(setsid ${sleeper} &) ; ${sleeper} & ${sleeper}`, '--fixture-cmd', 'node src/allocate-cli.js', '--out', s.out, '--timeout', '2', '--require-isolation', ...NOW], { HOME: s.home });
  assert.is(r.code, 1, r.stdout + r.stderr);
  assert.ok(Date.now() - started < 60_000, 'the receipt did not wait for the sleepers');
  assert.match(JSON.parse(readFileSync(s.out, 'utf8')).findings.map((f: { message: string }) => f.message).join('\n'), /did not finish within 2000 ms/);
  await new Promise((done) => setTimeout(done, 500));
  const left = readdirSync('/proc').filter((pid) => /^[0-9]+$/.test(pid)).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes(marker);
    } catch {
      return false;
    }
  });
  assert.equal(left, [], 'no process of the command is left');
});

test.run();
