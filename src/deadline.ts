// The run's deadline (limits.timeoutMs). Every long synchronous loop (walks, tree diffs, path
// matching, JSON parsing, hashing) calls `check()`: a timer alone only fires when the work
// yields, and synchronous work never does.
//
// A run's deadline (`Deadline.forRun`) counts the process's own CPU time (user + system), so a
// busy server does not refuse honest work, and has a wall-clock ceiling for hangs, checked in
// the same `check()`. The ceiling and the shim's hard timeout are one setting seen from two
// sides (docs/engine.md, "Time limits"): without a hard timeout the ceiling is WALL_FACTOR ×
// the CPU budget; under the shim it is the hard timeout the shim passes
// (RECEIPT_GATE_HARD_TIMEOUT) less the time to answer, so an administrator who raises the hard
// timeout raises the ceiling. A budget whose own ceiling is later than that is "cut" (RunTime.cut)
// when the ceiling runs out: the hook then asks the shim to check the push again under the hard
// timeout the budget needs (hardTimeoutFor), so an owner who raises limits.timeoutMs raises the
// hard timeout. The default hard timeout is the default budget's ceiling plus the margin.
// Tests build a Deadline on one injected clock (`new Deadline(at, budgetMs, now)`).

/** The wall-clock ceiling of a run is this many times its CPU budget. */
export const WALL_FACTOR = 10;
/** What the gate keeps before the shim's hard timeout to write its answer and exit. */
export const ANSWER_MARGIN_MS = 2000;
/** The shim's default hard timeout (s): the ceiling of the default 4000 ms budget + the margin. */
export const DEFAULT_HARD_TIMEOUT_S = 42;

/** Which limit ran out: a test clock's budget, the CPU budget, or the wall-clock ceiling. */
export type TimeLimit =
  | { kind: 'budget' }
  | { kind: 'cpu'; usedMs: number }
  | { kind: 'wall'; ceilingMs: number; usedCpuMs: number; hardTimeoutS: number | null };

/** Thrown by Deadline.check once time is up; the engine turns it into LIMIT_EXCEEDED. */
export class DeadlineExceeded extends Error {
  constructor(
    readonly budgetMs: number,
    readonly limit: TimeLimit = { kind: 'budget' },
  ) {
    super(limit.kind === 'wall' ? `the check did not finish within its wall-clock ceiling of ${limit.ceilingMs} ms` : `the check did not finish within ${budgetMs} ms`);
    this.name = 'DeadlineExceeded';
  }

  /** The finding's message and fix: which limit ran out and the setting to raise. */
  explain(): { message: string; fix: string } {
    const limit = this.limit;
    if (limit.kind === 'wall') {
      const need = hardTimeoutFor(this.budgetMs);
      const capped = limit.hardTimeoutS !== null && limit.ceilingMs < this.budgetMs * WALL_FACTOR;
      const ceiling = limit.hardTimeoutS !== null
        ? `${limit.ceilingMs} ms of wall-clock time, the server's hard timeout (RECEIPT_GATE_HARD_TIMEOUT=${limit.hardTimeoutS} s) less ${Math.round((limit.hardTimeoutS * 1000 - limit.ceilingMs))} ms to answer`
        : `${limit.ceilingMs} ms of wall-clock time (${WALL_FACTOR} × limits.timeoutMs)`;
      return {
        message: `the check did not finish within its time budget (limits.timeoutMs, ${this.budgetMs} ms of CPU time): its wall-clock ceiling ran out first, after ${ceiling}, with ${Math.round(limit.usedCpuMs)} ms of CPU used; the server is busy, or the check is stuck`,
        fix: capped
          ? `retry the push; for limits.timeoutMs ${this.budgetMs} ms the server administrator sets RECEIPT_GATE_HARD_TIMEOUT to at least ${need} s (${WALL_FACTOR} × limits.timeoutMs + ${ANSWER_MARGIN_MS / 1000} s), which raises this ceiling with it`
          : 'retry the push when the server is less busy; an owner who raises limits.timeoutMs in the policy raises this ceiling with it, and so does a server administrator who raises RECEIPT_GATE_HARD_TIMEOUT',
      };
    }
    const counted = limit.kind === 'cpu' ? `, counted on the check's own CPU time (${Math.round(limit.usedMs)} ms used)` : '';
    return {
      message: `the check did not finish within limits.timeoutMs (${this.budgetMs} ms)${counted}`,
      fix: `push fewer commits at once, or an owner raises limits.timeoutMs in the policy (on a server the hook's hard timeout follows it: a check that needs longer than RECEIPT_GATE_HARD_TIMEOUT is run again under ${WALL_FACTOR} × limits.timeoutMs + ${ANSWER_MARGIN_MS / 1000} s)`,
    };
  }
}

/** The hard timeout (whole seconds) that lets a CPU budget of `budgetMs` reach its full wall-clock ceiling. */
export function hardTimeoutFor(budgetMs: number): number {
  return Math.ceil((budgetMs * WALL_FACTOR + ANSWER_MARGIN_MS) / 1000);
}

/** The largest limits.timeoutMs a policy may set (schemas/policy.schema.json). */
export const MAX_TIMEOUT_MS = 3_600_000;
/** The longest hard timeout the gate asks the shim for: that of the largest budget (10 h 2 s).
 * The shim refuses a longer one. */
export const MAX_HARD_TIMEOUT_S = hardTimeoutFor(MAX_TIMEOUT_MS);

let cpuReadAt = Number.NaN;
let cpuReadMs = 0;

/** The process's own CPU time so far (user + system, every thread), in ms. Read at most once a
 * millisecond of the wall clock (a read costs about 2 µs, a Date.now() 0.1 µs; `check()` runs
 * in hot loops): at most a millisecond or so behind. */
export function processCpuMs(): number {
  const now = Date.now();
  if (now !== cpuReadAt) {
    cpuReadAt = now;
    const used = process.cpuUsage();
    cpuReadMs = (used.user + used.system) / 1000;
  }
  return cpuReadMs;
}

/** The clocks a run's deadline reads (injected in tests), both in ms. */
export interface RunClocks {
  cpu: () => number;
  wall: () => number;
}

export const PROCESS_CLOCKS: RunClocks = { cpu: processCpuMs, wall: Date.now };

/** When a run started, on both clocks, and the hard timeout that will stop the process. */
export interface RunTime {
  cpuStartedAt: number;
  wallStartedAt: number;
  /** The shim's hard timeout in seconds (RECEIPT_GATE_HARD_TIMEOUT), null when nothing kills the process. */
  hardTimeoutS: number | null;
  clocks: RunClocks;
  /** Set by a deadline made on this run when its wall-clock ceiling ran out while the hard
   * timeout held it short of WALL_FACTOR × its budget: the budget wanted a longer hard timeout
   * (hardTimeoutFor) than this process has. */
  cut?: boolean;
}

/** A run starting now, in a process nothing kills. */
export function runTimeNow(clocks: RunClocks = PROCESS_CLOCKS): RunTime {
  return { cpuStartedAt: clocks.cpu(), wallStartedAt: clocks.wall(), hardTimeoutS: null, clocks };
}

/**
 * The hard timeout timeout(1) will apply, in seconds, from the value the shim passes:
 * whole or decimal seconds with an optional s/m/h/d suffix. 0 (timeout(1)'s "no timeout"), an
 * unset or an unreadable value: null (the shim's timeout(1) refuses a value it cannot read, and
 * that push is rejected by the shim).
 */
export function hardTimeoutFromEnv(env: NodeJS.ProcessEnv): number | null {
  const m = /^\s*(\d+(?:\.\d*)?|\.\d+)([smhd]?)\s*$/.exec(env.RECEIPT_GATE_HARD_TIMEOUT ?? '');
  if (!m) return null;
  const seconds = Number(m[1]) * ({ '': 1, s: 1, m: 60, h: 3600, d: 86400 } as Record<string, number>)[m[2]!]!;
  return seconds > 0 ? seconds : null;
}

/**
 * The hook's run: CPU counted from the process's own start when the process is the hook itself
 * (started under a second ago: node's start is inside the budget, as `wallStartedAt` says),
 * otherwise from now; the hard timeout the shim passed.
 */
export function hookRunTime(wallStartedAt: number, env: NodeJS.ProcessEnv, clocks: RunClocks = PROCESS_CLOCKS): RunTime {
  const young = clocks === PROCESS_CLOCKS && process.uptime() <= 1;
  return { cpuStartedAt: young ? 0 : clocks.cpu(), wallStartedAt, hardTimeoutS: hardTimeoutFromEnv(env), clocks };
}

/** The wall-clock ceiling (ms from the run's start) of a CPU budget under a hard timeout:
 * WALL_FACTOR × the budget when nothing kills the process, else the hard timeout less the time
 * to answer (ANSWER_MARGIN_MS, or half of a hard timeout under twice that), whatever the budget:
 * a longer hard timeout gives every budget a longer ceiling, and a budget that wants a longer
 * one than the hard timeout allows is cut (RunTime.cut) and checked again under its own. */
export function wallCeilingMs(budgetMs: number, hardTimeoutS: number | null): number {
  if (hardTimeoutS === null) return budgetMs * WALL_FACTOR;
  const hard = hardTimeoutS * 1000;
  return hard - Math.min(ANSWER_MARGIN_MS, hard / 2);
}

interface Ceiling {
  at: number;
  ms: number;
  now: () => number;
  cpuAt: number;
  cpuBudget: number;
  hardTimeoutS: number | null;
  /** Whether the hard timeout holds this ceiling short of WALL_FACTOR × the budget. */
  capped: boolean;
  /** The run, marked `cut` when a capped ceiling runs out. */
  time: RunTime;
}

export class Deadline {
  private calls = 0;

  /**
   * @param at absolute time (in `now`'s units, ms) when the run must stop
   * @param budgetMs the budget it was made from, for messages
   * @param now the injected clock (for a run's deadline, the process's CPU time)
   * @param ceiling the wall-clock ceiling, checked with the budget (Deadline.forRun)
   */
  constructor(
    readonly at: number,
    readonly budgetMs: number,
    private readonly now: () => number = Date.now,
    private readonly ceiling: Ceiling | null = null,
  ) {}

  static after(budgetMs: number, now: () => number = Date.now): Deadline {
    return new Deadline(now() + budgetMs, budgetMs, now);
  }

  /**
   * A run's deadline: `budgetMs` (+ `slackMs`) of the process's CPU time from `time`'s start,
   * and the wall-clock ceiling (wallCeilingMs, + `slackMs`) from the same start.
   */
  static forRun(budgetMs: number, time: RunTime = runTimeNow(), slackMs = 0): Deadline {
    const ceilingMs = wallCeilingMs(budgetMs, time.hardTimeoutS);
    return new Deadline(time.cpuStartedAt + budgetMs + slackMs, budgetMs, time.clocks.cpu, {
      at: time.wallStartedAt + ceilingMs + slackMs,
      ms: ceilingMs + slackMs,
      now: time.clocks.wall,
      cpuAt: time.cpuStartedAt,
      cpuBudget: budgetMs + slackMs,
      hardTimeoutS: time.hardTimeoutS,
      capped: time.hardTimeoutS !== null && ceilingMs < budgetMs * WALL_FACTOR,
      time,
    });
  }

  /** A deadline that never passes (tools that run without a limit). */
  static never(): Deadline {
    return new Deadline(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  }

  /** Whether this is a run's deadline (a CPU budget and a wall-clock ceiling). */
  get twoClocks(): boolean {
    return this.ceiling !== null;
  }

  /** The least time left, on either clock (ms). */
  remaining(): number {
    const left = this.at - this.now();
    return this.ceiling ? Math.min(left, this.ceiling.at - this.ceiling.now()) : left;
  }

  expired(): boolean {
    return this.now() >= this.at || (this.ceiling !== null && this.ceiling.now() >= this.ceiling.at);
  }

  /** Throws DeadlineExceeded when the budget, or the wall-clock ceiling, is used up. */
  check(): void {
    const used = this.now();
    const c = this.ceiling;
    if (used >= this.at) throw new DeadlineExceeded(this.budgetMs, c ? { kind: 'cpu', usedMs: used - c.cpuAt } : { kind: 'budget' });
    if (c && c.now() >= c.at) throw this.wallOut(c, used);
  }

  /** The wall-clock ceiling ran out: marks the run cut when the hard timeout held the ceiling
   * short of the budget's own (WALL_FACTOR × the budget). */
  private wallOut(c: Ceiling, used: number): DeadlineExceeded {
    if (c.capped) c.time.cut = true;
    return new DeadlineExceeded(this.budgetMs, { kind: 'wall', ceilingMs: c.ms, usedCpuMs: used - c.cpuAt, hardTimeoutS: c.hardTimeoutS });
  }

  /** The DeadlineExceeded for the limit with the least time left (work refused before it
   * starts because it could not finish in that time). */
  exceeded(): DeadlineExceeded {
    const c = this.ceiling;
    if (!c) return new DeadlineExceeded(this.budgetMs);
    const used = this.now();
    return this.at - used <= c.at - c.now()
      ? new DeadlineExceeded(this.budgetMs, { kind: 'cpu', usedMs: used - c.cpuAt })
      : this.wallOut(c, used);
  }

  /** For hot loops: reads the clock only every `every` calls. */
  tick(every = 256): void {
    if (++this.calls % every === 0) this.check();
  }
}

/**
 * `work` raced against `deadline`: synchronous loops check the deadline themselves, and this
 * timer catches work that waits (a read, a child process). Throws DeadlineExceeded when time is
 * up, before starting when it already is. A run's deadline (Deadline.forRun) arms the timer for
 * the least time left on either clock and checks again when it fires: the process's CPU time
 * runs no faster than the wall clock while it waits, so a CPU budget not used up yet re-arms it.
 * The one timer every entry uses (docs/engine.md, "Time limits").
 */
export async function withinDeadline<T>(deadline: Deadline, work: () => Promise<T>): Promise<T> {
  deadline.check();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    const arm = () => {
      timer = setTimeout(() => {
        if (!deadline.twoClocks) {
          reject(new DeadlineExceeded(deadline.budgetMs));
          return;
        }
        try {
          deadline.check();
        } catch (err) {
          reject(err as DeadlineExceeded);
          return;
        }
        arm();
      }, Math.min(2 ** 31 - 1, Math.max(deadline.twoClocks ? 1 : 0, deadline.remaining())));
    };
    arm();
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
