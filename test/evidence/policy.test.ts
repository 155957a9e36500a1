import { test } from 'uvu';
import * as assert from 'uvu/assert';
import picomatch from 'picomatch';
import policySchema from '../../schemas/policy.schema.json';
import {
  DEFAULT_EPOCH,
  DEFAULT_FIXTURES,
  DEFAULT_FREEZE,
  DEFAULT_IDENTITY_ENV,
  DEFAULT_LIMITS,
  DEFAULT_MANIFEST,
  DEFAULT_LIFT_AFTER_PASSES,
  DEFAULT_OBSERVATIONS,
  escapeGlob,
  evidencePaths,
  parsePolicy,
} from '../../src/evidence/policy';
import { validateAgainst } from '../../src/evidence/schema';
import type { Policy } from '../../src/evidence/types';
import { json } from './evidence-helpers';

const bytes = (text: string) => new TextEncoder().encode(text);

// README.md's example policy, verbatim.
const SPEC_POLICY = `{
  "version": 1,
  "baseBranch": "main",
  "protectedRefs": ["refs/heads/main", "refs/heads/release/**"],
  "protected": ["properties/**", "fixtures/**", "freeze.json", "freezes/**", "observations/**",
                "checks/**", "tools/patch_receipt.py", ".github/workflows/**", ".husky/**",
                ".gitattributes", "**/.gitattributes", ".gitmodules"],
  "exceptions": ["fixtures/**/*.md"],
  "owners": ["alice", "release-bot"],
  "identityEnv": ["GITHUB_USER_LOGIN", "GL_USERNAME", "GITEA_PUSHER_NAME", "GL_USER", "REMOTE_USER"],
  "epoch":    { "pin": "fixtures/EPOCH" },
  "manifest": { "path": "checks/manifest.json", "catalog": "checks/properties.json" },
  "freeze":   { "path": "freeze.json", "reasons": ["timing", "network", "order", "infra"], "maxDays": 14 },
  "observations": { "dir": "observations", "freezes": "freezes" },
  "fixtures": { "records": "fixtures/*.json" },
  "limits":   { "timeoutMs": 4000, "maxEvidenceBytes": 1048576 }
}`;

function parsed(text: string): Policy {
  const r = parsePolicy(bytes(text));
  if (!r.ok) throw new Error(r.findings.map((f) => f.message).join('\n'));
  return r.policy;
}

function failures(text: string) {
  const r = parsePolicy(bytes(text), '.receipt-gate.json');
  assert.not.ok(r.ok, `expected ${text} to be refused`);
  return r.ok ? [] : r.findings;
}

test('the README example policy parses to itself', () => {
  const policy = parsed(SPEC_POLICY);
  assert.equal(policy, JSON.parse(SPEC_POLICY));
});

test('a fully populated Policy (typed as Policy) validates against the schema', () => {
  const full: Policy = JSON.parse(SPEC_POLICY) as Policy;
  const typed: Required<Omit<Policy, 'contexts'>> = { // contexts are resolved (each with its own policy), not the file form
    version: 1,
    baseBranch: full.baseBranch,
    protectedRefs: full.protectedRefs,
    protected: full.protected,
    exceptions: full.exceptions,
    owners: full.owners,
    identityEnv: full.identityEnv,
    epoch: { pin: 'fixtures/EPOCH' },
    manifest: { path: 'checks/manifest.json', catalog: 'checks/properties.json' },
    freeze: { path: 'freeze.json', reasons: ['timing'], maxDays: 14 },
    observations: { dir: 'observations', freezes: 'freezes', liftAfterPasses: 5 },
    fixtures: { records: 'fixtures/*.json' },
    limits: { timeoutMs: 4000, maxEvidenceBytes: 1048576 },
    grader: { minTrials: 200, network: false },
  };
  assert.equal(validateAgainst('policy.schema.json', typed), []);
  // Every key of the type is a property of the schema, and the other way round (contexts: see
  // test/contexts/policy.test.ts, the parsed form differs from the file form).
  assert.equal([...Object.keys(typed), 'contexts'].sort(), Object.keys(policySchema.properties).sort());
  const sections = policySchema.properties as unknown as Record<string, { properties?: Record<string, unknown> }>;
  for (const [key, value] of Object.entries(typed)) {
    if (value && typeof value === 'object' && !Array.isArray(value)) {
      assert.equal(Object.keys(value).sort(), Object.keys(sections[key]!.properties ?? {}).sort(), key);
    }
  }
});

test('defaults: the minimal policy', () => {
  const policy = parsed('{"version": 1}');
  assert.equal(policy, {
    version: 1,
    baseBranch: 'main',
    protectedRefs: ['refs/heads/main'],
    protected: [],
    exceptions: [],
    owners: [],
    identityEnv: DEFAULT_IDENTITY_ENV,
    limits: DEFAULT_LIMITS,
  });
  assert.equal(DEFAULT_IDENTITY_ENV, ['GITHUB_USER_LOGIN', 'GL_USERNAME', 'GITEA_PUSHER_NAME', 'GL_USER', 'REMOTE_USER']);
  assert.equal(DEFAULT_LIMITS, { timeoutMs: 4000, maxEvidenceBytes: 1048576 });
  // The defaulted keys are exactly the schema's top-level properties minus the optional sections.
  const sections = ['epoch', 'manifest', 'freeze', 'observations', 'fixtures', 'grader', 'contexts'];
  assert.equal(
    Object.keys(policy).sort(),
    Object.keys(policySchema.properties).filter((k) => !sections.includes(k)).sort(),
  );
  assert.equal(policySchema.required, ['version']);
});

test('defaults: protectedRefs follows baseBranch; empty sections take the documented defaults (docs/evidence.md)', () => {
  const policy = parsed(json({ version: 1, baseBranch: 'trunk', epoch: {}, manifest: {}, freeze: {}, observations: {}, fixtures: {}, limits: { timeoutMs: 2000 } }));
  assert.equal(policy.protectedRefs, ['refs/heads/trunk']);
  assert.equal(policy.epoch, DEFAULT_EPOCH);
  assert.equal(policy.manifest, DEFAULT_MANIFEST, 'the catalog stays optional');
  assert.equal(policy.freeze, DEFAULT_FREEZE);
  assert.equal(DEFAULT_FREEZE, { path: 'freeze.json', reasons: ['timing', 'network', 'order', 'infra'], maxDays: 14 });
  assert.equal(policy.observations, DEFAULT_OBSERVATIONS);
  assert.equal(policy.fixtures, DEFAULT_FIXTURES);
  assert.equal(policy.limits, { timeoutMs: 2000, maxEvidenceBytes: 1048576 });
  // Every section's defaulted keys are the schema's keys for that section (catalog and
  // liftAfterPasses are optional; freeze review reads DEFAULT_LIFT_AFTER_PASSES when absent).
  const schemaSections = policySchema.properties as unknown as Record<string, { properties: Record<string, unknown> }>;
  for (const key of ['epoch', 'freeze', 'fixtures', 'limits'] as const) {
    assert.equal(Object.keys(policy[key]!).sort(), Object.keys(schemaSections[key]!.properties).sort(), key);
  }
  assert.equal(Object.keys(schemaSections.manifest!.properties).sort(), ['catalog', 'path']);
  assert.equal(Object.keys(schemaSections.observations!.properties).sort(), ['dir', 'freezes', 'liftAfterPasses']);
  assert.is(DEFAULT_LIFT_AFTER_PASSES, 5);
  assert.is(parsed(json({ version: 1, epoch: {}, observations: { liftAfterPasses: 3 } })).observations!.liftAfterPasses, 3);
});

test('absent sections stay absent; parsing does not share default arrays', () => {
  const a = parsed('{"version": 1, "freeze": {}}');
  assert.is(a.epoch, undefined);
  assert.is(a.observations, undefined);
  a.freeze!.reasons.push('mutated');
  a.identityEnv.push('MUTATED');
  const b = parsed('{"version": 1, "freeze": {}}');
  assert.equal(b.freeze!.reasons, ['timing', 'network', 'order', 'infra']);
  assert.not.ok(b.identityEnv.includes('MUTATED'));
});

test('POLICY_INVALID: version, types, unknown members, all listed with pointers', () => {
  const findings = failures(
    json({ version: 3, baseBranch: 'refs/heads/main', owners: 'alice', protected: [''], surprise: 1, freeze: { maxDays: -1, reasons: [] } }),
  );
  assert.ok(findings.every((f) => f.code === 'POLICY_INVALID' && f.path === '.receipt-gate.json'));
  const text = findings.map((f) => f.message).join('\n');
  for (const expected of [
    'at /version: expected one of 1, 2, found 3',
    'at /baseBranch: expected a branch name such as main (not a full ref), found "refs/heads/main"',
    'at /owners: expected an array, found "alice"',
    'at /protected/0: expected a non-empty picomatch glob (relative to the repository root: no leading or trailing /, no //), found ""',
    'at /surprise: unexpected member "surprise"',
    'at /freeze/maxDays: expected a whole number of days from 0 to 3650, found -1',
    'at /freeze/reasons: expected at least 1 item(s)',
  ]) {
    assert.match(text, expected);
  }
  assert.is(findings.length, 7, text);
  for (const f of findings) assert.match(f.fix, 'schemas/policy.schema.json');
});

test('POLICY_INVALID: a missing version, a float maxDays, a huge integer', () => {
  assert.match(failures('{}')[0]!.message, 'at /version: missing required member "version"');
  assert.match(failures('{"version": 1, "freeze": {"maxDays": 1.5}}')[0]!.message, 'at /freeze/maxDays');
  assert.match(
    failures('{"version": 1, "limits": {"maxEvidenceBytes": 100000000000000000000000000000}}')[0]!.message,
    'found 100000000000000000000000000000',
  );
  assert.match(failures('{"version": 1, "freeze": {"maxDays": NaN}}')[0]!.message, 'at /freeze/maxDays');
  assert.match(failures('{"version": true}')[0]!.message, 'at /version: expected one of 1, 2, found the boolean true');
});

test('POLICY_INVALID: evidence paths must be plain repository paths', () => {
  for (const bad of ['/etc/passwd', '../x', 'a/../b', 'a//b', 'dir/', 'a\\b', './x', '', 'a\nb', 'a\u001bb', 'a\u007f']) {
    const findings = failures(json({ version: 1, epoch: { pin: bad } }));
    assert.match(findings[0]!.message, 'at /epoch/pin: expected a repository path', bad);
  }
});

test('POLICY_INVALID: observations need an epoch, and folders apart from each other', () => {
  assert.match(failures('{"version": 1, "observations": {}}')[0]!.message, 'missing member "epoch", required when "observations" is present');
  assert.match(
    failures('{"version": 1, "epoch": {}, "observations": {"dir": "obs", "freezes": "obs/freezes"}}')[0]!.message,
    'must be separate folders',
  );
});

test('POLICY_INVALID: JSON syntax errors give line and column', () => {
  const f = failures('{\n  "version": 1,\n  "owners": [alice]\n}');
  assert.is(f.length, 1);
  assert.match(f[0]!.message, 'JSON syntax error at line 3, column 14');
  assert.match(failures('')[0]!.message, 'line 1, column 1');
  assert.match(failures('{"version": 1} x')[0]!.message, 'Extra data');
});

test('POLICY_INVALID: globs that are malformed, can match no git path, or backtrack, named with their pointer', () => {
  const findings = failures(
    json({
      version: 1,
      protectedRefs: ['refs/heads/main', 'refs/heads/{release'],
      protected: ['fixtures/**', 'freeze.json', 'checks/**', 'data/*.{json,yaml', '/etc/**', 'dir/', 'a//b', '+(a|aa)*(b)', '+(+(a))', '@(a*)'],
      exceptions: ['fixtures/**/*.md', 'fixtures/[ab'],
      fixtures: { records: 'fixtures/(a|b).json' },
    }),
  );
  assert.ok(findings.every((f) => f.code === 'POLICY_INVALID' && f.path === '.receipt-gate.json'));
  const text = findings.map((f) => f.message);
  const expected: [string, string, RegExp][] = [
    ['/protectedRefs/1', 'refs/heads/{release', /unbalanced \{/],
    ['/protected/3', 'data/*.{json,yaml', /unbalanced \{/],
    ['/protected/4', '/etc/**', /no leading or trailing \/|starts with \//],
    ['/protected/5', 'dir/', /no leading or trailing \/|ends with \//],
    ['/protected/6', 'a//b', /no \/\/|empty segment/],
    ['/protected/7', '+(a|aa)*(b)', /backtracks/],
    ['/protected/8', '+(+(a))', /nested/],
    ['/protected/9', '@(a*)', /inside an extglob/],
    ['/exceptions/1', 'fixtures/[ab', /unbalanced \[/],
    ['/fixtures/records', 'fixtures/(a|b).json', /bare \(/],
  ];
  for (const [pointer, glob, reason] of expected) {
    const line = text.find((m) => m.includes(`at ${pointer}:`));
    assert.ok(line, `${pointer} in:\n${text.join('\n')}`);
    assert.match(line!, JSON.stringify(glob));
    assert.match(line!, reason);
  }
  assert.ok(!text.some((m) => /\/protected\/[012]:|\/exceptions\/0:|\/protectedRefs\/0:/.test(m)), text.join('\n'));
});

test('POLICY_INVALID: an evidence path too deep to match', () => {
  const deep = Array.from({ length: 35 }, () => 'd').join('/');
  const f = failures(json({ version: 1, epoch: { pin: deep } }));
  assert.is(f.length, 1);
  assert.match(f[0]!.message, `at /epoch/pin: "${deep}" is not a usable path: it has more than 31 segments`);
});

test('globs the policy accepts: the README example forms, braces, classes, simple extglobs', () => {
  const policy = parsed(
    json({
      version: 1,
      protectedRefs: ['refs/heads/main', 'refs/heads/release/**', 'refs/tags/v[0-9]*'],
      protected: ['fixtures/**', '**/.gitattributes', 'data/*.{json,yaml}', 'v{1..3}/x', '@(a|b)/c', '+(x)y', 'docs/[^_]*.md', 'a\\*b'],
      exceptions: ['fixtures/**/*.md'],
    }),
  );
  assert.is(policy.protected.length, 8);
});

test('duplicate keys are last-wins; __proto__ is an unknown member and pollutes nothing', () => {
  assert.equal(parsed('{"version": 1, "owners": ["mallory"], "owners": ["alice"]}').owners, ['alice']);
  const f = failures('{"version": 1, "__proto__": {"owners": ["mallory"]}}');
  assert.equal(f.map((x) => x.message), ['.receipt-gate.json is not a valid policy: at /__proto__: unexpected member "__proto__" (allowed: version, baseBranch, protectedRefs, protected, exceptions, owners, identityEnv, epoch, manifest, freeze, observations, fixtures, grader, contexts, limits).']);
  assert.is(({} as Record<string, unknown>).owners, undefined);
  const g = failures('{"version": 1, "freeze": {"__proto__": {"maxDays": 999}}}');
  assert.match(g[0]!.message, 'at /freeze/__proto__: unexpected member');
});

test('an oversized policy is LIMIT_EXCEEDED', () => {
  const big = `{"version": 1, "owners": ["${'a'.repeat(DEFAULT_LIMITS.maxEvidenceBytes)}"]}`;
  const r = parsePolicy(bytes(big));
  assert.not.ok(r.ok);
  if (!r.ok) assert.equal(r.findings.map((f) => f.code), ['LIMIT_EXCEEDED']);
});

test('evidencePaths: every evidence file the policy names, literal paths escaped', () => {
  const policy = parsed(SPEC_POLICY);
  assert.equal(evidencePaths(policy), [
    'fixtures/EPOCH',
    'checks/manifest.json',
    'checks/properties.json',
    'freeze.json',
    'observations/**',
    'freezes/**',
    'fixtures/*.json',
  ]);
  assert.equal(evidencePaths(parsed('{"version": 1}')), []);
  const odd = parsed(json({ version: 1, epoch: { pin: 'fix[tures]/EP*CH (1).json' }, observations: { dir: 'obs{a,b}', freezes: 'fr!' } }));
  const globs = evidencePaths(odd);
  const isMatch = picomatch(globs, { dot: true });
  assert.ok(isMatch('fix[tures]/EP*CH (1).json'));
  assert.not.ok(isMatch('fixt/EPOCH (1).json'));
  assert.ok(isMatch('obs{a,b}/x.json'));
  assert.not.ok(isMatch('obsa/x.json'));
  assert.ok(isMatch('fr!/k.json'));
  assert.is(escapeGlob('a*b'), 'a\\*b');
});

test.run();
