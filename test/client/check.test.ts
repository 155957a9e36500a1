// `receipt-gate check FILE...` as lint-staged runs it: absolute paths into the working tree;
// findings on the named files only, with the file, the JSON pointer and what was expected.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fullPolicy, LocalRepo } from './local';

test('schema, digest and expiry errors on the named files; other files and other findings stay out', async () => {
  const repo = new LocalRepo('check');
  try {
    repo.write('.receipt-gate.json', fullPolicy({ epoch: undefined, observations: undefined, manifest: { path: 'checks/manifest.json' } }));
    repo.write('checks/manifest.json', `{"seed": 1, "properties": [{"name": "a"}], "manifest_sha256": "${'0'.repeat(64)}"}\n`);
    repo.write('freeze.json', '{"version": 1, "frozen": [{"id": "t", "reason": "timing", "expires": "2026-11-20", "added": "2026-11-10"}]}\n');
    repo.write('src/app.js', 'x\n');
    const at = (p: string) => join(repo.dir, p);

    const manifest = await repo.cli(['check', at('checks/manifest.json')]);
    assert.is(manifest.code, 1);
    assert.match(manifest.stderr, /MANIFEST_DIGEST/);
    assert.not.match(manifest.stderr, /FREEZE_EXPIRED/, 'findings on files not named stay out');

    const freeze = await repo.cli(['check', at('freeze.json')]);
    assert.is(freeze.code, 1);
    assert.match(freeze.stderr, /FREEZE_EXPIRED/);
    const beforeExpiry = await repo.cli(['check', at('freeze.json'), '--now', '2026-11-15']);
    assert.is(beforeExpiry.code, 0, beforeExpiry.stderr);

    repo.write('freeze.json', '{"version": 1, "frozen": [{"id": "t", "reason": "timing", "expires": "soon"}], "extra": 1}\n');
    const schema = await repo.cli(['check', at('freeze.json')]);
    assert.is(schema.code, 1);
    assert.match(schema.stderr, /FREEZE_INVALID .*freeze\.json.*\/frozen\/0\/expires/);
    assert.match(schema.stderr, /FREEZE_INVALID .*freeze\.json.*extra/);

    const code = await repo.cli(['check', at('src/app.js')]);
    assert.is(code.code, 0);
    // Clean: nothing but the one line that says which policy was read (no commit, no base yet).
    assert.is(code.stdout, '');
    assert.is(
      code.stderr,
      "receipt-gate check: notice: no base yet (no commit, no origin/main): checked against the policy proposed in the working tree (.receipt-gate.json); the base-side rules (the epoch pin's history, globs that match nothing at the base) apply from the first commit on\n",
    );

    const relative = await repo.cli(['check', 'freeze.json']);
    assert.is(relative.code, 1, 'a relative path is taken from the current directory');
  } finally {
    repo.remove();
  }
});

test('a broken policy closes; no policy or a file outside the working tree is a usage error', async () => {
  const repo = new LocalRepo('check-policy');
  const outside = mkdtempSync(join(tmpdir(), 'rg-outside-'));
  try {
    repo.write('freeze.json', '{"version": 1, "frozen": []}\n');
    const none = await repo.cli(['check', join(repo.dir, 'freeze.json')]);
    assert.is(none.code, 2);
    assert.match(none.stderr, /receipt-gate init/);

    repo.write('.receipt-gate.json', '{"version": 1, "freeze": {"maxDays": -1}}\n');
    const broken = await repo.cli(['check', join(repo.dir, '.receipt-gate.json')]);
    assert.is(broken.code, 1);
    assert.match(broken.stderr, /POLICY_INVALID .*\/freeze\/maxDays/);

    const away = await repo.cli(['check', join(outside, 'freeze.json')]);
    assert.is(away.code, 2);
    assert.match(away.stderr, /outside the working tree/);
  } finally {
    repo.remove();
    rmSync(outside, { recursive: true, force: true });
  }
});

test('--format: json, github and junit on stdout for lint-staged and CI; nothing named, nothing found, still a document', async () => {
  const repo = new LocalRepo('check-format');
  try {
    repo.write('.receipt-gate.json', fullPolicy({ epoch: undefined, observations: undefined, manifest: undefined }));
    repo.write('freeze.json', '{"version": 1, "frozen": [{"id": "t", "reason": "timing", "expires": "2026-11-20", "added": "2026-11-10"}]}\n');
    repo.write('src/app.js', 'x\n');
    const at = (p: string) => join(repo.dir, p);

    const json = await repo.cli(['check', at('freeze.json'), '--format', 'json']);
    assert.is(json.code, 1);
    const doc = JSON.parse(json.stdout);
    assert.is(doc.verdict, 'closed');
    assert.equal(doc.findings.map((f: { code: string; path: string }) => [f.code, f.path]), [['FREEZE_EXPIRED', 'freeze.json']]);
    assert.equal((await repo.cli(['check', at('freeze.json'), '--json'])).stdout, json.stdout);

    const gh = await repo.cli(['check', at('freeze.json'), '--format', 'github']);
    assert.match(gh.stdout, /^::error file=freeze\.json,title=FREEZE_EXPIRED::/m);

    const clean = await repo.cli(['check', at('src/app.js'), '--format', 'junit']);
    assert.is(clean.code, 0);
    assert.match(clean.stdout, /<testsuite name="receipt-gate check" tests="1" failures="0"/);
  } finally {
    repo.remove();
  }
});

test.run();
