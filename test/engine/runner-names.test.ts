// Runner files (src/rules/gate-runner.ts) are named by their last segment; a file whose name
// is also the name of a property every JavaScript object has (`constructor`, `__proto__`) is
// an ordinary file, not a runner file: a non-owner's push adding one is accepted, as any
// unprotected file is.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { foldKey } from '../../src/paths';
import { runnerFileOf } from '../../src/rules/gate-runner';
import { accept, arenaPerFile, commitAll, pushAs, write } from '../attacks/harness';

const arena = arenaPerFile(test);

test('names of the properties of every object are no runner files', () => {
  for (const p of ['constructor', 'src/constructor', '__proto__', 'lib/__proto__', 'hasOwnProperty', 'valueOf', '__defineGetter__']) assert.is(runnerFileOf(p), null, p);
  assert.is(runnerFileOf('src/package.json'), 'package.json', 'a runner file still is one');
});

test('the last segment folded alone is the last segment of the folded path', () => {
  // What runnerFileOf relies on (folding never crosses a '/'): paths whose folding changes
  // their segments (case, NFC, Win32 trimming, NTFS streams, ignorable code points).
  const paths = ['Apps/Web/PACKAGE.JSON', 'a /package.json.', 'x\u200c/pac\u200ckage.json', 'e\u0301/Yarn.lock ', 'd::$INDEX_ALLOCATION/.pre-commit-config.yaml::$DATA', '\ufb01le/\ufb01', 'K\u212a/\u212aelvin', 'a./b ./package-lock.json..', 'dir/sub\u0308/npm-shrinkwrap.JSON'];
  for (const p of paths) {
    const folded = foldKey(p);
    assert.is(foldKey(p.slice(p.lastIndexOf('/') + 1)), folded.slice(folded.lastIndexOf('/') + 1), p);
  }
});

test('a non-owner pushes files named constructor and __proto__: accepted', () => {
  const a = arena();
  write(a.work, 'src/constructor', 'a file\n');
  write(a.work, 'docs/__proto__', 'another\n');
  commitAll(a.work, 'files named as object properties');
  accept(a, pushAs(a, ['HEAD:refs/heads/names']));
});

test.run();
