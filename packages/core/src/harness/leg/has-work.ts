/** Whether a task has work for a leg: what a host asks before it takes the lease. */
import { isExternalCall, type TaskState } from "../../core/fold.ts";
import { isTerminal } from "../../core/task-summary.ts";
import { waitingInputs } from "../../core/waiting-inputs.ts";

/** Whether a leg has anything to do for a task in this state (at `nowMs`, for timers). */
export function hasWork(state: TaskState, nowMs: number): boolean {
  const { status, parkedReason } = state.summary;
  if (status === "cancelled") return false;
  if (state.timers.some((timer) => Date.parse(timer.due) <= nowMs)) return true;
  if (isTerminal(status)) return waitingInputs(state).wake.length > 0;
  if (status === "parked" && parkedReason === "approval") return state.approvals.every((a) => a.decision !== undefined);
  if (status === "parked" && parkedReason === "tool")
    return !state.openToolCalls.some((call) => isExternalCall(state, call));
  return true;
}
