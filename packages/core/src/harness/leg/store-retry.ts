/**
 * Riding out a store that is briefly unreachable (a PostgreSQL failover, a dropped connection):
 * a leg retries `StoreUnavailable` with exponential backoff and jitter for as long as its lease
 * could still be live, and gives up at once when the lease is known lost — so a leg that cannot
 * prove it still owns the task stops before its next side effect.
 */
import { isSemaError } from "../../protocol/errors.ts";
import { wallClock } from "../defaults.ts";

export interface StoreRetryPolicy {
  /** Give up once this long has passed since the first failure (the lease TTL for a leg). */
  maxMs: number;
  /** Aborted when retrying is pointless (the lease was lost, the host stops). */
  signal?: AbortSignal;
  /** First delay; doubled each time up to `capMs`. Default 50 ms. */
  baseMs?: number;
  /** Default 2,000 ms. */
  capMs?: number;
  /** Told before each wait. */
  onRetry?: (error: unknown, attempt: number, delayMs: number) => void;
  /** For tests. Default `Math.random`. */
  random?: () => number;
  /** Milliseconds since the epoch, that `maxMs` is measured by (the harness's clock). Default `Date.now`. */
  now?: () => number;
}

function wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted === true) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}

/**
 * Run `work`, retrying it while it fails with `StoreUnavailable`. Any other error, an aborted
 * signal or the time budget spent rethrows the last failure unchanged.
 */
export async function retryStoreUnavailable<T>(work: () => Promise<T>, policy: StoreRetryPolicy): Promise<T> {
  const base = policy.baseMs ?? 50;
  const cap = policy.capMs ?? 2_000;
  const random = policy.random ?? Math.random;
  const now = policy.now ?? wallClock;
  // A function, so the check after an await is not narrowed away by the one before it.
  const aborted = () => policy.signal?.aborted === true;
  let firstFailure: number | undefined;
  for (let attempt = 1; ; attempt++) {
    try {
      return await work();
    } catch (error) {
      if (!isSemaError(error, "StoreUnavailable") || aborted()) throw error;
      firstFailure ??= now();
      const left = firstFailure + policy.maxMs - now();
      if (left <= 0) throw error;
      // Full jitter over the exponential step, so many legs reconnecting do not stampede.
      const delay = Math.min(left, Math.max(1, Math.round(random() * Math.min(cap, base * 2 ** (attempt - 1)))));
      policy.onRetry?.(error, attempt, delay);
      await wait(delay, policy.signal);
      if (aborted()) throw error;
    }
  }
}
