/** The text a tool returns about a task: its answer, its error, or what it waits for and how to answer. */
import type { TaskDetailBody } from "../schemas/tasks.ts";

export function taskText(task: TaskDetailBody): string {
  switch (task.status) {
    case "completed":
      return task.result ?? "";
    case "failed":
      return `Task ${task.taskId} failed: ${task.error?.code ?? "Unknown"}: ${task.error?.message ?? ""}`;
    case "cancelled":
      return `Task ${task.taskId} was cancelled.`;
    case "parked": {
      if (task.pendingApprovals.length > 0) {
        const calls = task.pendingApprovals.map(
          (approval) => `${approval.name} ${approval.inputJson} (callId ${approval.callId}, digest ${approval.digest})`,
        );
        return `Task ${task.taskId} waits for approval of ${calls.join("; ")}. Decide with decide_approval (taskId, callId, digest, decision).`;
      }
      return `Task ${task.taskId} is parked (${task.parkedReason ?? "waiting"}${task.parkedDetail === undefined ? "" : `: ${task.parkedDetail}`}). Answer it with send_to_task.`;
    }
    default:
      return `Task ${task.taskId} is ${task.status}. Follow it with get_task or read sema://tasks/${task.taskId}.`;
  }
}
