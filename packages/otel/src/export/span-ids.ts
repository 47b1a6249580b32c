/**
 * Span and trace ids derived from the task, not drawn at random: the same task gives the same
 * trace id on every worker and in every rebuild, and a span's id follows from its key. So a leg
 * exported live by one process and the task's root exported by another land in one trace, and a
 * rebuilt trace re-exported to a backend names the same spans as the live one.
 */
import { createHash } from "node:crypto";

function hex(text: string, length: number): string {
  return createHash("sha256").update(text).digest("hex").slice(0, length);
}

/** The trace id of a task: 32 hex digits from its id. */
export function traceIdOf(taskId: string): string {
  return hex(`sema-trace\u0000${taskId}`, 32);
}

/** The span id of one span of a task: 16 hex digits from the task id and the span's key. */
export function spanIdOf(taskId: string, key: string): string {
  return hex(`sema-span\u0000${taskId}\u0000${key}`, 16);
}
