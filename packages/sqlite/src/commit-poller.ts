/**
 * Live delivery of appends made through another connection (another process, or another store on
 * the same file). SQLite cannot push a change across connections, so while anything watches, one
 * timer per store asks whether another connection committed (`PRAGMA data_version`, a few
 * microseconds) every `pollMs` and wakes every waiter when it did. The cost is one query per tick
 * however many watchers there are, and nothing at all while nobody watches.
 */

export interface CommitPollerOptions {
  pollMs: number;
  /**
   * Whether a commit since the previous look counts as news when polling starts (default false:
   * the waiter reads after it armed, so only later commits are news). The writer thread sets it:
   * it hears of a waiter a moment after the waiter read on another connection.
   */
  catchUp?: boolean;
  /** True when another connection committed since the previous call. */
  changed(): boolean;
  /** Wake every waiter; each re-reads its task, so a wake with nothing new costs one empty read. */
  wake(): void;
}

export class CommitPoller {
  readonly #options: CommitPollerOptions;
  #holders = 0;
  #timer: ReturnType<typeof setInterval> | undefined;

  constructor(options: CommitPollerOptions) {
    this.#options = options;
  }

  /** Keep polling until the returned function is called (once per waiter). */
  hold(): () => void {
    this.#holders++;
    if (this.#timer === undefined) {
      // Reset the baseline, so only commits after this point count as news (unless catching up).
      this.#tick(this.#options.catchUp === true);
      this.#timer = setInterval(() => this.#tick(true), this.#options.pollMs);
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      if (--this.#holders === 0) this.stop();
    };
  }

  /** Whether the timer runs (something holds it). */
  get polling(): boolean {
    return this.#timer !== undefined;
  }

  /** Look once without waking anyone: sets the baseline the next look compares with. */
  check(): void {
    this.#tick(false);
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer);
    this.#timer = undefined;
  }

  #tick(wake: boolean): void {
    let changed: boolean;
    try {
      changed = this.#options.changed();
    } catch {
      // The database went away (closed, I/O error): wake everyone, whose next read reports it.
      this.stop();
      this.#options.wake();
      return;
    }
    if (changed && wake) this.#options.wake();
  }
}
