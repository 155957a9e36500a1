// One push, judged as a whole. The per-push context is loaded once: the repository, its
// default branch tip before the push (which supplies the policy), every ref the repository had
// before the push (whose history is not new), the pusher, the deadline. Then every ref update
// goes through the same engine as `verify-ref`, and the push is decided (src/server/decide.ts)
// for the entry to record (the push log) and print.
//
// Fails closed: a malformed stdin line, an unreadable object, a broken policy, an exception or
// the deadline all reject the push with a sentence and the machine line.

import { resolve } from 'node:path';
import { Deadline, DeadlineExceeded, hardTimeoutFor, hookRunTime, withinDeadline } from '../deadline';
import { evaluate } from '../engine';
import { finding, type Finding } from '../findings';
import { History } from '../git/history/history';
import { ObjectStore } from '../git/store';
import { gateResult, refResult } from '../results';
import { internalError } from '../rules/errors';
import { resolveBase } from '../run/base';
import { identityFromEnv } from '../run/identity';
import type { RefUpdate } from '../types';
import type { PushDecision } from '../decision';
import { decide } from './decide';
import { parseRefUpdates, refusedRefName, stdinBytes } from './protocol';
import { refNameFromLatin1 } from '../git/refname';
import { quotePath } from '../quote';
import { clippedName } from '../wording';
import { RESERVED_PREFIX } from '../pushlog/entry';

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
  /** When the hook started on that clock (the entry passes node's own start, so the budget
   * counts the start and the reading of stdin too); the call's start when absent. */
  startedAt?: number;
}

/** What receivePush hands back: the push's decision (src/decision.ts), and, when the hard
 * timeout cut the check of the policy's budget short, the hard timeout (s) that budget needs
 * (hardTimeoutFor): under the shim the push is then checked again under it (docs/engine.md,
 * "Time limits"). */
export type PushOutcome = PushDecision & { rerunHardTimeoutS?: number };

/** The hook's GIT_DIR: git runs pre-receive inside the repository with GIT_DIR set (often '.'). */
export function gitdirOf(cwd: string, env: NodeJS.ProcessEnv): string {
  return resolve(cwd, env.GIT_DIR || '.');
}

/** `stdin` is the hook's input as bytes (a Buffer, or a byte string); a JS string with
 * characters above 0x7f is taken as UTF-8 text (in-process callers). */
export async function receivePush(ctx: PushContext, stdin: string | Uint8Array): Promise<PushOutcome> {
  const now = ctx.now ?? Date.now;
  const started = ctx.startedAt ?? now();
  // A run's deadlines count the process's CPU time from the hook's start, with the wall-clock
  // ceiling the shim's hard timeout allows (src/deadline.ts); a test clock counts on itself.
  const time = ctx.now ? undefined : hookRunTime(started, ctx.env);
  const deadlineOf = (budgetMs: number, slackMs = 0) =>
    time ? Deadline.forRun(budgetMs, time, slackMs) : new Deadline(started + budgetMs + slackMs, budgetMs, now);
  const parsed = parseRefUpdates(stdinBytes(stdin));
  if (!parsed.ok) {
    return failed(
      [],
      finding('INTERNAL_ERROR', {
        message: `pre-receive input line ${parsed.line} is not '<old-oid> <new-oid> <ref>': ${parsed.why}: ${quotePath(Buffer.from(parsed.text.slice(0, 120), 'latin1'))}`,
        fix: 'run the hook only as git\'s pre-receive hook (git writes this input); nothing was accepted',
      }),
      ctx,
    );
  }
  const refused = refusedRefName(parsed.updates);
  if (refused) {
    return failed(
      [],
      finding('INTERNAL_ERROR', {
        message: `pre-receive input line ${refused.index + 1} names the ref ${clippedName(refused.ref, 200, (name) => quotePath(Buffer.from(name, 'latin1')))}, which git would refuse: ${refused.why}`,
        fix: 'push to a ref name `git check-ref-format` accepts; nothing was accepted',
      }),
      ctx,
    );
  }
  // From here on names are held as text (src/git/refname.ts), exactly.
  const updates = parsed.updates.map((u) => ({ ...u, ref: refNameFromLatin1(u.ref) }));
  if (updates.length === 0) return decide(gateResult([]));

  let store: ObjectStore | null = null;
  // The policy's budget, once the base's policy is read: a cut after that (RunTime.cut) asks for
  // the hard timeout this budget needs; a cut while the policy is read does not.
  let policyBudget: number | null = null;
  try {
    const date = ctx.today();
    // Setup (opening the store, reading the policy) gets the default budget; the policy's own
    // limits.timeoutMs then counts from the hook's start.
    const setup = await withinDeadline(deadlineOf(DEFAULT_TIMEOUT_MS), async () => {
      store = await ObjectStore.open({ gitdir: ctx.gitdir, env: ctx.env });
      const base = await resolveBase(store, { kind: 'server' });
      // Every ref the repository had before the push: their history is not new.
      // (The walk peels them only when it needs to; tips that name trees or blobs reach nothing.)
      // Only refs read as code count: a commit that only a notes, replace or other owners-only
      // ref reached was never judged as code, so a branch that later reaches it brings it.
      // One pass over packed-refs, a string made per distinct oid rather than per ref (a forge
      // keeps a million refs/pull/* refs; src/git/packed-refs.ts).
      const existingTips = store.refs.distinctOids(notCodePrefixes(store.objects.replaceRefBase));
      return { store, history: new History(store), base, existingTips };
    });
    const budget = setup.base.policy?.limits.timeoutMs ?? DEFAULT_TIMEOUT_MS;
    if (time) time.cut = false;
    policyBudget = budget;
    const judged = await withinDeadline(deadlineOf(budget, 250), () =>
      evaluate(
        {
          store: setup.store,
          history: setup.history,
          base: setup.base,
          identity: identityFromEnv(setup.base.policy, ctx.env),
          today: date,
          scope: { kind: 'server', existingTips: setup.existingTips },
          now: ctx.now,
          startedAt: started,
          time,
        },
        updates,
      ),
    );
    return rerunIfCut(decide(judged, setup.base.policyOid));
  } catch (err) {
    if (err instanceof DeadlineExceeded) {
      return rerunIfCut(failed(
        updates,
        finding('LIMIT_EXCEEDED', err.limit.kind === 'budget'
          ? {
              message: `the check did not finish within its time budget (limits.timeoutMs, default ${DEFAULT_TIMEOUT_MS} ms)`,
              fix: 'push fewer commits at once, or an owner raises limits.timeoutMs in the policy (keep it below the server\'s own hook limit)',
            }
          : err.explain()),
        ctx,
      ));
    }
    return failed(updates, internalError(err, {}), ctx);
  } finally {
    (store as ObjectStore | null)?.close();
  }

  /** The outcome, with the hard timeout to check the push again under when the policy's budget
   * was cut short by a hard timeout below the one it needs. */
  function rerunIfCut(outcome: PushOutcome): PushOutcome {
    if (!time?.cut || policyBudget === null || time.hardTimeoutS === null) return outcome;
    const need = hardTimeoutFor(policyBudget);
    return need > time.hardTimeoutS ? { ...outcome, rerunHardTimeoutS: need } : outcome;
  }
}

/** The name prefixes under which refKindOf (src/run/ref-kind.ts) reads a ref as not code
 * (reserved, replace, remotes, namespaces, notes): a ref under none of them is code, and only
 * code refs' tips are existing history (test/git/refs-scale.test.ts checks the two agree). */
export function notCodePrefixes(replaceBase: string): string[] {
  return [RESERVED_PREFIX, 'refs/replace/', replaceBase, 'refs/remotes/', 'refs/namespaces/', 'refs/notes/'];
}

/** A push that could not be judged: every ref update carries the finding, the push is refused. */
function failed(updates: RefUpdate[], f: Finding, ctx: PushContext): PushOutcome {
  const refs = (updates.length ? updates : [{ old: '', new: '', ref: '(stdin)' }]).map((update) =>
    refResult(update, [{ ...f, ref: update.ref === '(stdin)' ? undefined : update.ref }]),
  );
  return decide(gateResult(refs, { identity: identityFromEnv(null, ctx.env) }));
}
