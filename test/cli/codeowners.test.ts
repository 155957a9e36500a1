// The CODEOWNERS review lock on real repositories: init writes the marked block where the three
// forges look, `codeowners --write` refreshes it keeping the text around it, `codeowners --check`
// and `check .receipt-gate.json` report a block the policy has moved away from. The patterns are
// held against git's own gitignore matching (git check-ignore) and Python's re.fullmatch (Gitea
// reads Go regular expressions anchored at both ends): every path a protected glob matches is
// matched by its CODEOWNERS patterns.

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BEGIN, codeownersTargets, convertGlob, END, planBlock } from '../../src/client/codeowners';
import { parsePolicy } from '../../src/evidence/policy';
import { matcher } from '../../src/matchers';
import { LocalRepo, python } from '../client/local';

const POLICY = {
  version: 1,
  baseBranch: 'main',
  protected: ['fixtures/**', 'checks/**', 'freeze.json', '**/conftest.py', 'tools/patch_receipt.py'],
  exceptions: ['fixtures/**/*.md'],
  owners: ['alice', 'bob@example.com'],
  fixtures: { records: 'fixtures/*.json' },
};

function repoWith(files: Record<string, string>, name: string): LocalRepo {
  const repo = new LocalRepo(name);
  repo.write('.receipt-gate.json', `${JSON.stringify(POLICY, null, 2)}\n`);
  for (const [p, text] of Object.entries(files)) repo.write(p, text);
  repo.git('add', '.');
  repo.git('commit', '-q', '-m', 'start');
  return repo;
}

const block = (text: string) => text.slice(text.indexOf(BEGIN), text.indexOf(END) + END.length);

test('codeowners --write: the block in CODEOWNERS (all three forges read it), text around it kept, idempotent', async () => {
  const repo = repoWith({ CODEOWNERS: '# team rules\n* @everyone\n' }, 'co-write');
  try {
    const checked = await repo.cli(['codeowners', '--check']);
    assert.is(checked.code, 1);
    assert.match(checked.stderr, /CODEOWNERS \(read by GitHub, GitLab, Gitea\) has no receipt-gate block/);

    const w = await repo.cli(['codeowners', '--write']);
    assert.is(w.code, 0, w.stderr);
    assert.match(w.stdout, /wrote the receipt-gate block in CODEOWNERS \(read by GitHub, GitLab, Gitea\)/);
    assert.match(w.stdout, /next: git add CODEOWNERS/);
    const text = repo.read('CODEOWNERS');
    assert.ok(text.startsWith('# team rules\n* @everyone\n\n# BEGIN receipt-gate\n'), text);
    for (const line of ['/fixtures/ @alice bob@example.com', '/checks/ @alice bob@example.com', '/freeze.json @alice bob@example.com', 'conftest.py @alice bob@example.com', '/fixtures/*.json @alice bob@example.com', '/CODEOWNERS @alice bob@example.com', '(fixtures/.*) @alice bob@example.com', '((.*/)?conftest.py) @alice bob@example.com']) {
      assert.ok(text.split('\n').includes(line), `${line} in\n${text}`);
    }
    // The policy file is the last rule: the last matching line wins on GitHub and GitLab.
    const rules = block(text).split('\n').filter((l) => l !== '' && !l.startsWith('#'));
    assert.is(rules[rules.length - 1], '/.receipt-gate.json @alice bob@example.com');
    // No exception is written (owners review those too), and no inline comment (GitHub refuses them).
    assert.not.match(text, /\.md/);
    for (const rule of rules) assert.not.match(rule, /\s#/);

    assert.is((await repo.cli(['codeowners', '--check'])).code, 0);
    const again = await repo.cli(['codeowners', '--write']);
    assert.match(again.stdout, /up to date: nothing changed/);
    assert.is(repo.read('CODEOWNERS'), text);
  } finally {
    repo.remove();
  }
});

test('a policy that moves: codeowners --check and check .receipt-gate.json report the disagreement; --write mends it in place', async () => {
  const repo = repoWith({ CODEOWNERS: '* @everyone\n' }, 'co-drift');
  try {
    assert.is((await repo.cli(['codeowners', '--write'])).code, 0);
    repo.write('CODEOWNERS', `${repo.read('CODEOWNERS')}\n# after the block\n/docs/ @writers\n`);
    const policy = { ...POLICY, protected: [...POLICY.protected.filter((g) => g !== 'checks/**'), 'properties/**'] };
    repo.write('.receipt-gate.json', `${JSON.stringify(policy, null, 2)}\n`);

    const checked = await repo.cli(['codeowners', '--check']);
    assert.is(checked.code, 1);
    assert.match(checked.stderr, /the receipt-gate block of CODEOWNERS .* disagrees with \.receipt-gate\.json: it lacks '\(properties\/\.\*\) @alice bob@example\.com', '\/properties\/ @alice bob@example\.com'; it has '\(checks\/\.\*\) @alice bob@example\.com', '\/checks\/ @alice bob@example\.com', which the policy no longer asks for/);
    const lint = await repo.cli(['check', join(repo.dir, '.receipt-gate.json')]);
    assert.is(lint.code, 0, lint.stderr);
    assert.match(lint.stderr, /receipt-gate check: warning: the receipt-gate block of CODEOWNERS .* disagrees/);

    assert.is((await repo.cli(['codeowners', '--write'])).code, 0);
    const text = repo.read('CODEOWNERS');
    assert.ok(text.startsWith('* @everyone\n\n# BEGIN receipt-gate\n'));
    assert.ok(text.endsWith(`${END}\n\n# after the block\n/docs/ @writers\n`), text);
    assert.match(text, /^\/properties\/ @alice bob@example\.com$/m);
    assert.not.match(text, /checks/);
    assert.is((await repo.cli(['codeowners', '--check'])).code, 0);
    const quiet = await repo.cli(['check', join(repo.dir, '.receipt-gate.json')]);
    assert.not.match(quiet.stderr, /CODEOWNERS/);
  } finally {
    repo.remove();
  }
});

test('where each forge looks: an existing file is used; a forge with none gets a file that shadows no other', () => {
  const has = (...files: string[]) => (p: string) => files.includes(p);
  assert.equal(codeownersTargets(has()), [{ path: 'CODEOWNERS', forges: ['GitHub', 'GitLab', 'Gitea'] }]);
  assert.equal(codeownersTargets(has('docs/CODEOWNERS')), [{ path: 'docs/CODEOWNERS', forges: ['GitHub', 'GitLab', 'Gitea'] }]);
  // GitHub reads .github/ first: CODEOWNERS at the root serves GitLab and Gitea without shadowing it.
  assert.equal(codeownersTargets(has('.github/CODEOWNERS')), [
    { path: '.github/CODEOWNERS', forges: ['GitHub'] },
    { path: 'CODEOWNERS', forges: ['GitLab', 'Gitea'] },
  ]);
  // GitLab reads CODEOWNERS and docs/ before .gitlab/: the others get their own folders.
  assert.equal(codeownersTargets(has('.gitlab/CODEOWNERS')), [
    { path: '.github/CODEOWNERS', forges: ['GitHub'] },
    { path: '.gitlab/CODEOWNERS', forges: ['GitLab'] },
    { path: '.gitea/CODEOWNERS', forges: ['Gitea'] },
  ]);
  assert.equal(codeownersTargets(has('CODEOWNERS', '.github/CODEOWNERS')), [
    { path: '.github/CODEOWNERS', forges: ['GitHub'] },
    { path: 'CODEOWNERS', forges: ['GitLab', 'Gitea'] },
  ]);
});

test('with .github/CODEOWNERS: GitHub\'s file gets gitignore patterns only, CODEOWNERS both kinds', async () => {
  const repo = repoWith({ '.github/CODEOWNERS': '* @everyone\n' }, 'co-github');
  try {
    assert.is((await repo.cli(['codeowners', '--write'])).code, 0);
    const github = repo.read('.github/CODEOWNERS');
    assert.match(github, /^\/fixtures\/ @alice bob@example\.com$/m);
    assert.not.match(github, /^\(/m);
    assert.match(github, /# GitHub \(gitignore patterns\):/);
    const shared = repo.read('CODEOWNERS');
    assert.match(shared, /^\(fixtures\/\.\*\) @alice bob@example\.com$/m);
    assert.match(shared, /# GitLab and Gitea|# Gitea \(regular expressions\)/);
    assert.is((await repo.cli(['codeowners', '--check'])).code, 0);
  } finally {
    repo.remove();
  }
});

test('init writes the block (a second init changes nothing) and commits it with the rest', async () => {
  const repo = new LocalRepo('co-init');
  try {
    repo.write('src/app.py', 'print(1)\n');
    const first = await repo.cli(['init', '--owner', 'alice', '--no-install']);
    assert.is(first.code, 0, first.stderr);
    assert.match(first.stdout, /wrote CODEOWNERS \(read by GitHub, GitLab, Gitea\)/);
    const add = first.stdout.split('\n').map((l) => l.trim()).find((l) => l.startsWith('git add '));
    assert.ok(add?.split(' ').includes('CODEOWNERS'), add);
    const text = repo.read('CODEOWNERS');
    assert.match(text, /^\/fixtures\/ @alice$/m, 'guarded before fixtures/ exists');
    assert.match(text, /^\/\.receipt-gate\.json @alice$/m);
    const second = await repo.cli(['init', '--owner', 'alice', '--no-install']);
    assert.match(second.stdout, /nothing to change/);
    assert.is(repo.read('CODEOWNERS'), text);
    assert.is((await repo.cli(['codeowners', '--check'])).code, 0);
  } finally {
    repo.remove();
  }
});

test('bounded contexts: each context\'s own globs with its owners, the repository-wide ones with the repository\'s', () => {
  const parsed = parsePolicy(
    Buffer.from(
      JSON.stringify({
        version: 2,
        baseBranch: 'main',
        protected: ['.husky/**'],
        owners: ['alice'],
        contexts: [
          { name: 'billing', root: 'services/billing', owners: ['bob'], protected: ['fixtures/**'], fixtures: { records: 'fixtures/*.json' } },
          { name: 'search', root: 'services/search' },
        ],
      }),
    ),
  );
  assert.ok(parsed.ok);
  if (!parsed.ok) return;
  const plan = planBlock(parsed.policy);
  assert.equal(plan.gitignoreLines, [
    '/.husky/ @alice',
    '/services/billing/fixtures/ @bob',
    '/services/billing/fixtures/*.json @bob',
    '/.github/CODEOWNERS @alice',
    '/CODEOWNERS @alice',
    '/docs/CODEOWNERS @alice',
    '/.gitlab/CODEOWNERS @alice',
    '/.gitea/CODEOWNERS @alice',
    '/.receipt-gate.json @alice',
  ]);
  assert.ok(plan.regexLines.includes('(services/billing/fixtures/.*) @bob'));
  assert.not.ok(plan.gitignoreLines.some((l) => l.startsWith('/.husky/ @bob')), 'a repository-wide glob keeps the repository\'s owners');
});

/** Paths to hold the patterns against. */
const PATHS = [
  'fixtures/a.json', 'fixtures/orders/base.json', 'fixtures/EPOCH', 'fixtures/x.md', 'src/a/m.py', 'src/b/m.py', 'src/c/m.py', 'src/a/d/m.py',
  'conftest.py', 'tests/unit/conftest.py', 'lib/x/z', 'lib/y/z', 'lib/w/z', 'docs/ac.md', 'docs/bc.md', 'docs/cc.md', 'my dir/#x', 'my dir/x',
  '.github/workflows/ci.yml', 'pkg/.gitattributes', '.gitattributes', 'README.md', 'checks/manifest.json', 'a/b/c/d.txt', 'x.lock', 'sub/x.lock',
];
const GLOBS = ['fixtures/**', 'fixtures/*.json', 'src/{a,b}/*.py', '**/conftest.py', 'lib/+(x|y)/z', 'docs/[ab]c.md', 'my dir/#x', '.github/workflows/**', '**/.gitattributes', 'checks/manifest.json', '*.lock', 'a/**/d.txt'];

test('differential: every path a glob matches is matched by its gitignore patterns (git check-ignore) and its Gitea expression (re.fullmatch)', () => {
  const repo = new LocalRepo('co-diff');
  try {
    for (const glob of GLOBS) {
      const c = convertGlob(glob);
      const isMatch = matcher([glob]);
      const covered = PATHS.filter((p) => isMatch(p));
      assert.ok(covered.length > 0, `${glob} matches a sample path`);
      writeFileSync(join(repo.dir, '.gitignore'), `${c.gitignore.join('\n')}\n`);
      const r = python(
        [
          'import re, subprocess, sys, json',
          `paths = ${JSON.stringify(PATHS)}`,
          `regexes = ${JSON.stringify(c.regex)}`,
          'gi = subprocess.run(["git", "check-ignore", "--no-index", "--stdin"], input="\\n".join(paths) + "\\n", capture_output=True, text=True).stdout.split("\\n")',
          'rx = [p for p in paths if any(re.fullmatch(r, p) for r in regexes)]',
          'print(json.dumps({"gitignore": [p for p in gi if p], "regex": rx}))',
        ].join('\n'),
        { cwd: repo.dir },
      );
      const { gitignore, regex } = JSON.parse(r) as { gitignore: string[]; regex: string[] };
      for (const p of covered) {
        assert.ok(gitignore.includes(p), `${glob} → ${c.gitignore.join(', ')} misses ${p}`);
        assert.ok(regex.includes(p), `${glob} → ${c.regex.join(', ')} misses ${p}`);
      }
      if (c.exact) assert.equal(gitignore.filter((p) => !covered.includes(p)), [], `${glob} is said exactly: ${c.gitignore.join(', ')} covers only its paths`);
    }
    // The examples the documentation gives.
    assert.equal(convertGlob('fixtures/**').gitignore, ['/fixtures/']);
    assert.equal(convertGlob('**/conftest.py').gitignore, ['conftest.py']);
    assert.equal(convertGlob('lib/+(x|y)/z').gitignore, ['/lib/']);
    assert.not.ok(convertGlob('lib/+(x|y)/z').exact);
  } finally {
    repo.remove();
  }
});

test('codeowners --help describes every option in one line', async () => {
  const repo = new LocalRepo('co-help');
  try {
    const r = await repo.cli(['codeowners', '--help']);
    assert.is(r.code, 0);
    const options = r.stdout.split('\n').filter((l) => /^ {2}(-\w, )?--/.test(l));
    assert.is(options.length, 3);
    for (const line of options) assert.match(line, /^ {2}(-\w, )?--[\w-]+ {3}\S/, line);
  } finally {
    repo.remove();
  }
});

test.run();
