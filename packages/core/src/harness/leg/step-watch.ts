/**
 * Watching the log while a step of a leg runs (a model call, a batch of tools): a step still
 * running after `WATCH_AFTER_MS` gets a watcher, so a cancel, an interrupt or an interrupting
 * input from another process aborts it at once. Shorter steps need none: the leg folds
 * everything at the next boundary anyway, and an instant step pays no watching cost.
 */

export const WATCH_AFTER_MS = 5;

export class StepWatch {
  /** Starts a watcher on the log; returns what stops it. */
  readonly #arm: () => () => void;
  readonly #afterMs: number;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #inStep = false;
  #stepStartedAt = 0;
  #stop: (() => void) | undefined;

  /** `afterMs`: how long a step runs before it is watched (default `WATCH_AFTER_MS`). */
  constructor(arm: () => () => void, afterMs = WATCH_AFTER_MS) {
    this.#arm = arm;
    this.#afterMs = afterMs;
  }

  /** Run one step, with the watcher armed if it runs long enough. */
  async run<T>(work: () => Promise<T>): Promise<T> {
    // Not the harness's clock: this times a `setTimeout` of a few ms, which needs the monotonic
    // clock timers run on; an injected clock that stands still would never arm the watcher.
    this.#stepStartedAt = performance.now();
    this.#inStep = true;
    // Touching a timer for every step was 3% of an instant turn: a step only notes its start,
    // and the one pending timer, when it fires, works out whether the step has run long enough.
    this.#timer ??= setTimeout(this.#onTimer, this.#afterMs);
    try {
      return await work();
    } finally {
      this.#inStep = false;
      this.#stop?.();
      this.#stop = undefined;
    }
  }

  /** Arm the watcher for a step running `WATCH_AFTER_MS` already; otherwise wait for that moment. */
  readonly #onTimer = (): void => {
    this.#timer = undefined;
    if (!this.#inStep || this.#stop !== undefined) return;
    const left = this.#stepStartedAt + this.#afterMs - performance.now();
    if (left > 0) {
      this.#timer = setTimeout(this.#onTimer, left);
      return;
    }
    this.#stop = this.#arm();
  };

  /** Stop the timer and any watcher (the leg is over). */
  dispose(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer);
    this.#stop?.();
  }
}
