// The run's deadline (limits.timeoutMs), from the injected clock. Every long synchronous loop
// (walks, tree diffs, path matching, JSON parsing, hashing) calls `check()`: a timer alone only
// fires when the work yields, and synchronous work never does.

/** Thrown by Deadline.check once time is up; the engine turns it into LIMIT_EXCEEDED. */
export class DeadlineExceeded extends Error {
  constructor(readonly budgetMs: number) {
    super(`the check did not finish within ${budgetMs} ms`);
    this.name = 'DeadlineExceeded';
  }
}

export class Deadline {
  private calls = 0;

  /**
   * @param at absolute time (in `now`'s units, ms) when the run must stop
   * @param budgetMs the budget it was made from, for messages
   * @param now the injected clock
   */
  constructor(
    readonly at: number,
    readonly budgetMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  static after(budgetMs: number, now: () => number = Date.now): Deadline {
    return new Deadline(now() + budgetMs, budgetMs, now);
  }

  /** A deadline that never passes (tools that run without a limit). */
  static never(): Deadline {
    return new Deadline(Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY);
  }

  remaining(): number {
    return this.at - this.now();
  }

  expired(): boolean {
    return this.now() >= this.at;
  }

  /** Throws DeadlineExceeded when time is up. */
  check(): void {
    if (this.now() >= this.at) throw new DeadlineExceeded(this.budgetMs);
  }

  /** For hot loops: reads the clock only every `every` calls. */
  tick(every = 256): void {
    if (++this.calls % every === 0) this.check();
  }
}

/**
 * `work` raced against `deadline`: synchronous loops check the deadline themselves, and this
 * timer catches work that waits (a read, a child process). Throws DeadlineExceeded when time is
 * up, before starting when it already is. The one timer every entry uses (docs/engine.md, "Time
 * limits").
 */
export async function withinDeadline<T>(deadline: Deadline, work: () => Promise<T>): Promise<T> {
  deadline.check();
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineExceeded(deadline.budgetMs)), Math.max(0, deadline.remaining()));
  });
  try {
    return await Promise.race([work(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
