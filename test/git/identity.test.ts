// The notes commit's identity, resolved as git resolves a commit's: differential against
// `git var GIT_AUTHOR_IDENT` / `GIT_COMMITTER_IDENT` (git itself) with HOME pointing at a
// temporary folder holding only the config under test; then `receipt --note` end to end with
// the identity only in the user's global config, and a note that cannot be stored leaving the
// verdict's exit code with a warning.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { main } from '../../src/cli';
import { bufferedIO } from '../../src/io';
import { gitIdentity } from '../../src/git/notes';
import { parseConfigText } from '../../src/git/config';
import { exampleRepo, GRADER } from '../receipt/helpers';
import { cleanupTempDirs, git, initRepo, tempDir } from '../helpers/git';

test.after(cleanupTempDirs);

/** The process environment without git's identity and config variables, HOME at `home`. */
function bareEnv(home: string, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^(GIT_|EMAIL$|XDG_CONFIG_HOME$|RECEIPT_GATE_|PROPERTY_)/.test(k)) env[k] = v;
  return { ...env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', LANG: 'C', ...extra };
}

/** What git itself says: `git var GIT_<WHO>_IDENT` → [name, email]. */
function gitSays(repo: string, env: NodeJS.ProcessEnv, who: 'AUTHOR' | 'COMMITTER'): [string, string] {
  const r = spawnSync('git', ['var', `GIT_${who}_IDENT`], { cwd: repo, env, encoding: 'utf8' });
  assert.is(r.status, 0, r.stderr);
  const m = /^(.*) <(.*)> \d+ [+-]\d{4}$/.exec(r.stdout.trim());
  assert.ok(m, r.stdout);
  return [m![1]!, m![2]!];
}

function ours(repo: string, env: NodeJS.ProcessEnv, who: 'AUTHOR' | 'COMMITTER'): [string, string] {
  const id = gitIdentity(join(repo, '.git'), env, who);
  assert.type(id, 'object', `resolved: ${typeof id === 'string' ? id : 'an identity'}`);
  return [(id as { name: string }).name, (id as { email: string }).email];
}

test('the identity git gives a commit, wherever it is configured (differential against git var)', () => {
  const repo = initRepo();
  const scenarios: { name: string; files: Record<string, string>; local?: string; env?: NodeJS.ProcessEnv }[] = [
    { name: 'only ~/.gitconfig', files: { '.gitconfig': '[user]\n\tname = Global Person\n\temail = global@example.com\n' } },
    { name: 'only XDG (~/.config/git/config)', files: { '.config/git/config': '[user]\n  name = "Xdg Person" ; a comment\n  email = xdg@example.com # another\n' } },
    { name: '~/.gitconfig over XDG', files: { '.config/git/config': '[user]\nname = Xdg\nemail = xdg@example.com\n', '.gitconfig': '[User]\nName = Home\n' } },
    { name: 'the repository over global', files: { '.gitconfig': '[user]\nname = Global\nemail = g@example.com\n' }, local: '[user]\n\tname = Repo Person\n' },
    { name: 'author.* and committer.* over user.*', files: { '.gitconfig': '[user]\nname = User\nemail = u@example.com\n[author]\nname = Author Only\n[committer]\nemail = c@example.com\n' } },
    { name: 'GIT_* variables over every file', files: { '.gitconfig': '[user]\nname = File\nemail = f@example.com\n' }, env: { GIT_AUTHOR_NAME: 'Env Author', GIT_COMMITTER_EMAIL: 'env-c@example.com' } },
    { name: 'EMAIL when no file gives one', files: { '.gitconfig': '[user]\nname = Named\n' }, env: { EMAIL: 'from-email-var@example.com' } },
    { name: 'include.path, relative to the including file', files: { '.gitconfig': '[include]\n\tpath = .gitconfig-identity\n', '.gitconfig-identity': '[user]\n\tname = Included\n\temail = inc@example.com\n' } },
    { name: 'GIT_CONFIG_GLOBAL names the file', files: { 'elsewhere.cfg': '[user]\nname = Elsewhere\nemail = e@example.com\n', '.gitconfig': '[user]\nname = Ignored\nemail = i@example.com\n' }, env: { GIT_CONFIG_GLOBAL: '@HOME@/elsewhere.cfg' } },
    { name: 'GIT_CONFIG_COUNT entries last', files: { '.gitconfig': '[user]\nname = File\nemail = f@example.com\n' }, env: { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'user.name', GIT_CONFIG_VALUE_0: 'From Count' } },
    { name: 'quoted values, escapes and a continued line', files: { '.gitconfig': '[user]\n\tname = "  Quoted \\"Q\\" Person"\n\temail = q@exam\\\nple.com\n' } },
  ];
  for (const s of scenarios) {
    const home = tempDir('home');
    for (const [path, text] of Object.entries(s.files)) {
      mkdirSync(join(home, path, '..'), { recursive: true });
      writeFileSync(join(home, path), text);
    }
    writeFileSync(join(repo, '.git', 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = false\n${s.local ?? ''}`);
    const extra = Object.fromEntries(Object.entries(s.env ?? {}).map(([k, v]) => [k, v!.replace('@HOME@', home)]));
    const env = bareEnv(home, extra);
    for (const who of ['AUTHOR', 'COMMITTER'] as const) assert.equal(ours(repo, env, who), gitSays(repo, env, who), `${s.name} (${who})`);
  }
});

test('no identity anywhere: what is missing, not a guess', () => {
  const repo = initRepo();
  const home = tempDir('home');
  assert.is(gitIdentity(join(repo, '.git'), bareEnv(home), 'AUTHOR'), 'user.name');
  writeFileSync(join(home, '.gitconfig'), '[user]\nname = Only A Name\n');
  assert.is(gitIdentity(join(repo, '.git'), bareEnv(home), 'COMMITTER'), 'user.email');
});

test('parseConfigText: sections, subsections, bare keys, comments', () => {
  assert.equal(parseConfigText('# top\n[Remote "Origin"]\n\turl = x ; c\n[core] bare\n[a.B]\nK=v\n'), [
    { key: 'remote.Origin.url', value: 'x' },
    { key: 'core.bare', value: 'true' },
    { key: 'a.b.k', value: 'v' },
  ]);
});

async function runReceipt(repo: string, env: NodeJS.ProcessEnv, out: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const buffered = bufferedIO({ env, cwd: repo, stdin: '' });
  const code = await main(['receipt', '--ref', 'main', '--base', 'main', ...GRADER, '--out', out, '--note', '--now', '2026-11-29'], buffered.io);
  return { code, stdout: buffered.stdout(), stderr: buffered.stderr() };
}

test('receipt --note with the identity only in ~/.gitconfig: the note is stored by that identity; its text log prints the identities', async () => {
  const { repo } = exampleRepo();
  const home = tempDir('home');
  writeFileSync(join(home, '.gitconfig'), '[user]\n\tname = CI Runner\n\temail = ci@example.com\n');
  const env = bareEnv(home, { NODE_PATH: join(__dirname, '..', '..', 'node_modules') });
  const out = join(tempDir('out'), 'receipt.json');
  const r = await runReceipt(repo, env, out);
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /receipt stored as a git note on \w+ \(refs\/notes\/receipt-gate\)/);
  assert.is(git(repo, ['notes', '--ref', 'receipt-gate', 'show', 'main']).trim(), readFileSync(out, 'utf8').trim());
  assert.is(git(repo, ['log', '-1', '--format=%an <%ae> / %cn <%ce>', 'refs/notes/receipt-gate']).trim(), 'CI Runner <ci@example.com> / CI Runner <ci@example.com>');
  // The three identities in the log, as the receipt records them.
  const rc = JSON.parse(readFileSync(out, 'utf8')) as { epoch_id: string; manifest_sha256: string; witnesses: Record<string, string> };
  assert.match(r.stdout, `\n  identities: epoch ${rc.epoch_id}, manifest sha256 ${rc.manifest_sha256}, ${Object.keys(rc.witnesses).length} witness`);
});

test('receipt --note with no identity anywhere: the receipt is written, a warning, and the verdict\'s exit code (not 1)', async () => {
  const { repo } = exampleRepo();
  const home = tempDir('home');
  const env = bareEnv(home, { NODE_PATH: join(__dirname, '..', '..', 'node_modules') });
  const out = join(tempDir('out'), 'receipt.json');
  const r = await runReceipt(repo, env, out);
  const rc = JSON.parse(readFileSync(out, 'utf8')) as { verdict: string };
  assert.is(rc.verdict, 'eligible');
  assert.is(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stderr, /receipt-gate receipt: warning: the receipt is in .*receipt\.json, but it could not be stored as a git note: .*no identity for the notes commit \(its author has no user\.name\)/);
  assert.is(spawnSync('git', ['rev-parse', '-q', '--verify', 'refs/notes/receipt-gate'], { cwd: repo }).status, 1, 'no note');
});

test.run();
