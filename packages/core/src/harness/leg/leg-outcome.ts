/** What a leg reports when it ends: the task's status as the log then says, and why. */
import type { TaskState } from "../../core/fold.ts";
import { isSemaErrorCode, type SemaErrorCode } from "../../protocol/errors.ts";
import type { ParkReason } from "../../protocol/task-event.ts";
import type { TaskStatus } from "../../protocol/task-summary.ts";

/** How a leg ended (or that there was nothing to do). */
export interface LegOutcome {
  taskId: string;
  /** The leg that ran; absent when there was nothing to do. */
  legId?: string;
  status: TaskStatus;
  parkedReason?: ParkReason;
  result?: string;
  /** Why the task failed: the code its `task_failed` event records. */
  error?: { code: SemaErrorCode; message: string };
}

/** What a host reports after a leg: the task's status as the log now says. */
export function outcomeOf(taskId: string, state: TaskState, legId?: string): LegOutcome {
  const outcome: LegOutcome = { taskId, status: state.summary.status };
  if (legId !== undefined) outcome.legId = legId;
  if (state.summary.parkedReason !== undefined) outcome.parkedReason = state.summary.parkedReason;
  if (state.result !== undefined && state.summary.status === "completed") outcome.result = state.result;
  if (state.error !== undefined && state.summary.status === "failed") outcome.error = failureOf(state.error);
  return outcome;
}

/**
 * A recorded failure with its code typed. Sema records only its own codes; a log written by
 * another implementation may hold any string, reported as `ModelError` with that code kept in
 * the message so nothing is lost.
 */
function failureOf(error: { code: string; message: string }): { code: SemaErrorCode; message: string } {
  if (isSemaErrorCode(error.code)) return { code: error.code, message: error.message };
  return { code: "ModelError", message: `${error.code}: ${error.message}` };
}
