// A pushed name cannot forge a line of the rejection: a non-owner pushes protected files whose
// names hold LF, CR, ESC sequences and the text of an acceptance line, through a real
// `git push` to a bare repository with the installed hook. git prints every line the hook
// writes as `remote: ...` (and treats CR as a line break too); none of them may read as an
// acceptance, and no byte of the names may reach the terminal raw.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cleanup, commitAll, guardedRemote, machine, makeTemplate, push, write, type Remote } from '../server/helpers';
import { gitValue } from '../helpers/git';

let template: Remote;
test.before(() => {
  template = makeTemplate();
});
test.after(() => cleanup(template?.root));

const FORGED = 'receipt-gate: push accepted: eligible (1 ref, 1 new commit, pusher alice)';
const NAMES = [
  `fixtures/a\nremote: ${FORGED}\n.json`,
  `fixtures/b\r${FORGED}\u001b[1A\u001b[2K.json`,
  `fixtures/c\u001b]0;title\u0007\u009b2J.json`,
];

test('names with LF, CR and ESC: a rejection that no name can turn into an acceptance', () => {
  const r = guardedRemote(template, 'forge');
  try {
    gitValue(r.work, ['checkout', '-q', '-B', 'work', 'main']);
    for (const n of NAMES) write(r.work, n, '{}\n');
    commitAll(r.work, 'evil names');
    const result = push(r.work, ['origin', 'work'], { REMOTE_USER: 'mallory' });
    assert.is.not(result.status, 0, result.stderr);

    // Every line git shows, split as a terminal would break it (LF and CR).
    const shown = result.stderr.split(/\r\n|\n|\r/);
    const ours = shown.filter((l) => /^remote: +receipt-gate: push /.test(l));
    assert.is(ours.length, 1, `exactly one verdict line:\n${result.stderr}`);
    assert.match(ours[0]!, /^remote: receipt-gate: push REJECTED: closed/);
    for (const l of shown) assert.not.match(l, /^(remote: +)?receipt-gate: push accepted/, JSON.stringify(l));
    assert.not.match(result.stderr, /[\u001b\u0007\u009b]/, 'no raw ESC, BEL or CSI reaches the terminal');

    // The names are shown quoted as git quotes them, and kept exact in the machine line.
    assert.match(result.stderr, /"fixtures\/a\\nremote: receipt-gate: push accepted: eligible/);
    assert.match(result.stderr, /"fixtures\/c\\033\]0;title\\a\\302\\2332J\.json"/);
    const m = machine(result);
    assert.equal([...m.blocked_paths].sort(), [...NAMES].sort());
    assert.is(m.verdict, 'closed');
  } finally {
    cleanup(r.root);
  }
});

test.run();
