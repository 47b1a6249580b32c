/**
 * How many replays run at once in this process. A replay calls no model and runs no tool, but it
 * runs the task's legs again in memory: CPU and memory of the serving process, for as long as the
 * log is. So one principal has one at a time, and the process at most `max` (`limits.
 * maxConcurrentReplays`); past either, a 429 `RateLimited` with `Retry-After`, as the rate limit
 * answers. In-process, like the rate limit: with several API nodes each has its own.
 */
import { HttpError } from "../http-error.ts";

export class ReplaySlots {
  readonly #max: number;
  readonly #running = new Set<string>();

  constructor(max: number) {
    this.#max = max;
  }

  /** Take a slot for `principal` (429 when there is none); returns its release. */
  take(principal: string): () => void {
    const busy = this.#running.has(principal)
      ? "a replay of this principal is running"
      : this.#running.size >= this.#max
        ? `${this.#max} replays are running`
        : undefined;
    if (busy !== undefined)
      throw new HttpError(429, "RateLimited", `${busy}: try again when it has ended`, {
        details: { retryAfterSeconds: 1, maxConcurrentReplays: this.#max },
        headers: { "Retry-After": "1" },
      });
    this.#running.add(principal);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.#running.delete(principal);
    };
  }

  /** Replays running; for tests. */
  get size(): number {
    return this.#running.size;
  }
}
