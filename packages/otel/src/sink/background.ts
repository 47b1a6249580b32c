/**
 * The background work of a live sink (traceEmit, metricsEmit): reads of the log and exports run
 * off the leg's path, and a failure, or a failing error handler, never reaches the leg.
 */
export interface Background {
  /** Hands an error to the sink's `onError`; a handler that throws is ignored. */
  report(error: unknown): void;
  /** Runs `promise` in the background: its failure is reported, and `settle` waits for it. */
  track(promise: Promise<unknown>): void;
  /** Whether any tracked work has not settled. */
  readonly busy: boolean;
  /** Resolves once everything tracked so far (and what that started) has settled. */
  settle(): Promise<void>;
}

/** The background work of one sink, reporting to `onError`. */
export function background(onError: ((error: unknown) => void) | undefined): Background {
  const pending = new Set<Promise<unknown>>();
  const report = (error: unknown) => {
    try {
      onError?.(error);
    } catch {
      // A failing error handler must not reach the leg either.
    }
  };
  return {
    report,
    track(promise) {
      const settled = promise.catch(report).finally(() => pending.delete(settled));
      pending.add(settled);
    },
    get busy() {
      return pending.size > 0;
    },
    async settle() {
      await Promise.allSettled([...pending]);
    },
  };
}
