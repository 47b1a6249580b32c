/**
 * Keeping a running leg's lease while it waits on a model or a tool: renew it, or stop the leg
 * when it is lost.
 */

import type { Store } from "../../ports/store.ts";
import { isSemaError, LeaseLostError } from "../../protocol/errors.ts";

/**
 * Renew the lease every third of its TTL; call `onLost` once if it cannot be kept: refused
 * (`LeaseLost`), or not renewed before it would have expired by this host's reckoning (`clock`,
 * the harness's) — a store outage is ridden out only while the lease can still be live, so the
 * leg stops before another worker may take the task over.
 */
export function keepLease(
  store: Store,
  taskId: string,
  token: string,
  ttlMs: number,
  clock: () => number,
  onLost: (error: unknown) => void,
): () => void {
  let stopped = false;
  // Measured from before the request, so it never overestimates what the store granted.
  let validUntil = clock() + ttlMs;
  const lose = (error: unknown) => {
    if (stopped) return;
    stopped = true;
    clearInterval(timer);
    clearTimeout(deadline);
    onLost(error);
  };
  let deadline = setTimeout(() => lose(new LeaseLostError(taskId)), ttlMs);
  deadline.unref?.();
  const timer = setInterval(
    async () => {
      if (stopped) return;
      const asked = clock();
      try {
        await store.renewLease(taskId, token, ttlMs);
        if (stopped) return;
        validUntil = asked + ttlMs;
        clearTimeout(deadline);
        deadline = setTimeout(() => lose(new LeaseLostError(taskId)), validUntil - clock());
        deadline.unref?.();
      } catch (error) {
        // A briefly unavailable store is retried at the next tick, while the lease can be live.
        if (isSemaError(error, "LeaseLost") || clock() >= validUntil) lose(error);
      }
    },
    Math.max(10, Math.floor(ttlMs / 3)),
  );
  timer.unref?.();
  return () => {
    stopped = true;
    clearInterval(timer);
    clearTimeout(deadline);
  };
}
