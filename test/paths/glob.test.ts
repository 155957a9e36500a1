// Policy globs (src/glob.ts): which globs are refused and why, agreement with picomatch on the
// globs accepted, and matching that is linear in the path's length (counted, not timed).

import { test } from 'uvu';
import * as assert from 'uvu/assert';
import fc from 'fast-check';
import picomatch from 'picomatch';
import { compileGlob, countedGlob, globBase, GlobError } from '../../src/glob';
import { refMatcher } from '../../src/matchers';
import { foldKey, pathSegments } from '../../src/paths';

const SEED = 20261201;

function refusal(glob: string, fold = true): string {
  try {
    compileGlob(glob, { fold });
  } catch (err) {
    if (err instanceof GlobError) return err.message;
    throw err;
  }
  return assert.unreachable(`${JSON.stringify(glob)} was accepted`) as never;
}

const matches = (glob: string, path: string) => compileGlob(glob, { fold: true }).matchSegments(pathSegments(path));

test('malformed globs are refused, with the reason', () => {
  const cases: [string, RegExp][] = [
    ['data/*.{json,yaml', /unbalanced \{/],
    ['data/*.json,yaml}', /unbalanced \}/],
    ['data/[ab', /unbalanced \[/],
    ['data/ab]', /unbalanced \]/],
    ['data/@(a|b', /unbalanced \(/],
    ['data/a)b', /unbalanced \)/],
    ['data/(a|b)', /bare \(/],
    ['a|b', /\| outside/],
    ['data/{a}', /without a comma/],
    ['x\\', /lone \\/],
    ['[]', /empty class/],
    ['[z-a]', /reversed range/],
    ['[[:nope:]]', /unknown POSIX class/],
    ['[!a]', /\[\^\.\.\.\]/],
    ['{1..a}', /mixes numbers and letters/],
    ['{1..100000}', /more than 256/],
    ['{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}', /more than 256 alternatives/],
    ['!fixtures/**', /leading !/],
    ['a/!(b)', /negated extglob/],
  ];
  for (const [glob, reason] of cases) assert.match(refusal(glob), reason, glob);
});

test('globs no git path can match are refused', () => {
  const cases: [string, RegExp][] = [
    ['', /empty/],
    ['/fixtures/**', /starts with \//],
    ['fixtures/', /ends with \//],
    ['fixtures/**/', /ends with \//],
    ['a//b', /empty segment/],
    ['{a,b/}/c', /empty segment/], // an alternative (b//c) no git path could take
    ['./fixtures/**', /"\." segment/],
    ['fixtures/../x', /"\.\." segment/],
    ['/', /starts with \//],
    [Array.from({ length: 40 }, () => 'a').join('/'), /more than 31 segments/],
  ];
  for (const [glob, reason] of cases) assert.match(refusal(glob), reason, glob);
});

test('globs picomatch backtracks on catastrophically are refused', () => {
  const cases: [string, RegExp][] = [
    ['+(a|aa)*(b)', /backtracks/],
    ['+(+(a))', /nested/],
    ['*(@(a|b))', /nested/],
    ['@(a*|b)', /\* inside an extglob/],
    ['+(*)', /\* inside an extglob/],
    ['*(ab|a)', /backtracks/],
    ['x/+(a|aa)', /backtracks/],
    ['@(**)', /\* inside an extglob/],
  ];
  for (const [glob, reason] of cases) assert.match(refusal(glob), reason, glob);
  // Ref globs are checked the same way.
  assert.match(refusal('refs/heads/+(a|aa)', false), /backtracks/);
  assert.match(refusal('refs/heads/{main', false), /unbalanced/);
});

test('the accepted forms, with what they match', () => {
  const yes: [string, string][] = [
    ['fixtures/**', 'fixtures'],
    ['fixtures/**', 'fixtures/a/b/c.json'],
    ['**/.gitattributes', '.gitattributes'],
    ['**/.gitattributes', 'a/b/.gitattributes'],
    ['a/**/b', 'a/b'],
    ['a/**/b', 'a/x/y/b'],
    ['fixtures/*.json', 'fixtures/.json'],
    ['*.{json,yaml}', 'x.yaml'],
    ['{a,b/c}/d', 'b/c/d'],
    ['v{1..3}/x', 'v2/x'],
    ['{a..c}', 'b'],
    ['[a-c]x', 'Bx'],
    ['[^a]x', 'bx'],
    ['[[:digit:]]x', '7x'],
    ['@(a|b)x', 'bx'],
    ['?(a|b)x', 'x'],
    ['+(a)x', 'aaax'],
    ['*(a)x', 'x'],
    ['+(a|b)x', 'abbax'],
    ['a\\*b', 'a*b'],
    ['a**b', 'axxb'],
    ['Fixtures/**', 'fIXTURES/x'],
    ['stra\u00dfe', 'STRASSE'],
    ['freeze.json', 'freeze.json::$DATA'],
    ['?', '\u00e9'],
  ];
  for (const [glob, path] of yes) assert.ok(matches(glob, path), `${glob} ~ ${path}`);
  const no: [string, string][] = [
    ['fixtures/**', 'fixturesx/a'],
    ['fixtures/*', 'fixtures/a/b'],
    ['a**b', 'ax/b'],
    ['[^a]x', 'ax'],
    ['a\\*b', 'axb'],
    ['fixtures/**', 'f\u0131xtures/a'],
    ['fixtures/**', '\uff46ixtures/a'],
    ['@(a|b)x', 'cx'],
    ['+(a)x', 'x'],
  ];
  for (const [glob, path] of no) assert.not.ok(matches(glob, path), `${glob} !~ ${path}`);
});

test('ref globs are case-sensitive and not folded', () => {
  const isProtected = refMatcher(['refs/heads/main', 'refs/heads/release/**']);
  assert.ok(isProtected('refs/heads/main'));
  assert.ok(isProtected('refs/heads/release/1.0'));
  assert.not.ok(isProtected('refs/heads/Main'));
  assert.not.ok(isProtected('refs/heads/main.'));
  assert.not.ok(isProtected('refs/heads/mainline'));
  assert.not.ok(refMatcher([])('refs/heads/main'));
});

test('differential: the accepted globs match what picomatch matches (dot: true, nocase) on folded paths', () => {
  // Globs and paths over a small alphabet, so that matches are frequent.
  const atom = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('a', 'b', '.', 'x') },
    { weight: 2, arbitrary: fc.constantFrom('*', '?', '[ab]', '[^a]', '[a-b]', '\\*') },
    { weight: 1, arbitrary: fc.constantFrom('{a,*}', '{a,b}', '{a,bb}', '{,a}', '@(a|b)', '?(a|x)', '+(a)', '*(b)', '+(a|b)', '{1..3}') },
  );
  const segment = fc.oneof({ weight: 1, arbitrary: fc.constant('**') }, { weight: 5, arbitrary: fc.array(atom, { minLength: 1, maxLength: 4 }).map((a) => a.join('')) });
  const glob = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
  const name = fc.array(fc.constantFrom('a', 'b', 'x', 'bb', '.', '1', '2', '*'), { minLength: 1, maxLength: 4 }).map((a) => a.join(''));
  const path = fc.array(name, { minLength: 1, maxLength: 5 }).map((s) => s.join('/'));
  let compared = 0;
  let matched = 0;
  fc.assert(
    fc.property(glob, fc.array(path, { minLength: 1, maxLength: 12 }), (g, paths) => {
      // A glob segment ending in a literal dot is folded as a name is (Win32 drops the dot);
      // picomatch keeps it. Those are compared in the alias tests instead.
      if (/\.(\/|$)/.test(g)) return true;
      let compiled;
      try {
        compiled = compileGlob(g, { fold: true });
      } catch (err) {
        if (err instanceof GlobError) return true;
        throw err;
      }
      const pm = picomatch(g, { dot: true, nocase: true });
      for (const p of paths) {
        const key = foldKey(p);
        // picomatch never matches "." or ".." segments; git paths never have them.
        if (key.split('/').some((s) => s === '' || s === '.' || s === '..')) continue;
        const ours = compiled.matchSegments(pathSegments(key));
        compared++;
        if (ours) matched++;
        if (ours !== pm(key)) throw new Error(`${g} on ${key}: ours ${ours}, picomatch ${pm(key)}`);
      }
      return true;
    }),
    { seed: SEED, numRuns: 10000 },
  );
  assert.ok(compared > 10_000 && matched > 1000, `${compared} compared, ${matched} matched`);
});

test('couldMatchBelow never misses: whenever some path below a prefix matches, it says so', () => {
  const atom = fc.constantFrom('a', 'b', 'x', '*', '?', '[ab]', '{a,b}', '@(a|x)', '+(b)');
  const segment = fc.oneof({ weight: 1, arbitrary: fc.constant('**') }, { weight: 4, arbitrary: fc.array(atom, { minLength: 1, maxLength: 3 }).map((a) => a.join('')) });
  const glob = fc.array(segment, { minLength: 1, maxLength: 4 }).map((s) => s.join('/'));
  const names = ['a', 'b', 'x', 'ab', 'ba', 'xa', 'bb', 'aa', 'axb', 'bab'];
  const prefix = fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 3 }).map((s) => s.join('/'));
  // Every suffix of one to three segments over the names.
  const suffixes: string[] = [];
  for (const a of names) {
    suffixes.push(a);
    for (const b of names) {
      suffixes.push(`${a}/${b}`);
      for (const c of names.slice(0, 4)) suffixes.push(`${a}/${b}/${c}`);
    }
  }
  let below = 0;
  fc.assert(
    fc.property(glob, prefix, (g, p) => {
      const compiled = compileGlob(g, { fold: true });
      const found = suffixes.some((s) => compiled.matchSegments(pathSegments(`${p}/${s}`)));
      const claimed = compiled.couldMatchBelow(pathSegments(p));
      if (found) below++;
      if (found && !claimed) throw new Error(`${g} matches below ${p}, couldMatchBelow says no`);
      // A literal glob reaches below exactly the folders it spells.
      if (compiled.literal && !g.includes('{') && claimed !== foldKey(g).startsWith(`${foldKey(p)}/`)) throw new Error(`${g}: literal glob, below ${p}: ${claimed}`);
      return true;
    }),
    { seed: SEED, numRuns: 1500 },
  );
  assert.ok(below > 200, `only ${below} prefixes had a match below`);
});

test('matching is linear in the path length for every accepted form (steps counted)', () => {
  const forms = [
    'fixtures/**',
    '**/.gitattributes',
    'a/**/b/**/c/**/d',
    '**/**/**/x',
    '*a*a*a*a*b',
    '*.{json,yaml}',
    '+(a)+(a)*(a)b',
    '+(a|b)*(a)?(a)b',
    '@(a|aa|aaa)@(a|aa)*b',
    '[a-z]*[a-z]*[a-z]*b',
    '**/*a*a*/**/*a*b',
    '?*?*?*b',
  ];
  const longest = Math.max(...forms.map((f) => f.length));
  for (const form of forms) {
    const { glob, counter } = countedGlob(form, { fold: true });
    assert.equal(glob.matchSegments(pathSegments('x')), compileGlob(form, { fold: true }).matchSegments(pathSegments('x')));
    const perChar: number[] = [];
    for (const n of [1000, 4000, 16000]) {
      // Adversarial inputs: long runs that almost match (no final b), deep paths that almost match.
      const inputs = ['a'.repeat(n), Array.from({ length: n / 4 }, () => 'a').join('/'), Array.from({ length: n / 8 }, () => 'aa').join('/') + '/ab/c'];
      for (const input of inputs) {
        counter.steps = 0;
        const segments = pathSegments(input);
        const plain = compileGlob(form, { fold: true });
        assert.is(glob.matchSegments(segments), plain.matchSegments(segments), `${form}: the counted glob matches as the glob does`);
        assert.is(glob.couldMatchBelow(segments), plain.couldMatchBelow(segments), `${form}: the counted glob reaches below as the glob does`);
        assert.ok(counter.steps > 0, `${form}: steps were counted`);
        perChar.push(counter.steps / input.length);
      }
    }
    // A bound independent of n: at most a constant times the glob's size per character.
    const worst = Math.max(...perChar);
    assert.ok(worst < 40 * longest, `${form}: ${worst} steps per character`);
    // And no growth with n: the per-character cost at 16,000 is no more than at 1,000 (+1 slack).
    assert.ok(perChar[6]! <= perChar[0]! + 1 && perChar[8]! <= perChar[2]! + 1, `${form}: ${perChar.join(', ')}`);
  }
});

test('picomatch itself would be slow on the refused forms (why they are refused)', () => {
  // The regex picomatch builds for a refused glob has a quantifier over an ambiguous group.
  const source = picomatch.makeRe('+(a|aa)*(b)', { dot: true }).source;
  assert.match(source, /\(\?:a\|aa\)\+/);
  assert.match(refusal('+(a|aa)*(b)'), /backtracks/);
});

test('globBase is picomatch.scan(glob).base, on random globs of every character the scan looks at', () => {
  const chars = ['a', 'b', '/', '.', '*', '?', '[', ']', '{', '}', ',', '(', ')', '!', '+', '@', '\\', ' ', '\u0000'];
  const globArb = fc.oneof(
    fc.array(fc.constantFrom(...chars), { maxLength: 14 }).map((cs) => cs.join('')),
    fc.constantFrom('fixtures/*.json', 'services/s00/fixtures/*.json', 'services/a\\(b\\)/fixtures/*.json', './fixtures/*.json', '!fixtures/*.json', 'a/b/c', '**/*.json', 'a/{b,c}/*.json', 'a/\\{b,c}/x/*', 'a/{b..c}/*', 'a/+(b)/c', 'a/b(c)/d', 'a/[bc]/d', 'a//b/*', ''),
  );
  fc.assert(
    fc.property(globArb, (glob) => {
      assert.is(globBase(glob), picomatch.scan(glob).base, JSON.stringify(glob));
    }),
    { seed: SEED, numRuns: 20000 },
  );
});

test.run();
