/**
 * The timer of a task parked because its model was unavailable (`parked:model`). It is an
 * ordinary durable timer (`wake_scheduled`), so every store indexes it and every worker picks the
 * task up when it is due, but it carries no message: the next leg retires it (a `dropped` wake
 * input with its id) and asks the model the same turn again, so the transcript is unchanged.
 * The `wakeId` prefix is what tells it apart; ids minted by `wakeAt` never have it. A task parked
 * at a quota of its principal (`parked:quota`) waits on the same kind of silent timer, due at the
 * quota window's edge, with the prefix `quota-wait:`.
 */

import type { HumanInputEvent } from "../protocol/human-input.ts";
import type { TaskState } from "./fold.ts";
import { buildHumanInputEvent } from "./human-input-projection.ts";

const PREFIX = "model-wait:";
const QUOTA_PREFIX = "quota-wait:";

/** The timer id of the park that ends leg `legId`: one park per leg, the same on a replay. */
export function modelWaitId(legId: string): string {
  return `${PREFIX}${legId}`;
}

/** The timer id of the quota park that ends leg `legId` (see the module comment). */
export function quotaWaitId(legId: string): string {
  return `${QUOTA_PREFIX}${legId}`;
}

/**
 * Whether a timer is a silent wait (a model park's or a quota park's, see the module comment), not
 * a wake someone scheduled.
 */
export function isModelWait(wakeId: string): boolean {
  return wakeId.startsWith(PREFIX) || wakeId.startsWith(QUOTA_PREFIX);
}

/**
 * The events that retire every model-park timer of the task, due or not: a leg that starts asks
 * the model again anyway, so an older wait must not start another leg later.
 */
export function modelWaitRetirements(state: TaskState): HumanInputEvent[] {
  return state.timers
    .filter((timer) => isModelWait(timer.wakeId))
    .map((timer) =>
      buildHumanInputEvent({
        inputId: timer.wakeId,
        carrier: "wake",
        source: timer.source,
        delivery: "dropped",
        sessionSeq: state.summary.sessionSeq,
      }),
    );
}
