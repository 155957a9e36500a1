// The command line a newcomer meets: every command's --help lists every flag it takes (and
// only flags it takes), a misspelt flag or command gets "did you mean", missing values are
// sentences (never `null`, never a row of dashes for a missing commit), and mistakes are
// usage errors (exit 2).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { COMMANDS } from '../../src/cli';
import { guardedRepo, runCli } from '../helpers/repo';
import { tempDir } from '../helpers/git';

const FLAG = /(?:^|[\s[|(])--([a-z][a-z0-9-]*)/g;

test('every command: --help exits 0 and lists every flag of its usage; each listed flag is accepted', () => {
  const dir = tempDir();
  try {
    for (const command of Object.keys(COMMANDS)) {
      const help = runCli([command, '--help'], { cwd: dir });
      assert.is(help.status, 0, `${command}: ${help.stderr}`);
      // pre-receive, git's server hook, answers --help itself: its usage is its flag list.
      const [usage, options = command === 'pre-receive' ? help.stdout : undefined] = help.stdout.split('\noptions:\n');
      assert.ok(options, `${command} --help has an options list:\n${help.stdout}`);
      const listed = new Set([...options!.matchAll(FLAG)].map((m) => m[1]!));
      for (const m of usage!.matchAll(FLAG)) assert.ok(listed.has(m[1]!), `${command}: --${m[1]} is in the usage but not listed`);
      if (command !== 'pre-receive') assert.ok(listed.has('help'));
      for (const flag of listed) {
        // A listed flag is one the parser knows: never "unknown option".
        const r = runCli([command, `--${flag}`, '--help'], { cwd: dir });
        assert.not.match(r.stderr, /unknown option/, `${command} --${flag}: ${r.stderr}`);
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a misspelt flag or command gets "did you mean"; an unknown one does not guess wildly', () => {
  const repo = guardedRepo();
  try {
    const flag = runCli(['verify-ref', '--bsae', 'main'], { cwd: repo });
    assert.is(flag.status, 2);
    assert.match(flag.stderr, /unknown option '--bsae'; did you mean --base\?/);
    const transposed = runCli(['verify-ref', '--idnetity', 'bob'], { cwd: repo });
    assert.match(transposed.stderr, /did you mean --identity\?/);
    const far = runCli(['verify-ref', '--frobnicate'], { cwd: repo });
    assert.is(far.status, 2);
    assert.not.match(far.stderr, /did you mean/);
    const command = runCli(['verfy-ref'], { cwd: repo });
    assert.is(command.status, 2);
    assert.match(command.stderr, /did you mean 'verify-ref'\?/);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('missing arguments and values are sentences: exit 2, no null, no dashes for a commit', () => {
  const repo = guardedRepo();
  try {
    const runs = [
      ['verify-ref', '--base'],
      ['verify-ref', '--identity'],
      ['verify-ref', 'a', 'b'],
      ['check'],
      ['explain'],
      ['freeze'],
      ['freeze', 'add'],
      ['freeze', 'add', '--observation', 'x'],
      ['freeze', 'add', '--id', 'x', '--reason', 'timing'],
      ['verify-receipt'],
      ['keygen', '--out'],
      ['keygen', 'extra'],
    ];
    for (const args of runs) {
      const r = runCli(args, { cwd: repo });
      assert.is(r.status, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
      assert.match(r.stderr, /^receipt-gate [a-z-]+: \S/, args.join(' '));
      assert.not.match(r.stdout + r.stderr, /\bnull\b|\bundefined\b|-------/, `${args.join(' ')}: ${r.stderr}`);
    }
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
});

test('keygen --out into a folder that does not exist creates it; a folder that cannot be made is exit 2 with a sentence', () => {
  const dir = tempDir();
  try {
    const r = runCli(['keygen', '--out', 'no/such/folder/ci'], { cwd: dir });
    assert.is(r.status, 0, r.stderr);
    assert.ok(existsSync(join(dir, 'no', 'such', 'folder', 'ci.key')));
    writeFileSync(join(dir, 'file'), 'x');
    const bad = runCli(['keygen', '--out', 'file/ci'], { cwd: dir });
    assert.is(bad.status, 2, bad.stderr);
    assert.match(bad.stderr, /the folder .*file cannot be created/);
    assert.not.match(bad.stderr, /INTERNAL_ERROR/);
    const ok = runCli(['keygen', '--out', 'ci'], { cwd: dir });
    assert.is(ok.status, 0, ok.stderr);
    assert.ok(existsSync(join(dir, 'ci.key')) && existsSync(join(dir, 'ci.pub')));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test.run();
