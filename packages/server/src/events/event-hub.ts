/**
 * The in-process hub for live ephemeral events (text and tool-input deltas). Workers in this
 * process publish every `emit` to it; SSE subscribers of a task read from it. Stored events are
 * not taken from here: the stream reads them from `store.watch`, which loses nothing. Deltas are
 * best effort and live only: a subscriber sees those emitted while it is connected, by a worker
 * in this process (with workers elsewhere, a subscriber gets the stored events only).
 */

import type { StreamEvent } from "@sema-agent/core";
import { type EphemeralEvent, isEphemeral } from "@sema-agent/core/protocol";

/** A subscriber of one task's live ephemeral events (it must not throw). */
export type EphemeralListener = (event: EphemeralEvent) => void;

/**
 * The in-process hub of live ephemeral events: workers in this process `publish` their `emit` to it,
 * and the API's event streams subscribe per task. Best effort and live only; stored events come
 * from the store.
 */
export class EventHub {
  readonly #listeners = new Map<string, Set<EphemeralListener>>();

  /** The `emit` sink for `runLeg`: never throws, drops stored events (the store delivers those). */
  readonly publish = (event: StreamEvent): void => {
    if (!isEphemeral(event)) return;
    const listeners = this.#listeners.get(event.taskId);
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener(event);
      } catch {
        // A subscriber's failure is its own; the leg and the other subscribers go on.
      }
    }
  };

  /** Receive `taskId`'s ephemeral events until the returned function is called. */
  subscribe(taskId: string, listener: EphemeralListener): () => void {
    let listeners = this.#listeners.get(taskId);
    if (listeners === undefined) {
      listeners = new Set();
      this.#listeners.set(taskId, listeners);
    }
    listeners.add(listener);
    return () => {
      const set = this.#listeners.get(taskId);
      set?.delete(listener);
      if (set?.size === 0) this.#listeners.delete(taskId);
    };
  }

  /** Subscribers of `taskId` (for tests and metrics). */
  subscribers(taskId: string): number {
    return this.#listeners.get(taskId)?.size ?? 0;
  }
}
