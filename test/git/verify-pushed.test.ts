// Which objects the store checks by SHA-1 (src/git/objects.ts, readChecked): every object it
// reads when no push is under way (a client hook, verify-ref); during a push (a quarantine is
// open) the objects the push brought, and not the repository's own, which git checked when
// they arrived and reads without checking again. Compared with what git itself reads.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { GitReadError, ObjectStore } from '../../src/git/index';
import { cleanupTempDirs, git, gitBuf, initRepo } from '../helpers/git';

/** Writes `content` as the loose file of `oid` under `objects` (bytes that are not the object's). */
function lie(objects: string, oid: string, content: string): void {
  const dir = join(objects, oid.slice(0, 2));
  mkdirSync(dir, { recursive: true });
  const file = join(dir, oid.slice(2));
  try {
    chmodSync(file, 0o644);
  } catch {
    // not there yet
  }
  writeFileSync(file, deflateSync(Buffer.from(`blob ${Buffer.byteLength(content)}\0${content}`)));
}

async function readOrError(store: ObjectStore, oid: string): Promise<string> {
  try {
    return Buffer.from(await store.objects.readBlob(oid, 1 << 20)).toString('latin1');
  } catch (err) {
    assert.instance(err, GitReadError, String(err));
    return `error: ${(err as Error).message}`;
  }
}

test('a push: the repository objects are read as git reads them, the pushed ones are checked', async () => {
  const repo = initRepo({ bare: true });
  const kept = git(repo, ['hash-object', '-w', '--stdin'], { input: 'hello\n' }).trim();
  // The repository's own loose object now holds other bytes of the same length.
  lie(join(repo, 'objects'), kept, 'HELLO\n');
  const gitReads = gitBuf(repo, ['cat-file', 'blob', kept]).toString('latin1');
  assert.is(gitReads, 'HELLO\n', 'git reads the file without checking it');

  // An object the push brought, with bytes that are not its own, in the quarantine.
  const quarantine = join(repo, 'objects', 'tmp_objdir-incoming-Vp29xx');
  mkdirSync(quarantine, { recursive: true });
  const pushed = git(repo, ['hash-object', '--stdin'], { input: 'pushed\n' }).trim();
  lie(quarantine, pushed, 'PUSHED\n');
  const env = { GIT_QUARANTINE_PATH: quarantine, GIT_OBJECT_DIRECTORY: quarantine, GIT_ALTERNATE_OBJECT_DIRECTORIES: join(repo, 'objects') };
  const during = await ObjectStore.open({ gitdir: repo, env });
  assert.ok(during.objects.hasQuarantine);
  assert.is(await readOrError(during, kept), gitReads, 'the repository object: as git reads it');
  assert.match(await readOrError(during, pushed), /SHA-1 check failed/, 'the pushed object is checked');
  // An object the client sent again although the repository has it is read from the
  // quarantine, and checked.
  lie(quarantine, kept, 'hullo\n');
  const resent = await ObjectStore.open({ gitdir: repo, env });
  assert.match(await readOrError(resent, kept), /SHA-1 check failed/, 'a resent object is checked');
  during.close();
  resent.close();

  // No push under way: every object read is checked.
  const client = await ObjectStore.open({ gitdir: repo, env: {} });
  assert.not.ok(client.objects.hasQuarantine);
  assert.match(await readOrError(client, kept), /SHA-1 check failed/, 'outside a push every object is checked');
  client.close();
});

test.after(cleanupTempDirs);
test.run();
