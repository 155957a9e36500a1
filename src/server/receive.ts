// One push, judged as a whole. The per-push context is loaded once: the repository, its
// default branch tip before the push (which supplies the policy), every ref the repository had
// before the push (whose history is not new), the pusher, the deadline. Then every ref update
// goes through the same engine as `verify-ref`, and the decision is written for the person at
// the other end of `git push`.
//
// Fails closed: a malformed stdin line, an unreadable object, a broken policy, an exception or
// the deadline all reject the push with a sentence and the machine line.

import { resolve } from 'node:path';
import { evaluate } from '../engine';
import { emptyIdentities, finding, type Finding } from '../findings';
import { ObjectStore } from '../git/store';
import { gateResult, refResult, type GateResult } from '../results';
import { internalError } from '../rules/errors';
import { withReservedRefs } from '../rules/push-log';
import { resolveBase } from '../run/base';
import { identityFromEnv } from '../run/identity';
import type { RefUpdate } from '../types';
import { decidePush, type MessageOptions, type PushDecision } from './messages';
import { parseRefUpdates } from './protocol';

/** Below GitHub Enterprise's 5 s pre-receive budget, which all hooks of a push share. */
export const DEFAULT_TIMEOUT_MS = 4000;

export interface PushContext {
  /** The bare repository (the hook's GIT_DIR). */
  gitdir: string;
  /** The hook's environment: quarantine variables and the pusher's identity variable. */
  env: NodeJS.ProcessEnv;
  /** Today as a UTC date (injected clock); may throw on a bad setting, which rejects. */
  today: () => string;
  /** The clock, for the deadline (injected so tests can drive it). */
  now?: () => number;
  messages?: MessageOptions;
}

export interface PushOutcome extends PushDecision {
  result: GateResult;
  /** The policy blob that judged the push (recorded by the push log); null when none. */
  policyOid?: string | null;
}

/** The hook's GIT_DIR: git runs pre-receive inside the repository with GIT_DIR set (often '.'). */
export function gitdirOf(cwd: string, env: NodeJS.ProcessEnv): string {
  return resolve(cwd, env.GIT_DIR || '.');
}

export async function receivePush(ctx: PushContext, stdin: string): Promise<PushOutcome> {
  const now = ctx.now ?? Date.now;
  const started = now();
  const parsed = parseRefUpdates(stdin);
  if (!parsed.ok) {
    return failed(
      [],
      finding('INTERNAL_ERROR', {
        message: `pre-receive input line ${parsed.line} is not '<old-oid> <new-oid> <ref>': ${JSON.stringify(parsed.text.slice(0, 120))}`,
        fix: 'run the hook only as git\'s pre-receive hook (git writes this input); nothing was accepted',
      }),
      ctx,
    );
  }
  const updates = parsed.updates;
  if (updates.length === 0) return { accepted: true, lines: [], result: gateResult(false, null, null, []) };

  let store: ObjectStore | null = null;
  try {
    const date = ctx.today();
    // Setup (opening the store, reading the policy) gets the default budget; the policy's own
    // limits.timeoutMs then counts from the hook's start.
    const setup = await withTimeout(started + DEFAULT_TIMEOUT_MS, now, async () => {
      store = await ObjectStore.open({ gitdir: ctx.gitdir, env: ctx.env });
      const base = await resolveBase(store, { kind: 'server' });
      // Every ref the repository had before the push: their history is not new.
      // (The walk peels them only when it needs to; tips that name trees or blobs reach nothing.)
      const existingTips = [...new Set((await store.listRefs()).values())];
      return { store, base, existingTips };
    });
    const budget = setup.base.policy?.limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    const judged = await withTimeout(started + budget + 250, now, () =>
      evaluate(
        {
          store: setup.store,
          base: setup.base,
          identity: identityFromEnv(setup.base.policy, ctx.env),
          today: date,
          scope: { kind: 'server', existingTips: setup.existingTips },
          now,
          startedAt: started,
        },
        updates,
      ),
    );
    // refs/receipt-gate/** (the push log) is never written by a push: src/rules/push-log.ts.
    const result = withReservedRefs(judged);
    return { ...decidePush(result, ctx.messages), result, policyOid: setup.base.policyOid };
  } catch (err) {
    if (err instanceof PushTimeout) {
      return failed(
        updates,
        finding('LIMIT_EXCEEDED', {
          message: `the check did not finish within its time budget (limits.timeoutMs, default ${DEFAULT_TIMEOUT_MS} ms)`,
          fix: 'push fewer commits at once, or an owner raises limits.timeoutMs in the policy (keep it below the server\'s own hook limit)',
        }),
        ctx,
      );
    }
    return failed(updates, internalError(err, {}), ctx);
  } finally {
    (store as ObjectStore | null)?.close();
  }
}

class PushTimeout extends Error {
  constructor(readonly budgetMs: number) {
    super(`timed out after ${budgetMs} ms`);
  }
}

async function withTimeout<T>(deadline: number, now: () => number, work: () => Promise<T>): Promise<T> {
  const remaining = Math.max(0, deadline - now());
  if (remaining === 0) throw new PushTimeout(0);
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new PushTimeout(remaining)), remaining);
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}

/** A push that could not be judged: every ref update carries the finding, the push is refused. */
function failed(updates: RefUpdate[], f: Finding, ctx: PushContext): PushOutcome {
  const refs = (updates.length ? updates : [{ old: '', new: '', ref: '(stdin)' }]).map((update) =>
    refResult(update, false, [{ ...f, ref: update.ref === '(stdin)' ? undefined : update.ref }], [], emptyIdentities()),
  );
  const result = gateResult(false, null, identityFromEnv(null, ctx.env), refs);
  return { ...decidePush(result, ctx.messages), result };
}
