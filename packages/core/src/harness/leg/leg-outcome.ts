/** What a leg reports when it ends: the task's status as the log then says, and why. */
import type { TaskState } from "../../core/fold.ts";
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
  error?: { code: string; message: string };
}

/** What a host reports after a leg: the task's status as the log now says. */
export function outcomeOf(taskId: string, state: TaskState, legId?: string): LegOutcome {
  const outcome: LegOutcome = { taskId, status: state.summary.status };
  if (legId !== undefined) outcome.legId = legId;
  if (state.summary.parkedReason !== undefined) outcome.parkedReason = state.summary.parkedReason;
  if (state.result !== undefined && state.summary.status === "completed") outcome.result = state.result;
  if (state.error !== undefined && state.summary.status === "failed") outcome.error = state.error;
  return outcome;
}
