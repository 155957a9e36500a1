// Attack: a push from a shallow clone whose boundary commit's parent the server lacks. Git runs
// pre-receive before its connectivity check for such a push (with receive.shallowUpdate the
// check never refuses it), so the hook sees a commit whose parent is absent. It used to read
// that commit as a root commit adding every file of its tree and blamed evidence the push never
// changed; it must close the push with a sentence naming the commit, the missing parent and the
// fix, and never compute a verdict on the truncated history.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { join } from 'node:path';
import { accept, ALICE, arenaPerFile, assertClosed, baseEnv, BOB, commitAll, machine, push, serverFile, serverRefs, write } from './harness';
import { gitResult, gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

/** Two commits on top of main that the server never saw, and a depth-1 clone of the second. */
let clones = 0;
function shallowCloneOfNewHistory(): { clone: string; tip: string; parent: string } {
  const a = arena();
  clones++;
  write(a.work, 'src/one.py', `one = ${clones}\n`);
  const parent = commitAll(a.work, 'history the server lacks');
  write(a.work, 'src/two.py', 'two = 2\n');
  const tip = commitAll(a.work, 'the shallow clone\'s boundary');
  const clone = join(a.root, `shallow-${clones}`);
  gitValue(a.root, ['clone', '-q', '--depth', '1', '--branch', 'attack', `file://${a.work}`, clone]);
  gitValue(clone, ['remote', 'set-url', 'origin', `file://${a.bare}`]);
  assert.is(gitValue(clone, ['rev-parse', 'HEAD']), tip);
  assert.is(gitValue(clone, ['rev-parse', '--is-shallow-repository']), 'true');
  assert.is.not(gitResult(a.bare, ['cat-file', '-e', parent], { env: baseEnv() }).status, 0, 'the server lacks the parent');
  return { clone, tip, parent };
}

/** `gitRefuses`: the server's receive.shallowUpdate is off, and git reports its own reason for
 * the ref (`shallow update not allowed`) although the hook ran and closed the push. */
function assertShallowClosed(result: ReturnType<typeof push>, tip: string, parent: string, gitRefuses = false): void {
  const a = arena();
  let m: ReturnType<typeof machine>;
  if (gitRefuses) {
    assert.is.not(result.status, 0, result.stderr);
    assert.match(result.stderr, /\(shallow update not allowed\)/, result.stderr);
    m = machine(result);
    assert.is(m.verdict, 'closed', result.stderr);
    assert.is(serverRefs(a.bare), a.refs, 'the server\'s refs did not change');
  } else {
    m = assertClosed(a, result, 'INTERNAL_ERROR');
  }
  const text = result.remote.join('\n');
  assert.ok(text.includes(tip), `names the commit:\n${text}`);
  assert.ok(text.includes(parent), `names the missing parent:\n${text}`);
  assert.match(text, /shallow clone/);
  assert.match(text, /git fetch --unshallow/);
  // Nothing is blamed on the evidence files the push never changed.
  assert.equal(m.blocked_paths, [], text);
  assert.ok(m.findings.every((f) => f.code === 'INTERNAL_ERROR' && f.commit === tip), text);
  assert.not.match(text, /PATH_PROTECTED|tmp_objdir|incoming-/);
  assert.not.ok(text.includes(a.bare), 'no server path in the message');
  assert.is(serverFile(a, 'src/two.py'), null);
}

test('default server config: the hook runs and closes it with the commit, the missing parent and the fix (git then refuses it too)', () => {
  const { clone, tip, parent } = shallowCloneOfNewHistory();
  assertShallowClosed(push(clone, ['origin', 'HEAD:refs/heads/topic'], BOB), tip, parent, true);
  // Onto the protected main (a fast-forward in the full history; the shallow client cannot
  // tell, so it forces): the same sentence, no ancestry computed on the truncated history.
  assertShallowClosed(push(clone, ['--force', 'origin', 'HEAD:refs/heads/main'], BOB), tip, parent, true);
  assert.is(serverFile(arena(), 'src/one.py'), null);
});

test('receive.shallowUpdate=true (git would accept it): the hook alone closes it, for owners too', () => {
  const a = arena();
  gitValue(a.bare, ['config', 'receive.shallowUpdate', 'true']);
  try {
    const { clone, tip, parent } = shallowCloneOfNewHistory();
    assertShallowClosed(push(clone, ['origin', 'HEAD:refs/heads/topic'], BOB), tip, parent);
    assertShallowClosed(push(clone, ['origin', 'HEAD:refs/heads/topic'], ALICE), tip, parent);
    assert.is(gitValue(a.bare, ['rev-parse', '--is-shallow-repository']), 'false', 'the server did not become shallow');
  } finally {
    gitValue(a.bare, ['config', '--unset', 'receive.shallowUpdate']);
  }
});

test('control: a shallow clone whose boundary the server has (depth 2 over main) pushes as any clone does', () => {
  const a = arena();
  write(a.work, 'src/three.py', 'three = 3\n');
  const tip = commitAll(a.work, 'on top of main');
  const clone = join(a.root, 'shallow-control');
  gitValue(a.root, ['clone', '-q', '--depth', '2', '--branch', 'attack', `file://${a.work}`, clone]);
  gitValue(clone, ['remote', 'set-url', 'origin', `file://${a.bare}`]);
  const result = push(clone, ['origin', 'HEAD:refs/heads/control'], BOB);
  accept(a, result);
  assert.match(result.remote.join('\n'), /push accepted: eligible/);
  assert.is(gitValue(a.bare, ['rev-parse', 'refs/heads/control']), tip);
});

test.run();
