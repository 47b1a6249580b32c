/**
 * How a leg's own steps end it: `leg_ended` with the reason the task stops here (parked, or
 * cancelled), after the note that says why; or the task failed, in one append with the leg's end.
 */
import type { SemaErrorCode } from "../../protocol/errors.ts";
import type { TaskEvent } from "../../protocol/task-event.ts";
import type { HookFailure } from "../hooks/hook-runner.ts";
import type { RunningLeg } from "./running-leg.ts";

/** Why a leg's step ends it with the task still going (or cancelled). */
export type LegEndReason =
  | "cancelled"
  | "parked:interrupt"
  | "parked:budget"
  | "parked:approval"
  | "parked:child"
  | "parked:shutdown";

/** End the leg (after `note`, when given), unless it is no longer the task's leg. */
export async function endLeg(
  leg: RunningLeg,
  reason: LegEndReason,
  note?: TaskEvent,
  detail?: string,
): Promise<"ended"> {
  const { legId } = leg.ctx;
  await leg.ctx.writer.appendWhen((state) => {
    if (state.summary.legId !== legId) return undefined;
    const ended: TaskEvent = { type: "leg_ended", v: 1, legId, reason };
    if (detail !== undefined) ended.detail = detail;
    return note === undefined ? [ended] : [note, ended];
  });
  return "ended";
}

/** The task fails and the leg ends, in one append. */
export async function failTask(leg: RunningLeg, code: SemaErrorCode, message: string): Promise<"ended"> {
  await leg.ctx.writer.append([
    { type: "task_failed", v: 1, error: { code, message } },
    { type: "leg_ended", v: 1, legId: leg.ctx.legId, reason: "failed" },
  ]);
  return "ended";
}

/** A hook failed closed: the task fails, naming it. */
export function failHook(leg: RunningLeg, failure: HookFailure): Promise<"ended"> {
  return failTask(leg, "HookFailed", `the ${failure.hook} hook failed: ${failure.message}`);
}
