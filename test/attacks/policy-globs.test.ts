// Attack: a pushed policy whose globs are malformed (`data/*.{json,yaml`), can never match a
// git path (a leading or trailing `/`), or backtrack catastrophically (nested extglobs): such a
// glob would silently protect nothing, so the policy is POLICY_INVALID, naming the glob and its
// pointer, even for an owner (docs/contract.md §6, "Globs").

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { ALICE, arenaPerFile, assertClosed, BOB, commitAll, machine, POLICY, push, serverFile, write } from './harness';
import { gitValue } from '../helpers/git';

const arena = arenaPerFile(test);

test('a policy whose globs the gate refuses is POLICY_INVALID, naming the glob and its index', () => {
  const r = arena();
  gitValue(r.work, ['checkout', '-q', '-B', 'topic', 'origin/main']);
  const bad = { ...POLICY, protected: [...POLICY.protected, 'data/*.{json,yaml', '+(a|aa)*(b)'] };
  write(r.work, '.receipt-gate.json', `${JSON.stringify(bad, null, 2)}\n`);
  commitAll(r.work, 'policy with unusable globs');
  const result = push(r.work, ['origin', 'topic:main'], ALICE);
  assert.is.not(result.status, 0, result.stderr);
  const text = result.remote.join('\n');
  const n = POLICY.protected.length;
  assert.match(text, `/protected/${n}: "data/*.{json,yaml" is not a usable glob`);
  assert.match(text, `/protected/${n + 1}: "+(a|aa)*(b)" is not a usable glob`);
  assert.ok(machine(result).findings.some((f) => f.code === 'POLICY_INVALID'), text);
});

test('globs that can never match, nested extglobs, and bad exceptions: closed for the owner, on any branch', () => {
  const r = arena();
  const before = serverFile(r, '.receipt-gate.json');
  const cases: [Record<string, unknown>, string][] = [
    [{ protected: ['/fixtures/**'] }, '/protected/0'],
    [{ protected: ['fixtures/'] }, '/protected/0'],
    [{ protected: ['+(+(a))'] }, '/protected/0'],
    [{ protected: ['fixtures//x'] }, '/protected/0'],
    [{ exceptions: ['docs/[b-a]'] }, '/exceptions/0'],
    [{ protected: ['!fixtures/**'] }, '/protected/0'],
  ];
  for (const [override, pointer] of cases) {
    gitValue(r.work, ['checkout', '-q', '-f', '-B', 'topic', 'origin/main']);
    write(r.work, '.receipt-gate.json', `${JSON.stringify({ ...POLICY, ...override }, null, 2)}\n`);
    commitAll(r.work, `policy ${JSON.stringify(override)}`);
    for (const [who, target] of [[ALICE, 'topic:main'], [ALICE, 'topic:refs/heads/policy-work']] as const) {
      const result = push(r.work, ['origin', target], who);
      assertClosed(r, result, 'POLICY_INVALID');
      assert.ok(result.remote.join('\n').includes(pointer), `${pointer} named:\n${result.stderr}`);
    }
  }
  // A non-owner is closed anyway (the policy is protected), and main's policy is unchanged.
  assertClosed(r, push(r.work, ['origin', 'topic:main'], BOB), 'PATH_PROTECTED', '.receipt-gate.json');
  assert.is(serverFile(r, '.receipt-gate.json'), before);
});

test.run();
