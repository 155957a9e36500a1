// Attack (on the server's own messages): an object file the hook must read is corrupt,
// truncated or unreadable. The push is closed (fail closed), and what the pusher sees names
// the file only by its name inside the repository (`objects/pack/pack-<hash>.pack`,
// `objects`), never the server's absolute path of the repository or of the quarantine, and
// says that the repository's administrator repairs it.
//
// The policy blob main holds is put alone in a pack of its own: git's connectivity check before
// pre-receive never reads blobs, so git lets the push through to the hook, which must read the
// policy. (Permission-denied is the same code path as EISDIR, an errno code from node:fs; the
// suite runs as root, which no file mode refuses, so it is not produced here.)

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { copyFileSync, mkdirSync, readFileSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Arena, arenaPerFile, assertClosed, commitAll, pushAs, write } from './harness';
import { gitValue } from '../helpers/git';

let packName = '';
let blob = '';
const arena = arenaPerFile(test, (a) => {
  blob = gitValue(a.bare, ['rev-parse', 'main:.receipt-gate.json']);
  const rest = gitValue(a.bare, ['cat-file', '--batch-all-objects', '--batch-check=%(objectname)']).split('\n').filter((o) => o !== blob);
  packName = `pack-${gitValue(a.bare, ['pack-objects', '-q', 'objects/pack/pack'], { input: `${blob}\n` })}`;
  gitValue(a.bare, ['pack-objects', '-q', 'objects/pack/pack'], { input: `${rest.join('\n')}\n` });
  gitValue(a.bare, ['prune-packed']);
  for (const ext of ['pack', 'idx'] as const) copyFileSync(packFile(a, ext), join(a.root, `good.${ext}`));
});

function packFile(a: Arena, ext: 'pack' | 'idx'): string {
  return join(a.bare, 'objects', 'pack', `${packName}.${ext}`);
}

function looseFile(a: Arena): string {
  return join(a.bare, 'objects', blob.slice(0, 2), blob.slice(2));
}

/** Puts the good pack back (and removes a loose copy of the blob). */
function restore(a: Arena): void {
  for (const ext of ['pack', 'idx'] as const) {
    rmSync(packFile(a, ext), { recursive: true, force: true });
    copyFileSync(join(a.root, `good.${ext}`), packFile(a, ext));
  }
  rmSync(looseFile(a), { recursive: true, force: true });
}

/** Damages the repository with `damage`, pushes an honest branch as bob, and checks what he
 * is told: closed, `file` named, no absolute server path, the administrator's fix. */
function closedNaming(damage: (a: Arena) => void, file: string | RegExp): void {
  const a = arena();
  write(a.work, 'src/honest.py', `honest = ${Math.random()}\n`);
  commitAll(a.work, 'an honest change');
  damage(a);
  try {
    const result = pushAs(a, ['--no-thin', 'HEAD:refs/heads/honest']);
    assertClosed(a, result, 'INTERNAL_ERROR');
    // What the hook said: git's own `error:` lines (receive-pack's, about the same file) are
    // git's and print its paths; they are not receipt-gate's.
    const said = result.remote.filter((l) => !/^(error|fatal|warning): /.test(l)).join('\n');
    if (typeof file === 'string') assert.ok(said.includes(file), `names ${file}:\n${said}`);
    else assert.match(said, file);
    assert.not.ok(said.includes(a.root), `no absolute server path:\n${said}`);
    assert.not.match(said, /\/tmp\/|tmp_objdir|incoming-/, said);
    assert.match(said, /administrator/);
  } finally {
    restore(a);
  }
}

test('a corrupt pack: its data does not inflate', () => {
  closedNaming((a) => {
    const bytes = readFileSync(packFile(a, 'pack'));
    for (let i = 14; i < bytes.length - 20; i++) bytes[i]! ^= 0x55;
    writeFileSync(packFile(a, 'pack'), bytes);
  }, `objects/pack/${packName}.pack`);
});

test('a truncated pack', () => {
  closedNaming((a) => truncateSync(packFile(a, 'pack'), 20), `objects/pack/${packName}.pack`);
});

test('a pack whose header is not a pack header', () => {
  closedNaming((a) => {
    const bytes = readFileSync(packFile(a, 'pack'));
    bytes.write('JUNK', 0);
    writeFileSync(packFile(a, 'pack'), bytes);
  }, `objects/pack/${packName}.pack`);
});

test('a pack that cannot be read at all (a directory where the file was: EISDIR)', () => {
  closedNaming((a) => {
    rmSync(packFile(a, 'pack'));
    mkdirSync(packFile(a, 'pack'));
  }, new RegExp(`Cannot read the pack objects/pack/${packName}\\.pack \\(to read object ${blob}\\): EISDIR`));
});

test('a truncated pack index', () => {
  closedNaming((a) => truncateSync(packFile(a, 'idx'), 500), `objects/pack/${packName}.pack`);
});

test('a corrupt loose object, and one that cannot be read (EISDIR)', () => {
  const moveLoose = (a: Arena) => {
    rmSync(packFile(a, 'pack'));
    rmSync(packFile(a, 'idx'));
    mkdirSync(join(a.bare, 'objects', blob.slice(0, 2)), { recursive: true });
  };
  closedNaming((a) => {
    moveLoose(a);
    writeFileSync(looseFile(a), 'not a zlib stream');
  }, `Object ${blob} (loose, in objects) does not inflate`);
  closedNaming((a) => {
    moveLoose(a);
    mkdirSync(looseFile(a));
  }, `Cannot read object ${blob} (loose, in objects): EISDIR`);
});

test('control: with the pack restored, the same honest push is accepted', () => {
  const a = arena();
  write(a.work, 'src/honest.py', 'honest = True\n');
  commitAll(a.work, 'an honest change');
  const result = pushAs(a, ['--no-thin', 'HEAD:refs/heads/honest']);
  assert.is(result.status, 0, result.stderr);
});

test.run();
