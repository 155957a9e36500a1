// Shallow clones. A commit listed in `<gitdir>/shallow`, or one whose parent object is absent,
// is a boundary: the walks do not go below it, as git does not. An answer is never computed
// on the boundary when hidden history could change it; then a ShallowBoundaryError names the
// fix. Each walk's exact rule is in its module (new-commits.ts, server-new-commits.ts,
// merge-base.ts).

import { GitReadError } from '../types';

/** An answer would depend on history a shallow clone does not have. */
export class ShallowBoundaryError extends GitReadError {
  constructor(message: string, oid?: string) {
    super(message, oid);
    this.name = 'ShallowBoundaryError';
  }
}

/** The fix every ShallowBoundaryError ends with, as a sentence. */
export const SHALLOW_FIX =
  'Fetch the whole history: `fetch-depth: 0` in actions/checkout, or `git fetch --unshallow` (or `git fetch --deepen=<n>` until the base is included)';
