// A plain push of many refs (docs/push-log.md, "Entries signed in advance"): receive-pack
// applies each ref in a transaction of its own, and the shell hook appends each one's entry
// by looking up the candidate on top of the log's tip (receipt-gate/candidates/<pid>/<tip>),
// with no Node start and no walk of the push's list. Real pushes over file:// into a bare
// repository with the installed hooks. (The cost curve is bench/pushlog-refs.mjs; no timing
// here.)

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, commitAll, push, write } from '../server/helpers';
import { gitValue } from '../helpers/git';
import { freshRepo, logEntries, startServers, verifyLog, type LogServer } from './helpers';

let server: LogServer;
let nodeWrapper: string;
let nodeStarts: string;

test.before(async () => {
  server = await startServers('pushlog-many-refs');
  nodeStarts = join(server.root, 'node-starts.txt');
  nodeWrapper = join(server.root, 'node-wrapper.sh');
  writeFileSync(nodeWrapper, `#!/bin/sh\nprintf '%s\\n' "$*" >> '${nodeStarts}'\nexec node "$@"\n`);
  chmodSync(nodeWrapper, 0o755);
});

test.after(() => {
  server?.stop();
  cleanup(server?.root);
});

test('60 tags and a branch in one plain push: 61 entries in push order, every one appended by the shell hook; the candidates are removed by the next push', () => {
  const r = freshRepo(server, 'many');
  gitValue(r.work, ['checkout', '-q', 'main']);
  write(r.work, 'src/many.py', 'x = 1\n');
  const head = commitAll(r.work, 'many refs');
  const tags = Array.from({ length: 60 }, (_, i) => `refs/tags/m${String(i).padStart(2, '0')}`);
  gitValue(r.work, ['update-ref', '--stdin'], { input: tags.map((t) => `create ${t} ${head}\n`).join('') });
  rmSync(nodeStarts, { force: true });
  const p = push(r.work, [`file://${r.bare}`, 'main', ...tags], { RECEIPT_GATE_NODE: nodeWrapper });
  assert.is(p.status, 0, p.stderr);
  const starts = readFileSync(nodeStarts, 'utf8').trim().split('\n');
  assert.equal(starts.filter((l) => / reference-transaction /.test(`${l} `)), [], starts.join('\n'));
  const entries = logEntries(r.bare);
  assert.equal(entries.map((e) => e.seq), [...Array(62).keys()]);
  const logged = entries.slice(1).map((e) => e.updates.map((u) => `${u.ref} ${u.new}`));
  assert.equal(logged.map((u) => u.length), Array(61).fill(1));
  assert.equal(logged.flat().sort(), ['refs/heads/main', ...tags].map((ref) => `${ref} ${head}`).sort());
  // One folder of candidates, 61 files, each named by the entry it extends.
  const candidates = join(r.bare, 'receipt-gate', 'candidates');
  const folders = readdirSync(candidates);
  assert.is(folders.length, 1);
  const files = readdirSync(join(candidates, folders[0]!));
  assert.equal(files.sort(), entries.slice(0, 61).map((e) => e.commit).sort());
  const v = verifyLog(r.bare, server.pub, '--every-signature', '--ref', 'main', ...tags.slice(0, 3).flatMap((t) => ['--ref', t]));
  assert.is(v.status, 0, v.text);

  write(r.work, 'src/next.py', 'x = 2\n');
  commitAll(r.work, 'next');
  assert.is(push(r.work, [`file://${r.bare}`, 'main']).status, 0);
  assert.not.ok(existsSync(join(candidates, folders[0]!)), 'the gone push\'s candidates are swept');
  assert.is(logEntries(r.bare).length, 63);
});

test.run();
