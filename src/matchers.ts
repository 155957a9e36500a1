// Policy globs compiled into matchers: repository paths match on their folded keys
// (src/paths.ts), full ref names byte for byte and case-sensitively, as git compares refs. A glob
// that fails to compile is matched as a literal name (the policy's schema check reports it).

import { compileGlob, GlobError, type CompiledGlob } from './glob';
import { pathSegments } from './paths';

export type PathMatcher = (path: string) => boolean;

const cache = new Map<string, PathMatcher>();

/**
 * A matcher for any of `globs`, on folded keys (short names included). A string that is not a
 * valid glob (policy validation refuses those; callers that pass a literal path may still hold
 * one) matches the one path it spells.
 */
export function matcher(globs: readonly string[]): PathMatcher {
  const key = JSON.stringify(globs);
  let m = cache.get(key);
  if (!m) {
    const compiled = globs.map((g) => compileOrLiteral(g, true));
    m = (path: string) => {
      if (compiled.length === 0) return false;
      const segments = pathSegments(path);
      return compiled.some((g) => g.matchSegments(segments));
    };
    cache.set(key, m);
  }
  return m;
}

function compileOrLiteral(glob: string, fold: boolean): CompiledGlob {
  try {
    return compileGlob(glob, { fold });
  } catch (err) {
    if (!(err instanceof GlobError)) throw err;
    return compileGlob(escapeLiteral(glob), { fold });
  }
}

function escapeLiteral(path: string): string {
  return path.replace(/[\\*?[\]{}()!+@|^$]/g, (c) => `\\${c}`);
}

/** Full ref names match case-sensitively, as git's refs do (no folding, no short names). */
export function refMatcher(globs: readonly string[]): (ref: string) => boolean {
  if (globs.length === 0) return () => false;
  const compiled = globs.map((g) => compileOrLiteral(g, false));
  return (ref: string) => {
    const segments = ref.split('/').map((key) => ({ key, short: null }));
    return compiled.some((g) => g.matchSegments(segments));
  };
}
