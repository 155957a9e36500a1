// init's edits to the hook managers' configuration, held against an independent YAML reader
// (Debian's python3-yaml, the one the pre-commit framework itself loads its config with):
// the edited file means what the project had plus the gate's commands, first; a second
// run changes nothing. Detection picks the manager that owns the hooks.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { execFileSync } from 'node:child_process';
import { rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ConfigShapeError, mergeLefthook, mergePreCommitConfig, type LefthookCommand, type PreCommitHook } from '../../src/client/hook-config';
import { addOwnersToPolicyText } from '../../src/client/init';
import { detectHookManager, majorOf, type ProjectView } from '../../src/client/managers';
import { ObjectStore } from '../../src/git/store';
import { LocalRepo } from './local';

const yaml = (text: string): unknown =>
  JSON.parse(execFileSync('/usr/bin/python3', ['-c', 'import sys, json, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))'], { input: text, encoding: 'utf8' }));

const LEFTHOOK: LefthookCommand[] = [
  { hook: 'pre-commit', name: 'receipt-gate', run: 'node_modules/.bin/receipt-gate pre-commit', useStdin: false },
  { hook: 'pre-push', name: 'receipt-gate', run: 'node_modules/.bin/receipt-gate pre-push {1} {2}', useStdin: true },
];
const PRE_COMMIT: PreCommitHook[] = [
  { id: 'receipt-gate-pre-commit', name: 'receipt-gate pre-commit', entry: 'receipt-gate pre-commit', stage: 'commit' },
  { id: 'receipt-gate-pre-push', name: 'receipt-gate pre-push', entry: 'receipt-gate pre-push', stage: 'push' },
];

test('lefthook: commands maps, jobs lists and hooks with settings only, each read back by a YAML parser', () => {
  const cases = [
    'pre-commit:\n  parallel: true\n  commands:\n    lint:\n      run: eslint {staged_files}\n# trailing comment\n',
    'pre-push:\n    jobs:\n      -   name: test\n          run: npm test\npre-commit:\n    piped: true\n',
    '',
    'colors: false\n',
  ];
  for (const text of cases) {
    const merged = mergeLefthook(text, LEFTHOOK, 'lefthook.yml');
    assert.ok(merged.text !== null, text);
    const before = (yaml(text) ?? {}) as Record<string, Record<string, unknown>>;
    const after = yaml(merged.text!) as Record<string, Record<string, unknown>>;
    for (const hook of ['pre-commit', 'pre-push']) {
      const h = after[hook]!;
      const gate = Array.isArray(h.jobs) ? (h.jobs as Record<string, unknown>[])[0] : Object.values(h.commands as Record<string, unknown>)[0];
      assert.equal(gate, hook === 'pre-push' ? { ...(Array.isArray(h.jobs) ? { name: 'receipt-gate' } : {}), run: LEFTHOOK[1]!.run, use_stdin: true } : { ...(Array.isArray(h.jobs) ? { name: 'receipt-gate' } : {}), run: LEFTHOOK[0]!.run }, `${hook} in ${JSON.stringify(text)}`);
      // Everything the project had is still there.
      for (const [key, value] of Object.entries(before[hook] ?? {})) {
        if (key === 'commands') for (const [name, cmd] of Object.entries(value as object)) assert.equal((h.commands as Record<string, unknown>)[name], cmd);
        else if (key === 'jobs') assert.equal((h.jobs as unknown[]).slice(1), value);
        else assert.equal(h[key], value);
      }
    }
    assert.equal(mergeLefthook(merged.text!, LEFTHOOK, 'lefthook.yml'), { text: null, notes: [] }, 'idempotent');
  }
  // The project already runs the gate its own way: nothing is added to that hook.
  assert.is(mergeLefthook('pre-commit:\n  commands:\n    gate:\n      run: npx receipt-gate pre-commit\n', LEFTHOOK.slice(0, 1), 'f').text, null);
  assert.throws(() => mergeLefthook('pre-commit: { commands: {} }\n', LEFTHOOK, 'f'), (e: unknown) => e instanceof ConfigShapeError);
});

test('pre-commit framework: a repo: local entry first, the pre-push hook type installed; read back by a YAML parser', () => {
  const cases = [
    'repos:\n-   repo: https://github.com/pre-commit/pre-commit-hooks\n    rev: v4.6.0\n    hooks:\n    -   id: check-yaml\n',
    'default_install_hook_types:\n  - pre-commit\nrepos:\n  - repo: local\n    hooks:\n      - id: x\n        name: x\n        entry: "true"\n        language: system\n',
    'default_install_hook_types: [commit-msg]\nrepos: []\n'.replace('repos: []\n', ''),
    '',
  ];
  for (const text of cases) {
    const merged = mergePreCommitConfig(text, PRE_COMMIT, '.pre-commit-config.yaml');
    const before = (yaml(text) ?? {}) as { repos?: unknown[]; default_install_hook_types?: string[] };
    const after = yaml(merged.text!) as { repos: { repo: string; hooks: Record<string, unknown>[] }[]; default_install_hook_types: string[] };
    assert.equal(after.repos[0], {
      repo: 'local',
      hooks: PRE_COMMIT.map((h) => ({ id: h.id, name: h.name, entry: h.entry, language: 'system', pass_filenames: false, always_run: true, verbose: true, stages: [h.stage] })),
    });
    assert.equal(after.repos.slice(1), before.repos ?? []);
    for (const t of ['pre-commit', 'pre-push', ...(before.default_install_hook_types ?? [])]) assert.ok(after.default_install_hook_types.includes(t), t);
    assert.equal(mergePreCommitConfig(merged.text!, PRE_COMMIT, 'f'), { text: null, notes: [] }, 'idempotent');
  }
});

test('detection: the manager that owns the hooks wins; husky majors from the installation, the range, the hook files', () => {
  const view = (files: Record<string, string>, extra: Partial<ProjectView> = {}): ProjectView => ({
    read: (p) => files[p] ?? null,
    exists: (p) => p in files || Object.keys(files).some((f) => f.startsWith(`${p}/`)),
    isDirectory: (p) => Object.keys(files).some((f) => f.startsWith(`${p}/`)),
    list: (d) => Object.keys(files).filter((f) => f.startsWith(`${d}/`)).map((f) => f.slice(d.length + 1)),
    pkg: files['package.json'] ? JSON.parse(files['package.json']) : null,
    hooksPath: null,
    hooksDir: '/repo/.git/hooks',
    ...extra,
  });
  const kind = (v: ProjectView) => {
    const m = detectHookManager(v);
    return m.kind === 'husky' ? `husky${m.major}` : m.kind;
  };
  assert.is(kind(view({ 'lefthook.yml': '' })), 'lefthook');
  assert.is(kind(view({ '.lefthook.yml': '', 'package.json': '{}' })), 'lefthook');
  assert.is(kind(view({ '.pre-commit-config.yaml': '' })), 'pre-commit');
  assert.is(kind(view({ 'package.json': '{"simple-git-hooks": {}}' })), 'simple-git-hooks');
  assert.is(kind(view({ '.simple-git-hooks.json': '{}' })), 'simple-git-hooks');
  assert.is(kind(view({ 'package.json': '{"devDependencies": {"husky": "^6.0.0"}}' })), 'husky6');
  assert.is(kind(view({ 'package.json': '{"devDependencies": {"husky": "^9.0.0"}}', 'node_modules/husky/package.json': '{"version": "8.0.3"}' })), 'husky8');
  assert.is(kind(view({ 'package.json': '{}', '.husky/pre-commit': '#!/bin/sh\n. "$(dirname "$0")/_/husky.sh"\nnpx lint-staged\n' })), 'husky8');
  assert.is(kind(view({ 'package.json': '{"husky": {"hooks": {"pre-commit": "lint-staged"}}}' })), 'husky4');
  assert.is(kind(view({ '.huskyrc': '{}' })), 'husky4');
  assert.is(kind(view({ 'package.json': '{}', '.husky/pre-commit': 'npm test\n' })), 'husky9');
  assert.is(kind(view({ 'package.json': '{}' })), 'new-husky');
  assert.is(kind(view({})), 'git-hooks');
  assert.is(kind(view({ 'package.json': '{}', '/repo/.git/hooks/pre-commit': '#!/bin/sh\nmake lint\n' })), 'git-hooks', 'existing plain hooks are kept, not replaced by husky');
  assert.is(kind(view({ 'package.json': '{}' }, { hooksPath: '.githooks' })), 'git-hooks');
  assert.is(kind(view({ 'lefthook.yml': '', 'package.json': '{"devDependencies": {"husky": "9"}}' }, { hooksPath: '.husky/_' })), 'husky9', 'core.hooksPath names the owner');
  assert.equal([majorOf('^6.0.0'), majorOf('~8.0.1'), majorOf('npm:husky@6.0.0'), majorOf('>=5'), majorOf('latest'), majorOf('9')], [6, 8, 6, 5, null, 9]);
});

test('init keeps CRLF files CRLF, refuses a SHA-256 repository before writing, and adds owners in the layout', async () => {
  const repo = new LocalRepo('init-crlf');
  try {
    repo.write('package.json', '{\r\n  "name": "crlf",\r\n  "scripts": {\r\n    "test": "jest"\r\n  }\r\n}\r\n');
    repo.write('.husky/pre-commit', 'npx lint-staged\r\nnpm test\r\n');
    const r = await repo.cli(['init', '--owner', 'alice@example.com']);
    assert.is(r.code, 0, r.stderr);
    assert.is(repo.read('.husky/pre-commit'), 'receipt-gate pre-commit\r\nnpx lint-staged\r\nnpm test\r\n');
    const pkg = repo.read('package.json');
    assert.ok(pkg.includes('\r\n') && !/[^\r]\n/.test(pkg), 'every line ends CRLF');
    assert.is(JSON.parse(pkg).scripts.test, 'jest');
  } finally {
    repo.remove();
  }

  const sha256 = new LocalRepo('init-sha256');
  try {
    rmSync(join(sha256.dir, '.git'), { recursive: true, force: true });
    sha256.git('init', '-q', '--object-format=sha256', '--initial-branch=main', '.');
    sha256.git('config', 'user.email', 'alice@example.com');
    const r = await sha256.cli(['init', '--owner', 'alice']);
    assert.is(r.code, 2);
    // The same sentence the object store gives every command that opens the repository.
    const refusal = await ObjectStore.discover(sha256.dir, sha256.env).then(
      (store) => (store.close(), 'opened'),
      (err: Error) => err.message,
    );
    assert.match(refusal, /sha256/i);
    assert.ok(r.stderr.includes(refusal), r.stderr);
    assert.match(r.stderr, /Nothing was written\./);
    assert.throws(() => statSync(join(sha256.dir, '.receipt-gate.json')));
  } finally {
    sha256.remove();
  }

  assert.is(addOwnersToPolicyText('{"owners": ["a"], "version": 1}', ['b', 'c']), '{"owners": ["a", "b", "c"], "version": 1}');
  assert.is(addOwnersToPolicyText('{\n  "owners": [\n    "a"\n  ]\n}\n', ['b']), '{\n  "owners": [\n    "a",\n    "b"\n  ]\n}\n');
  assert.is(addOwnersToPolicyText('{"owners": []}', ['b']), '{"owners": ["b"]}');
});

test.run();
