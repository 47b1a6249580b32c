/**
 * What a leg delivers before its first model call: the objective, what arrived while no leg ran,
 * and wakes. When nothing else comes first (no timer, no open tool call, no approval: see
 * `leg-opening.ts`), these go in with the leg's `leg_started`, one append where there were two.
 */
import type { TaskState } from "../../core/fold.ts";
import { deliveryEvents } from "../../core/input-delivery.ts";
import type { RandomBytes } from "../../core/trust-framing.ts";
import { waitingInputs } from "../../core/waiting-inputs.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";

/** The carriers a leg delivers as it opens, in order. */
export const OPENING_CARRIERS = ["objective", "resume", "wake"] as const;

/**
 * The delivery events leg `legId` would append first, computed from the state before its start;
 * none when the leg has other work before them (then it delivers them itself, after that work).
 */
export function openingDeliveries(state: TaskState, legId: string, randomBytes?: RandomBytes): TaskEvent[] {
  if (state.timers.length > 0 || state.openToolCalls.length > 0 || state.approvals.length > 0) return [];
  const waiting = waitingInputs(state, legId);
  const events: TaskEvent[] = [];
  for (const carrier of OPENING_CARRIERS) {
    const inputs = waiting[carrier];
    if (inputs.length > 0) events.push(...deliveryEvents(carrier, inputs, state, randomBytes));
  }
  return events;
}
