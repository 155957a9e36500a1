// Path matching for the policy. Globs are picomatch globs over the full repository path, dot
// files included, case-insensitive and on Unicode NFC forms: `Fixtures/x` and a decomposed
// `fixtures` name the same file as `fixtures/x` once a macOS or Windows checkout writes them.

import picomatch from 'picomatch';

/** The form both paths and globs are compared in. */
export function foldPath(path: string): string {
  return path.normalize('NFC').toLowerCase();
}

export type PathMatcher = (path: string) => boolean;

const cache = new Map<string, PathMatcher>();

/** A matcher for any of `globs`, applied to folded paths. */
export function matcher(globs: readonly string[]): PathMatcher {
  const key = JSON.stringify(globs);
  let m = cache.get(key);
  if (!m) {
    if (globs.length === 0) {
      m = () => false;
    } else {
      // flags 's': a `*` must match every character a git name may hold, LF and CR included
      // (without it `fixtures/**` misses `fixtures/a\nb.json`).
      const inner = picomatch(globs.map(foldPath), { dot: true, nocase: true, flags: 'is' });
      m = (path: string) => inner(foldPath(path));
    }
    cache.set(key, m);
  }
  return m;
}

/** True when `a` and `b` name the same file once folded (case and Unicode form). */
export function samePath(a: string, b: string): boolean {
  return foldPath(a) === foldPath(b);
}

/** Full ref names match case-sensitively, as git's refs do. */
export function refMatcher(globs: readonly string[]): PathMatcher {
  if (globs.length === 0) return () => false;
  return picomatch([...globs], { dot: true });
}
