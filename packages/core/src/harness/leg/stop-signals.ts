/**
 * Stop signals: a cancel, an interrupt or an interrupting input written by another process, which
 * must abort the leg's current step at once, and the tail of the log that watches for them.
 */

import { isInterruptRequest } from "../../core/command-events.ts";
import { abortCheaply } from "../../internal/abort.ts";
import type { Store } from "../../ports/store.ts";
import type { StoredEvent } from "../../protocol/task-event.ts";

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
  return () => abortCheaply(controller);
}

/**
 * Notes the interrupts that others wrote to the log: the writer shows it every event it folds
 * that this leg did not write, and the loop asks it at each step boundary.
 */
export class ForeignInterrupts {
  #requested = false;

  /** An event folded that this leg did not write. */
  see(event: StoredEvent): void {
    if (isInterruptRequest(event)) this.#requested = true;
  }

  get requested(): boolean {
    return this.#requested;
  }
}
