/**
 * The commands in a log that change what the harness does: an interrupt and a resume request.
 * Each has an event arm of its own; logs written before those arms existed carry them as
 * `engine_note`s of the same kind, read here exactly as the arms are.
 */
import type { TaskEvent } from "../protocol/task-event.ts";

/** Whether the event asks the running leg to stop at once and park. */
export function isInterruptRequest(event: TaskEvent): boolean {
  return event.type === "interrupt_requested" || (event.type === "engine_note" && event.kind === "interrupt_requested");
}

/** Whether the event asks for a parked task's next leg. */
export function isResumeRequest(event: TaskEvent): boolean {
  return event.type === "resume_requested" || (event.type === "engine_note" && event.kind === "resume_requested");
}
