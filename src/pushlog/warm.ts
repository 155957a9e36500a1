// The push log's append path, run once while the server hook's V8 startup snapshot is built
// (src/cli.ts, `node --build-snapshot`): V8 compiles a function the first time it runs, and a
// snapshot keeps what was compiled. A pre-receive started from the snapshot then signs its
// candidate entries with code already compiled, instead of compiling some fifty functions
// (config, key, tip check, signature, loose objects, pending files) in every push.
//
// The run is the real code on a throwaway repository under the temporary folder: a genesis
// entry, then one accepted push's decisions and candidates, with a key made for it and
// dropped. Nothing of it is kept but compiled code: no key, no file, no open handle (a
// snapshot cannot hold one). It never fails the build: the snapshot is only slower without it.

import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPair, loadPrivateKey } from '../receipt/dsse';
import { gateResult, refResult } from '../results';
import { appendEntries } from './append';
import { genesisPredicate } from './hook';
import { decide } from '../server/decide';
import { recordDecision } from './record';
import { pendingDir, receivePackPid } from './server-state';

/** Whether the whole path ran (the candidates were written); false says nothing is wrong with
 * the server, only that this snapshot is without it. */
export async function warmAppendPath(): Promise<boolean> {
  let root: string | null = null;
  try {
    root = mkdtempSync(join(tmpdir(), 'receipt-gate-warm-'));
    const gitdir = join(root, 'repo.git');
    for (const dir of ['objects', 'refs/heads', 'receipt-gate/pending']) mkdirSync(join(gitdir, dir), { recursive: true });
    writeFileSync(join(gitdir, 'HEAD'), 'ref: refs/heads/main\n');
    const pair = generateKeyPair();
    const keyFile = join(root, 'log.key');
    writeFileSync(keyFile, pair.privateKeyPem, { mode: 0o600 });
    writeFileSync(join(gitdir, 'config'), `[core]\n\trepositoryformatversion = 0\n\tbare = true\n[receipt-gate]\n\tlogKey = ${keyFile}\n`);
    await appendEntries(gitdir, loadPrivateKey(pair.privateKeyPem, keyFile), () => [genesisPredicate({}, new Date().toISOString())]);
    const update = { ref: 'refs/heads/main', old: '1'.repeat(40), new: '2'.repeat(40) };
    const result = gateResult([refResult(update, [], { isProtectedRef: true })]);
    receivePackPid(); // (the builder's ancestors: none is a receive-pack)
    // A receive-pack id no process has (pids stay below 2^22): its pending files are this
    // run's own.
    const pid = 0x7ffffff0;
    await recordDecision(gitdir, {}, decide(result), pid);
    return existsSync(join(pendingDir(gitdir), `${pid}.log`));
  } catch {
    return false; // a snapshot without the warm code
  } finally {
    if (root !== null) rmSync(root, { recursive: true, force: true });
  }
}
