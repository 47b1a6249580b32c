/**
 * What keeps a running leg honest while it waits on a model or a tool: the lease keeper (renew,
 * or stop the leg when the lease is lost) and the watcher (a cancel, an interrupt or an
 * interrupting input written by another process aborts the current step at once).
 */

import { isInterruptRequest } from "../../core/command-events.ts";
import type { Store } from "../../ports/store.ts";
import { isSemaError, LeaseLostError } from "../../protocol/errors.ts";
import type { StoredEvent } from "../../protocol/task-event.ts";

/**
 * Renew the lease every third of its TTL; call `onLost` once if it cannot be kept: refused
 * (`LeaseLost`), or not renewed before it would have expired by this host's reckoning — a store
 * outage is ridden out only while the lease can still be live, so the leg stops before another
 * worker may take the task over.
 */
export function keepLease(
  store: Store,
  taskId: string,
  token: string,
  ttlMs: number,
  onLost: (error: unknown) => void,
): () => void {
  let stopped = false;
  // Measured from before the request, so it never overestimates what the store granted.
  let validUntil = Date.now() + ttlMs;
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
      const asked = Date.now();
      try {
        await store.renewLease(taskId, token, ttlMs);
        if (stopped) return;
        validUntil = asked + ttlMs;
        clearTimeout(deadline);
        deadline = setTimeout(() => lose(new LeaseLostError(taskId)), validUntil - Date.now());
        deadline.unref?.();
      } catch (error) {
        // A briefly unavailable store is retried at the next tick, while the lease can be live.
        if (isSemaError(error, "LeaseLost") || Date.now() >= validUntil) lose(error);
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

/** An event written by someone else that must stop the current step now. */
export function isStopSignal(event: StoredEvent, legId: string): boolean {
  switch (event.type) {
    case "task_cancelled":
      return true;
    case "interrupt_requested":
    case "engine_note":
      return isInterruptRequest(event);
    case "human_input":
      return (
        event.delivery === "received" &&
        event.policy === "interrupt" &&
        (event.legId === undefined || event.legId === legId)
      );
    default:
      return false;
  }
}

/** Tail the log from `afterSeq`, handing every event to `onEvent`. Returns a stop function. */
export function watchForStops(
  store: Store,
  taskId: string,
  afterSeq: number,
  onEvent: (event: StoredEvent) => void,
): () => void {
  const controller = new AbortController();
  void (async () => {
    try {
      for await (const event of store.watch(taskId, { afterSeq, signal: controller.signal })) onEvent(event);
    } catch {
      // The watcher is an accelerator: the leg also sees every event when it next refreshes.
    }
  })();
  return () => controller.abort();
}
