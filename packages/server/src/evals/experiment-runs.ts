/**
 * The experiments running on this node (`POST /v1/evals/experiments`, `…/resume`): each runs in
 * the background as its principal's tasks, one per principal at a time (past it, a 429
 * `RateLimited` with `Retry-After`, as a replay answers). Nothing of a run is kept here beyond
 * whether it runs: its record and its tasks' logs are the experiment, so a run stopped by the
 * server's shutdown signal (its tasks park as shut down) is continued by a resume, here or on
 * another node. In-process, like the replays' slots: with several API nodes each has its own.
 */
import type { HarnessOptions } from "@sema-agent/core";
import { HttpError } from "../http-error.ts";

/**
 * The harness settings an experiment's legs run with: those the node's workers use (lease
 * holder, `holderDied`, the quota gate so token and dollar quotas apply, the clock, the sinks).
 */
export type ExperimentHarness = Pick<
  HarnessOptions,
  "holder" | "holderDied" | "quota" | "clock" | "emit" | "childEmit" | "traceparentOf" | "leaseTtlMs"
>;

/** What `createApp` is given for experiments: their harness settings and the node's shutdown signal. */
export interface EvalsOptions {
  harness?: ExperimentHarness;
  /**
   * The task ids the node's experiments drive, kept while they do (`driving` of `runExperiment`):
   * `serve` gives its worker pool the same set to leave out of its claims. Default: none.
   */
  driving?: Set<string>;
  /** Aborted as the node stops: running experiments stop, their tasks parked as shut down. */
  shutdown?: AbortSignal;
}

/** A reserved slot: start the run in it, or give it back. */
export interface ExperimentSlot {
  /** Run `run` in the background under this slot; it gets the signal that stops it. */
  start(experimentId: string, run: (signal: AbortSignal) => Promise<unknown>): void;
  /** Give the slot back unused (a request refused after it was taken). */
  release(): void;
}

interface Running {
  experimentId: string | undefined;
  stop: AbortController;
  done: Promise<void>;
}

/** The runs of each app, by the shutdown signal it was given: what `serve`'s close waits for. */
const runsBySignal = new WeakMap<AbortSignal, Set<ExperimentRuns>>();

/**
 * Resolves when every experiment of the apps given `shutdown` has ended (once it is aborted,
 * they stop: their tasks park as shut down), or at `deadlineMs`, whichever is first.
 */
export async function experimentsStopped(shutdown: AbortSignal, deadlineMs: number): Promise<void> {
  const all = [...(runsBySignal.get(shutdown) ?? [])];
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, deadlineMs);
  });
  try {
    await Promise.race([Promise.all(all.map((runs) => runs.settled())), deadline]);
  } finally {
    clearTimeout(timer);
  }
}

export class ExperimentRuns {
  readonly #running = new Map<string, Running>();
  /** The last run of each experiment that stopped on an error here (by `principal experimentId`): its message. */
  readonly #failed = new Map<string, string>();
  readonly #shutdown: AbortSignal | undefined;
  readonly #onError: (error: unknown, experimentId: string) => void;

  constructor(
    shutdown?: AbortSignal,
    onError: (error: unknown, experimentId: string) => void = (error, id) =>
      console.error(`sema server: experiment ${id} stopped on an error`, error),
  ) {
    this.#shutdown = shutdown;
    this.#onError = onError;
    if (shutdown !== undefined) {
      const set = runsBySignal.get(shutdown) ?? new Set();
      set.add(this);
      runsBySignal.set(shutdown, set);
    }
  }

  /** Resolves when every run here has ended (without stopping any). */
  async settled(): Promise<void> {
    await Promise.all([...this.#running.values()].map((entry) => entry.done));
  }

  /** Take `principal`'s slot (429 while one of its experiments runs here). */
  reserve(principal: string): ExperimentSlot {
    if (this.#running.has(principal))
      throw new HttpError(
        429,
        "RateLimited",
        "an experiment of this principal is running: try again when it has ended",
        {
          details: { retryAfterSeconds: 5 },
          headers: { "Retry-After": "5" },
        },
      );
    if (this.#shutdown?.aborted === true)
      throw new HttpError(503, "Unavailable", "the server is stopping: start the experiment on another node", {
        headers: { "Retry-After": "1" },
      });
    const entry: Running = { experimentId: undefined, stop: new AbortController(), done: Promise.resolve() };
    this.#running.set(principal, entry);
    let used = false;
    const free = () => {
      if (this.#running.get(principal) === entry) this.#running.delete(principal);
    };
    return {
      start: (experimentId, run) => {
        if (used) return;
        used = true;
        entry.experimentId = experimentId;
        this.#failed.delete(`${principal} ${experimentId}`);
        const signal =
          this.#shutdown === undefined ? entry.stop.signal : AbortSignal.any([entry.stop.signal, this.#shutdown]);
        entry.done = Promise.resolve()
          .then(() => run(signal))
          .then(
            () => undefined,
            (error: unknown) => {
              if (signal.aborted) return;
              this.#onError(error, experimentId);
              // Kept for GET (bounded: an experiment's latest failure, cleared when it runs again).
              this.#failed.set(`${principal} ${experimentId}`, error instanceof Error ? error.message : String(error));
            },
          )
          .finally(free);
      },
      release: () => {
        if (used) return;
        used = true;
        free();
      },
    };
  }

  /** Why `experimentId` of `principal` last stopped on an error here, if it did (a resume clears it). */
  failure(principal: string, experimentId: string): string | undefined {
    return this.#failed.get(`${principal} ${experimentId}`);
  }

  /** Whether `experimentId` of `principal` runs here now. */
  isRunning(principal: string, experimentId: string): boolean {
    return this.#running.get(principal)?.experimentId === experimentId;
  }

  /** Stop every run here; resolves when they have ended. */
  async stopAll(): Promise<void> {
    const all = [...this.#running.values()];
    for (const entry of all) entry.stop.abort(new Error("the server is stopping"));
    await Promise.all(all.map((entry) => entry.done));
  }

  /** Runs in progress (reserved or started); for tests. */
  get size(): number {
    return this.#running.size;
  }
}
