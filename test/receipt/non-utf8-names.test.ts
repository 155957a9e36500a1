// Names are bytes: a commit that adds a file under src/ whose name is not valid UTF-8 is accepted
// by the server (a real push into a bare repository with the installed hook), and `receipt`
// writes that file under its exact bytes in the grader's tree: the property command lists the
// folder as bytes (python's os.listdir(b'src')) and compares it with what `git ls-tree -z`
// says the commit holds, so a mangled or missing name fails the properties.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { cli, exampleRepo } from './helpers';
import { git, tempDir } from '../helpers/git';
import { baseEnv, ensureBuilt, installHook, push } from '../server/helpers';

const NAME = Buffer.concat([Buffer.from('src/caf'), Buffer.from([0xe9]), Buffer.from('.txt')]); // Latin-1 é
const CONTENT = 'written under its own bytes\n';

const { repo } = exampleRepo();
const blob = git(repo, ['hash-object', '-w', '--stdin'], { input: CONTENT }).trim();
git(repo, ['checkout', '-q', '-b', 'latin1', 'main']);
execFileSync('git', ['update-index', '--index-info'], { cwd: repo, input: Buffer.concat([Buffer.from(`100644 ${blob}\t`), NAME, Buffer.from('\n')]) });
git(repo, ['commit', '-q', '-m', 'a file whose name is Latin-1']);
git(repo, ['checkout', '-q', 'main']);

/** The names below src/ in the commit, as bytes, from git itself. */
function namesInGit(ref: string): Buffer[] {
  const out = execFileSync('git', ['ls-tree', '-z', '--name-only', `${ref}:src`], { cwd: repo });
  return out
    .toString('latin1')
    .split('\0')
    .filter((n) => n !== '')
    .map((n) => Buffer.from(n, 'latin1'));
}

test('the server accepts an agent push of a file whose name is not UTF-8', () => {
  ensureBuilt();
  const bare = join(tempDir('latin1-remote'), 'remote.git');
  execFileSync('git', ['init', '-q', '--bare', '-b', 'main', bare], { env: baseEnv() });
  git(repo, ['remote', 'add', 'origin', `file://${bare}`]);
  const now = { RECEIPT_GATE_NOW: '2026-11-29' };
  const first = push(repo, ['origin', 'main'], { REMOTE_USER: 'alice', ...now });
  assert.is(first.status, 0, first.stderr);
  installHook(bare);
  const agent = push(repo, ['origin', 'latin1'], { REMOTE_USER: 'bob', ...now });
  assert.is(agent.status, 0, agent.stderr);
  assert.ok(execFileSync('git', ['--git-dir', bare, 'ls-tree', '-z', '--name-only', 'latin1:src']).includes(NAME.subarray('src/'.length)));
});

test('receipt writes the file under its exact bytes: the property command finds it, the receipt is eligible', async () => {
  const names = namesInGit('latin1');
  assert.ok(names.some((n) => n.equals(NAME.subarray('src/'.length))), 'git lists the Latin-1 name');
  const want = Buffer.concat(names.flatMap((n) => [n, Buffer.from([0])])).toString('hex');
  // Exit 3 unless src/ holds exactly git's names, byte for byte, and the file its content.
  const check =
    `python3 -c "import os,sys; want=sorted(n for n in bytes.fromhex('${want}').split(bytes(1)) if n); ` +
    `got=sorted(os.listdir(b'src')); ` +
    `ok=got==want and open(bytes.fromhex('${NAME.toString('hex')}'),'rb').read()==${JSON.stringify(CONTENT).replace(/"/g, "'").replace(/^'/, "b'")}; ` +
    `sys.exit(0 if ok else 3)"`;
  const out = join(tempDir('latin1-receipt'), 'receipt.json');
  const r = await cli(repo, ['receipt', '--ref', 'latin1', '--base', 'main', '--properties-cmd', `${check} && node properties/allocate.properties.js`, '--fixture-cmd', 'node src/allocate-cli.js', '--out', out, '--now', '2026-11-29']);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /verdict: eligible/);
  assert.not.match(r.stdout + r.stderr, /PATH_UNSAFE|FAILED/);
});

test('the same check fails when the tree lacks the name (the check is not vacuous)', async () => {
  const want = Buffer.concat([...namesInGit('latin1'), Buffer.from('src/absent.txt')].flatMap((n) => [n, Buffer.from([0])])).toString('hex');
  const check = `python3 -c "import os,sys; want=sorted(n for n in bytes.fromhex('${want}').split(bytes(1)) if n); sys.exit(0 if sorted(os.listdir(b'src'))==want else 3)"`;
  const r = await cli(repo, ['receipt', '--ref', 'latin1', '--base', 'main', '--properties-cmd', check, '--fixture-cmd', 'node src/allocate-cli.js', '--out', join(tempDir('latin1-neg'), 'r.json'), '--now', '2026-11-29']);
  assert.is.not(r.code, 0, r.stdout);
  assert.match(r.stdout, /closed PROPERTIES_FAILED .*exited with status 3 /, r.stdout);
});

test.run();
