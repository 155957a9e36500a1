// Attack: making the gate give up. An evidence file over maxEvidenceBytes, a commit over the
// 64 MiB object limit, or a push that takes longer than limits.timeoutMs is LIMIT_EXCEEDED:
// closed, never a pass and never an INTERNAL_ERROR (docs/contract.md §2, §6 "Time").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accept, ALICE, arenaPerFile, assertClosed, BOB, commitAll, machine, POLICY, push, serverFile, write } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

test('an oversized evidence blob is rejected with LIMIT_EXCEEDED', () => {
  const r = arena();
  write(r.work, 'fixtures/big.json', `{"id":"big","input":{"pad":"${'x'.repeat(1_100_000)}"},"sha256":"${'a'.repeat(64)}"}\n`);
  commitAll(r.work, 'big record');
  assertClosed(r, push(r.work, ['origin', 'HEAD:main'], ALICE), 'LIMIT_EXCEEDED', 'fixtures/big.json');
  assert.is(serverFile(r, 'fixtures/big.json'), null);
});

test('a commit over 64 MiB, pushed for real, is LIMIT_EXCEEDED naming the commit', () => {
  const r = arena();
  const tree = gitValue(r.work, ['rev-parse', 'HEAD^{tree}']);
  const parent = gitValue(r.work, ['rev-parse', 'HEAD']);
  const file = join(r.root, 'huge-commit');
  const header = `tree ${tree}\nparent ${parent}\nauthor A <a@example.com> 1700000000 +0000\ncommitter A <a@example.com> 1700000000 +0000\n\n`;
  writeFileSync(file, Buffer.concat([Buffer.from(header), Buffer.alloc(65 * 1024 * 1024, 0x61), Buffer.from('\n')]));
  const huge = gitValue(r.work, ['hash-object', '-t', 'commit', '-w', '--', file]);
  const result = push(r.work, ['origin', `${huge}:refs/heads/huge`], BOB);
  const m = assertClosed(r, result, 'LIMIT_EXCEEDED');
  assert.ok(m.findings.some((f) => f.code === 'LIMIT_EXCEEDED' && f.commit === huge), result.stderr);
  assert.match(result.remote.join('\n'), new RegExp(`Commit ${huge} is \\d+ bytes, over the limit`));
  assert.not.ok(m.findings.some((f) => f.code === 'INTERNAL_ERROR'), result.stderr);
});

// Last: it leaves main with a 100 ms deadline.
test('a push that takes longer than limits.timeoutMs is LIMIT_EXCEEDED, never a pass', () => {
  const r = arena();
  write(r.work, '.receipt-gate.json', `${JSON.stringify({ ...POLICY, limits: { timeoutMs: 100, maxEvidenceBytes: 1048576 } }, null, 2)}\n`);
  commitAll(r.work, 'a 100 ms deadline');
  accept(r, push(r.work, ['origin', 'HEAD:main'], ALICE));
  // 3,000 commits, written with fast-import: far more than 100 ms of reading.
  const main = gitValue(r.work, ['rev-parse', 'HEAD']);
  let stream = '';
  for (let i = 0; i < 3000; i++) {
    stream += `commit refs/heads/long\nmark :${i + 1}\ncommitter T <t@example.com> ${1700000000 + i} +0000\ndata 2\nc\n`;
    stream += i === 0 ? `from ${main}\n` : `from :${i}\n`;
    stream += `M 100644 inline src/f${i % 50}.txt\ndata ${String(i).length + 1}\n${i}\n\n`;
  }
  gitValue(r.work, ['fast-import', '--quiet'], { input: stream });
  for (const [who, target] of [[BOB, 'long'], [ALICE, 'long'], [BOB, 'long:main']] as const) {
    const result = push(r.work, ['origin', target], who);
    const m = assertClosed(r, result, 'LIMIT_EXCEEDED');
    // The engine's deadline (100 ms), or the hook's outer budget (limits.timeoutMs + 250 ms)
    // when the work ran past it without reaching a check: a deadline either way.
    assert.match(result.remote.join('\n'), /did not finish within (limits\.timeoutMs \(100 ms\)|its time budget \(limits\.timeoutMs)/, result.stderr);
    assert.is(machine(result).verdict, 'closed');
    assert.not.ok(m.findings.some((f) => f.code === 'INTERNAL_ERROR'), result.stderr);
  }
});

test.run();
