// An annotated tag chain 1,000 deep on an honest commit: git peels chains of any depth, and so
// does the gate, within limits.timeoutMs. An error git fsck reports deep in a pushed chain is
// OBJECT_INVALID naming that tag.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { remotePerTest, write, type Remote } from '../server/helpers';
import { BOB, IDENT, assertObjectInvalid, findingOf, machine, push, refOid, verifyRef } from './object-helpers';
import { gitValue } from '../helpers/git';

let r: Remote;
remotePerTest(test, 'tag-chain', (remote) => {
  r = remote;
});

/** Tags nested `depth` deep over `target` (one hash-object for all); the outermost tag's oid
 * and every tag's oid, innermost first. `broken` replaces the tagger line of that tag. */
function chain(target: string, depth: number, broken?: { at: number; tagger: string }): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'rg-chain-'));
  const oids: string[] = [];
  const paths: string[] = [];
  let object = target;
  let type = 'commit';
  for (let i = 0; i < depth; i++) {
    const tagger = broken?.at === i ? broken.tagger : `tagger ${IDENT}`;
    const content = Buffer.from(`object ${object}\ntype ${type}\ntag t${i}\n${tagger}\n\nlevel ${i}\n`);
    const oid = createHash('sha1').update(`tag ${content.length}\0`).update(content).digest('hex');
    const path = join(dir, String(i));
    writeFileSync(path, content);
    paths.push(path);
    oids.push(oid);
    object = oid;
    type = 'tag';
  }
  const written = gitValue(r.work, ['hash-object', '-w', '-t', 'tag', '--literally', '--stdin-paths'], { input: `${paths.join('\n')}\n` }).split('\n');
  rmSync(dir, { recursive: true, force: true });
  assert.equal(written, oids);
  return oids;
}

function honestCommit(): string {
  gitValue(r.work, ['checkout', '-q', '-B', 'honest', 'main']);
  write(r.work, 'src/orders.py', 'def total(orders):\n    return sum(o.get("amount", 0) for o in orders)\n');
  gitValue(r.work, ['commit', '-qam', 'tolerate missing amounts']);
  return gitValue(r.work, ['rev-parse', 'HEAD']);
}

test('a 1,000-deep chain on an honest commit: accepted, peeled as git peels it', () => {
  const commit = honestCommit();
  const tags = chain(commit, 1000);
  const top = tags[tags.length - 1]!;
  assert.is(gitValue(r.work, ['rev-parse', `${top}^{commit}`]), commit);
  const result = push(r.work, ['origin', `${top}:refs/tags/deep`], BOB);
  assert.is(result.status, 0, result.stderr);
  assert.is(machine(result).verdict, 'eligible', result.stderr);
  assert.is(refOid(r.bare, 'refs/tags/deep'), top);
  gitValue(r.work, ['update-ref', 'refs/tags/deep', top]);
  const run = verifyRef(r, 'refs/tags/deep');
  assert.is(run.status, 0, run.stdout + run.stderr);
  assert.is(run.json.verdict, 'eligible');
  assert.is(run.json.head, commit);
});

test('a chain with a malformed tagger 500 tags down: OBJECT_INVALID naming that tag', () => {
  const commit = honestCommit();
  const tags = chain(commit, 1000, { at: 500, tagger: 'tagger Dev <dev@example.com> 1788000000 +00' });
  const top = tags[tags.length - 1]!;
  assertObjectInvalid(push(r.work, ['origin', `${top}:refs/tags/deep`], BOB), tags[500]!, 'badTimezone');
  assert.is(refOid(r.bare, 'refs/tags/deep'), null);
  gitValue(r.work, ['update-ref', 'refs/tags/deep', top]);
  const run = verifyRef(r, 'refs/tags/deep');
  assert.is(run.json.verdict, 'closed', run.stdout);
  assert.ok(findingOf(run, 'OBJECT_INVALID', tags[500]), run.stdout);
});

test.run();
