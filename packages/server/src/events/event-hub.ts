/**
 * The in-process hub for live ephemeral events (text and tool-input deltas). Workers in this
 * process publish every `emit` to it; SSE subscribers of a task read from it. Stored events are
 * not taken from here: the stream reads them from `store.watch`, which loses nothing. Deltas are
 * best effort and live only: a subscriber sees those emitted while it is connected, by a worker
 * in this process (with workers elsewhere, a subscriber gets the stored events only).
 */

import type { StreamEvent } from "@sema-agent/core";
import { type EphemeralEvent, isEphemeral } from "@sema-agent/core/protocol";
import { isStepBoundary } from "./step-boundary.ts";

/**
 * A delta, with the seq of the stored event its model step began after (see `isStepBoundary`),
 * or undefined when this hub did not see that step begin (or stopped keeping it).
 */
export type EphemeralListener = (event: EphemeralEvent, stepAfterSeq: number | undefined) => void;

/** The deltas of a task's model step under way, since the stored event it began after. */
export interface StepDeltas {
  afterSeq: number;
  deltas: readonly EphemeralEvent[];
}

/** Bytes of deltas kept for one task's step under way (past it, a joining stream waits for the step's end). */
const MAX_STEP_BYTES = 256 * 1024;

/**
 * The in-process hub of live ephemeral events: workers in this process `publish` their `emit` to it,
 * and the API's event streams subscribe per task. Best effort and live only; stored events come
 * from the store. It keeps the deltas of each task's model step under way (up to 256 KiB), so a
 * stream that joins mid-step can replay the step's text so far (`step`).
 */
export class EventHub {
  readonly #listeners = new Map<string, Set<EphemeralListener>>();
  /** Per task, the step under way as far as this hub saw it, so a stream joining mid-step has its start. */
  readonly #steps = new Map<string, { afterSeq: number; deltas: EphemeralEvent[]; bytes: number }>();

  /**
   * The `emit` sink for `runLeg`: never throws. Stored events are not passed on (the store
   * delivers those); they only mark where a model step begins and its legs end.
   */
  readonly publish = (event: StreamEvent): void => {
    if (!isEphemeral(event)) {
      if (isStepBoundary(event)) this.#steps.set(event.taskId, { afterSeq: event.seq, deltas: [], bytes: 0 });
      else if (event.type === "leg_ended") this.#steps.delete(event.taskId);
      return;
    }
    const step = event.type === "store_retry" ? undefined : this.#keep(event);
    const listeners = this.#listeners.get(event.taskId);
    if (listeners === undefined) return;
    for (const listener of listeners) {
      try {
        listener(event, step);
      } catch {
        // A subscriber's failure is its own; the leg and the other subscribers go on.
      }
    }
  };

  /** Keep a delta with its step; the step's seq, or undefined when it is not kept (unknown, too large). */
  #keep(event: EphemeralEvent): number | undefined {
    const step = this.#steps.get(event.taskId);
    if (step === undefined) return undefined;
    step.bytes += 64 + ("delta" in event ? event.delta.length * 2 : 0);
    if (step.bytes > MAX_STEP_BYTES) {
      this.#steps.delete(event.taskId);
      return undefined;
    }
    step.deltas.push(event);
    return step.afterSeq;
  }

  /**
   * The deltas of `taskId`'s model step under way, from its start, if this hub saw it begin. Read
   * with `subscribe` in the same turn of the event loop, nothing falls between the two.
   */
  step(taskId: string): StepDeltas | undefined {
    const step = this.#steps.get(taskId);
    return step === undefined ? undefined : { afterSeq: step.afterSeq, deltas: [...step.deltas] };
  }

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
