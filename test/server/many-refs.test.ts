// A push of many refs on commits the repository already holds (tags on old commits) is
// judged with one walk from the base tip for all of them (src/git/history/ancestors-among.ts,
// noteBaseAncestors in src/engine.ts). Differential: every ref of such a push gets exactly the
// result it gets when pushed alone (a push of one ref never takes that walk): its findings,
// its new commits, its verdict. The refs cover ancestors of main near and far, a commit only
// another branch reaches, a commit the repository holds with no ref, an annotated tag, a tag
// on a tree, a protected ref moved back, commit dates that lie (a commit dated years before
// its parent, so the walk's date stop comes early), with and without a commit-graph. Then the
// same tags through a real `git push` into the installed hook.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, guardedRemote, installHook, machine, makeTemplate, push, TODAY, write, ZERO, type Remote } from './helpers';
import { receivePush } from '../../src/server/receive';
import { git, gitValue } from '../helpers/git';

let template: Remote;
let r: Remote;
const lines: string[] = [];

test.before(() => {
  template = makeTemplate({ install: false });
  r = guardedRemote(template, 'many-refs');
  const { work, bare } = r;
  const date = (iso: string) => ({ env: { GIT_AUTHOR_DATE: iso, GIT_COMMITTER_DATE: iso } });
  // main: 14 commits, one of them dated 2001 (its parent is dated 2026).
  for (let i = 0; i < 14; i++) {
    write(work, `src/m${i % 3}.py`, `x = ${i}\n`);
    git(work, ['add', '-A']);
    git(work, ['commit', '-qm', `main ${i}`], i === 6 ? date('2001-01-01T00:00:00Z') : {});
  }
  // side: from main~9, touching a protected path; pushed as a branch of its own.
  git(work, ['checkout', '-qb', 'side', 'main~9']);
  write(work, 'checks/extra.json', '{}\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '-qm', 'side: a protected file']);
  write(work, 'src/side.py', 'y = 1\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '-qm', 'side 2']);
  // loose: a commit the repository will hold without a ref (pushed, then its branch deleted).
  git(work, ['checkout', '-qb', 'loose', 'main~3']);
  write(work, 'freeze.json', '{"version": 1, "frozen": []}\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '-qm', 'loose: edits freeze.json']);
  // ev: evidence that differs from tree to tree. ev~3 and ev~2 lack the manifest (the
  // finding names each commit), ev~1 brings it back with a fixture record that is not JSON
  // (found only by listing fixtures/), ev adds a source file only (the same evidence as ev~1
  // in another tree).
  git(work, ['checkout', '-qb', 'ev', 'main~1']);
  git(work, ['rm', '-q', 'checks/manifest.json']);
  git(work, ['commit', '-qm', 'ev: no manifest']);
  write(work, 'src/ev.py', 'z = 1\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '-qm', 'ev: still none']);
  git(work, ['checkout', '-q', 'main~1', '--', 'checks/manifest.json']);
  write(work, 'fixtures/extra.json', '{not json\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '-qm', 'ev: manifest back, a fixture record']);
  write(work, 'src/ev.py', 'z = 2\n');
  git(work, ['add', '-A']);
  git(work, ['commit', '-qm', 'ev: a source file']);
  git(work, ['checkout', '-q', 'main']);
  git(work, ['tag', '-a', '-m', 'annotated', 'v-annotated', 'main~2']);
  git(work, ['push', '-q', 'origin', 'main', 'side', 'loose', 'ev', 'refs/tags/v-annotated']);
  git(bare, ['update-ref', '-d', 'refs/heads/loose']);
  const oid = (rev: string) => gitValue(work, ['rev-parse', rev]);
  // release/held: packed at main~6, then a loose file at main~2 (the loose one is the ref);
  // sym: a symbolic ref to it. Pushed among the tags, their files must be read.
  git(bare, ['update-ref', 'refs/heads/release/held', oid('main~6')]);
  git(bare, ['pack-refs', '--all']);
  git(bare, ['update-ref', 'refs/heads/release/held', oid('main~2')]);
  git(bare, ['symbolic-ref', 'refs/heads/sym', 'refs/heads/release/held']);
  const lightweight = (name: string, rev: string) => lines.push(`${ZERO} ${oid(rev)} refs/tags/${name}`);
  for (let k = 0; k < 14; k++) lightweight(`m${k}`, `main~${k}`);
  lightweight('m10-again', 'main~10');
  lightweight('side-tip', 'side');
  lightweight('side-first', 'side~1');
  lightweight('loose', 'loose');
  lightweight('a-tree', 'main~4^{tree}');
  for (let k = 0; k < 4; k++) lightweight(`ev${k}`, `ev~${k}`);
  lines.push(`${ZERO} ${oid('v-annotated')} refs/tags/v-annotated-copy`);
  lines.push(`${oid('main')} ${oid('main~5')} refs/heads/main`);
  lines.push(`${ZERO} ${oid('main~1')} refs/heads/release/one`);
  lines.push(`${ZERO} ${oid('main~4')} refs/heads/release/held`);
  lines.push(`${ZERO} ${oid('main~3')} refs/heads/sym`);
});
test.after(() => {
  cleanup(r?.root);
  cleanup(template?.root);
});

async function judge(stdin: string) {
  return receivePush({ gitdir: r.bare, env: { REMOTE_USER: 'bob' }, today: () => TODAY }, stdin);
}

/** Every ref of the push judged together, against each judged alone. */
async function sameAsAlone(label: string): Promise<void> {
  const together = await judge(lines.map((l) => `${l}\n`).join(''));
  assert.is(together.result.refs.length, lines.length, label);
  for (let i = 0; i < lines.length; i++) {
    const alone = await judge(`${lines[i]}\n`);
    assert.equal(together.result.refs[i], alone.result.refs[0], `${label}: ${lines[i]}`);
    assert.equal(together.refs[i]!.outcome, alone.refs[0]!.outcome, `${label}: ${lines[i]}`);
  }
  // The shapes the refs were chosen for are there (the differential would pass on anything).
  const byRef = new Map(together.result.refs.map((x) => [x.update.ref, x]));
  assert.equal(byRef.get('refs/tags/loose')!.newCommits, [gitValue(r.work, ['rev-parse', 'loose'])], label);
  assert.ok(byRef.get('refs/tags/loose')!.findings.some((f) => f.code === 'PATH_PROTECTED' && f.path === 'freeze.json'), label);
  assert.ok(byRef.get('refs/tags/side-tip')!.findings.some((f) => f.code === 'PATH_PROTECTED' && f.path === 'checks/extra.json'), label);
  assert.equal(byRef.get('refs/tags/side-tip')!.newCommits, [], label);
  assert.ok(byRef.get('refs/tags/a-tree')!.findings.some((f) => f.code === 'REF_NO_COMMIT'), label);
  // Each tree's own evidence: the missing manifest named with each commit, the observation.
  for (const k of [2, 3]) {
    const c = gitValue(r.work, ['rev-parse', '--short=7', `ev~${k}`]);
    assert.ok(byRef.get(`refs/tags/ev${k}`)!.findings.some((f) => f.message.includes(`missing from commit ${c}`)), `${label}: ev${k} ${JSON.stringify(byRef.get(`refs/tags/ev${k}`)!.findings)}`);
  }
  for (const k of [0, 1]) assert.ok(byRef.get(`refs/tags/ev${k}`)!.findings.some((f) => f.path === 'fixtures/extra.json'), `${label}: ev${k} ${JSON.stringify(byRef.get(`refs/tags/ev${k}`)!.findings)}`);
  assert.ok(byRef.get('refs/heads/main')!.findings.some((f) => f.code === 'REF_PROTECTED'), label);
  // Moved back from its loose value (main~2), not forward from its packed one (main~6).
  const held = gitValue(r.work, ['rev-parse', 'main~2']);
  assert.ok(byRef.get('refs/heads/release/held')!.findings.some((f) => f.code === 'REF_PROTECTED' && f.message.includes(held.slice(0, 7))), `${label}: ${JSON.stringify(byRef.get('refs/heads/release/held')!.findings)}`);
  assert.ok(byRef.get('refs/heads/sym')!.findings.length > 0, `${label}: sym`);
  for (let k = 0; k < 14; k++) {
    const ref = byRef.get(`refs/tags/m${k}`)!;
    assert.equal(ref.newCommits, [], `${label}: m${k}`);
    assert.is(ref.verdict, 'eligible', `${label}: m${k} ${JSON.stringify(ref.findings)}`);
  }
}

test('many tags on held commits: each ref judged as it is alone (no commit-graph)', async () => {
  await sameAsAlone('no graph');
});

test('the same with a commit-graph', async () => {
  git(r.bare, ['commit-graph', 'write', '--reachable']);
  await sameAsAlone('graph');
});

test('the budget gone before the refs are judged: every ref carries LIMIT_EXCEEDED, as when judged one by one', async () => {
  let calls = 0;
  const now = () => (calls++ === 0 ? 1_000_000 : 1_100_000);
  const out = await receivePush({ gitdir: r.bare, env: { REMOTE_USER: 'bob' }, today: () => TODAY, now }, lines.map((l) => `${l}\n`).join(''));
  assert.is(out.accepted, false);
  assert.is(out.result.refs.length, lines.length);
  for (const ref of out.result.refs) assert.ok(ref.findings.some((f) => f.code === 'LIMIT_EXCEEDED' && f.ref === ref.update.ref), JSON.stringify(ref.findings));
});

test('through the installed hook: the tags on main are accepted, the one on a loose commit touching freeze.json is not', () => {
  installHook(r.bare);
  const tags = (names: string[]) => names.map((n) => `refs/tags/${n}:refs/tags/${n}`);
  for (let k = 0; k < 14; k++) git(r.work, ['tag', `m${k}`, `main~${k}`]);
  git(r.work, ['tag', 'loose', 'loose']);
  const ok = push(r.work, ['origin', ...tags(Array.from({ length: 14 }, (_, k) => `m${k}`))], { REMOTE_USER: 'bob' });
  assert.is(ok.status, 0, ok.stderr);
  assert.is(machine(ok).verdict, 'eligible');
  const refused = push(r.work, ['origin', ...tags(['loose'])], { REMOTE_USER: 'bob' });
  assert.is.not(refused.status, 0, refused.stderr);
  assert.ok(machine(refused).findings.some((f) => f.code === 'PATH_PROTECTED' && f.path === 'freeze.json' && f.ref === 'refs/tags/loose'), refused.stderr);
});

test.run();
