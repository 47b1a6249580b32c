/**
 * Which events of a recorded log a replay writes itself and which it feeds in (docs/guide/
 * time-travel.md). A replay runs the harness again: it rewrites the leg's own events (turns,
 * deliveries, tool calls and results, approvals asked, the end), and is fed, at the point of the
 * log where they were recorded, the events people and other processes wrote (inputs, decisions,
 * interrupts, resumes, cancels, a child's result, a client's tool result, timers).
 */
import { isInterruptRequest, isResumeRequest } from "../core/command-events.ts";
import type { StoredEvent, TaskEvent } from "../protocol/task-event.ts";

/**
 * The leg's own events that mark its progress, which a replay writes in the same order: where the
 * fed events are placed. Legs' starts and ends, tool starts and notes are not counted: a replay
 * may split or join legs differently (a child run in the same process or by a worker).
 */
export function isStep(event: TaskEvent, externalResults: ReadonlySet<string>): boolean {
  switch (event.type) {
    case "tool_result":
      return !externalResults.has(event.callId);
    // A spawn is the leg's, wherever the child then runs: its result is fed after it.
    case "child_task":
      return event.phase === "spawned";
    case "user_message":
    case "model_turn":
    case "hook_feedback":
    case "compaction":
    case "approval_requested":
    case "task_completed":
    case "task_failed":
      return true;
    default:
      return false;
  }
}

/**
 * Whether a recorded event came from outside the leg, so a replay feeds it in: an input as it
 * arrived, a decision, an interrupt, a resume, a cancel, a timer, tools a client offers, a child's
 * result, a result a client submitted (`externalResults`: the calls of external tools).
 */
export function isFed(event: StoredEvent, externalResults: ReadonlySet<string>): boolean {
  switch (event.type) {
    case "human_input":
      return event.delivery === "received" || event.delivery === "parked";
    case "approval_decided":
    case "interrupt_requested":
    case "resume_requested":
    case "task_cancelled":
    case "wake_scheduled":
    case "external_tools":
      return true;
    case "engine_note":
      return isInterruptRequest(event) || isResumeRequest(event);
    case "child_task":
      return event.phase === "result";
    case "tool_result":
      return externalResults.has(event.callId);
    default:
      return false;
  }
}
