// Recovery from a bypass: a bare repository with the installed hooks and the push log, a real
// move around the gate (an administrator's update-ref with the hooks out of the way, a push with
// pre-receive moved aside, a push the log could not record), verify-log closed; an owner's
// signed acknowledgement (`receipt-gate log acknowledge`) on the server; verify-log passes and
// shows it; a later bypass closes again; a tampered, forged or unsigned acknowledgement closes.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { cpSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { cleanup, commitAll, installHook, makeTemplate, push, refOid, write, type Remote } from '../server/helpers';
import { codes, execCli, logEntries, verifyLog } from './helpers';
import { gitValue } from '../helpers/git';
import Ajv2020 from 'ajv/dist/2020';

const validate = new Ajv2020({ allErrors: true, strict: true }).compile(JSON.parse(readFileSync(join(__dirname, '..', '..', 'schemas', 'output', 'verify-log.schema.json'), 'utf8')));

interface LogJson {
  verdict: string;
  log: { ref: string; tip?: string; entries: number; genesis?: string };
  refs: { ref: string; logged: string; actual: string }[];
  acknowledgements: { seq: number; identity: string; reason: string }[];
}

/** verify-log --json, checked against schemas/output/verify-log.schema.json. */
function logJson(bare: string): LogJson {
  const r = execCli(['verify-log', '--repo', bare, '--pub', pub(), '--json']);
  const doc: unknown = JSON.parse(r.stdout);
  assert.ok(validate(doc), `${JSON.stringify(validate.errors, null, 2)}\n${r.stdout}`);
  return doc as LogJson;
}

let template: Remote;
let keyPrefix: string;
let root: string;
let count = 0;

const NOW = '2026-09-11T10:00:00Z';

test.before(() => {
  template = makeTemplate({ install: false });
  root = template.root;
  keyPrefix = join(root, 'keys', 'log');
  mkdirSync(join(root, 'keys'));
  assert.is(execCli(['keygen', '--out', keyPrefix]).status, 0);
  installHook(template.bare, '--log-key', `${keyPrefix}.key`);
});

test.after(() => cleanup(root));

function fresh(name: string): Remote {
  const dir = join(root, 'repos', `${name}-${++count}`);
  mkdirSync(dir, { recursive: true });
  const r = { root: dir, bare: join(dir, 'remote.git'), work: join(dir, 'work') };
  cpSync(template.bare, r.bare, { recursive: true, verbatimSymlinks: true });
  cpSync(template.work, r.work, { recursive: true, verbatimSymlinks: true });
  gitValue(r.work, ['remote', 'set-url', 'origin', `file://${r.bare}`]);
  return r;
}

function advance(work: string, n: number): string {
  gitValue(work, ['checkout', '-q', 'main']);
  write(work, 'src/orders.py', `def total(orders):\n    return sum(o["amount"] for o in orders)  # ${n}\n`);
  return commitAll(work, `main ${n}`);
}

function acknowledge(bare: string, ...extra: string[]) {
  return execCli(['log', 'acknowledge', '--repo', bare, '--key', `${keyPrefix}.key`, '--now', NOW, ...extra]);
}

const pub = () => `${keyPrefix}.pub`;

test("an administrator's update-ref with the hooks out of the way: closed; acknowledged by an owner, it passes and shows who and why; later moves are judged as usual", () => {
  const r = fresh('update-ref');
  const m1 = advance(r.work, 1);
  assert.is(push(r.work, ['origin', 'main']).status, 0);
  const m0 = refOid(r.bare, 'refs/heads/main~1')!;
  gitValue(r.bare, ['-c', 'core.hooksPath=/dev/null', 'update-ref', 'refs/heads/main', m0, m1]);
  let v = verifyLog(r.bare, pub());
  assert.is(v.status, 1, v.text);
  assert.equal(codes(v), ['LOG_GAP']);
  const entriesBefore = logEntries(r.bare).length;
  const closed = logJson(r.bare);
  assert.not.ok('identities' in closed || 'base' in closed || 'head' in closed, JSON.stringify(closed));
  assert.equal(closed.refs, [{ ref: 'refs/heads/main', logged: m1, actual: m0 }]);
  assert.equal(closed.acknowledgements, []);

  const ack = acknowledge(r.bare, '--ref', 'main', '--identity', 'alice', '--reason', 'INC-42: restored main after a bad release, reviewed by alice');
  assert.is(ack.status, 0, ack.stdout + ack.stderr);
  const entries = logEntries(r.bare);
  assert.is(entries.length, entriesBefore + 1);
  const last = entries[entries.length - 1]!;
  assert.is(last.kind, 'acknowledge');
  assert.is(last.identity, 'alice');
  assert.is(last.time, '2026-09-11T10:00:00.000Z');
  assert.equal(last.updates, []);
  assert.equal(last.acknowledgement!.refs, [{ ref: 'refs/heads/main', logged: m1, accepted: m0, findings: [{ code: 'LOG_GAP', entry: null, commit: m0 }] }]);
  assert.is(last.acknowledgement!.reason, 'INC-42: restored main after a bad release, reviewed by alice');

  v = verifyLog(r.bare, pub());
  assert.is(v.status, 0, v.text);
  assert.is(v.verdict, 'eligible');
  assert.equal(v.findings.map((f) => [f.code, (f as { severity?: string }).severity, f.ref, f.commit]), [['LOG_GAP', 'info', 'refs/heads/main', m0]]);
  assert.match(v.findings[0]!.message, /acknowledged by alice in entry #\d+ .*INC-42: restored main/);
  const json = logJson(r.bare);
  assert.is(json.acknowledgements.length, 1);
  assert.is(json.acknowledgements[0].identity, 'alice');
  assert.is(json.acknowledgements[0].seq, last.seq);
  assert.is(json.log.tip, refOid(r.bare, 'refs/receipt-gate/log'));
  assert.is(json.log.entries, entries.length);
  assert.equal(json.refs, [{ ref: 'refs/heads/main', logged: m0, actual: m0 }]);
  const text = execCli(['verify-log', '--repo', r.bare, '--pub', pub()]);
  assert.is(text.status, 0, text.stdout);
  assert.match(text.stdout, new RegExp(`acknowledgement #${last.seq} \\([0-9a-f]{7,}\\) by alice`));
  assert.match(text.stdout, /info {3}LOG_GAP main/);

  // After the acknowledgement, pushes through the gate are verified as usual.
  gitValue(r.work, ['fetch', '-q', 'origin', '+main:refs/remotes/origin/main']);
  gitValue(r.work, ['checkout', '-q', '-B', 'main', 'origin/main']);
  advance(r.work, 2);
  assert.is(push(r.work, ['origin', 'main']).status, 0);
  v = verifyLog(r.bare, pub());
  assert.is(v.status, 0, v.text);

  // A later bypass closes again: the acknowledgement never covers what comes after it.
  gitValue(r.bare, ['update-ref', 'refs/heads/main', m1]); // hooks on: logged as ungated
  v = verifyLog(r.bare, pub());
  assert.is(v.status, 1, v.text);
  assert.equal(v.findings.filter((f) => (f as { severity?: string }).severity !== 'info').map((f) => f.code), ['LOG_UNGATED']);
  assert.ok(v.findings.some((f) => f.code === 'LOG_GAP' && (f as { severity?: string }).severity === 'info'), v.text);
});

test('a push with pre-receive moved aside (ungated entry): the acknowledgement names that entry; a second bypass after it stays closed until acknowledged too', () => {
  const r = fresh('hook-aside');
  renameSync(join(r.bare, 'hooks', 'pre-receive'), join(r.bare, 'hooks', 'pre-receive.off'));
  const m1 = advance(r.work, 1);
  assert.is(push(r.work, ['origin', 'main']).status, 0);
  renameSync(join(r.bare, 'hooks', 'pre-receive.off'), join(r.bare, 'hooks', 'pre-receive'));
  let v = verifyLog(r.bare, pub());
  assert.equal(codes(v), ['LOG_UNGATED']);
  const ungatedSeq = logEntries(r.bare).find((e) => e.kind === 'ungated')!.seq;

  // Only an owner of the policy may accept it: bob is not one; nothing is appended.
  const length = logEntries(r.bare).length;
  const refused = acknowledge(r.bare, '--ref', 'main', '--identity', 'bob', '--reason', 'looked fine');
  assert.is(refused.status, 2, refused.stdout + refused.stderr);
  assert.match(refused.stderr, /--identity bob is not an owner of the policy .*owners: alice, release-bot/);
  assert.is(logEntries(r.bare).length, length);
  // A reason is required.
  assert.is(acknowledge(r.bare, '--ref', 'main', '--identity', 'alice').status, 2);

  const ack = acknowledge(r.bare, '--ref', 'main', '--identity', 'alice', '--reason', 'hook was off during an upgrade; m1 reviewed');
  assert.is(ack.status, 0, ack.stdout + ack.stderr);
  const last = logEntries(r.bare).pop()!;
  assert.equal(last.acknowledgement!.refs[0]!.findings, [{ code: 'LOG_UNGATED', entry: ungatedSeq, commit: m1 }]);
  v = verifyLog(r.bare, pub());
  assert.is(v.status, 0, v.text);
  assert.equal(v.findings.map((f) => [f.code, (f as { severity?: string }).severity]), [['LOG_UNGATED', 'info']]);
  // Nothing left to acknowledge: refused, exit 2.
  const nothing = acknowledge(r.bare, '--ref', 'main', '--identity', 'alice', '--reason', 'again');
  assert.is(nothing.status, 2);
  assert.match(nothing.stderr, /nothing to acknowledge on refs\/heads\/main/);

  // Both hooks aside now: a gap at the tip, closed, until acknowledged in its turn.
  renameSync(join(r.bare, 'hooks'), join(r.bare, 'hooks.off'));
  const m2 = advance(r.work, 2);
  assert.is(push(r.work, ['origin', 'main']).status, 0);
  renameSync(join(r.bare, 'hooks.off'), join(r.bare, 'hooks'));
  v = verifyLog(r.bare, pub());
  assert.is(v.status, 1, v.text);
  assert.equal(v.findings.filter((f) => (f as { severity?: string }).severity === 'closed').map((f) => [f.code, f.commit]), [['LOG_GAP', m2]]);
  assert.is(acknowledge(r.bare, '--ref', 'main', '--identity', 'release-bot', '--reason', 'second upgrade window').status, 0);
  v = verifyLog(r.bare, pub());
  assert.is(v.status, 0, v.text);
  const json = logJson(r.bare);
  assert.equal(json.acknowledgements.map((a: { identity: string }) => a.identity), ['alice', 'release-bot']);
});

test('a push the log could not record (its key unreadable: the entry is never written) has the same way out', () => {
  const r = fresh('unlogged');
  const key = `${keyPrefix}.key`;
  // The key moved away for one push: the update is applied, the entry is not written.
  const m1 = advance(r.work, 1);
  renameSync(key, `${key}.away`);
  try {
    assert.is(push(r.work, ['origin', 'main']).status, 0);
  } finally {
    renameSync(`${key}.away`, key);
  }
  const audit = readFileSync(join(r.bare, 'receipt-gate', 'audit.jsonl'), 'utf8');
  assert.match(audit, /"event":"unlogged"/);
  // The next push is logged; its entry starts where the unlogged push left main: a gap
  // between two entries.
  advance(r.work, 2);
  assert.is(push(r.work, ['origin', 'main']).status, 0);
  let v = verifyLog(r.bare, pub());
  assert.is(v.status, 1, v.text);
  assert.equal(v.findings.map((f) => [f.code, f.commit]), [['LOG_GAP', m1]]);
  const gapEntry = logEntries(r.bare).pop()!.seq;
  const ack = acknowledge(r.bare, '--ref', 'main', '--identity', 'alice', '--reason', 'log key was unreadable during a disk incident');
  assert.is(ack.status, 0, ack.stdout + ack.stderr);
  assert.equal(logEntries(r.bare).pop()!.acknowledgement!.refs[0]!.findings, [{ code: 'LOG_GAP', entry: gapEntry, commit: m1 }]);
  v = verifyLog(r.bare, pub());
  assert.is(v.status, 0, v.text);
});

test('a tampered, forged or unsigned acknowledgement closes; so does a signed one that names another finding', async () => {
  const r = fresh('tampered');
  const m1 = advance(r.work, 1);
  assert.is(push(r.work, ['origin', 'main']).status, 0);
  const m0 = refOid(r.bare, 'refs/heads/main~1')!;
  gitValue(r.bare, ['-c', 'core.hooksPath=/dev/null', 'update-ref', 'refs/heads/main', m0, m1]);
  assert.is(acknowledge(r.bare, '--ref', 'main', '--identity', 'alice', '--reason', 'reviewed').status, 0);
  assert.is(verifyLog(r.bare, pub()).status, 0);
  const ackCommit = refOid(r.bare, 'refs/receipt-gate/log')!;
  const parent = gitValue(r.bare, ['rev-parse', `${ackCommit}^`]);
  const message = gitValue(r.bare, ['log', '-1', '--format=%B', ackCommit]);
  const envelope = JSON.parse(message.split('\n').filter(Boolean).pop()!) as { payload: string; signatures: { keyid: string; sig: string }[] };
  const { writeLoose, EMPTY_TREE } = await import('../../src/pushlog/append');
  const commitWith = (text: string) =>
    writeLoose(join(r.bare, 'objects'), 'commit', Buffer.from(`tree ${EMPTY_TREE}\nparent ${parent}\nauthor receipt-gate <receipt-gate@localhost> 1764000000 +0000\ncommitter receipt-gate <receipt-gate@localhost> 1764000000 +0000\n\nacknowledge\n\n${text}\n`));
  const setLog = (commit: string) => gitValue(r.bare, ['update-ref', 'refs/receipt-gate/log', commit]);

  // Tampered: the reason (and the owner) edited in the signed payload.
  const statement = JSON.parse(Buffer.from(envelope.payload, 'base64').toString('utf8'));
  statement.predicate.identity = 'mallory';
  const edited = { ...envelope, payload: Buffer.from(JSON.stringify(statement)).toString('base64') };
  setLog(commitWith(JSON.stringify(edited)));
  let v = verifyLog(r.bare, pub());
  assert.is(v.status, 1, v.text);
  assert.equal(codes(v), ['LOG_SIGNATURE']);

  // Unsigned: the same payload with no signature.
  setLog(commitWith(JSON.stringify({ ...envelope, signatures: [] })));
  v = verifyLog(r.bare, pub());
  assert.equal(codes(v), ['LOG_SIGNATURE']);

  // Forged: a well-formed acknowledgement signed with another key, chained as the server would.
  const other = join(r.root, 'other');
  assert.is(execCli(['keygen', '--out', other]).status, 0);
  const { signEntry } = await import('../../src/pushlog/entry');
  const { loadPrivateKey } = await import('../../src/receipt/dsse');
  const forged = signEntry(statement.predicate, loadPrivateKey(readFileSync(`${other}.key`, 'utf8'), 'other'));
  setLog(commitWith(forged.text));
  v = verifyLog(r.bare, pub());
  assert.equal(codes(v), ['LOG_SIGNATURE']);
  // The runbook: acknowledge refuses a tip the key does not verify; the log set back to the
  // newest entry the key signed verifies again.
  const refused = acknowledge(r.bare, '--ref', 'main', '--identity', 'alice', '--reason', 'x');
  assert.is(refused.status, 2, refused.stdout + refused.stderr);
  assert.match(refused.stderr, /the log itself is not trusted \(LOG_SIGNATURE/);

  // An edited acknowledgement below a later entry breaks the chain of digests.
  setLog(ackCommit);
  assert.is(verifyLog(r.bare, pub()).status, 0);
  gitValue(r.work, ['fetch', '-q', 'origin', '+main:refs/remotes/origin/main']);
  gitValue(r.work, ['checkout', '-q', '-B', 'main', 'origin/main']);
  advance(r.work, 2);
  assert.is(push(r.work, ['origin', 'main']).status, 0);
  const top = refOid(r.bare, 'refs/receipt-gate/log')!;
  const topText = gitValue(r.bare, ['cat-file', 'commit', top]);
  const swapped = commitWith(JSON.stringify(edited));
  setLog(writeLoose(join(r.bare, 'objects'), 'commit', Buffer.from(`${topText.replace(`parent ${ackCommit}`, `parent ${swapped}`)}\n`)));
  v = verifyLog(r.bare, pub());
  assert.is(v.status, 1, v.text);
  assert.equal(codes(v), ['LOG_FORKED']);

  // Signed by the server's key, but naming a finding that is not the one the log holds: the
  // move stays closed (an acknowledgement covers exactly what it names).
  setLog(parent);
  gitValue(r.bare, ['-c', 'core.hooksPath=/dev/null', 'update-ref', 'refs/heads/main', m0]);
  statement.predicate.identity = 'alice';
  statement.predicate.acknowledgement.refs[0].findings = [{ code: 'LOG_UNGATED', entry: 1, commit: m0 }];
  const { appendEntries } = await import('../../src/pushlog/append');
  const key = loadPrivateKey(readFileSync(`${keyPrefix}.key`, 'utf8'), 'log');
  const rest = { ...statement.predicate };
  delete rest.seq;
  delete rest.prev;
  await appendEntries(r.bare, key, () => [rest]);
  v = verifyLog(r.bare, pub());
  assert.is(v.status, 1, v.text);
  assert.equal(v.findings.map((f) => [f.code, (f as { severity?: string }).severity, f.commit]), [['LOG_GAP', 'closed', m0]]);
  assert.match(v.findings[0]!.message, /without naming that move/);
});

test('the other way out (docs/push-log.md, Recovery): a move at the tip put back, with the hooks out of the way, verifies with no entry added', () => {
  const r = fresh('undo');
  const m1 = advance(r.work, 1);
  assert.is(push(r.work, ['origin', 'main']).status, 0);
  const length = logEntries(r.bare).length;
  const m0 = refOid(r.bare, 'refs/heads/main~1')!;
  gitValue(r.bare, ['-c', 'core.hooksPath=/dev/null', 'update-ref', 'refs/heads/main', m0, m1]);
  assert.equal(codes(verifyLog(r.bare, pub())), ['LOG_GAP']);
  gitValue(r.bare, ['-c', 'core.hooksPath=/dev/null', 'update-ref', 'refs/heads/main', m1, m0]);
  const v = verifyLog(r.bare, pub());
  assert.is(v.status, 0, v.text);
  assert.equal(v.findings, []);
  assert.is(logEntries(r.bare).length, length);
});

test('acknowledge refuses a log the key did not sign, and a ref the log has no finding on', () => {
  const r = fresh('refusals');
  const none = acknowledge(r.bare, '--ref', 'main', '--identity', 'alice', '--reason', 'nothing happened');
  assert.is(none.status, 2);
  assert.match(none.stderr, /nothing to acknowledge on refs\/heads\/main/);
  const other = join(r.root, 'other2');
  assert.is(execCli(['keygen', '--out', other]).status, 0);
  const wrong = execCli(['log', 'acknowledge', '--repo', r.bare, '--key', `${other}.key`, '--ref', 'main', '--identity', 'alice', '--reason', 'x']);
  assert.is(wrong.status, 2, wrong.stdout + wrong.stderr);
  assert.match(wrong.stderr, /the log itself is not trusted \(LOG_SIGNATURE/);
  // A mirror carries the log but is not where it is written: refused, nothing appended there.
  const mirror = join(r.root, 'mirror.git');
  gitValue(r.root, ['clone', '-q', '--mirror', r.bare, mirror]);
  const inMirror = acknowledge(mirror, '--ref', 'main', '--identity', 'alice', '--reason', 'x');
  assert.is(inMirror.status, 2, inMirror.stdout + inMirror.stderr);
  assert.match(inMirror.stderr, /is not a repository the push log is written in .*run this on the server/);
  const help = execCli(['log', '--help']);
  assert.is(help.status, 0);
  assert.match(help.stdout, /log acknowledge --repo REPO\.git --ref REF/);
});

test.run();
