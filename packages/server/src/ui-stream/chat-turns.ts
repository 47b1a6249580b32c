/**
 * A chat's turns in the task's log. A turn is one assistant message: it opens with the objective
 * or with a follow-up that woke the task (an input recorded as `parked` on the `wake` carrier:
 * no leg ran), and it spans every leg until the next one opens. A message sent while a leg runs
 * is a steer of the open turn, not a turn of its own.
 */
import type { StoredEvent } from "@sema-agent/core";

/** The carrier chat messages are sent on: a steer while a leg runs, a follow-up that wakes the task otherwise. */
export const CHAT_CARRIER = "wake";

/** Whether `event` opens a turn (a new assistant message). */
export function opensTurn(event: StoredEvent): boolean {
  if (event.type !== "human_input") return false;
  // The input's first record only: a later one (`applied`) is the same message taken by the model.
  if (event.carrier === "objective") return event.delivery === "received";
  return event.carrier === CHAT_CARRIER && event.delivery === "parked";
}

/** The assistant message id of the turn opened at `seq`: stable, so a reload and a resume name it alike. */
export function turnMessageId(seq: number): string {
  return `turn-${seq}`;
}

/** The seq of the event that opened the last turn of `events` (0 when none did). */
export function lastTurnStart(events: readonly StoredEvent[]): number {
  for (let index = events.length - 1; index >= 0; index--) {
    const event = events[index];
    if (event !== undefined && opensTurn(event)) return event.seq;
  }
  return 0;
}
